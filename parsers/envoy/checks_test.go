package envoy

import (
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
)

// bootstrapRoutes is a bootstrap whose static route table sends / to
// route (a RouteAction in flow style), with the extra lines of the
// connection manager, route table and static resources.
func bootstrapRoutes(route, hcmExtra, rcExtra, rest string) string {
	return `static_resources:
  listeners:
  - name: l
    address: {socket_address: {address: 0.0.0.0, port_value: 80}}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: x
` + hcmExtra + `          http_filters:
          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
          route_config:
` + rcExtra + `            virtual_hosts:
            - name: vh
              domains: ["*"]
              routes:
              - match: {prefix: /}
                route: ` + route + `
  clusters:
  - name: backend
    connect_timeout: 1s
` + rest
}

func TestStaticRouteToUnknownCluster(t *testing.T) {
	r := loadString(t, "r.yaml", bootstrapRoutes("{cluster: backnd}", "", "", ""))
	wantExactly(t, r, `21:34 envoy-invalid route: unknown cluster 'backnd': no static cluster has this name, and Envoy validates the clusters of a route table written in the connection manager`)
	r = loadString(t, "w.yaml", bootstrapRoutes("{weighted_clusters: {clusters: [{name: backend, weight: 1}, {name: other, weight: 1}]}}", "", "", ""))
	wantExactly(t, r, `21:91 envoy-invalid route: unknown weighted cluster 'other': no static cluster has this name, and Envoy validates the clusters of a route table written in the connection manager`)
	// Turned off, or with CDS (whose clusters Envoy checks only at run
	// time), the route is not checked.
	r = loadString(t, "off.yaml", bootstrapRoutes("{cluster: backnd}", "", "            validate_clusters: false\n", ""))
	wantExactly(t, r)
	r = loadString(t, "cds.yaml", bootstrapRoutes("{cluster: backnd}", "", "",
		"dynamic_resources:\n  cds_config: {ads: {}}\n  ads_config: {api_type: GRPC, grpc_services: [{envoy_grpc: {cluster_name: backend}}]}\n"))
	// Its cluster may come from CDS: not among the files, it is noted.
	wantExactly(t, r, `21:25 envoy-unresolved routes forward to cluster "backnd", which is not among the files linted: what depends on it (its servers, its connection pool, the hop behind it) is not checked, only what the routes do themselves (retries, timeouts). Lint the file that holds it with this one (name them together, or their directory).`)
	// A route table from RDS is not validated by default.
	r = loadString(t, "rds.yaml", `name: routes
virtual_hosts:
- name: vh
  domains: ["*"]
  routes:
  - match: {prefix: /}
    route: {cluster: anywhere}
`)
	wantExactly(t, r, `7:13 envoy-unresolved routes forward to cluster "anywhere", which is not among the files linted: what depends on it (its servers, its connection pool, the hop behind it) is not checked, only what the routes do themselves (retries, timeouts). Lint the file that holds it with this one (name them together, or their directory).`)
}

func TestDuplicateStaticClustersAndListeners(t *testing.T) {
	rest := "  - name: backend\n    connect_timeout: 2s\n"
	src := bootstrapRoutes("{cluster: backend}", "", "", rest)
	src = strings.Replace(src, "  clusters:\n", `  - name: l
    address: {socket_address: {address: 0.0.0.0, port_value: 81}}
    filter_chains: [{filters: [{name: tcp, typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy, stat_prefix: t, cluster: backend}}]}]
  clusters:
`, 1)
	r := loadString(t, "dup.yaml", src)
	wantExactly(t, r,
		`28:5 envoy-invalid cluster manager: duplicate cluster 'backend': a static cluster of this name is already defined at line 26`,
		`22:5 envoy-invalid duplicate listener 'l': Envoy keeps the static listener of this name at line 3 and silently never creates this one`)
	if r.Diagnostics[0].Severity != model.Error || r.Diagnostics[1].Severity != model.Warning {
		t.Errorf("severities %v %v", r.Diagnostics[0].Severity, r.Diagnostics[1].Severity)
	}
}

func TestDuplicateResourcesInADiscoveryResponse(t *testing.T) {
	src := `resources:
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: a
  connect_timeout: 1s
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: a
  connect_timeout: 2s
`
	r := loadString(t, "cds.yaml", src)
	wantExactly(t, r, `6:3 envoy-invalid duplicate cluster a found: Envoy refuses the second cluster of a discovery response with the same name (the first is at line 3)`)
	src = "listeners:\n- name: x\n  address: {socket_address: {address: 0.0.0.0, port_value: 80}}\n- name: x\n  address: {socket_address: {address: 0.0.0.0, port_value: 80}}\n"
	r = loadString(t, "lds.yaml", src)
	wantExactly(t, r, `4:3 envoy-invalid duplicate listener x found: Envoy refuses the second listener of a discovery response with the same name (the first is at line 2)`)
}

func TestLastHTTPFilterMustBeTerminal(t *testing.T) {
	src := listenerWith("envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
		"envoy.extensions.filters.http.cors.v3.Cors")
	r := loadString(t, "cors.yaml", src)
	wantExactly(t, r, `12:13 envoy-invalid non-terminal filter named envoy.filters.http.router of type envoy.extensions.filters.http.cors.v3.Cors is the last filter in a http filter chain: Envoy refuses the chain; end it with the router (envoy.filters.http.router)`)
	// A filter proxylint does not know may be terminal: not judged.
	r = loadString(t, "third.yaml", listenerWith("envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager", "acme.Terminal"))
	wantExactly(t, r, `14:24 envoy-unknown-extension extension not understood: acme.Terminal; its settings are kept but not checked`)
	// The same chain ending in the router is fine.
	r = loadString(t, "ok.yaml", listenerWith("envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager", "envoy.extensions.filters.http.router.v3.Router"))
	wantExactly(t, r)
}

func TestNegativeDurationsChecked(t *testing.T) {
	src := bootstrapRoutes("{cluster: backend, timeout: -1s}", "          drain_timeout: -0.5s\n", "", "")
	r := loadString(t, "neg.yaml", src)
	wantExactly(t, r,
		`11:26 envoy-invalid drain_timeout: negative duration "-0.5s"; Envoy refuses durations below zero (Expected positive duration)`,
		`22:52 envoy-invalid timeout: negative duration "-1s"; Envoy refuses durations below zero (Expected positive duration)`)
	// Where the schema bounds the field already, one error.
	src = strings.Replace(bootstrapRoutes("{cluster: backend}", "", "", ""), "connect_timeout: 1s", "connect_timeout: -1s", 1)
	r = loadString(t, "ct.yaml", src)
	wantExactly(t, r, `24:22 envoy-invalid connect_timeout: negative duration "-1s"; Envoy refuses durations below zero (Expected positive duration)`)
}
