package kube

import (
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

const contourRoot = `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: shop
  namespace: shop
spec:
  virtualhost:
    fqdn: shop.example.com
  includes:
  - name: api
    conditions:
    - prefix: /api
  - name: missing
    conditions:
    - prefix: /old
  routes:
  - conditions:
    - prefix: /
    services:
    - name: web
      port: 80
    enableWebsockets: true
`

const contourAPI = `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: api
  namespace: shop
spec:
  routes:
  - conditions:
    - prefix: /v1
    services:
    - name: api
      port: 8080
    timeoutPolicy:
      response: 0s
      idleConnection: 45s
    retryPolicy:
      count: 2
      perTryTimeout: 3s
      retryOn: [retriable-status-codes, reset]
      retriableStatusCodes: [503]
  - conditions:
    - prefix: /stream
    services:
    - name: api
      port: 8080
    timeoutPolicy:
      response: infinity
    retryPolicy:
      count: -1
`

// A root HTTPProxy's own routes and those of the HTTPProxy it includes
// (in another file) under the include's prefix, with Contour's defaults:
// Envoy's 15s route timeout (also for response 0s), infinity turning it
// off, the 2s connect timeout, retryOn 5xx when unset; count -1 does not
// turn retries off before the fix of projectcontour/contour#5944.
func TestHTTPProxy(t *testing.T) {
	res := Link([]*Manifest{Parse("root.yaml", []byte(contourRoot)), Parse("api.yaml", []byte(contourAPI))}, Options{})
	var diags []string
	for _, d := range res.Diagnostics {
		diags = append(diags, d.Pos.String()+" "+string(d.Code)+" "+d.Message)
	}
	want := []string{
		"api.yaml:29:14 kube-ignored retryPolicy.count -1 does not turn retries off: Contour 1.20 to 1.33 writes no num_retries for it, and Envoy's default of one retry on 5xx (Contour's default retryOn) applies (internal/envoy/v3/route.go, retryPolicy; projectcontour/contour#5944); remove the retryPolicy to turn retries off",
		"root.yaml:13:11 load-error HTTPProxy shop includes shop/missing, which is not in the input: Contour answers /old with 502 until it is, and its routes are not checked here",
	}
	if strings.Join(diags, "\n") != strings.Join(want, "\n") {
		t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(diags, "\n"), strings.Join(want, "\n"))
	}
	if len(res.Proxies) != 1 || res.Proxies[0].Product != model.Contour || res.Read["HTTPProxy"] != 2 {
		t.Fatalf("proxies %v, read %v", res.Proxies, res.Read)
	}
	var names []string
	for _, r := range res.Proxies[0].Routes() {
		names = append(names, r.Name)
	}
	if strings.Join(names, "; ") != "HTTPProxy shop HTTPProxy api routes[0] /api/v1; HTTPProxy shop HTTPProxy api routes[1] /api/stream; HTTPProxy shop routes[0] /" {
		t.Fatalf("routes %q", names)
	}
	v1, stream, web := res.Proxies[0].Routes()[0], res.Proxies[0].Routes()[1], res.Proxies[0].Routes()[2]
	check(t, "v1 timeout", v1.Envoy.Timeout, 15*time.Second, "timeoutPolicy.response", incAt("api.yaml", 14, 17), true)
	check(t, "v1 per try", v1.AttemptTimeout, 3*time.Second, "retryPolicy.perTryTimeout", incAt("api.yaml", 18, 22), false)
	check(t, "v1 retries", v1.Envoy.NumRetries, 2, "retryPolicy.count", incAt("api.yaml", 17, 14), false)
	check(t, "v1 retry on", v1.Retry.On, []string{"retriable-status-codes", "reset", "503"}, "retryPolicy.retryOn", incAt("api.yaml", 19, 16), false)
	check(t, "v1 pool", v1.Pool.Idle, 45*time.Second, "timeoutPolicy.idleConnection", incAt("api.yaml", 15, 23), false)
	check(t, "connect", v1.ConnectTimeout, 2*time.Second, "connect-timeout", incAt("api.yaml", 11, 13), true)
	if v1.MaxAttempts.Value != 3 || len(v1.Reexecutes) != 2 || v1.Reexecutes[0].Condition != "reset" || !v1.Reexecutes[0].Timeout || v1.Reexecutes[1].Condition != "503" {
		t.Errorf("v1 max attempts %+v, reexecutes %+v", v1.MaxAttempts, v1.Reexecutes)
	}
	check(t, "stream timeout", stream.Envoy.Timeout, 0, "timeoutPolicy.response", incAt("api.yaml", 27, 17), false)
	check(t, "stream retries", stream.Envoy.NumRetries, 1, "retryPolicy.count", incAt("api.yaml", 29, 14), false)
	check(t, "stream retry on", stream.Retry.On, []string{"5xx"}, "retryPolicy.retryOn", incAt("api.yaml", 28, 5), true)
	if stream.MaxAttempts.Value != 2 || v1.Forward.Upstream == stream.Forward.Upstream {
		t.Errorf("stream max attempts %+v; clusters differ by idleConnection", stream.MaxAttempts)
	}
	check(t, "web timeout", web.Envoy.Timeout, 15*time.Second, "timeoutPolicy.response", incAt("root.yaml", 17, 5), true)
	if web.Envoy.Timeout.Note() != noteContourTimeout || !web.Stream.Value || web.MaxAttempts.Value != 1 || web.Forward.Upstream.Name != "shop/web/80" {
		t.Errorf("web %+v stream %v attempts %v upstream %q", web.Envoy.Timeout, web.Stream, web.MaxAttempts, web.Forward.Upstream.Name)
	}
	// Contour orders routes so the longest prefix takes a request.
	ln := res.Proxies[0].Listeners[0]
	if ln.Select(ln, "/api/v1/orders", true) != v1 || ln.Select(ln, "/static", true) != web {
		t.Errorf("select")
	}

	// A release with the fix: count -1 is no retry.
	fixed := Link([]*Manifest{Parse("root.yaml", []byte(contourRoot)), Parse("api.yaml", []byte(contourAPI))}, Options{Target: model.Target{Product: model.Contour, Version: model.Version{Major: 1, Minor: 34}}})
	if s := fixed.Proxies[0].Routes()[1]; s.MaxAttempts.Value != 1 || len(fixed.Diagnostics) != 1 {
		t.Errorf("contour 1.34: max attempts %+v, diagnostics %v", s.MaxAttempts, fixed.Diagnostics)
	}
}

