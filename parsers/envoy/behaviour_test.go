package envoy

import (
	"testing"
)

func TestStreamRoutes(t *testing.T) {
	r := loadString(t, "streams.yaml", `static_resources:
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
          upgrade_configs:
          - upgrade_type: websocket
          route_config:
            virtual_hosts:
            - name: all
              domains: ["*"]
              routes:
              - match: { prefix: "/grpc/", grpc: {} }
                route: { cluster: app, timeout: 0s }
              - match:
                  prefix: "/ct/"
                  headers:
                  - name: content-type
                    string_match: { prefix: application/grpc }
                route: { cluster: app, timeout: 0s }
              - match: { prefix: "/timed/", grpc: {} }
                route: { cluster: app }
              - match:
                  prefix: "/json/"
                  headers:
                  - name: content-type
                    present_match: true
                route: { cluster: app, timeout: 0s }
              - match: { prefix: "/ws/" }
                route:
                  cluster: app
                  upgrade_configs: [{ upgrade_type: WebSocket }]
              - match: { prefix: "/off/" }
                route:
                  cluster: app
                  upgrade_configs: [{ upgrade_type: websocket, enabled: false }]
              - match: { prefix: "/" }
                route: { cluster: app }
          http_filters:
          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
  clusters:
  - name: app
    connect_timeout: 1s
    type: STATIC
    load_assignment:
      cluster_name: app
      endpoints:
      - lb_endpoints:
        - endpoint:
            address:
              socket_address: { address: 10.0.0.1, port_value: 8000 }
`)
	p := onlyProxy(t, r)
	routes := map[string]*struct {
		line int
		want bool
	}{
		"route /grpc/":  {19, true},
		"route /ct/":    {24, true},
		"route /timed/": {0, false},
		"route /json/":  {0, false},
		"route /ws/":    {38, true},
		"route /off/":   {0, false},
		"route /":       {0, false},
	}
	for _, rt := range p.Routes() {
		w, ok := routes[rt.Name]
		if !ok {
			t.Fatalf("unexpected route %q", rt.Name)
		}
		if rt.Stream.Value != w.want || (w.want && int(rt.Stream.Pos().Line) != w.line) {
			t.Errorf("%s: Stream %v at line %d, want %v at line %d", rt.Name, rt.Stream.Value, rt.Stream.Pos().Line, w.want, w.line)
		}
	}
}
