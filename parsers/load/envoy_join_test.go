package load_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// One deployment as file-based xDS keeps it: a listener that takes its
// routes over RDS, the route configuration, the cluster, its endpoints.
const (
	splitListener = `- "@type": type.googleapis.com/envoy.config.listener.v3.Listener
  name: web
  address: {socket_address: {address: 0.0.0.0, port_value: 8080}}
  filter_chains:
  - filters:
    - name: envoy.filters.network.http_connection_manager
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
        stat_prefix: web
        stream_idle_timeout: 42s
        rds: {route_config_name: main, config_source: {ads: {}}}
        http_filters:
        - name: envoy.filters.http.router
          typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
`
	splitRoutes = `- "@type": type.googleapis.com/envoy.config.route.v3.RouteConfiguration
  name: main
  virtual_hosts:
  - name: app
    domains: ["*"]
    routes:
    - match: {prefix: /}
      route:
        cluster: app
        timeout: 10s
        retry_policy: {retry_on: 5xx, num_retries: 2}
`
	splitClusters = `- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: app
  connect_timeout: 1s
  type: EDS
  eds_cluster_config: {eds_config: {ads: {}}}
`
	splitEndpoints = `- "@type": type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment
  cluster_name: app
  endpoints:
  - lb_endpoints:
    - endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 8000}}}
    - endpoint: {address: {socket_address: {address: 10.0.0.2, port_value: 8000}}}
`
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
}

// lintDeployment loads paths and runs every rule, with a backend behind
// the proxy that closes idle connections after 5 s (so that a cluster's
// pool is judged), and lists the findings as "rule file message".
func lintDeployment(t *testing.T, paths []string, opts load.Options) []string {
	t.Helper()
	m := load.Load(paths, opts)
	backend, err := model.BackendHop("5s", "--backend", model.Pos{})
	require.NoError(t, err)
	var out []string
	for _, f := range rules.Run(m, &rules.Options{Hops: []*model.Hop{backend}}) {
		out = append(out, f.Rule+" "+filepath.Base(f.Pos.File)+" "+f.Message)
	}
	sort.Strings(out)
	return out
}

func withoutFiles(findings []string) []string {
	var out []string
	for _, f := range findings {
		rule, rest, _ := strings.Cut(f, " ")
		_, msg, _ := strings.Cut(rest, " ")
		out = append(out, rule+" "+msg)
	}
	return out
}

// The same configuration in one file, in four files named together, in
// their directory and as a config dump split by section gives the same
// findings, each in the file that holds what it is about.
func TestEnvoyDeploymentAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"one/all.yaml": "resources:\n" + splitListener + splitRoutes + splitClusters + splitEndpoints,
		"xds/lds.yaml": "resources:\n" + splitListener,
		"xds/rds.yaml": "resources:\n" + splitRoutes,
		"xds/cds.yaml": "resources:\n" + splitClusters,
		"xds/eds.yaml": "resources:\n" + splitEndpoints,
	})
	one := lintDeployment(t, []string{filepath.Join(dir, "one/all.yaml")}, load.Options{})
	require.NotEmpty(t, one)
	rules := map[string]bool{}
	for _, f := range one {
		rule, _, _ := strings.Cut(f, " ")
		rules[rule] = true
	}
	// What the cluster decides (its pool against the backend) and what
	// the route does (a replayed POST) are both there.
	assert.True(t, rules["keepalive-idle-race"] && rules["retry-timeout-write"], "%v", one)
	assert.False(t, rules["envoy-unresolved"], "%v", one)

	xds := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(dir, "xds", n))
		}
		return out
	}
	split := lintDeployment(t, xds("lds.yaml", "rds.yaml", "cds.yaml", "eds.yaml"), load.Options{})
	assert.Equal(t, withoutFiles(one), withoutFiles(split))
	for _, f := range split {
		switch {
		case strings.HasPrefix(f, "keepalive-idle-race "):
			assert.Contains(t, f, " cds.yaml ")
		case strings.HasPrefix(f, "retry-timeout-write "):
			assert.Contains(t, f, " rds.yaml ")
		}
	}
	assert.Equal(t, split, lintDeployment(t, []string{filepath.Join(dir, "xds")}, load.Options{}))
	// Named in another order, the files give the same.
	assert.Equal(t, split, lintDeployment(t, xds("eds.yaml", "cds.yaml", "rds.yaml", "lds.yaml"), load.Options{}))

	// One proxy, whose routes have the listener's stream idle timeout and
	// the cluster with its two endpoints from eds.yaml.
	m := load.Load(xds("lds.yaml", "rds.yaml", "cds.yaml", "eds.yaml"), load.Options{})
	require.Len(t, m.Proxies, 1)
	p := m.Proxies[0]
	assert.Equal(t, filepath.Join(dir, "xds/lds.yaml"), p.Entry)
	assert.Equal(t, xds("lds.yaml", "rds.yaml", "cds.yaml", "eds.yaml"), p.Sources)
	assert.True(t, p.Named)
	routes := p.Routes()
	require.Len(t, routes, 1)
	r := routes[0]
	assert.Equal(t, filepath.Join(dir, "xds/rds.yaml"), r.Pos.File)
	assert.Equal(t, 42*time.Second, r.Envoy.IdleTimeout.Value)
	require.NotNil(t, r.Forward.Upstream)
	assert.Equal(t, filepath.Join(dir, "xds/cds.yaml"), r.Forward.Upstream.Pos.File)
	require.Len(t, r.Forward.Upstream.Servers, 2)
	assert.Equal(t, filepath.Join(dir, "xds/eds.yaml"), r.Forward.Upstream.Servers[0].Pos.File)
	assert.Equal(t, []*model.Route{r}, r.Forward.Upstream.Routes)
}

