package envoy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

// typoAddress is the misspelling of "address" the tests make (spelled in two pieces so that
// spell checkers leave the source alone).
const typoAddress = "ad" + "ress"

var clusterYAML = `static_resources:
  clusters:
  - name: backend
    connect_timeout: 1s
    load_assignment:
      cluster_name: backend
      endpoints:
      - lb_endpoints:
        - endpoint:
            address:
              socket_address:
                ` + typoAddress + `: 10.0.0.1
                port_value: 8080
`

func TestTypoAtItsPosition(t *testing.T) {
	r := loadString(t, "typo.yaml", clusterYAML)
	d := getDiag(t, r, 12, 17, CodeInvalid, `unknown field "`+typoAddress+`" in envoy.config.core.v3.SocketAddress; did you mean "address"?`)
	if !d.Fatal || d.Severity != model.Error {
		t.Errorf("typo: fatal=%v severity=%v", d.Fatal, d.Severity)
	}
	// The rest of the file is still read.
	p := onlyProxy(t, r)
	if len(p.Upstreams) != 1 || p.Upstreams[0].Name != "backend" {
		t.Errorf("upstreams %+v", p.Upstreams)
	}
}

func TestEveryTypoReported(t *testing.T) {
	src := `static_resources:
  clusters:
  - name: a
    conect_timeout: 1s
  - name: b
    connectTimeot: 1s
    lb_polcy: ROUND_ROBIN
`
	r := loadString(t, "typos.yaml", src)
	wantDiag(t, r, 4, 5, CodeInvalid, `did you mean "connect_timeout"?`)
	wantDiag(t, r, 6, 5, CodeInvalid, `did you mean "connectTimeout"?`)
	wantDiag(t, r, 7, 5, CodeInvalid, `did you mean "lb_policy"?`)
}

func TestBadValueAtItsPosition(t *testing.T) {
	src := strings.Replace(clusterYAML, typoAddress+": 10.0.0.1", "address: 10.0.0.1", 1)
	src = strings.Replace(src, "port_value: 8080", "port_value: eighty", 1)
	r := loadString(t, "value.yaml", src)
	wantDiag(t, r, 13, 29, CodeInvalid, `port_value: invalid value for uint32 field portValue: "eighty"`)
}

func TestBadEnumAtItsPosition(t *testing.T) {
	src := `name: l
address: {socket_address: {address: 0.0.0.0, port_value: 80}}
filter_chains:
- filters:
  - name: hcm
    typed_config:
      "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
      stat_prefix: x
      codec_type: HTTP11
      route_config: {}
`
	r := loadString(t, "enum.yaml", src)
	wantDiag(t, r, 9, 19, CodeInvalid, `invalid value for enum field codecType: "HTTP11"; the values are AUTO, HTTP1, HTTP2, HTTP3`)
}

func TestEnumsIgnoreCase(t *testing.T) {
	// Envoy reads enum names case-insensitively (grpc-web's examples
	// write codec_type: auto and lb_policy: round_robin).
	src := `static_resources:
  clusters:
  - name: a
    type: logical_dns
    lb_policy: round_robin
    connect_timeout: 1s
`
	wantClean(t, loadString(t, "case.yaml", src))
}

func TestSingleValueForList(t *testing.T) {
	// Envoy takes a single value where a list is expected; its own
	// examples rely on it (filters: {name: ...}).
	src := `resources:
- "@type": type.googleapis.com/envoy.config.listener.v3.Listener
  name: listener_0
  address: {socket_address: {address: 0.0.0.0, port_value: 10000}}
  filter_chains:
  - filters:
      name: envoy.filters.network.http_connection_manager
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
        stat_prefix: ingress_http
        common_http_protocol_options: {max_connection_duration: 60s}
        http_filters:
          name: envoy.filters.http.router
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
        route_config: {name: local_route}
`
	r := loadString(t, "single.yaml", src)
	wantClean(t, r)
	p := onlyProxy(t, r)
	if len(p.Listeners) != 1 {
		t.Fatalf("listeners: %d", len(p.Listeners))
	}
	at(t, "max_connection_duration", p.Listeners[0].MaxConnectionDuration, 60*time.Second, 11, 40, false)
}

