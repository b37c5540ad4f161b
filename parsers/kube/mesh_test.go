package kube

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

func meshAt(line, col int) model.Pos {
	return model.Pos{File: "testdata/meshconfig.yaml", Line: int32(line), Col: int32(col)}
}

// The ConfigMap's defaultHttpRetryPolicy replaces Istio's default for the
// route without retries, with positions inside the embedded YAML; the
// route with its own block keeps it.
func TestMeshConfigMapRetryPolicy(t *testing.T) {
	res := load(t, "testdata/meshconfig.yaml", model.Target{Product: model.Istio, Version: model.Version{Major: 1, Minor: 23}})
	if len(res.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", res.Diagnostics)
	}
	if !reflect.DeepEqual(res.Read, map[string]int{"VirtualService": 1, "ConfigMap": 1}) || len(res.Skipped) != 0 {
		t.Fatalf("read %v, skipped %v", res.Read, res.Skipped)
	}
	routes := res.Proxies[0].Routes()
	if len(routes) != 2 {
		t.Fatalf("%d routes", len(routes))
	}
	r := routes[0]
	check(t, "retries", r.Envoy.NumRetries, 3, "meshConfig.defaultHttpRetryPolicy.attempts", meshAt(15, 17), false)
	check(t, "max attempts", r.MaxAttempts, 4, "meshConfig.defaultHttpRetryPolicy.attempts", meshAt(15, 17), false)
	check(t, "per-try timeout", r.Envoy.PerTryTimeout, 2*time.Second, "meshConfig.defaultHttpRetryPolicy.perTryTimeout", meshAt(16, 22), false)
	check(t, "attempt timeout", r.AttemptTimeout, 2*time.Second, "meshConfig.defaultHttpRetryPolicy.perTryTimeout", meshAt(16, 22), false)
	check(t, "retry on", r.Retry.On, []string{"5xx", "reset"}, "meshConfig.defaultHttpRetryPolicy.retryOn", meshAt(17, 16), false)
	if r.Retry.On.Level() != "mesh" {
		t.Errorf("level %q", r.Retry.On.Level())
	}
	var conds []string
	for _, x := range r.Reexecutes {
		conds = append(conds, x.Condition)
	}
	if !reflect.DeepEqual(conds, []string{"5xx", "reset"}) {
		t.Errorf("reexecutes %v", conds)
	}
	own := routes[1]
	check(t, "own retries", own.Envoy.NumRetries, 1, "retries.attempts", meshAt(37, 17), false)
	check(t, "own retry on", own.Retry.On, append(strings.Split(defaultRetryOn, ","), "503"), "retries.retryOn", meshAt(36, 5), true)
	if own.Envoy.PerTryTimeout.Valid() {
		t.Errorf("the mesh's perTryTimeout reached a route with its own retries: %+v", own.Envoy.PerTryTimeout)
	}
}

func loadString(path, src string) Result {
	return LoadBytes(path, []byte(src), Options{Target: model.Target{Product: model.Istio}})
}

const meshVS = `---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: orders}
spec:
  http:
  - route:
    - destination: {host: orders}
`

// An IstioOperator's spec.meshConfig; a policy without attempts turns
// retries off (ConvertPolicy: in.Attempts <= 0), and one without retryOn
// keeps Istio's default conditions.
func TestMeshIstioOperator(t *testing.T) {
	src := `apiVersion: install.istio.io/v1alpha1
kind: IstioOperator
spec:
  meshConfig:
    defaultHttpRetryPolicy:
      perTryTimeout: 1s
` + meshVS
	res := loadString("op.yaml", src)
	if len(res.Diagnostics) != 0 || res.Read["IstioOperator"] != 1 {
		t.Fatalf("diagnostics %v, read %v", res.Diagnostics, res.Read)
	}
	r := res.Proxies[0].Routes()[0]
	at := func(l, c int) model.Pos { return model.Pos{File: "op.yaml", Line: int32(l), Col: int32(c)} }
	check(t, "retries", r.Envoy.NumRetries, 0, "meshConfig.defaultHttpRetryPolicy.attempts", at(5, 5), false)
	check(t, "max attempts", r.MaxAttempts, 1, "meshConfig.defaultHttpRetryPolicy.attempts", at(5, 5), false)
	check(t, "retry on", r.Retry.On, strings.Split(defaultRetryOn, ","), "meshConfig.defaultHttpRetryPolicy.retryOn", at(5, 5), true)
	if len(r.Reexecutes) != 0 {
		t.Errorf("reexecutes %v", r.Reexecutes)
	}
}

