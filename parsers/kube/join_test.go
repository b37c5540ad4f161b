package kube

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

func link(opts Options, files ...string) Result {
	var ms []*Manifest
	for i := 0; i+1 < len(files); i += 2 {
		ms = append(ms, Parse(files[i], []byte(files[i+1])))
	}
	return Link(ms, opts)
}

// The mesh config of another manifest applies to the routes of the run,
// with positions in its own file, and the ranking holds across files: the
// ConfigMap named istio wins over an IstioOperator read before it.
func TestJoinMeshConfig(t *testing.T) {
	op := "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  meshConfig:\n    defaultHttpRetryPolicy: {attempts: 5}\n"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    defaultHttpRetryPolicy:\n      attempts: 4\n"
	res := link(Options{}, "a-operator.yaml", op, "b-vs.yaml", meshVS)
	if len(res.Diagnostics) != 0 || len(res.Proxies) != 1 || len(res.Idle) != 0 {
		t.Fatalf("diagnostics %v, proxies %v, idle %v", res.Diagnostics, res.Proxies, res.Idle)
	}
	r := res.Proxies[0].Routes()[0]
	check(t, "retries", r.Envoy.NumRetries, 5, "meshConfig.defaultHttpRetryPolicy.attempts", model.Pos{File: "a-operator.yaml", Line: 5, Col: 40}, false)
	if r.Pos.File != "b-vs.yaml" || res.Proxies[0].Entry != "b-vs.yaml" || !reflect.DeepEqual(res.Proxies[0].Sources, []string{"a-operator.yaml", "b-vs.yaml"}) {
		t.Errorf("route at %v, entry %q, sources %v", r.Pos, res.Proxies[0].Entry, res.Proxies[0].Sources)
	}
	res = link(Options{}, "a-operator.yaml", op, "b-vs.yaml", meshVS, "c-istio.yaml", cm)
	r = res.Proxies[0].Routes()[0]
	check(t, "retries", r.Envoy.NumRetries, 4, "meshConfig.defaultHttpRetryPolicy.attempts", model.Pos{File: "c-istio.yaml", Line: 7, Col: 17}, false)
	// Alone, the mesh config is a note: nothing to apply it to.
	res = link(Options{}, "c-istio.yaml", cm)
	if len(res.Proxies) != 0 || len(res.Diagnostics) != 1 || res.Diagnostics[0].Severity != model.Note || res.Diagnostics[0].Pos.File != "c-istio.yaml" {
		t.Errorf("proxies %v, diagnostics %v", res.Proxies, res.Diagnostics)
	}
}

// A DestinationRule of another manifest gives the route's upstream its
// pool, and a Service of a third the route's port protocol.
func TestJoinDestinationRuleAndService(t *testing.T) {
	dr := "apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: orders, namespace: shop}\nspec:\n  host: orders\n  trafficPolicy:\n    connectionPool:\n      http: {idleTimeout: 30s}\n"
	vs := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: orders, namespace: shop}\nspec:\n  http:\n  - route:\n    - destination: {host: orders, port: {number: 9000}}\n"
	svc := "apiVersion: v1\nkind: Service\nmetadata: {name: orders, namespace: shop}\nspec:\n  ports: [{name: grpc, port: 9000}]\n"
	res := link(Options{}, "dr.yaml", dr, "svc.yaml", svc, "vs.yaml", vs)
	if len(res.Diagnostics) != 0 || len(res.Proxies) != 1 {
		t.Fatalf("diagnostics %v, proxies %v", res.Diagnostics, res.Proxies)
	}
	r := res.Proxies[0].Routes()[0]
	u := r.Forward.Upstream
	check(t, "pool idle", u.PoolIdle, 30*time.Second, "connectionPool.http.idleTimeout", model.Pos{File: "dr.yaml", Line: 8, Col: 27}, false)
	check(t, "stream", r.Stream, true, "ports.appProtocol", model.Pos{File: "vs.yaml", Line: 7, Col: 27}, false)
	if len(res.Services) != 1 || res.Services[0].Pos.File != "svc.yaml" {
		t.Errorf("services %+v", res.Services)
	}
	// The Service's file configures no proxy: it is idle, read only to
	// link.
	if len(res.Idle) != 1 || res.Idle[0].Path != "svc.yaml" || !res.Idle[0].Linked {
		t.Errorf("idle %+v", res.Idle)
	}
}

