package envoy

import (
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

// lineOf is the 1-based line where sub first appears.
func lineOf(src, sub string) int {
	i := strings.Index(src, sub)
	if i < 0 {
		return -1
	}
	return strings.Count(src[:i], "\n") + 1
}

const dumpJSON = `{
  "configs": [
    {
      "@type": "type.googleapis.com/envoy.admin.v3.BootstrapConfigDump",
      "bootstrap": {
        "static_resources": {
          "listeners": [{"name": "admin_only", "address": {"socket_address": {"address": "127.0.0.1", "port_value": 1}}}]
        }
      }
    },
    {
      "@type": "type.googleapis.com/envoy.admin.v3.ListenersConfigDump",
      "dynamic_listeners": [
        {
          "name": "http",
          "active_state": {
            "version_info": "7",
            "listener": {
              "@type": "type.googleapis.com/envoy.config.listener.v3.Listener",
              "name": "http",
              "address": {"socket_address": {"address": "0.0.0.0", "port_value": 8080}},
              "filter_chains": [{"filters": [{
                "name": "envoy.filters.network.http_connection_manager",
                "typed_config": {
                  "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
                  "stat_prefix": "http",
                  "rds": {"route_config_name": "routes_http", "config_source": {"ads": {}}},
                  "http_filters": [{"name": "envoy.filters.http.router", "typed_config": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]
                }
              }]}]
            }
          }
        }
      ]
    },
    {
      "@type": "type.googleapis.com/envoy.admin.v3.ClustersConfigDump",
      "dynamic_active_clusters": [
        {"version_info": "3", "cluster": {"@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster", "name": "svc", "type": "EDS", "eds_cluster_config": {"eds_config": {"ads": {}}}, "connect_timeout": "2s"}}
      ]
    },
    {
      "@type": "type.googleapis.com/envoy.admin.v3.RoutesConfigDump",
      "dynamic_route_configs": [
        {
          "version_info": "5",
          "route_config": {
            "@type": "type.googleapis.com/envoy.config.route.v3.RouteConfiguration",
            "name": "routes_http",
            "virtual_hosts": [{"name": "all", "domains": ["*"], "routes": [
              {"match": {"prefix": "/"}, "route": {"cluster": "svc", "timeout": "20s"}}
            ]}]
          }
        }
      ]
    },
    {
      "@type": "type.googleapis.com/envoy.admin.v3.EndpointsConfigDump",
      "dynamic_endpoint_configs": [
        {"endpoint_config": {"@type": "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment", "cluster_name": "svc",
          "endpoints": [{"lb_endpoints": [{"endpoint": {"address": {"socket_address": {"address": "10.1.2.3", "port_value": 80}}}}]}]}}
      ]
    }
  ]
}
`

func TestConfigDumpResolvesRDS(t *testing.T) {
	r := loadString(t, "config_dump.json", dumpJSON)
	wantClean(t, r)
	p := onlyProxy(t, r)
	// The bootstrap's static listener is repeated by the dump's listener
	// section when Envoy has one; here the section lists only the dynamic
	// listener, which is what serves.
	if len(p.Listeners) != 1 || p.Listeners[0].Name != "http" {
		t.Fatalf("listeners %v", names(p))
	}
	l := p.Listeners[0]
	// The routes are those of routes_http, and that configuration is not
	// linted a second time under a stand-in listener.
	if len(l.Routes) != 1 {
		t.Fatalf("%d routes", len(l.Routes))
	}
	rt := l.Routes[0]
	at(t, "timeout", rt.Envoy.Timeout, 20*time.Second, lineOf(dumpJSON, `"20s"`), colOf(dumpJSON, lineOf(dumpJSON, `"20s"`), `"timeout"`), false)
	if rt.Forward == nil || rt.Forward.Upstream == nil || rt.Forward.Upstream.Name != "svc" {
		t.Fatalf("pass %+v", rt.Forward)
	}
	u := rt.Forward.Upstream
	if len(u.Servers) != 1 || u.Servers[0].Raw != "10.1.2.3:80" || !u.Servers[0].Literal {
		t.Errorf("EDS servers %+v", u.Servers)
	}
	ct := lineOf(dumpJSON, `"2s"`)
	at(t, "connect timeout", rt.ConnectTimeout, 2*time.Second, ct, colOf(dumpJSON, ct, `"connect_timeout"`), false)
}

func names(p *model.Proxy) []string {
	var out []string
	for _, l := range p.Listeners {
		out = append(out, l.Name)
	}
	return out
}

func TestUnresolvedRDS(t *testing.T) {
	src := `name: l
address: {socket_address: {address: 0.0.0.0, port_value: 80}}
filter_chains:
- filters:
  - name: envoy.filters.network.http_connection_manager
    typed_config:
      "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
      stat_prefix: x
      rds: {route_config_name: elsewhere, config_source: {ads: {}}}
`
	r := loadString(t, "listener.yaml", src)
	wantClean(t, r)
	l := onlyProxy(t, r).Listeners[0]
	if len(l.Routes) != 0 {
		t.Errorf("routes %d", len(l.Routes))
	}
}

func TestShapes(t *testing.T) {
	cluster := `name: c
connect_timeout: 1s
type: STATIC
load_assignment: {cluster_name: c, endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 80}}}}]}]}
`
	indent := func(s, pad string) string {
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		for i := range lines {
			if i > 0 {
				lines[i] = pad + lines[i]
			}
		}
		return strings.Join(lines, "\n") + "\n"
	}
	cases := map[string]string{
		"single resource without @type": cluster,
		"single resource with @type":    "\"@type\": type.googleapis.com/envoy.config.cluster.v3.Cluster\n" + cluster,
		"bare list":                     "- " + indent(cluster, "  "),
		"resources file":                "version_info: \"1\"\nresources:\n- \"@type\": type.googleapis.com/envoy.config.cluster.v3.Cluster\n  " + indent(cluster, "  "),
		"dump fragment":                 "- version_info: \"1\"\n  cluster:\n    \"@type\": type.googleapis.com/envoy.config.cluster.v3.Cluster\n    " + indent(cluster, "    "),
		"map of names":                  "c:\n  " + indent(cluster, "  "),
		"camelCase bootstrap":           "staticResources:\n  clusters:\n  - " + indent(strings.ReplaceAll(strings.ReplaceAll(cluster, "connect_timeout", "connectTimeout"), "load_assignment", "loadAssignment"), "    "),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			r := loadString(t, "c.yaml", src)
			wantClean(t, r)
			p := onlyProxy(t, r)
			if len(p.Upstreams) != 1 || p.Upstreams[0].Name != "c" || len(p.Upstreams[0].Servers) != 1 {
				t.Fatalf("upstreams %+v", p.Upstreams)
			}
			if !p.Upstreams[0].ConnectTimeout.Explicit() || p.Upstreams[0].ConnectTimeout.Value != time.Second {
				t.Errorf("connect timeout %+v", p.Upstreams[0].ConnectTimeout)
			}
		})
	}
}

