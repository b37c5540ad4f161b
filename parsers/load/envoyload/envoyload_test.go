package envoyload_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/parsers"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/parsers/load/envoyload"
	"github.com/proxylint/proxylint/parsers/wire"
)

const bootstrap = `static_resources:
  listeners:
  - name: edge
    address:
      socket_address: { address: 0.0.0.0, port_value: 10000 }
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: ingress
          route_config:
            virtual_hosts:
            - name: all
              domains: ["*"]
              routes:
              - match: { prefix: "/api/" }
                route: { cluster: app, timeout: 20s, retry_policy: { retry_on: connect-failure, num_retries: 2 } }
              - match: { prefix: "/" }
                route: { cluster: app }
          http_filters:
          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
  clusters:
  - name: app # a comment
    connect_timeout: 2s
    type: STATIC
    load_assignment:
      cluster_name: app
      endpoints:
      - lb_endpoints:
        - endpoint:
            address:
              socket_address: { address: 10.0.0.1, port_value: 8000 }
`

func write(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "envoy.yaml")
	require.NoError(t, os.WriteFile(path, []byte(bootstrap), 0o600))
	return path
}

func TestLoadThroughOptions(t *testing.T) {
	m := load.Load([]string{write(t)}, load.Options{Envoy: envoyload.Load})
	require.Empty(t, m.Diagnostics)
	require.Len(t, m.Proxies, 1)
	p := m.Proxies[0]
	assert.Equal(t, parsers.Envoy, p.Product)
	require.Len(t, p.Upstreams, 1)
	require.Len(t, m.Files, 1)
	require.Len(t, m.Files[0].Comments, 1)
	assert.Equal(t, 26, m.Files[0].Comments[0].Pos.Line)
}

// TestWireRoundTrip: what proxylint-envoy writes is what the proxylint
// command reads back, pointers included.
func TestWireRoundTrip(t *testing.T) {
	r := envoyload.Load(write(t), parsers.Target{Product: parsers.Envoy})
	var buf bytes.Buffer
	require.NoError(t, wire.Encode(&buf, wire.Bundle{Proxies: r.Proxies, Files: r.Files, Diagnostics: r.Diagnostics}))
	b, err := wire.Decode(&buf)
	require.NoError(t, err)

	require.Len(t, b.Proxies, 1)
	want, got := r.Proxies[0], b.Proxies[0]
	assert.Equal(t, want.Entry, got.Entry)
	assert.Equal(t, want.Target, got.Target)
	require.Len(t, got.Listeners, len(want.Listeners))
	require.Len(t, got.Upstreams, 1)
	u := got.Upstreams[0]
	assert.Same(t, got, u.Proxy)
	assert.Equal(t, want.Upstreams[0].Servers, u.Servers)
	assert.Equal(t, want.Upstreams[0].ConnectTimeout, u.ConnectTimeout)
	routes := got.Routes()
	require.Len(t, routes, 2)
	for i, rt := range routes {
		w := want.Routes()[i]
		assert.Same(t, got.Listeners[0], rt.Listener)
		assert.Same(t, u, rt.Pass.Upstream)
		assert.Equal(t, w.Timeout, rt.Timeout)
		assert.Equal(t, w.Retry, rt.Retry)
		assert.Equal(t, w.Match, rt.Match)
		assert.Equal(t, w.Pos, rt.Pos)
	}
	assert.Equal(t, 20*time.Second, routes[0].Timeout.Value)
	assert.Equal(t, 2, routes[0].Retry.NumRetries.Value)
	assert.Len(t, u.Routes, 2)
	assert.Equal(t, r.Files[0].Source, b.Files[0].Source)
	assert.Equal(t, r.Files[0].Comments, b.Files[0].Comments)
}

func TestWireRefusesAnotherVersion(t *testing.T) {
	_, err := wire.Decode(bytes.NewBufferString(`{"version": 99}`))
	assert.ErrorContains(t, err, "version 99")
	_, err = wire.Decode(bytes.NewBufferString(`not json`))
	assert.ErrorContains(t, err, "reading loaded configurations")
}
