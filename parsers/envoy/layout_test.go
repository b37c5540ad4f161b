package envoy

import (
	"strings"
	"testing"
	"time"
)

const hcmListener = `name: web
    address: {socket_address: {address: 0.0.0.0, port_value: 8080}}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: web
          rds: {route_config_name: routes, config_source: {ads: {}}}
          http_filters:
          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
`

// The xDS Resource wrapper, in a discovery response, is read through.
func TestResourceWrapper(t *testing.T) {
	src := `version_info: "1"
resources:
- name: backend
  version: "1"
  resource:
    "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
    name: backend
    conect_timeout: 1s
- "@type": type.googleapis.com/envoy.service.discovery.v3.Resource
  name: other
  resource:
    "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
    name: other
    connect_timeout: 1s
`
	r := loadString(t, "wrapped.yaml", src)
	wantExactly(t, r, `8:5 envoy-invalid unknown field "conect_timeout" in envoy.config.cluster.v3.Cluster; did you mean "connect_timeout"?`)
	p := onlyProxy(t, r)
	if len(p.Upstreams) != 2 || p.Upstreams[0].Name != "backend" || p.Upstreams[1].Name != "other" {
		t.Errorf("upstreams: %+v", p.Upstreams)
	}
}

// A snapshot: resource lists by kind, entries typed by their list.
func TestSnapshotLayout(t *testing.T) {
	src := `version: "7"
listeners:
  - ` + hcmListener + `clusters:
  - name: backend
    type: EDS
    eds_cluster_config: {eds_config: {ads: {}}}
routes:
  - name: routes
    virtual_hosts:
    - name: all
      domains: ["*"]
      routes:
      - match: {prefix: /}
        route: {cluster: backend, timout: 5s}
endpoints:
  - cluster_name: backend
    endpoints:
    - lb_endpoints:
      - endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 80}}}
`
	r := loadString(t, "snapshot.yaml", src)
	wantExactly(t, r, `27:35 envoy-invalid unknown field "timout" in envoy.config.route.v3.RouteAction; did you mean "timeout"?`)
	p := onlyProxy(t, r)
	if len(p.Listeners) != 1 || len(p.Upstreams) != 1 {
		t.Errorf("listeners %d upstreams %d", len(p.Listeners), len(p.Upstreams))
	}
}

// static_resources without its wrapper: {listeners: [...]} or
// {clusters: [...]}.
func TestBareResourceLists(t *testing.T) {
	r := loadString(t, "listeners.yaml", "listeners:\n  - "+hcmListener)
	wantExactly(t, r, `10:17 envoy-unresolved listener "web" takes its routes over RDS from route configuration "routes", which is not among the files linted: those routes are not checked. Lint the file that holds it with this one (name them together, or their directory).`)
	if p := onlyProxy(t, r); len(p.Listeners) != 1 {
		t.Errorf("listeners %d", len(p.Listeners))
	}
	r = loadString(t, "clusters.yaml", "clusters:\n- name: a\n  connect_timeout: 1s\n  lb_polcy: ROUND_ROBIN\n")
	wantExactly(t, r, `4:3 envoy-invalid unknown field "lb_polcy" in envoy.config.cluster.v3.Cluster; did you mean "lb_policy"?`)
	// A ClusterLoadAssignment is not taken for a snapshot of endpoints.
	r = loadString(t, "cla.yaml", "cluster_name: a\nendpoints:\n- lb_endpoints: []\n")
	wantExactly(t, r)
}

// An empty map where a list of resources is expected holds none.
func TestSnapshotEmptyMaps(t *testing.T) {
	r := loadString(t, "empty.yaml", "listeners: {}\nclusters:\n- name: a\n  connect_timeout: 1s\n")
	wantExactly(t, r)
	if p := onlyProxy(t, r); len(p.Listeners) != 0 || len(p.Upstreams) != 1 {
		t.Errorf("listeners %d upstreams %d", len(p.Listeners), len(p.Upstreams))
	}
}

// A listener's network filter on its own, wrapping the connection manager,
// as Pomerium's tests keep theirs, is read as a connection manager: its
// settings are checked and its routes taken over RDS named as missing.
func TestNetworkFilterWrappingTheConnectionManager(t *testing.T) {
	src := `{
  "name": "envoy.filters.network.http_connection_manager",
  "typedConfig": {
    "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
    "statPrefix": "ingress",
    "commonHttpProtocolOptions": {"idleTimeout": "300s"},
    "requestTimeout": "30s",
    "rds": {"configSource": {"ads": {}, "resourceApiVersion": "V3"}, "routeConfigName": "main"},
    "requestIdExtension": {"typedConfig": {"@type": "type.googleapis.com/pomerium.extensions.UuidxRequestIdConfig", "packTraceReason": true}},
    "httpFilters": [
      {"name": "envoy.filters.http.router", "typedConfig": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}
    ]
  }
}
`
	if !Detect("main_http_connection_manager_filter.json", []byte(src)) {
		t.Fatal("not detected as Envoy")
	}
	r := loadString(t, "filter.json", src)
	wantExactly(t, r,
		`9:53 envoy-unknown-extension extension not understood: pomerium.extensions.UuidxRequestIdConfig; its settings are kept but not checked`,
		`8:70 envoy-unresolved connection manager "ingress" takes its routes over RDS from route configuration "main", which is not among the files linted: those routes are not checked. Lint the file that holds it with this one (name them together, or their directory).`)
	p := onlyProxy(t, r)
	if len(p.Listeners) != 1 || p.Listeners[0].IdleTimeout.Value != 300*time.Second || p.Listeners[0].RequestTimeout.Value != 30*time.Second {
		t.Errorf("listeners %+v", p.Listeners)
	}
	// A typo inside is an error, as in a listener.
	r = loadString(t, "typo.json", strings.Replace(src, `"requestTimeout"`, `"requestTimout"`, 1))
	if len(r.Diagnostics) == 0 || r.Diagnostics[0].Code != CodeInvalid || !strings.Contains(r.Diagnostics[0].Message, `unknown field "requestTimout"`) {
		t.Errorf("diagnostics %v", diagStrings(r))
	}
	// An HTTP filter entry has the same shape and is not taken for one.
	if Detect("router.json", []byte(`{"name": "envoy.filters.http.router", "typedConfig": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}`)) {
		t.Error("an HTTP filter entry detected as a configuration")
	}
}
