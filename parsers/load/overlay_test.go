package load

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

// routeNames lists the routes of every proxy of m.
func routeNames(m *model.Model) []string {
	var out []string
	for _, p := range m.Proxies {
		for _, r := range p.Routes() {
			out = append(out, r.Name)
		}
	}
	return out
}

// sourceOf is what the model holds of the file at path.
func sourceOf(t *testing.T, m *model.Model, path string) string {
	t.Helper()
	for _, f := range m.Files {
		if f.Path == path {
			return string(f.Source)
		}
	}
	t.Fatalf("%s is not among the model's files", path)
	return ""
}

// An editor's unsaved buffer replaces the file on the disk wherever the
// loader reads it: through an include of the main configuration, and when
// the fragment is named and linted through the main configuration found
// above it.
func TestOverlayReplacesAnIncludedFile(t *testing.T) {
	dir := tree(t, map[string]string{
		"nginx.conf":      "events {}\nhttp {\n    include conf.d/*.conf;\n}\n",
		"conf.d/app.conf": "server {\n    listen 80;\n    location /disk/ { proxy_pass http://127.0.0.1:8080; }\n}\n",
	})
	edited := "server {\n    listen 80;\n    location /buffer/ { proxy_pass http://127.0.0.1:8080; }\n}\n"
	overlay := map[string][]byte{filepath.Join(dir, "conf.d", "app.conf"): []byte(edited)}

	m := Load([]string{"nginx.conf"}, Options{Overlay: overlay})
	require.Empty(t, fatals(m))
	assert.Equal(t, []string{"location /buffer/"}, routeNames(m))
	assert.Equal(t, edited, sourceOf(t, m, filepath.Join("conf.d", "app.conf")))

	m = Load([]string{filepath.Join("conf.d", "app.conf")}, Options{Overlay: overlay})
	require.Empty(t, fatals(m))
	assert.Equal(t, []string{"location /buffer/"}, routeNames(m), "linted through nginx.conf, with the buffer")

	disk, err := os.ReadFile(filepath.Join(dir, "conf.d", "app.conf"))
	require.NoError(t, err)
	assert.Contains(t, string(disk), "/disk/", "the disk is left as it was")
}

// The overlay reaches the Envoy and Kubernetes loaders, and a directory
// walk, and it is looked up by the real path of a file reached through a
// symbolic link.
func TestOverlayReplacesEnvoyAndManifests(t *testing.T) {
	cluster := func(name string) string {
		return "static_resources:\n  clusters:\n  - name: " + name + "\n    connect_timeout: 1s\n    load_assignment:\n      cluster_name: " + name +
			"\n      endpoints:\n      - lb_endpoints:\n        - endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 80}}}\n"
	}
	dir := tree(t, map[string]string{
		"envoy/envoy.yaml": cluster("disk"),
	})
	require.NoError(t, os.Symlink(filepath.Join(dir, "envoy", "envoy.yaml"), filepath.Join(dir, "link.yaml")))
	overlay := map[string][]byte{filepath.Join(dir, "envoy", "envoy.yaml"): []byte(cluster("buffer"))}
	for _, paths := range [][]string{{"envoy/envoy.yaml"}, {"envoy"}, {"link.yaml"}} {
		m := Load(paths, Options{Overlay: overlay})
		require.Empty(t, fatals(m), paths)
		require.Len(t, m.Proxies, 1, paths)
		require.Len(t, m.Proxies[0].Upstreams, 1, paths)
		assert.Equal(t, "buffer", m.Proxies[0].Upstreams[0].Name, paths)
	}

	vs := func(host string) string {
		return "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: orders}\nspec:\n  hosts: [orders]\n  http:\n  - route:\n    - destination: {host: " + host + "}\n"
	}
	tree(t, map[string]string{"vs.yaml": vs("disk")})
	dir, _ = os.Getwd()
	m := Load([]string{"vs.yaml"}, Options{Overlay: map[string][]byte{filepath.Join(dir, "vs.yaml"): []byte(vs("buffer"))}})
	require.Empty(t, fatals(m))
	assert.Contains(t, sourceOf(t, m, "vs.yaml"), "host: buffer")
}

// A buffer not yet saved is linted when it is named, as if it were on the
// disk, and the configuration it includes is read from the disk.
func TestOverlayOnlyFileIsLintedWhenNamed(t *testing.T) {
	dir := tree(t, map[string]string{"upstreams.conf": "upstream app { server 127.0.0.1:8080; }\n"})
	p := filepath.Join(dir, "new.conf")
	src := "events {}\nhttp {\n    include upstreams.conf;\n    server {\n        listen 80;\n        location / { proxy_pass http://app; }\n    }\n}\n"
	m := Load([]string{p}, Options{Overlay: map[string][]byte{p: []byte(src)}})
	require.Empty(t, fatals(m))
	u := upstreamOf(t, m)
	require.NotNil(t, u)
	assert.Equal(t, "app", u.Name)
	assert.Equal(t, src, sourceOf(t, m, p))

	m = Load([]string{p}, Options{})
	assert.NotEmpty(t, fatals(m), "without the overlay the file does not exist")
}
