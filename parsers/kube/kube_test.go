package kube

import (
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

func load(t *testing.T, path string, target model.Target) Result {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return LoadBytes(path, src, Options{Target: target})
}

func at(line, col int) model.Pos {
	return model.Pos{File: "testdata/mesh.yaml", Line: int32(line), Col: int32(col)}
}

func check[T any](t *testing.T, what string, got model.Setting[T], want T, name string, pos model.Pos, dflt bool) {
	t.Helper()
	if !reflect.DeepEqual(got.Value, want) || got.Name() != name || got.Pos() != pos || got.Default() != dflt {
		t.Errorf("%s = %v %q at %v (default %v), want %v %q at %v (default %v)", what, got.Value, got.Name(), got.Pos(), got.Default(), want, name, pos, dflt)
	}
}

func TestMesh(t *testing.T) {
	res := load(t, "testdata/mesh.yaml", model.Target{Product: model.Istio, Version: model.Version{Major: 1, Minor: 23}})
	if len(res.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", res.Diagnostics)
	}
	if !reflect.DeepEqual(res.Read, map[string]int{"VirtualService": 1, "DestinationRule": 1}) ||
		!reflect.DeepEqual(res.Skipped, map[string]int{}) ||
		!reflect.DeepEqual(res.Linked, map[string]int{"apps/v1 Deployment": 1}) {
		t.Fatalf("read %v, linked %v, skipped %v", res.Read, res.Linked, res.Skipped)
	}
	// The Deployment is read for linking only: no labels, no ports.
	if len(res.Workloads) != 1 || !reflect.DeepEqual(*res.Workloads[0], model.Workload{Kind: "Deployment", Namespace: "default", Name: "reviews", Pos: at(3, 1)}) {
		t.Fatalf("workloads %+v", res.Workloads)
	}
	p := res.Proxies[0]
	if p.Product != model.Istio || p.Target.String() != "istio:1.23" || len(p.Listeners) != 1 {
		t.Fatalf("proxy %v %v, %d listeners", p.Product, p.Target, len(p.Listeners))
	}
	ln := p.Listeners[0]
	if ln.Name != "VirtualService reviews" || ln.Pos != at(8, 1) || !reflect.DeepEqual(ln.MeshHosts, []string{"reviews.shop.svc.cluster.local"}) {
		t.Errorf("listener %q at %v hosts %v", ln.Name, ln.Pos, ln.MeshHosts)
	}
	routes := p.Routes()
	if len(routes) != 2 {
		t.Fatalf("%d routes, want 2", len(routes))
	}

	// The writes route: methods from both matches, explicit retries and
	// timeouts; perTryTimeout above the route timeout is dropped.
	r := routes[0]
	if r.Name != `VirtualService reviews http "writes"` || r.Pos != at(16, 5) {
		t.Errorf("route %q at %v", r.Name, r.Pos)
	}
	if r.Match != (model.Match{Kind: model.MatchExact, Path: "/reviews", CaseSensitive: true}) {
		t.Errorf("match %+v", r.Match)
	}
	if r.Methods.Any || !reflect.DeepEqual(r.Methods.Allowed, []string{"POST", "PUT", "PATCH"}) || r.Methods.Pos() != at(19, 7) {
		t.Errorf("methods %+v", r.Methods)
	}
	check(t, "budget", r.Budget, 5*time.Second, "timeout", at(24, 14), false)
	check(t, "attempt timeout", r.AttemptTimeout, 5*time.Second, "timeout", at(24, 14), false)
	check(t, "per-try timeout", r.Envoy.PerTryTimeout, 10*time.Second, "retries.perTryTimeout", at(27, 22), false)
	check(t, "max attempts", r.MaxAttempts, 4, "retries.attempts", at(26, 17), false)
	check(t, "retry on", r.Retry.On, []string{"gateway-error", "409"}, "retries.retryOn", at(28, 16), false)
	if !r.BudgetCutsAttempts {
		t.Error("the route timeout cuts a running attempt")
	}
	var conds []string
	for _, x := range r.Reexecutes {
		conds = append(conds, x.Condition)
		if !x.Methods.Any || x.Setting.Pos() != at(28, 16) {
			t.Errorf("reexecution %s: methods %+v, setting at %v", x.Condition, x.Methods, x.Setting.Pos())
		}
	}
	if !reflect.DeepEqual(conds, []string{"gateway-error", "409"}) {
		t.Errorf("reexecutes %v", conds)
	}
	f := r.Forward
	if f.URL != "reviews" || f.Pos != at(23, 27) || f.Target.Host != "reviews.shop.svc.cluster.local" || f.Target.Port != 9080 {
		t.Errorf("forward %+v", f)
	}
	u := f.Upstream
	if u.Name != "reviews.shop.svc.cluster.local subset v2" || u.Pos != at(33, 1) {
		t.Errorf("upstream %q at %v", u.Name, u.Pos)
	}
	// The subset's connectionPool replaces the rule's.
	check(t, "pool idle", u.PoolIdle, 90*time.Second, "connectionPool.http.idleTimeout", at(52, 24), false)
	check(t, "pool lifetime", u.PoolLifetime, 0, "connectionPool.tcp.maxConnectionDuration", at(33, 1), true)
	check(t, "connect timeout", r.ConnectTimeout, 10*time.Second, "connectionPool.tcp.connectTimeout", at(33, 1), true)
	if r.Pool == nil || r.Pool.Upstream != u || r.Pool.Idle != u.PoolIdle {
		t.Errorf("pool %+v", r.Pool)
	}

	// The second route: Istio's defaults, 503 retried before 1.24.
	r = routes[1]
	if r.Name != "VirtualService reviews http[1]" || r.Pos != at(29, 5) || !r.Methods.Any {
		t.Errorf("route %q at %v, methods %+v", r.Name, r.Pos, r.Methods)
	}
	check(t, "budget", r.Budget, 0, "timeout", at(29, 5), true)
	check(t, "max attempts", r.MaxAttempts, 3, "retries.attempts", at(29, 5), true)
	check(t, "retry on", r.Retry.On, []string{"connect-failure", "refused-stream", "unavailable", "cancelled", "retriable-status-codes", "503"}, "retries.retryOn", at(29, 5), true)
	if len(r.Reexecutes) != 1 || r.Reexecutes[0].Condition != "503" || !r.Reexecutes[0].Response {
		t.Errorf("reexecutes %+v", r.Reexecutes)
	}
	if r.Retry.On.Note() != noteRetryBefore124 || r.Budget.Note() != noteTimeout {
		t.Errorf("notes %q, %q", r.Retry.On.Note(), r.Budget.Note())
	}
	u = r.Forward.Upstream
	if u.Name != "reviews.shop.svc.cluster.local" {
		t.Errorf("upstream %q", u.Name)
	}
	check(t, "pool idle", u.PoolIdle, time.Hour, "connectionPool.http.idleTimeout", at(33, 1), true)
	check(t, "pool lifetime", u.PoolLifetime, 10*time.Minute, "connectionPool.tcp.maxConnectionDuration", at(44, 32), false)
	check(t, "connect timeout", u.ConnectTimeout, 2*time.Second, "connectionPool.tcp.connectTimeout", at(43, 25), false)
	if len(p.Upstreams) != 2 {
		t.Errorf("%d upstreams, want 2", len(p.Upstreams))
	}
}

// Since 1.24 the default policy retries no status code: retriable-status-codes
// with no codes, and gRPC conditions on a plain HTTP route, replay nothing.
func TestDefaultRetries124(t *testing.T) {
	res := load(t, "testdata/mesh.yaml", model.Target{Product: model.Istio, Version: model.Version{Major: 1, Minor: 24}})
	r := res.Proxies[0].Routes()[1]
	check(t, "retry on", r.Retry.On, []string{"connect-failure", "refused-stream", "unavailable", "cancelled", "retriable-status-codes"}, "retries.retryOn", at(29, 5), true)
	check(t, "max attempts", r.MaxAttempts, 3, "retries.attempts", at(29, 5), true)
	if len(r.Reexecutes) != 0 || r.Retry.On.Note() != noteRetry124 {
		t.Errorf("reexecutes %+v, note %q", r.Reexecutes, r.Retry.On.Note())
	}
}