// A policy's references are local to its namespace: a policy and a route
// that both write their namespaces and differ do not match; a namespace
// left unsaid (set when applied) matches any. A parentRef's namespace is
// the Gateway's.
func TestJoinPolicyNamespaces(t *testing.T) {
	eg := Options{Target: model.Target{Product: model.EnvoyGateway}}
	policy := func(ns string) string {
		s := "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: defaults\n"
		if ns != "" {
			s += "  namespace: " + ns + "\n"
		}
		return s + "spec:\n  targetRefs:\n  - {group: gateway.networking.k8s.io, kind: Gateway, name: public}\n  retry: {numRetries: 4}\n"
	}
	route := func(ns, parentNS string) string {
		s := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: orders\n"
		if ns != "" {
			s += "  namespace: " + ns + "\n"
		}
		s += "spec:\n  parentRefs:\n  - name: public\n"
		if parentNS != "" {
			s += "    namespace: " + parentNS + "\n"
		}
		return s + "  rules:\n  - backendRefs: [{name: orders, port: 80}]\n"
	}
	for _, c := range []struct {
		policyNS, routeNS, parentNS string
		applies                     bool
	}{
		{"", "", "", true},
		{"gateway-system", "", "", true},
		{"gateway-system", "shop", "gateway-system", true},
		{"gateway-system", "gateway-system", "", true},
		{"gateway-system", "shop", "", false},
		{"gateway-system", "shop", "other", false},
	} {
		res := link(eg, "policy.yaml", policy(c.policyNS), "route.yaml", route(c.routeNS, c.parentNS))
		r := res.Proxies[0].Routes()[0]
		applies := r.Envoy.NumRetries.Value == 4
		if applies != c.applies {
			t.Errorf("policy in %q, route in %q with parent in %q: applies %v, want %v", c.policyNS, c.routeNS, c.parentNS, applies, c.applies)
		}
		// A policy that reaches no route says so, at its reference.
		refLine := int32(7)
		if c.policyNS != "" {
			refLine++
		}
		unattached := len(res.Diagnostics) == 1 && res.Diagnostics[0].Pos == (model.Pos{File: "policy.yaml", Line: refLine, Col: 5}) &&
			strings.HasPrefix(res.Diagnostics[0].Message, "BackendTrafficPolicy defaults applies to no route linted with it: it targets Gateway public")
		if unattached == c.applies || (c.applies && len(res.Diagnostics) != 0) {
			t.Errorf("policy in %q, route in %q: diagnostics %v", c.policyNS, c.routeNS, res.Diagnostics)
		}
	}
}

// The first policy in the run's order wins, across files as within one:
// manifests in the order given, documents in file order.
func TestJoinPolicyOrder(t *testing.T) {
	eg := Options{Target: model.Target{Product: model.EnvoyGateway}}
	policy := func(name string, n int) string {
		return "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: " + name + "}\nspec:\n  targetRefs: [{kind: HTTPRoute, name: orders}]\n  retry: {numRetries: " + string(rune('0'+n)) + "}\n"
	}
	route := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: orders}\nspec:\n  rules:\n  - backendRefs: [{name: orders, port: 80}]\n"
	res := link(eg, "a.yaml", policy("first", 3), "b.yaml", route+"---\n"+policy("second", 5))
	r := res.Proxies[0].Routes()[0]
	check(t, "retries", r.Envoy.NumRetries, 3, "retry.numRetries", model.Pos{File: "a.yaml", Line: 6, Col: 23}, false)
	// The second is Conflicted, and ignored: a warning at its reference.
	want := "BackendTrafficPolicy second is ignored: BackendTrafficPolicy first, earlier in the run, targets HTTPRoute orders too, and Envoy Gateway attaches only the first policy to an object, marking the others Conflicted (internal/gatewayapi/backendtrafficpolicy.go v1.4.0:365-395)"
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Pos != (model.Pos{File: "b.yaml", Line: 12, Col: 16}) || res.Diagnostics[0].Code != CodeIgnored || res.Diagnostics[0].Message != want {
		t.Errorf("diagnostics %v", res.Diagnostics)
	}
}