// An HTTPProxy without a virtualhost that no root includes is served by
// no one: a note; a root including a root, and an include cycle, are
// refused.
func TestHTTPProxyIncludes(t *testing.T) {
	src := `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: a, namespace: shop}
spec:
  virtualhost: {fqdn: a.example.com}
  includes: [{name: b}, {name: c}]
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: b, namespace: shop}
spec:
  virtualhost: {fqdn: b.example.com}
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: c, namespace: shop}
spec:
  includes: [{name: d}]
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: d, namespace: shop}
spec:
  includes: [{name: c}]
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: orphan, namespace: shop}
spec:
  routes: [{services: [{name: x, port: 80}]}]
`
	res := LoadBytes("hp.yaml", []byte(src), Options{})
	var diags []string
	for _, d := range res.Diagnostics {
		diags = append(diags, d.Pos.String()+" "+string(d.Code)+" "+d.Message)
	}
	want := []string{
		"hp.yaml:6:21 kube-invalid HTTPProxy a includes b, a root HTTPProxy (it has a virtualhost): Contour refuses the include and answers / with 502",
		"hp.yaml:24:21 kube-invalid HTTPProxy d includes c, which includes it back: Contour refuses the include cycle",
		"hp.yaml:26:1 load-error HTTPProxy orphan has no virtualhost and no root HTTPProxy of the input includes it, so Contour serves none of its routes here: lint it with the root that includes it",
	}
	if strings.Join(diags, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(diags, "\n"), strings.Join(want, "\n"))
	}
}

// An HTTPProxy of projectcontour.io/v1alpha1 (Contour before 1.0, as an
// example of Contour's own still writes it) is served by no release
// since 1.0: a warning says so, and nothing of it is read.
func TestHTTPProxyOldAPIVersion(t *testing.T) {
	src := "apiVersion: projectcontour.io/v1alpha1\nkind: HTTPProxy\nmetadata: {name: response-timeout}\nspec:\n  virtualhost: {fqdn: a.example.com}\n  routes:\n  - retryPolicy: {count: 3}\n    services: [{name: s1, port: 80}]\n"
	res := Link([]*Manifest{Parse("hp.yaml", []byte(src))}, Options{})
	var diags []string
	for _, d := range res.Diagnostics {
		diags = append(diags, d.Pos.String()+" "+string(d.Code)+" "+d.Severity.String()+" "+d.Message)
	}
	want := "hp.yaml:1:13 kube-ignored warning HTTPProxy response-timeout is ignored: Contour serves HTTPProxy as projectcontour.io/v1 only, since 1.0 (its CRD has no other version), so the API server refuses projectcontour.io/v1alpha1: write apiVersion: projectcontour.io/v1"
	if strings.Join(diags, "\n") != want || len(res.Proxies) != 0 || len(res.Idle) != 0 {
		t.Errorf("diagnostics:\n%s\nwant:\n%s\nproxies %v, idle %v", strings.Join(diags, "\n"), want, res.Proxies, res.Idle)
	}
}
