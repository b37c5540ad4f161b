package load_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
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
	m := load.Load([]string{write(t)}, load.Options{})
	require.Empty(t, m.Diagnostics)
	require.Len(t, m.Proxies, 1)
	p := m.Proxies[0]
	assert.Equal(t, model.Envoy, p.Product)
	require.Len(t, p.Upstreams, 1)
	require.Len(t, m.Files, 1)
	require.Len(t, m.Files[0].Comments, 1)
	assert.Equal(t, 26, int(m.Files[0].Comments[0].Pos.Line))
}
