package envoy

import (
	"strings"
	"testing"
)

// dumpWith is a config dump whose clusters section holds clusters (JSON
// entries of dynamic_active_clusters) and whose endpoints section holds
// endpoints.
func dumpWith(bootstrapNode, clusters, warming, endpoints string) string {
	return `{
 "configs": [
  {
   "@type": "type.googleapis.com/envoy.admin.v3.BootstrapConfigDump",
   "bootstrap": {"node": {` + bootstrapNode + `}},
   "last_updated": "2024-01-01T00:00:00Z"
  },
  {
   "@type": "type.googleapis.com/envoy.admin.v3.ClustersConfigDump",
   "version_info": "1",
   "dynamic_active_clusters": [` + clusters + `],
   "dynamic_warming_clusters": [` + warming + `]
  },
  {
   "@type": "type.googleapis.com/envoy.admin.v3.EndpointsConfigDump",
   "dynamic_endpoint_configs": [` + endpoints + `]
  }
 ]
}
`
}

const activeCluster = `
    {"version_info": "1", "last_updated": "2024-01-01T00:00:00Z",
     "error_state": {"failed_configuration": {}, "details": "x"},
     "client_status": "ACKED",
     "cluster": {"@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster",
      "name": "a", "type": "EDS", "eds_cluster_config": {"eds_config": {"ads": {}}}}}`

// Envoy's computed endpoints (health, a locality weight of 0) are read,
// not judged; the same assignment written by hand is refused.
func TestDumpEndpointsAreState(t *testing.T) {
	cla := `{"@type": "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment",
     "cluster_name": "a",
     "endpoints": [{"lb_endpoints": [{"endpoint": {"address": {"socket_address": {"address": "10.0.0.1", "port_value": 80}}},
       "health_status": "HEALTHY"}], "load_balancing_weight": 0}]}`
	r := loadString(t, "dump.json", dumpWith("", activeCluster, "", `{"endpoint_config": `+cla+`}`))
	wantExactly(t, r)
	if p := onlyProxy(t, r); len(p.Upstreams) != 1 {
		t.Errorf("upstreams: %d", len(p.Upstreams))
	}
	r = loadString(t, "cla.json", cla)
	wantExactly(t, r, `4:38 envoy-invalid endpoints[0].load_balancing_weight: value must be greater than or equal to 1`)
}

// A cluster still warming is checked like an active one, but the active
// one is what the model holds.
func TestDumpWarmingClusterChecked(t *testing.T) {
	warming := `
    {"cluster": {"@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster",
      "name": "b", "conect_timeout": "1s"}}`
	r := loadString(t, "dump.json", dumpWith("", activeCluster, warming, ""))
	wantExactly(t, r, `19:20 envoy-invalid unknown field "conect_timeout" in envoy.config.cluster.v3.Cluster; did you mean "connect_timeout"?`,
		`16:35 envoy-unresolved the endpoints of EDS cluster "a" are not among the files linted: its servers are unknown, so the hop behind it is not checked. Envoy writes them into its config dump when asked (/config_dump?include_eds).`)
	if p := onlyProxy(t, r); len(p.Upstreams) != 1 || p.Upstreams[0].Name != "a" {
		t.Errorf("upstreams: %+v", p.Upstreams)
	}
}

// A field Envoy deleted (a reserved name) is accepted in a dump, which an
// older Envoy wrote, and refused anywhere else.
func TestDumpAcceptsRemovedFields(t *testing.T) {
	old := strings.Replace(activeCluster, `"name": "a",`, `"name": "a", "hosts": [], "frobnicate": 1,`, 1)
	r := loadString(t, "dump.json", dumpWith("", old, "", ""))
	wantExactly(t, r, `16:33 envoy-invalid unknown field "frobnicate" in envoy.config.cluster.v3.Cluster`,
		`16:65 envoy-unresolved the endpoints of EDS cluster "a" are not among the files linted: its servers are unknown, so the hop behind it is not checked. Envoy writes them into its config dump when asked (/config_dump?include_eds).`)
	r = loadString(t, "cluster.yaml", "name: a\nconnect_timeout: 1s\nhosts: []\n")
	wantExactly(t, r, `3:1 envoy-invalid unknown field "hosts" in envoy.config.cluster.v3.Cluster: a field Envoy has removed (its name is reserved in the API)`)
}

// When the dump says which release wrote it, every field of that release
// is accepted.
func TestDumpOfKnownRelease(t *testing.T) {
	old := strings.Replace(activeCluster, `"name": "a",`, `"name": "a", "frobnicate": 1,`, 1)
	node := `"user_agent_name": "envoy", "user_agent_build_version": {"version": {"major_number": 1, "minor_number": 14, "patch": 1}}`
	r := loadString(t, "dump.json", dumpWith(node, old, "", ""))
	wantExactly(t, r, `16:52 envoy-unresolved the endpoints of EDS cluster "a" are not among the files linted: its servers are unknown, so the hop behind it is not checked. Envoy writes them into its config dump when asked (/config_dump?include_eds).`)
	node = `"user_agent_version": "1.14.1"`
	r = loadString(t, "dump.json", dumpWith(node, old, "", ""))
	wantExactly(t, r, `16:52 envoy-unresolved the endpoints of EDS cluster "a" are not among the files linted: its servers are unknown, so the hop behind it is not checked. Envoy writes them into its config dump when asked (/config_dump?include_eds).`)
}