// violationsYAML breaks schema constraints at the root and inside the
// connection manager's Any.
const violationsYAML = `static_resources:
  listeners:
  - name: l
    address: {socket_address: {address: 0.0.0.0, port_value: 80}}
    filter_chains:
    - filters:
      - name: hcm
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          http_filters:
          - name: envoy.filters.http.router
          route_config:
            virtual_hosts:
            - name: vh
              domains: ["*"]
              routes:
              - match: {prefix: /}
                route:
                  cluster: c
                  retry_policy:
                    retry_back_off: {base_interval: 0s}
  clusters:
  - name: c
    connect_timeout: 0s
`

func TestValidateAllViolations(t *testing.T) {
	src := violationsYAML
	r := loadString(t, "validate.yaml", src)
	// stat_prefix is required: reported at the block that lacks it.
	d := getDiag(t, r, 9, 11, CodeInvalid, "stat_prefix: value length must be at least 1 runes")
	if d.Fatal {
		t.Error("a schema violation must not be fatal: the model is complete")
	}
	// Inside the route configuration, the path names every step.
	wantDiag(t, r, 21, 38, CodeInvalid, "route_config.virtual_hosts[0].routes[0].route.retry_policy.retry_back_off.base_interval: value must be greater than 0s")
	wantDiag(t, r, 24, 5, CodeInvalid, "static_resources.clusters[0].connect_timeout: value must be greater than 0s")
	onlyProxy(t, r)
}

// rootViolationYAML breaks a constraint inside an Any at the root of a
// resources file.
const rootViolationYAML = `resources:
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: ""
  connect_timeout: 1s
`

func TestValidateAllAtRoot(t *testing.T) {
	r := loadString(t, "root.yaml", rootViolationYAML)
	wantDiag(t, r, 3, 3, CodeInvalid, "name: value length must be at least 1 runes")
}

func TestUnknownExtensionKeepsTheRestStrict(t *testing.T) {
	src := `static_resources:
  listeners:
  - name: l
    address: {socket_address: {address: 0.0.0.0, port_value: 80}}
    filter_chains:
    - filters:
      - name: hcm
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: x
          http_filters:
          - name: my.filter
            typed_config:
              "@type": type.googleapis.com/acme.filters.Magic
              anything: [1, 2, {nested: true}]
          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
          route_config: {name: r}
          drian_timeout: 1s
`
	r := loadString(t, "ext.yaml", src)
	d := getDiag(t, r, 14, 24, CodeUnknownExtension, "extension not understood: acme.filters.Magic")
	if d.Severity != model.Note || d.Fatal {
		t.Errorf("unknown extension: severity %v fatal %v", d.Severity, d.Fatal)
	}
	wantDiag(t, r, 20, 11, CodeInvalid, `unknown field "drian_timeout"`)
	if p := onlyProxy(t, r); len(p.Listeners) != 1 {
		t.Errorf("listeners %d", len(p.Listeners))
	}
}

// A key written twice in YAML is read as Envoy reads it: yaml-cpp keeps
// both, and Envoy copies the mapping into a Struct key by key, so the last
// value wins (source/common/protobuf/yaml_utility.cc, parseYamlNode); a
// warning says the first is ignored. In JSON, protobuf's reader, called
// with its legacy syntax allowed, takes a field written twice again: an
// object is merged into the first, a list's items are added, a scalar's
// last value stands (TestDuplicateJSONKeys).
func TestDuplicateKey(t *testing.T) {
	src := "static_resources:\n  clusters:\n  - name: a\n    connect_timeout: 1s\n    connect_timeout: 2s\n"
	r := loadString(t, "dup.yaml", src)
	d := getDiag(t, r, 5, 5, CodeInvalid, `duplicate key "connect_timeout" (first at line 4): Envoy reads YAML keeping the last value, so the first is ignored`)
	if d.Severity != model.Warning || d.Fatal {
		t.Errorf("duplicate YAML key: severity %v fatal %v", d.Severity, d.Fatal)
	}
	if p := onlyProxy(t, r); len(p.Upstreams) != 1 || p.Upstreams[0].ConnectTimeout.Value != 2*time.Second {
		t.Errorf("the last connect_timeout is kept: %+v", p.Upstreams)
	}
}