// Why a manifest configures no proxy, as a skipped file's reason.
func TestIdleReasons(t *testing.T) {
	for _, c := range []struct {
		src, want string
	}{
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", "a Kubernetes resource proxylint does not read (ConfigMap)"},
		{"apiVersion: v1\nkind: Secret\nmetadata: {name: a}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: a}\n",
			"Kubernetes resources proxylint does not read (Secret, Gateway)"},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
			"Kubernetes resources that configure no proxy (Deployment: read only to link routes to the pods behind them; ConfigMap: not read)"},
		{"# nothing yet\n---\n", "a Kubernetes manifest that holds no resource"},
	} {
		res := LoadBytes("m.yaml", []byte(c.src), Options{})
		if len(res.Idle) != 1 || res.Idle[0].Reason != c.want || len(res.Diagnostics) != 0 {
			t.Errorf("%q: idle %+v, diagnostics %v, want %q", c.src, res.Idle, res.Diagnostics, c.want)
		}
	}
	// Envoy Gateway's policies beside routes read as Istio's: left out,
	// and the file says why.
	res := link(Options{}, "route.yaml", "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: a}\nspec: {}\n",
		"ctp.yaml", "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: a}\nspec: {}\n")
	if len(res.Idle) != 1 || res.Idle[0].Reason != "Kubernetes resources that configure no proxy (ClientTrafficPolicy: read with --target envoy-gateway)" {
		t.Errorf("idle %+v", res.Idle)
	}
}

// Manifests whose documents are of kinds no part of the loader reads are
// counted, and their trees not kept.
func TestDroppedKinds(t *testing.T) {
	m := Parse("crds.yaml", []byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n"))
	if len(m.objs) != 0 || m.dropped["apiextensions.k8s.io/v1 CustomResourceDefinition"] != 1 || m.dropped["v1 ConfigMap"] != 1 {
		t.Errorf("objects %v, dropped %v", m.objs, m.dropped)
	}
}

func TestDetectManifest(t *testing.T) {
	for _, c := range []struct {
		head string
		want bool
	}{
		{"apiVersion: apps/v1\nkind: Deployment\n", true},
		{"# a comment\napiVersion: v1\nkind: ConfigMap # the app's\n", true},
		{"apiVersion: \"networking.k8s.io/v1\"\nkind: 'IngressClass'\n", true},
		{`{"apiVersion": "v1", "kind": "Service"}`, true},
		{"apiVersion: v2\nname: chart\n", false}, // a Helm Chart.yaml: no kind
		{"spec:\n  apiVersion: v1\n  kind: Thing\n", false},
		{"static_resources:\n  clusters: []\n", false},
		{"kind: Deployment\n", false},
	} {
		if got := DetectManifest([]byte(c.head)); got != c.want {
			t.Errorf("DetectManifest(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

// targetSelectors of kind Gateway match the labels of the run's
// Gateways, in another file too; a selector without matchLabels and
// matchExpressions matches every Gateway (a Kubernetes label selector
// that selects everything), as a GitOps repository writes it.
func TestJoinGatewaySelectors(t *testing.T) {
	eg := Options{Target: model.Target{Product: model.EnvoyGateway}}
	policy := func(sel string) string {
		return "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: envoy, namespace: network}\nspec:\n  targetSelectors:\n  - group: gateway.networking.k8s.io\n    kind: Gateway\n" + sel + "  retry: {numRetries: 4}\n"
	}
	gateway := "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: external\n  namespace: network\n  labels: {tier: edge, zone: a}\nspec: {gatewayClassName: envoy}\n"
	route := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: hook, namespace: flux-system}\nspec:\n  parentRefs: [{name: external, namespace: network}]\n  rules:\n  - backendRefs: [{name: receiver, port: 80}]\n"
	for _, c := range []struct {
		sel     string
		gateway bool
		applies bool
	}{
		{"", false, true},
		{"", true, true},
		{"    matchLabels: {tier: edge}\n", true, true},
		{"    matchLabels: {tier: edge}\n", false, false},
		{"    matchLabels: {tier: internal}\n", true, false},
		{"    matchExpressions: [{key: zone, operator: In, values: [a, b]}]\n", true, true},
		{"    matchExpressions: [{key: zone, operator: NotIn, values: [a]}]\n", true, false},
		{"    matchExpressions: [{key: tier, operator: Exists}]\n", true, true},
	} {
		files := []string{"envoy.yaml", policy(c.sel), "route.yaml", route}
		if c.gateway {
			files = append(files, "gateway.yaml", gateway)
		}
		res := link(eg, files...)
		r := res.Proxies[0].Routes()[0]
		if applies := r.Envoy.NumRetries.Value == 4; applies != c.applies {
			t.Errorf("selector %q, Gateway in the run %v: applies %v, want %v (diagnostics %v)", c.sel, c.gateway, applies, c.applies, res.Diagnostics)
		}
	}
}