func TestWrappedUnderNames(t *testing.T) {
	src := `default:
  eg:
    configs:
    - "@type": type.googleapis.com/envoy.admin.v3.ClustersConfigDump
      dynamicActiveClusters:
      - cluster:
          "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
          name: a
          connectTimeout: 1s
  other:
    configs:
    - "@type": type.googleapis.com/envoy.admin.v3.ClustersConfigDump
      staticClusters:
      - cluster:
          "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
          name: b
          connectTimeout: 2s
`
	r := loadString(t, "wrapped.yaml", src)
	wantClean(t, r)
	if len(r.Proxies) != 2 {
		t.Fatalf("proxies %d", len(r.Proxies))
	}
	if r.Proxies[0].Upstreams[0].Name != "a" || r.Proxies[1].Upstreams[0].Name != "b" {
		t.Errorf("upstreams %s %s", r.Proxies[0].Upstreams[0].Name, r.Proxies[1].Upstreams[0].Name)
	}
	if !strings.HasSuffix(r.Proxies[0].Entry, "default/eg") {
		t.Errorf("entry %q", r.Proxies[0].Entry)
	}
}

func TestNotEnvoy(t *testing.T) {
	r := loadString(t, "k8s.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
	wantDiag(t, r, 1, 1, CodeInvalid, "not an Envoy configuration")
	if !r.Diagnostics[0].Fatal {
		t.Error("not fatal")
	}
	r = loadString(t, "list.yaml", "- name: c\n  connect_timeout: 1s\n- just a string\n")
	wantDiag(t, r, 3, 3, CodeInvalid, "not an xDS resource")
}

func TestMethodMatchers(t *testing.T) {
	src := `resources:
- "@type": type.googleapis.com/envoy.config.route.v3.RouteConfiguration
  name: r
  virtual_hosts:
  - name: vh
    domains: ["*"]
    routes:
    - match: {prefix: /a, headers: [{name: ":method", string_match: {exact: GET}}]}
      route: {cluster: c}
    - match: {prefix: /b, headers: [{name: ":method", string_match: {safe_regex: {regex: "GET|HEAD"}}}]}
      route: {cluster: c}
    - match: {prefix: /c, headers: [{name: ":method", string_match: {exact: post, ignore_case: true}}]}
      route: {cluster: c}
    - match: {prefix: /d, headers: [{name: ":method", string_match: {exact: GET}, invert_match: true}]}
      route: {cluster: c}
    - match: {prefix: /e, headers: [{name: ":method", present_match: true}, {name: x-debug, present_match: true}]}
      route: {cluster: c}
    - match: {prefix: /f, headers: [{name: ":method", string_match: {prefix: P}}, {name: ":method", string_match: {suffix: T}}]}
      route: {cluster: c}
    - match: {prefix: /g, headers: [{name: ":method", string_match: {safe_regex: {regex: "(?=GET)G"}}}]}
      route: {cluster: c}
`
	r := loadString(t, "m.yaml", src)
	wantClean(t, r)
	want := []string{"GET", "GET HEAD", "POST", "HEAD POST PUT DELETE PATCH OPTIONS TRACE CONNECT", "any", "POST PUT", "any"}
	routes := onlyProxy(t, r).Routes()
	if len(routes) != len(want) {
		t.Fatalf("%d routes", len(routes))
	}
	for i, rt := range routes {
		got := strings.Join(rt.Methods.Allowed, " ")
		if rt.Methods.Any {
			got = "any"
		}
		if got != want[i] {
			t.Errorf("%s: methods %q, want %q", rt.Name, got, want[i])
		}
		if !rt.Methods.Any && (int(rt.Methods.Pos().Line) != 2*i+8 || rt.Methods.Source() != ":method header matcher") {
			t.Errorf("%s: narrowed at %v by %q", rt.Name, rt.Methods.Pos(), rt.Methods.Source())
		}
	}
}

func TestFragments(t *testing.T) {
	// The typed_config of a connection manager, pasted alone.
	hcm := `stat_prefix: ingress_http
codec_type: AUTO
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
      route: {cluster: app, timeout: 0s, retry_policy: {retry_on: 5xx, num_retries: 2}}
`
	r := loadString(t, "hcm.yaml", hcm)
	wantClean(t, r)
	p := onlyProxy(t, r)
	if len(p.Listeners) != 1 || len(p.Listeners[0].Routes) != 1 {
		t.Fatalf("listeners %+v", p.Listeners)
	}
	at(t, "duration", p.Listeners[0].MaxConnectionDuration, 60*time.Second, 4, 3, false)
	at(t, "codec", p.Listeners[0].Codec, "AUTO", 2, 1, false)

	// A virtual host alone.
	vh := `name: app
domains: ["*"]
retry_policy: {retry_on: "5xx,gatway-error"}
routes:
- match: {prefix: /}
  route: {cluster: app}
`
	r = loadString(t, "vh.yaml", vh)
	wantClean(t, r)
	rt := onlyProxy(t, r).Routes()
	if len(rt) != 1 || len(rt[0].Retry.Unknown) != 1 || rt[0].Retry.On.Level() != "virtual_host" {
		t.Fatalf("routes %+v", rt)
	}
}