func TestDuplicateJSONKeys(t *testing.T) {
	src := `{"static_resources": {"clusters": [{"name": "a", "name": "b", "connect_timeout": "1s"}],
  "clusters": [{"name": "c", "connect_timeout": "2s", "circuit_breakers": {"thresholds": [{"max_retries": 5}]},
    "circuit_breakers": {"thresholds": [{"max_retries": 7}]}}]}}`
	r := loadString(t, "dup.json", src)
	reads := "Envoy's JSON reader takes the field again, merging an object into the first, adding a list's items to it, and keeping the last value of anything else"
	for _, w := range []struct {
		line, col int
		key       string
	}{{1, 50, "name"}, {2, 3, "clusters"}, {3, 5, "circuit_breakers"}} {
		d := getDiag(t, r, w.line, w.col, CodeInvalid, fmt.Sprintf("duplicate key %q (first at line %d): %s", w.key, map[string]int{"name": 1, "clusters": 1, "circuit_breakers": 2}[w.key], reads))
		if d.Severity != model.Warning || d.Fatal {
			t.Errorf("duplicate JSON key %s: severity %v fatal %v", w.key, d.Severity, d.Fatal)
		}
	}
	p := onlyProxy(t, r)
	var names []string
	for _, u := range p.Upstreams {
		names = append(names, u.Name)
	}
	if strings.Join(names, ",") != "b,c" {
		t.Errorf("clusters %v, want b (the last name) and c (the second list's)", names)
	}
}

func TestSnakeAndCamelCaseSpellings(t *testing.T) {
	snake := `static_resources:
  listeners:
  - name: l
    address: {socket_address: {address: 0.0.0.0, port_value: 80}}
    filter_chains:
    - filters:
      - name: hcm
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: x
          codec_type: HTTP1
          common_http_protocol_options: {max_connection_duration: 60s}
          http1_safe_max_connection_duration: true
          route_config:
            virtual_hosts:
            - name: vh
              domains: ["*"]
              routes:
              - match: {prefix: /}
                route: {cluster: c, timeout: 0s, retry_policy: {retry_on: "5xx", num_retries: 3, per_try_timeout: 2s}}
  clusters:
  - name: c
    connect_timeout: 1s
`
	camel := strings.NewReplacer(
		"static_resources", "staticResources", "filter_chains", "filterChains", "typed_config", "typedConfig",
		"stat_prefix", "statPrefix", "codec_type", "codecType", "common_http_protocol_options", "commonHttpProtocolOptions",
		"max_connection_duration", "maxConnectionDuration", "http1_safe_max_connection_duration", "http1SafeMaxConnectionDuration",
		"route_config", "routeConfig", "virtual_hosts", "virtualHosts", "retry_policy", "retryPolicy", "retry_on", "retryOn",
		"num_retries", "numRetries", "per_try_timeout", "perTryTimeout", "socket_address", "socketAddress", "port_value", "portValue",
	).Replace(snake)
	for name, src := range map[string]string{"snake.yaml": snake, "camel.yaml": camel} {
		r := loadString(t, name, src)
		wantClean(t, r)
		p := onlyProxy(t, r)
		l := p.Listeners[0]
		at(t, name+" codec", l.Codec, "HTTP1", 11, 11, false)
		at(t, name+" duration", l.MaxConnectionDuration, 60*time.Second, 12, colOf(src, 12, "max"), false)
		at(t, name+" safe", l.H1SafeMaxConnectionDuration, true, 13, 11, false)
		rt := l.Routes[0]
		at(t, name+" num_retries", rt.Envoy.NumRetries, 3, 20, colOf(src, 20, "num"), false)
		at(t, name+" per_try", rt.Envoy.PerTryTimeout, 2*time.Second, 20, colOf(src, 20, "per"), false)
	}
}