// Each file alone names what it does not hold, in a note: silence would
// say that everything was checked.
func TestEnvoyPartsAloneSayWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"lds.yaml": "resources:\n" + splitListener,
		"rds.yaml": "resources:\n" + splitRoutes,
		"cds.yaml": "resources:\n" + splitClusters,
	})
	notes := func(paths ...string) []string {
		var out []string
		for _, d := range load.Load(paths, load.Options{}).Diagnostics {
			if d.Code == "envoy-unresolved" {
				out = append(out, fmt.Sprintf("%s:%d %s", filepath.Base(d.Pos.File), d.Pos.Line, d.Message))
			}
		}
		return out
	}
	assert.Equal(t, []string{`lds.yaml:12 listener "web" takes its routes over RDS from route configuration "main", which is not among the files linted: those routes are not checked. Lint the file that holds it with this one (name them together, or their directory).`},
		notes(filepath.Join(dir, "lds.yaml")))
	assert.Equal(t, []string{`rds.yaml:10 routes forward to cluster "app", which is not among the files linted: what depends on it (its servers, its connection pool, the hop behind it) is not checked, only what the routes do themselves (retries, timeouts). Lint the file that holds it with this one (name them together, or their directory).`},
		notes(filepath.Join(dir, "rds.yaml")))
	assert.Equal(t, []string{`cds.yaml:6 the endpoints of EDS cluster "app" are not among the files linted: its servers are unknown, so the hop behind it is not checked. Lint the file that holds it with this one (name them together, or their directory).`},
		notes(filepath.Join(dir, "cds.yaml")))
	// Together, only the endpoints are missing.
	assert.Equal(t, []string{`cds.yaml:6 the endpoints of EDS cluster "app" are not among the files linted: its servers are unknown, so the hop behind it is not checked. Lint the file that holds it with this one (name them together, or their directory).`},
		notes(dir))
}

// A name that two files hold joins neither: which one is meant is not
// known, and the note says so.
func TestEnvoyAmbiguousNamesJoinNothing(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"rds.yaml":   "resources:\n" + splitRoutes,
		"a/cds.yaml": "resources:\n" + splitClusters,
		"b/cds.yaml": "resources:\n" + splitClusters,
	})
	m := load.Load([]string{filepath.Join(dir, "rds.yaml"), filepath.Join(dir, "a/cds.yaml"), filepath.Join(dir, "b/cds.yaml")}, load.Options{})
	require.Len(t, m.Proxies, 3)
	for _, r := range m.Proxies[0].Routes() {
		assert.Nil(t, r.Forward.Upstream)
	}
	var note string
	for _, d := range m.Diagnostics {
		if d.Code == "envoy-unresolved" && filepath.Base(d.Pos.File) == "rds.yaml" {
			note = d.Message
		}
	}
	assert.Contains(t, note, `Several files linted together hold "app" (in `+filepath.Join(dir, "a/cds.yaml")+" and "+filepath.Join(dir, "b/cds.yaml")+"), so none of them is joined")
}

