package gen

import (
	"fmt"
	"strings"
)

// EnvoyBootstrap is the shape of a generated Envoy bootstrap: Listeners
// HTTP listeners, each with one HTTP connection manager whose inline route
// configuration holds RoutesPerListener routes over two virtual hosts, and
// Clusters static clusters the routes spread over. Every size of it has the
// same mix of settings, so the work per element stays the same as it grows.
type EnvoyBootstrap struct {
	Listeners         int
	RoutesPerListener int
	Clusters          int
}

// Routes is the total number of routes.
func (e EnvoyBootstrap) Routes() int { return e.Listeners * e.RoutesPerListener }

// YAML renders the bootstrap.
func (e EnvoyBootstrap) YAML() []byte {
	clusters := max(e.Clusters, 1)
	var b strings.Builder
	b.WriteString(`# generated Envoy bootstrap
admin:
  address:
    socket_address: { address: 127.0.0.1, port_value: 9901 }
node:
  id: bench
  cluster: bench
static_resources:
  listeners:
`)
	for l := range e.Listeners {
		fmt.Fprintf(&b, `  - name: listener_%04d
    address:
      socket_address: { address: 0.0.0.0, port_value: %d }
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: listener_%04d
          codec_type: AUTO
          common_http_protocol_options:
            idle_timeout: %ds
          stream_idle_timeout: 120s
          request_timeout: %ds
          access_log:
          - name: envoy.access_loggers.stdout
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.access_loggers.stream.v3.StdoutAccessLog
          http_filters:
          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
          route_config:
            name: routes_%04d
            virtual_hosts:
`, l, 10000+l, l, []int{60, 300, 3600}[l%3], []int{0, 30, 60}[l%3], l)
		half := (e.RoutesPerListener + 1) / 2
		for vh, n := range []int{half, e.RoutesPerListener - half} {
			fmt.Fprintf(&b, `            - name: vh_%04d_%d
              domains: ["svc-%04d-%d.example.test"]
              routes:
`, l, vh, l, vh)
			for r := range n {
				i := l*e.RoutesPerListener + vh*half + r
				writeEnvoyRoute(&b, i, fmt.Sprintf("cluster_%05d", i%clusters))
			}
		}
	}
	b.WriteString("  clusters:\n")
	for c := range clusters {
		writeEnvoyCluster(&b, c)
	}
	return []byte(b.String())
}

func writeEnvoyRoute(b *strings.Builder, i int, cluster string) {
	fmt.Fprintf(b, `              - match: { prefix: "/r%05d/" }
                route:
                  cluster: %s
                  timeout: %ds
`, i, cluster, []int{5, 15, 30, 60}[i%4])
	switch i % 4 {
	case 0:
		fmt.Fprintf(b, `                  retry_policy:
                    retry_on: 5xx,reset,connect-failure
                    num_retries: %d
                    per_try_timeout: %ds
`, 1+i%3, 2+i%5)
	case 1:
		b.WriteString(`                  retry_policy:
                    retry_on: connect-failure,refused-stream
                    num_retries: 2
`)
	case 2:
		b.WriteString("                  idle_timeout: 30s\n")
	}
}

func writeEnvoyCluster(b *strings.Builder, c int) {
	fmt.Fprintf(b, `  - name: cluster_%05d
    type: STATIC
    connect_timeout: %gs
    lb_policy: %s
`, c, []float64{0.25, 1, 2}[c%3], []string{"ROUND_ROBIN", "LEAST_REQUEST"}[c%2])
	if c%2 == 0 {
		fmt.Fprintf(b, `    typed_extension_protocol_options:
      envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
        "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
        common_http_protocol_options:
          idle_timeout: %ds
        explicit_http_config:
          http_protocol_options: {}
`, []int{30, 60, 90}[c%3])
	}
	fmt.Fprintf(b, `    load_assignment:
      cluster_name: cluster_%05d
      endpoints:
      - lb_endpoints:
        - endpoint:
            address:
              socket_address: { address: %s, port_value: %d }
        - endpoint:
            address:
              socket_address: { address: %s, port_value: %d }
`, c, loopback(c/250, 2*c), 8000+c%1000, loopback(c/250, 2*c+1), 8000+c%1000)
}