// colOf is the 1-based column where sub first starts on a line.
func colOf(src string, line int, sub string) int {
	return strings.Index(strings.Split(src, "\n")[line-1], sub) + 1
}

// extensionsYAML uses extensions beyond the connection manager and router:
// the HTTP inspector, ext_authz, RBAC and the least-request policy.
const extensionsYAML = `static_resources:
  listeners:
  - name: l
    address: {socket_address: {address: 0.0.0.0, port_value: 80}}
    listener_filters:
    - name: i
      typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.listener.http_inspector.v3.HttpInspector}
    filter_chains:
    - filters:
      - name: hcm
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: x
          http_filters:
          - name: authz
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz
              grpc_service: {envoy_grpc: {cluster_name: c}, timeout: 0.5s}
          - name: rbac
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC
              rules: {action: ALLOW, policies: {p: {permissions: [{any: true}], principals: [{any: true}]}}}
          - name: envoy.filters.http.router
            typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
          route_config:
            virtual_hosts:
            - name: v
              domains: ["*"]
              routes:
              - match: {prefix: /}
                route: {cluster: c, timeout: 3s, retry_policy: {retry_on: 5xx, num_retries: 2}}
  clusters:
  - name: c
    connect_timeout: 1s
    load_balancing_policy:
      policies:
      - typed_extension_config:
          name: lr
          typed_config: {"@type": type.googleapis.com/envoy.extensions.load_balancing_policies.least_request.v3.LeastRequest, choice_count: 3}
    load_assignment:
      cluster_name: c
      endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 8080}}}}]}]
`

// extensionsBrokenYAML is extensionsYAML with a misspelt field inside
// ext_authz's gRPC service and choice_count below its minimum.
var extensionsBrokenYAML = strings.NewReplacer(
	", timeout: 0.5s}", ", timeout: 0.5s, bogus: 1}",
	"choice_count: 3}", "choice_count: 1}").Replace(extensionsYAML)

// Extensions beyond the connection manager and router are read and
// checked like the core API: a misspelt field inside ext_authz's gRPC
// service and a least-request policy with choice_count below its minimum
// (least_request.proto: uint32 gte 2) are errors at their places.
func TestExtensionsAreChecked(t *testing.T) {
	// Understood, so no note that their settings went unchecked.
	wantExactly(t, loadString(t, "extensions.yaml", extensionsYAML))
	r := loadString(t, "extensions.yaml", extensionsBrokenYAML)
	wantExactly(t, r,
		`18:76 envoy-invalid unknown field "bogus" in envoy.config.core.v3.GrpcService`,
		`39:127 envoy-invalid choice_count: value must be greater than or equal to 2`)
}