// A bootstrap is one Envoy: two are never joined, and one without CDS
// takes no cluster from another file. A file of clusters that two
// bootstraps take over CDS (one control plane serving both) belongs to
// each of them.
func TestEnvoyBootstrapsAreNotJoined(t *testing.T) {
	boot := func(cds string) string {
		return `static_resources:
  listeners:
  - name: web
    address: {socket_address: {address: 0.0.0.0, port_value: 8080}}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: web
          route_config:
            virtual_hosts:
            - name: all
              domains: ["*"]
              routes:
              - match: {prefix: /}
                route: {cluster: app}
          http_filters:
          - name: envoy.filters.http.router
            typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
` + cds
	}
	const withCDS = "dynamic_resources:\n  cds_config: {ads: {}}\n  ads_config: {api_type: GRPC, grpc_services: [{envoy_grpc: {cluster_name: xds}}]}\n"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.yaml":   boot(withCDS),
		"b.yaml":   boot(withCDS),
		"c.yaml":   boot(""),
		"cds.yaml": "resources:\n" + splitClusters,
	})
	m := load.Load([]string{dir}, load.Options{})
	var got []string
	for _, p := range m.Proxies {
		upstream := "none"
		if u := p.Routes()[0].Forward.Upstream; u != nil {
			upstream = filepath.Base(u.Pos.File)
		}
		got = append(got, fmt.Sprintf("%s %d %s", filepath.Base(p.Entry), max(len(p.Sources)-1, 0), upstream))
	}
	assert.Equal(t, []string{"a.yaml 1 cds.yaml", "b.yaml 1 cds.yaml", "c.yaml 0 none"}, got)
	var unknown []string
	for _, d := range m.Diagnostics {
		if d.Code == "envoy-invalid" {
			unknown = append(unknown, filepath.Base(d.Pos.File)+" "+d.Message)
		}
	}
	assert.Equal(t, []string{"c.yaml route: unknown cluster 'app': no static cluster has this name, and Envoy validates the clusters of a route table written in the connection manager"}, unknown)
}

// A config dump of the routes on standard input (as istioctl proxy-config
// routes -o json writes one) and a dump of the clusters in a file are one
// deployment: dump sections join like files.
func TestEnvoyDumpSectionsAndStdinJoin(t *testing.T) {
	dir := t.TempDir()
	routes := `{"configs": [{"@type": "type.googleapis.com/envoy.admin.v3.RoutesConfigDump",
  "dynamic_route_configs": [{"route_config": {"@type": "type.googleapis.com/envoy.config.route.v3.RouteConfiguration",
    "name": "main", "virtual_hosts": [{"name": "app", "domains": ["*"],
      "routes": [{"match": {"prefix": "/"}, "route": {"cluster": "app", "timeout": "10s", "retry_policy": {"retry_on": "5xx", "num_retries": 2}}}]}]}}]}]}
`
	clusters := `{"configs": [{"@type": "type.googleapis.com/envoy.admin.v3.ClustersConfigDump",
  "dynamic_active_clusters": [{"cluster": {"@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster",
    "name": "app", "connect_timeout": "1s", "type": "STATIC",
    "load_assignment": {"cluster_name": "app", "endpoints": [{"lb_endpoints": [{"endpoint": {"address": {"socket_address": {"address": "10.0.0.1", "port_value": 80}}}}]}]}}}]}]}
`
	writeFiles(t, dir, map[string]string{"clusters.json": clusters, "routes.json": routes})
	check := func(m *model.Model) {
		t.Helper()
		require.Len(t, m.Proxies, 1)
		r := m.Proxies[0].Routes()
		require.Len(t, r, 1)
		require.NotNil(t, r[0].Forward.Upstream)
		assert.Equal(t, "app", r[0].Forward.Upstream.Name)
		for _, d := range m.Diagnostics {
			assert.NotEqual(t, "envoy-unresolved", d.Code, "%s", d.Message)
		}
	}
	check(load.Load([]string{filepath.Join(dir, "routes.json"), filepath.Join(dir, "clusters.json")}, load.Options{}))
	m := load.Load([]string{load.StdinPath, filepath.Join(dir, "clusters.json")}, load.Options{Stdin: &load.Stdin{Data: []byte(routes)}})
	check(m)
	assert.Equal(t, load.DefaultStdinName, m.Proxies[0].Entry)
	assert.True(t, m.Proxies[0].Named)
}
