package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// hover returns the hover text at line n (0-based) of a document, "" for
// none.
func (s *session) hover(name string, n uint32) string {
	s.t.Helper()
	h, err := s.server.Hover(s.ctx(), &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: s.uri(name)}, Position: protocol.Position{Line: n, Character: 6},
	}})
	require.NoError(s.t, err)
	if h == nil {
		return ""
	}
	mc, ok := h.Contents.(*protocol.MarkupContent)
	require.True(s.t, ok)
	require.Equal(s.t, protocol.MarkupKindMarkdown, mc.Kind)
	return mc.Value
}

// Hover says where a value comes from: written on the line and the routes
// it is in effect for; in a route, each value inherited, written or a
// release default; on a pass directive, where it leads; and the finding.
func TestHoverSaysWhereValuesComeFrom(t *testing.T) {
	root := nginxWorkspace(t)
	s := start(t, root, protocol.ClientCapabilities{})
	s.open("nginx.conf", "nginx")
	s.open("conf.d/app.conf", "nginx")

	assert.Equal(t, "**proxy_read_timeout `30s`**, written here (http level): in effect for location /, location /metrics", s.hover("nginx.conf", 2))

	route := s.hover("conf.d/app.conf", 2)
	assert.True(t, strings.HasPrefix(route, "**location /** (server), the values in effect:\n"), route)
	assert.Contains(t, route, "- proxy_read_timeout `30s`: inherited from http at nginx.conf:3\n")
	assert.Contains(t, route, "- proxy_connect_timeout `60s`: the default for nginx 1.18 or newer\n")
	assert.Contains(t, route, "- proxy_http_version `1.0`: the default for nginx 1.18 or newer (on nginx before 1.29.7)\n")

	pass := s.hover("conf.d/app.conf", 6)
	assert.True(t, strings.HasPrefix(pass, "**proxy_pass** `http://127.0.0.1:9100` forwards location /metrics to 127.0.0.1:9100; every request opens a new connection\n"), pass)
	assert.Contains(t, pass, "**upstream-no-keepalive** (warning): proxy_pass to 127.0.0.1:9100 has no upstream block")
	assert.Contains(t, pass, "(https://github.com/proxylint/proxylint/blob/main/rules/docs/upstream-no-keepalive.md)")

	upstream := s.hover("nginx.conf", 3)
	assert.Contains(t, upstream, "**upstream app**, the values in effect:\n\n- keepalive `0`: the default for nginx 1.18 or newer (on nginx before 1.29.7: nginx pools upstream blocks by default only since 1.29.7)\n")
	assert.Contains(t, upstream, "used by location /")

	assert.Equal(t, "", s.hover("nginx.conf", 0), "nothing to say of events {}")
}

// definition asks where the thing at line n (0-based) is defined.
func (s *session) definition(name string, n uint32) []string {
	s.t.Helper()
	res, err := s.server.Definition(s.ctx(), &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: s.uri(name)}, Position: protocol.Position{Line: n, Character: 12},
	}})
	require.NoError(s.t, err)
	if res == nil {
		return nil
	}
	locs, ok := res.(protocol.LocationSlice)
	require.True(s.t, ok, "%T", res)
	var out []string
	for _, l := range locs {
		out = append(out, fmt.Sprintf("%s:%d:%d", uriBase(l.URI), l.Range.Start.Line, l.Range.Start.Character))
	}
	return out
}

// From proxy_pass http://NAME to upstream NAME, in another file.
func TestDefinitionOfAnUpstream(t *testing.T) {
	root := nginxWorkspace(t)
	s := start(t, root, protocol.ClientCapabilities{})
	s.open("conf.d/app.conf", "nginx")
	assert.Equal(t, []string{"nginx.conf:3:4"}, s.definition("conf.d/app.conf", 3))
	assert.Nil(t, s.definition("conf.d/app.conf", 6), "an address has no definition")
}

const envoyConf = `static_resources:
  listeners:
  - name: ingress
    address:
      socket_address: {address: 0.0.0.0, port_value: 8080}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: ingress
          common_http_protocol_options:
            max_connection_duration: 60s
          http_filters:
          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
          route_config:
            virtual_hosts:
            - name: app
              domains: ["*"]
              routes:
              - match: {prefix: /}
                route: {cluster: app, timeout: 20s}
  clusters:
  - name: app
    type: STATIC
    connect_timeout: 1s
    load_assignment:
      cluster_name: app
      endpoints:
      - lb_endpoints:
        - endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 80}}}
`

// Envoy: the finding, a hover on a field of the route, and from the
// route's cluster to the cluster.
func TestEnvoy(t *testing.T) {
	root := workspace(t, map[string]string{"envoy/envoy.yaml": envoyConf})
	s := start(t, root, protocol.ClientCapabilities{})
	s.open("envoy/envoy.yaml", "yaml")
	diags := s.diagnostics("envoy/envoy.yaml", 1)
	assert.Equal(t, []string{"envoy-h1-unsafe-drain 12:12 -> envoy.yaml:8 -> envoy.yaml:8"}, summary(diags), "the defaults of the connection manager are related")
	assert.Equal(t, []string{"envoy/envoy.yaml:25:4"}, prefixed("envoy/", s.definition("envoy/envoy.yaml", 23)))
	hover := s.hover("envoy/envoy.yaml", 23)
	assert.Contains(t, hover, "**timeout `20s`**, written here (route level): in effect for route /")
	assert.Contains(t, hover, "**cluster** `app` forwards route / to cluster app (envoy/envoy.yaml:26)")

	// A YAML syntax error mid-edit: the file is still linted as Envoy,
	// and the error is shown where it is.
	s.change("envoy/envoy.yaml", 2, strings.Replace(envoyConf, "  clusters:\n", "  clusters: [\n", 1))
	var rules []string
	for _, d := range s.diagnostics("envoy/envoy.yaml", 2) {
		code, _ := d.Code.(protocol.String)
		rules = append(rules, string(code))
	}
	assert.Equal(t, []string{"envoy-syntax"}, rules)
}

func prefixed(dir string, locs []string) []string {
	for i, l := range locs {
		if !strings.HasPrefix(l, dir) {
			locs[i] = dir + l
		}
	}
	return locs
}