// The ConfigMap named istio wins over a revision's and over an
// IstioOperator; a quoted mesh string (kubectl -o json) points at the
// string; an istio ConfigMap without the policy leaves Istio's default.
func TestMeshSources(t *testing.T) {
	src := `apiVersion: install.istio.io/v1alpha1
kind: IstioOperator
spec:
  meshConfig:
    defaultHttpRetryPolicy: {attempts: 5}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: istio-canary}
data:
  mesh: "defaultHttpRetryPolicy: {attempts: 6}"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: istio}
data:
  mesh: "defaultHttpRetryPolicy:\n  attempts: 4\n  retryOn: gateway-error\n"
` + meshVS
	res := loadString("srcs.yaml", src)
	if len(res.Diagnostics) != 0 || res.Read["ConfigMap"] != 2 || res.Read["IstioOperator"] != 1 {
		t.Fatalf("diagnostics %v, read %v", res.Diagnostics, res.Read)
	}
	r := res.Proxies[0].Routes()[0]
	at := model.Pos{File: "srcs.yaml", Line: 17, Col: 9}
	check(t, "retries", r.Envoy.NumRetries, 4, "meshConfig.defaultHttpRetryPolicy.attempts", at, false)
	check(t, "retry on", r.Retry.On, []string{"gateway-error"}, "meshConfig.defaultHttpRetryPolicy.retryOn", at, false)

	res = loadString("plain.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio}\ndata:\n  mesh: |\n    accessLogFile: /dev/stdout\n"+meshVS)
	r = res.Proxies[0].Routes()[0]
	check(t, "default retries", r.Envoy.NumRetries, defaultAttempts, "retries.attempts", model.Pos{File: "plain.yaml", Line: 13, Col: 5}, true)
}

// A mesh string that is not YAML is reported at its line in the file, and
// left out.
func TestMeshInvalid(t *testing.T) {
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio}\ndata:\n  mesh: |\n    defaultHttpRetryPolicy:\n      attempts: [3\n" + meshVS
	res := loadString("bad.yaml", src)
	if len(res.Diagnostics) != 1 {
		t.Fatalf("diagnostics %v", res.Diagnostics)
	}
	d := res.Diagnostics[0]
	if d.Code != CodeInvalid || d.Pos != (model.Pos{File: "bad.yaml", Line: 7, Col: 5}) ||
		!strings.Contains(d.Message, "data.mesh is not a MeshConfig") {
		t.Errorf("diagnostic %v", d)
	}
	r := res.Proxies[0].Routes()[0]
	if !r.Envoy.NumRetries.Default() {
		t.Errorf("retries %+v", r.Envoy.NumRetries)
	}
	// A duration that is not one is reported where the mesh string holds it.
	src = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio}\ndata:\n  mesh: |\n    defaultHttpRetryPolicy:\n      attempts: 2\n      perTryTimeout: soon\n" + meshVS
	res = loadString("dur.yaml", src)
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Pos != (model.Pos{File: "dur.yaml", Line: 8, Col: 22}) {
		t.Fatalf("diagnostics %v", res.Diagnostics)
	}
}

// An HTTPRoute rule without a retry stanza becomes a route without
// retries, which gets the mesh's policy too.
func TestMeshHTTPRoute(t *testing.T) {
	src := `apiVersion: v1
kind: ConfigMap
metadata: {name: istio, namespace: istio-system}
data:
  mesh: |
    defaultHttpRetryPolicy:
      attempts: 1
      retryOn: reset
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web}
spec:
  rules:
  - backendRefs: [{name: web, port: 80}]
`
	res := loadString("route.yaml", src)
	if len(res.Diagnostics) != 0 {
		t.Fatalf("diagnostics %v", res.Diagnostics)
	}
	r := res.Proxies[0].Routes()[0]
	check(t, "retries", r.Envoy.NumRetries, 1, "meshConfig.defaultHttpRetryPolicy.attempts", model.Pos{File: "route.yaml", Line: 7, Col: 17}, false)
	check(t, "retry on", r.Retry.On, []string{"reset"}, "meshConfig.defaultHttpRetryPolicy.retryOn", model.Pos{File: "route.yaml", Line: 8, Col: 16}, false)
}

// Comments inside a literal mesh string are the file's, at their file
// line and column, in line order with the file's own.
func TestMeshComments(t *testing.T) {
	src := "# head\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio}\ndata:\n  mesh: |\n    # inside\n    defaultHttpRetryPolicy:\n      attempts: 1 # after\n" + meshVS + "# tail\n"
	res := loadString("c.yaml", src)
	var got []string
	for _, c := range res.File.Comments {
		got = append(got, fmt.Sprintf("%d:%d %s", c.Pos.Line, c.Pos.Col, strings.TrimSpace(c.Text)))
	}
	want := []string{"1:1 head", "7:5 inside", "9:19 after", "18:1 tail"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("comments %q, want %q", got, want)
	}
}

// Under 1.24 an HTTPRoute's retry stanza is ignored, and the route gets
// the mesh's policy, which the warning names.
func TestMeshIgnoredRetryStanza(t *testing.T) {
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio}\ndata:\n  mesh: |\n    defaultHttpRetryPolicy: {attempts: 1}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: web}\nspec:\n  rules:\n  - backendRefs: [{name: web, port: 80}]\n    retry: {attempts: 3}\n"
	res := LoadBytes("r.yaml", []byte(src), Options{Target: model.Target{Product: model.Istio, Version: model.Version{Major: 1, Minor: 24}}})
	want := "retry is ignored: Istio reads an HTTPRoute's retry stanza only since 1.25, so this route gets the mesh's defaultHttpRetryPolicy"
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Message != want || res.Diagnostics[0].Pos != (model.Pos{File: "r.yaml", Line: 14, Col: 5}) {
		t.Fatalf("diagnostics %v", res.Diagnostics)
	}
	r := res.Proxies[0].Routes()[0]
	check(t, "retries", r.Envoy.NumRetries, 1, "meshConfig.defaultHttpRetryPolicy.attempts", model.Pos{File: "r.yaml", Line: 6, Col: 40}, false)
}
