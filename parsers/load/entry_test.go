package load

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

// A site that proxies to the upstream "app", which only nginx.conf
// declares: alone, nobody knows what "app" is.
const (
	entryConf = `events {}
http {
    upstream app { server 10.0.0.1:8000; }
    server {
        listen 80;
        include conf.d/*.conf;
    }
}
`
	fragmentConf = "location / {\n    proxy_pass http://app;\n}\n"
)

func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
	t.Chdir(dir)
	return dir
}

// upstreamOf is the upstream the only route of the model proxies to.
func upstreamOf(t *testing.T, m *model.Model) *model.Upstream {
	t.Helper()
	require.Len(t, m.Proxies, 1)
	routes := m.Proxies[0].Routes()
	require.Len(t, routes, 1)
	require.NotNil(t, routes[0].Forward)
	return routes[0].Forward.Upstream
}

func TestFragmentThroughEntryPoint(t *testing.T) {
	dir := tree(t, map[string]string{"nginx.conf": entryConf, "conf.d/app.conf": fragmentConf, "conf.d/other.conf": "location /other/ { return 204; }\n"})
	m, scope := LoadScoped([]string{"conf.d/app.conf"}, Options{EntryPoints: []string{filepath.Join(dir, "nginx.conf")}})
	assert.Empty(t, m.Diagnostics)
	require.Len(t, m.Proxies, 1)
	assert.Equal(t, filepath.Join(dir, "nginx.conf"), m.Proxies[0].Entry, "linted through nginx.conf")
	var app *model.Upstream
	for _, r := range m.Proxies[0].Routes() {
		if r.Forward != nil {
			app = r.Forward.Upstream
		}
	}
	require.NotNil(t, app)
	assert.False(t, app.Implicit, "app is the upstream block nginx.conf declares")
	assert.Equal(t, "app", app.Name)

	require.NotNil(t, scope)
	assert.True(t, scope.Contains("conf.d/app.conf"))
	assert.True(t, scope.Contains(filepath.Join(dir, "conf.d", "app.conf")))
	assert.False(t, scope.Contains(filepath.Join(dir, "nginx.conf")), "the entry point is context, not subject")
	assert.False(t, scope.Contains(filepath.Join(dir, "conf.d", "other.conf")))
	assert.True(t, scope.Contains(""), "findings about no file always concern the run")
}

func TestFragmentWithoutEntryPoint(t *testing.T) {
	// No main configuration above it: nothing to find.
	tree(t, map[string]string{"upstreams.conf": "upstream app { server 10.0.0.1:8000; }\n", "conf.d/app.conf": fragmentConf})
	m, scope := LoadScoped([]string{"conf.d/app.conf"}, Options{})
	assert.Nil(t, scope)
	assert.Empty(t, m.Diagnostics, "a location fragment is read in a server, without \"not allowed here\"")
	assert.Nil(t, upstreamOf(t, m), "alone, app may be an upstream block nobody showed proxylint")
}

func TestEntryPointNamedToo(t *testing.T) {
	dir := tree(t, map[string]string{"nginx.conf": entryConf, "conf.d/app.conf": fragmentConf})
	m, scope := LoadScoped([]string{"nginx.conf", "conf.d/app.conf"}, Options{EntryPoints: []string{filepath.Join(dir, "nginx.conf")}})
	assert.Nil(t, scope, "everything named: everything reported")
	assert.False(t, upstreamOf(t, m).Implicit)
}

func TestEntryPointThatIncludesNothingNamed(t *testing.T) {
	dir := tree(t, map[string]string{
		"nginx.conf":      entryConf,
		"conf.d/app.conf": fragmentConf,
		"other/site.conf": "location / { proxy_pass http://app; }\n",
	})
	m, scope := LoadScoped([]string{"other/site.conf"}, Options{EntryPoints: []string{filepath.Join(dir, "nginx.conf")}})
	assert.Nil(t, scope)
	assert.Nil(t, upstreamOf(t, m), "linted alone")
	for _, f := range m.Files {
		assert.NotEqual(t, "nginx.conf", filepath.Base(f.Path), "the unrelated entry point is not read into the model")
	}
}

func TestTwoEntryPointsIncludeTheSameFragment(t *testing.T) {
	dir := tree(t, map[string]string{
		"prod/nginx.conf":    entryConf,
		"staging/nginx.conf": entryConf,
		"prod/conf.d/x.conf": "",
	})
	// Both entry points include conf.d/*.conf relative to themselves;
	// link staging's conf.d to prod's so that both read the same file.
	require.NoError(t, os.Symlink(filepath.Join(dir, "prod", "conf.d"), filepath.Join(dir, "staging", "conf.d")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prod", "conf.d", "app.conf"), []byte(fragmentConf), 0o644))
	m, scope := LoadScoped([]string{"prod/conf.d/app.conf"}, Options{EntryPoints: []string{
		filepath.Join(dir, "prod", "nginx.conf"), filepath.Join(dir, "staging", "nginx.conf"),
	}})
	assert.Len(t, m.Proxies, 2, "linted in both contexts")
	assert.True(t, scope.Contains("prod/conf.d/app.conf"))
}

func TestExcludeAbsolutePattern(t *testing.T) {
	dir := tree(t, map[string]string{"a/nginx.conf": entryConf, "old/nginx.conf": entryConf, "a/conf.d/x.conf": ""})
	m := Load([]string{"."}, Options{Exclude: []string{filepath.Join(dir, "old")}})
	for _, f := range m.Files {
		assert.NotContains(t, f.Path, "old")
	}
	assert.NotEmpty(t, m.Files)
}

func TestExcludeNamedFiles(t *testing.T) {
	dir := tree(t, map[string]string{"vendor/a/nginx.conf": entryConf, "old/site.conf": fragmentConf, "site.conf": fragmentConf})
	named := []string{"vendor/a/nginx.conf", "old/site.conf", "site.conf"}
	m := Load(named, Options{Exclude: []string{"vendor", filepath.Join(dir, "old")}})
	require.Len(t, m.Files, 1)
	assert.Equal(t, "site.conf", m.Files[0].Path)
}
