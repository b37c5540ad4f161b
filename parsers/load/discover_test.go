package load

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/nginx"
)

// A fragment linted from its own folder is linted through the main
// configuration above it that includes it, and the report says so.
func TestFragmentFindsItsMainConfiguration(t *testing.T) {
	dir := tree(t, map[string]string{"nginx.conf": entryConf, "conf.d/app.conf": fragmentConf})
	t.Chdir(filepath.Join(dir, "conf.d"))
	m, scope := LoadScoped([]string{"app.conf"}, Options{})
	assert.Equal(t, []model.Diagnostic{{Code: nginx.CodeInclude, Severity: model.Note, Pos: model.Pos{File: "app.conf"},
		Message: "linted through ../nginx.conf, which includes this file (found in the directories above it; name entry-points in .proxylint.yaml to choose the main configuration)"}}, m.Diagnostics)
	u := upstreamOf(t, m)
	require.NotNil(t, u)
	assert.False(t, u.Implicit, "app is the upstream block nginx.conf declares")
	require.NotNil(t, scope)
	assert.True(t, scope.Contains("app.conf"))
	assert.False(t, scope.Contains(filepath.Join(dir, "nginx.conf")), "the main configuration is context, not subject")
}

// A fragment no main configuration includes resolves its relative includes
// from the directory of the main configuration above it, nginx's conf
// prefix, as h5bp's snippets do ("include h5bp/security/x.conf").
func TestFragmentIncludesResolveFromTheConfPrefix(t *testing.T) {
	dir := tree(t, map[string]string{
		"nginx.conf":                   "events {}\nhttp {\n    include conf.d/*.conf;\n}\n",
		"h5bp/basic.conf":              "include h5bp/security/headers.conf;\n",
		"h5bp/security/headers.conf":   "add_header X-Frame-Options DENY always;\n",
		"h5bp/location/svgz.conf":      "location ~* \\.svgz$ {\n    include h5bp/security/headers.conf;\n}\n",
		"conf.d/no-default-server.txt": "",
	})
	t.Chdir(filepath.Join(dir, "h5bp"))
	m := Load([]string{"basic.conf"}, Options{})
	assert.Equal(t, []model.Diagnostic{{Code: nginx.CodeInclude, Severity: model.Note, Pos: model.Pos{File: "basic.conf"},
		Message: "relative includes resolved from .., the directory of ../nginx.conf, the main configuration above this fragment (no main configuration found includes it)"}}, m.Diagnostics)
	require.Len(t, m.Files, 2)
	assert.Equal(t, filepath.Join(dir, "h5bp", "security", "headers.conf"), m.Files[1].Path)

	t.Chdir(filepath.Join(dir, "h5bp", "location"))
	m = Load([]string{"svgz.conf"}, Options{})
	require.Len(t, m.Diagnostics, 1)
	assert.Equal(t, "relative includes resolved from ../.., the directory of ../../nginx.conf, the main configuration above this fragment (no main configuration found includes it)", m.Diagnostics[0].Message)
	require.Len(t, m.Files, 2)
}

// The search stops at the repository root: a configuration above it
// belongs to something else.
func TestDiscoveryStopsAtTheRepository(t *testing.T) {
	dir := tree(t, map[string]string{"nginx.conf": entryConf, "repo/conf.d/app.conf": fragmentConf})
	require.NoError(t, os.Mkdir(filepath.Join(dir, "repo", ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "repo", "conf.d", "nginx.conf"), []byte(entryConf), 0o644))
	t.Chdir(filepath.Join(dir, "repo", "conf.d"))
	require.NoError(t, os.Remove("nginx.conf"))
	m, scope := LoadScoped([]string{"app.conf"}, Options{})
	assert.Nil(t, scope)
	assert.Empty(t, m.Diagnostics)
	assert.Nil(t, upstreamOf(t, m), "the nginx.conf above the repository is not this fragment's")
}

// A snippet that no main configuration includes, but a site of the
// repository does (through another snippet), is linted through the
// outermost of them: the site's "set" values reach the snippet's
// proxy_pass. The report says the site is a fragment too, and the model
// lists the snippet as one that other locations may include as well.
func TestSnippetLintedThroughTheSiteThatIncludesIt(t *testing.T) {
	dir := tree(t, map[string]string{
		"etc/nginx/nginx.conf":                 "events {}\nhttp {\n    include /etc/nginx/conf.d/*.conf;\n}\n",
		"etc/nginx/conf.d/default.conf":        "server {\n    listen 80;\n    set $server \"127.0.0.1\";\n    set $port \"80\";\n    include conf.d/include/assets.conf;\n}\n",
		"etc/nginx/conf.d/include/assets.conf": "location ~* \\.(css|js)$ {\n    access_log off;\n    include conf.d/include/proxy.conf;\n}\n",
		"etc/nginx/conf.d/include/proxy.conf":  "proxy_set_header Host $host;\nproxy_pass http://$server:$port$request_uri;\n",
		"etc/nginx/conf.d/include/unused.conf": "add_header X-Unused 1;\n",
		"etc/nginx/conf.d/include/broken.conf": "include conf.d/include/proxy.conf;\nlocation {\n",
	})
	t.Chdir(filepath.Join(dir, "etc", "nginx", "conf.d", "include"))
	m, scope := LoadScoped([]string{"proxy.conf"}, Options{})
	assert.Equal(t, []model.Diagnostic{{Code: nginx.CodeInclude, Severity: model.Note, Pos: model.Pos{File: "proxy.conf"},
		Message: "linted through ../default.conf, which includes this file (found in the directories above it); it is a fragment too, and no configuration found includes it (name entry-points in .proxylint.yaml to choose the main configuration)"}}, m.Diagnostics)
	require.Len(t, m.Proxies, 1)
	p := m.Proxies[0]
	assert.Equal(t, "http", p.Context)
	require.Len(t, p.Snippets, 1)
	assert.Equal(t, realPath("proxy.conf"), realPath(p.Snippets[0].File))
	assert.Equal(t, "location", p.Snippets[0].Context)
	u := upstreamOf(t, m)
	require.NotNil(t, u)
	assert.True(t, u.Implicit)
	assert.Equal(t, "127.0.0.1:80", u.Name, "the site's set values reach the snippet")
	require.NotNil(t, scope)
	assert.True(t, scope.Contains("proxy.conf"))
	assert.False(t, scope.Contains("../default.conf"), "the site is context, not subject")

	// A snippet nothing includes is linted alone.
	m, _ = LoadScoped([]string{"unused.conf"}, Options{})
	assert.Empty(t, m.Diagnostics)
	require.Len(t, m.Proxies, 1)
	assert.Equal(t, "unused.conf", m.Proxies[0].Entry)
}
