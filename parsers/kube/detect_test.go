package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
)

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		head string
		want bool
	}{
		{"apiVersion: networking.istio.io/v1\nkind: VirtualService\n", true},
		{"apiVersion: v1\nkind: List\nitems:\n- apiVersion: networking.istio.io/v1beta1\n  kind: DestinationRule\n", true},
		{`{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "networking.istio.io/v1", "kind": "VirtualService"}]}`, true},
		{"apiVersion: apps/v1\nkind: Deployment\n", false},
		{"kind: VirtualService\n", false}, // no apiVersion: not a Kubernetes object
		{"static_resources:\n  clusters: []\n", false},
	} {
		if got := Detect([]byte(c.head)); got != c.want {
			t.Errorf("Detect(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

// kubectl get -o json writes a List; JSON is read as YAML, with positions.
func TestJSONList(t *testing.T) {
	src := `{
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {
      "apiVersion": "networking.istio.io/v1",
      "kind": "VirtualService",
      "metadata": {"name": "api"},
      "spec": {"hosts": ["api"], "http": [
        {"route": [{"destination": {"host": "api"}}], "timeout": "3s",
         "retries": {"attempts": 2, "retryOn": "reset"}}
      ]}
    },
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
  ]
}`
	res := LoadBytes("list.json", []byte(src), Options{})
	if len(res.Diagnostics) != 0 || len(res.Proxies) != 1 || res.Skipped["v1 ConfigMap"] != 1 {
		t.Fatalf("diagnostics %v, proxies %v, skipped %v", res.Diagnostics, res.Proxies, res.Skipped)
	}
	if res.Proxies[0].Target != (model.Target{Product: model.Istio}) {
		t.Errorf("target %v, want the newest Istio", res.Proxies[0].Target)
	}
	r := res.Proxies[0].Routes()[0]
	check(t, "budget", r.Budget, 3e9, "timeout", model.Pos{File: "list.json", Line: 10, Col: 66}, false)
	check(t, "max attempts", r.MaxAttempts, 3, "retries.attempts", model.Pos{File: "list.json", Line: 11, Col: 34}, false)
	// reset sends a request again after a reset; with no perTryTimeout no
	// try times out on its own (the route timeout ends the request), so
	// a hanging backend is not passed on.
	if len(r.Reexecutes) != 1 || r.Reexecutes[0].Condition != "reset" || r.Reexecutes[0].Timeout || r.Reexecutes[0].Response {
		t.Errorf("reexecutes %+v", r.Reexecutes)
	}
}

func TestSyntaxLine(t *testing.T) {
	for _, c := range []struct {
		src  string
		line int
		msg  string
	}{
		// A parser's problem: the line where the collection opened.
		{"apiVersion: networking.istio.io/v1\nkind: VirtualService\nspec:\n  hosts: [a\n  http: []\n", 4, "did not find expected ',' or ']'"},
		// A scanner's problem: the line of the character.
		{"apiVersion: networking.istio.io/v1\nkind: VirtualService\nspec:\n\thttp: []\n", 4, "found character that cannot start any token"},
	} {
		res := LoadBytes("bad.yaml", []byte(c.src), Options{})
		if len(res.Diagnostics) != 1 {
			t.Fatalf("%q: diagnostics %v", c.src, res.Diagnostics)
		}
		d := res.Diagnostics[0]
		want := "bad.yaml is not a YAML or JSON manifest proxylint can read: " + c.msg
		if d.Code != CodeSyntax || !d.Fatal || int(d.Pos.Line) != c.line || d.Message != want || len(res.Proxies) != 0 {
			t.Errorf("%q: %v %v %q, want line %d %q", c.src, d.Code, d.Pos, d.Message, c.line, want)
		}
	}
}

// Lists whose items alias one another: each resource is read once, not
// once per path of references (2^39 here).
func TestAliasedLists(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nx:\n")
	b.WriteString("  s0: &s0 [{apiVersion: networking.istio.io/v1, kind: VirtualService, metadata: {name: a}}]\n")
	for k := 1; k < 40; k++ {
		fmt.Fprintf(&b, "  s%d: &s%d [{kind: List, items: *s%d}, {kind: List, items: *s%d}]\n", k, k, k-1, k-1)
	}
	b.WriteString("items: *s39\n")
	res := LoadBytes("bomb.yaml", []byte(b.String()), Options{})
	if len(res.Diagnostics) != 0 || res.Read["VirtualService"] != 1 || len(res.Proxies) != 1 {
		t.Fatalf("diagnostics %v, read %v", res.Diagnostics, res.Read)
	}
}

func TestDetectLinked(t *testing.T) {
	for _, c := range []struct {
		head string
		want bool
	}{
		{"apiVersion: v1\nkind: Service\n", true},
		{"apiVersion: apps/v1\nkind: Deployment # the api\n", true},
		{"apiVersion: apps/v1\nkind: \"StatefulSet\"\n", true},
		{`{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {}}`, true},
		{"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n", true},
		{"apiVersion: v1\nkind: ServiceAccount\n", false},
		{"apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\n", false},
		{"kind: Service\n", false}, // no apiVersion
		{"apiVersion: v1\nkind: ConfigMap\n", false},
	} {
		if got := DetectLinked([]byte(c.head)); got != c.want {
			t.Errorf("DetectLinked(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

// The controllers' own kinds make a file a manifest to read.
func TestDetectControllers(t *testing.T) {
	for _, head := range []string{
		"apiVersion: k8s.nginx.org/v1\nkind: VirtualServer\n",
		"apiVersion: k8s.nginx.org/v1\nkind: VirtualServerRoute\n",
		"apiVersion: projectcontour.io/v1\nkind: HTTPProxy\n",
		"apiVersion: traefik.io/v1alpha1\nkind: IngressRoute\n",
		"apiVersion: traefik.containo.us/v1alpha1\nkind: Middleware\n",
	} {
		if !Detect([]byte(head)) {
			t.Errorf("Detect(%q) = false", head)
		}
	}
}
