package kube

import (
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

func gw(line, col int) model.Pos {
	return model.Pos{File: "testdata/gateway.yaml", Line: int32(line), Col: int32(col)}
}

func TestGatewayRoutes(t *testing.T) {
	res := load(t, "testdata/gateway.yaml", model.Target{Product: model.Istio, Version: model.Version{Major: 1, Minor: 26}})
	if len(res.Diagnostics) != 0 {
		t.Fatalf("diagnostics %v", res.Diagnostics)
	}
	routes := res.Proxies[0].Routes()
	if len(routes) != 3 {
		t.Fatalf("%d routes", len(routes))
	}
	// Without a retry stanza, backendRequest replaces request as the
	// route timeout (conversion.go), and Istio's default policy applies.
	r := routes[0]
	if r.Name != "HTTPRoute api rules[0]" || r.Match != (model.Match{Kind: model.MatchExact, Path: "/upload", CaseSensitive: true}) {
		t.Errorf("route %q match %+v", r.Name, r.Match)
	}
	if r.Methods.Any || len(r.Methods.Allowed) != 1 || r.Methods.Allowed[0] != "PUT" || r.Methods.Pos() != gw(10, 7) {
		t.Errorf("methods %+v", r.Methods)
	}
	check(t, "budget", r.Budget, 5*time.Second, "timeouts.backendRequest", gw(15, 23), false)
	check(t, "max attempts", r.MaxAttempts, 3, "retries.attempts", gw(8, 5), true)
	if r.Forward.Target.Host != "api.backend.svc.cluster.local" || r.Forward.Pos != gw(12, 14) {
		t.Errorf("forward %+v", r.Forward)
	}
	// With one, backendRequest is the per-try timeout; the stanza's
	// conditions are Istio's and its codes.
	r = routes[1]
	if r.Name != `HTTPRoute api rule "retried"` || r.Forward.Target.Host != "api.web.svc.cluster.local" {
		t.Errorf("route %q to %v", r.Name, r.Forward.Target)
	}
	check(t, "budget", r.Budget, 30*time.Second, "timeouts.request", gw(20, 16), false)
	check(t, "attempt timeout", r.AttemptTimeout, 5*time.Second, "timeouts.backendRequest", gw(21, 23), false)
	check(t, "max attempts", r.MaxAttempts, 3, "retry.attempts", gw(22, 5), true)
	check(t, "retry on", r.Retry.On, []string{"connect-failure", "refused-stream", "unavailable", "cancelled", "502"}, "retry.codes", gw(23, 7), false)
	if len(r.Reexecutes) != 1 || r.Reexecutes[0].Condition != "502" {
		t.Errorf("reexecutes %+v", r.Reexecutes)
	}
	// A GRPCRoute carries streams; the default policy's gRPC conditions
	// replay on it.
	r = routes[2]
	check(t, "stream", r.Stream, true, "GRPCRoute", gw(31, 5), false)
	var conds []string
	for _, x := range r.Reexecutes {
		conds = append(conds, x.Condition)
	}
	if len(conds) != 2 || conds[0] != "unavailable" || conds[1] != "cancelled" {
		t.Errorf("reexecutes %v", conds)
	}
}

// Before 1.25 the retry stanza is not read: a warning, and the default.
func TestGatewayRetryBefore125(t *testing.T) {
	res := load(t, "testdata/gateway.yaml", model.Target{Product: model.Istio, Version: model.Version{Major: 1, Minor: 24}})
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != CodeIgnored || res.Diagnostics[0].Pos != gw(22, 5) {
		t.Fatalf("diagnostics %v", res.Diagnostics)
	}
	r := res.Proxies[0].Routes()[1]
	check(t, "budget", r.Budget, 5*time.Second, "timeouts.backendRequest", gw(21, 23), false)
	check(t, "retry on", r.Retry.On, []string{"connect-failure", "refused-stream", "unavailable", "cancelled", "retriable-status-codes"}, "retries.retryOn", gw(16, 5), true)
}