// A member of a oneof written twice in one JSON object is refused by
// protobuf's JSON reader even with the legacy syntax Envoy allows
// (parser.cc, ParseField: RecordAsSeen returns kOneofAlreadySeen): an
// error at the second key. YAML is turned into a Struct first, which keeps
// the last value, so the same key in YAML stays a warning; so does a key
// written again with null, which the reader passes over.
func TestDuplicateJSONOneofMember(t *testing.T) {
	const head = `{"static_resources": {"listeners": [{"name": "l", "address": {"socket_address": {"address": "0.0.0.0", "port_value": 80}},
 "filter_chains": [{"filters": [{"name": "hcm", "typed_config": {
  "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "stat_prefix": "x", "http_filters": [{"name": "envoy.filters.http.router", "typed_config": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}],
  "route_config": {"virtual_hosts": [{"name": "vh", "domains": ["*"], "routes": [
`
	const tail = `
  ]}]}}}]}]}],
 "clusters": [{"name": "c", "connect_timeout": "1s"}, {"name": "d", "connect_timeout": "1s"}]}}`
	src := head + `   {"match": {"prefix": "/a"}, "route": {"cluster": "c", "timeout": "1s",
     "cluster": "d", "timeout": "2s"}},
   {"match": {"prefix": "/b"}, "route": {"cluster": "c", "cluster": null}}` + tail
	r := loadString(t, "oneof.json", src)
	d := getDiag(t, r, 7, 6, CodeInvalid, `duplicate key "cluster" (first at line 6): a field of the oneof cluster_specifier of envoy.config.route.v3.RouteAction, which Envoy's JSON reader refuses to set twice ("'cluster' has already been set (either directly or as part of a oneof)")`)
	if d.Severity != model.Error {
		t.Errorf("a oneof member written twice: severity %v, want an error", d.Severity)
	}
	for _, w := range []struct{ line, col int }{{7, 22}, {8, 58}} {
		if d := getDiag(t, r, w.line, w.col, CodeInvalid, "Envoy's JSON reader takes the field again"); d.Severity != model.Warning {
			t.Errorf("%d:%d: severity %v, want a warning", w.line, w.col, d.Severity)
		}
	}
	var errs []string
	for _, d := range r.Diagnostics {
		if d.Severity == model.Error {
			errs = append(errs, fmt.Sprintf("%d:%d %s", d.Pos.Line, d.Pos.Col, d.Message))
		}
	}
	if len(errs) != 1 {
		t.Errorf("want one error, got %q", errs)
	}

	yamlSrc := `static_resources:
  listeners:
  - name: l
    address: {socket_address: {address: 0.0.0.0, port_value: 80}}
    filter_chains:
    - filters:
      - name: hcm
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: x
          http_filters:
          - name: envoy.filters.http.router
            typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
          route_config:
            virtual_hosts:
            - name: vh
              domains: ["*"]
              routes:
              - match: {prefix: /a}
                route:
                  cluster: c
                  cluster: d
  clusters:
  - {name: c, connect_timeout: 1s}
  - {name: d, connect_timeout: 1s}
`
	r = loadString(t, "oneof.yaml", yamlSrc)
	if d := getDiag(t, r, 22, 19, CodeInvalid, `duplicate key "cluster" (first at line 21): Envoy reads YAML keeping the last value`); d.Severity != model.Warning {
		t.Errorf("a oneof member written twice in YAML: severity %v, want a warning", d.Severity)
	}
	for _, d := range r.Diagnostics {
		if d.Severity == model.Error {
			t.Errorf("YAML: unexpected error %d:%d %s", d.Pos.Line, d.Pos.Col, d.Message)
		}
	}
}

// A field written as an extension's name ("[pkg.ext]", which protojson
// reads for messages that declare extensions) is an unknown field at its
// place: Envoy's messages declare none, and the compact messages keep no
// extension (they panic on one), so it must never reach them.
func TestExtensionNameIsAnUnknownField(t *testing.T) {
	for _, name := range []string{"[validate.rules]", "[google.protobuf.FieldOptions.x]", "[envoy.config.cluster.v3.Cluster.name]"} {
		src := `{"static_resources":{"clusters":[{"name":"c","connect_timeout":"1s",` + fmt.Sprintf("%q", name) + `:{}}]}}`
		r := loadString(t, "ext.json", src)
		d := getDiag(t, r, 1, 69, CodeInvalid, fmt.Sprintf("unknown field %q in envoy.config.cluster.v3.Cluster", name))
		if !d.Fatal || d.Severity != model.Error {
			t.Errorf("%s: fatal=%v severity=%v", name, d.Fatal, d.Severity)
		}
		if len(r.Diagnostics) != 1 {
			t.Errorf("%s: want that diagnostic alone, got:\n  %s", name, strings.Join(diagStrings(r), "\n  "))
		}
	}
}
