package envoyroute

import (
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

func route(on []string, retries int, timeout, perTry time.Duration) *model.Route {
	u := &model.Upstream{PoolIdle: model.Set(time.Hour, "idle_timeout", "cluster", model.Pos{})}
	return &model.Route{
		Forward: &model.Forward{Upstream: u},
		Retry:   model.Retry{On: model.Set(on, "retry_on", "route", model.Pos{Line: 3})},
		Envoy: &model.EnvoyRoute{
			NumRetries:    model.Set(retries, "num_retries", "route", model.Pos{Line: 4}),
			Timeout:       model.Set(timeout, "timeout", "route", model.Pos{Line: 5}),
			PerTryTimeout: model.Set(perTry, "per_try_timeout", "route", model.Pos{Line: 6}),
		},
	}
}

func conditions(r *model.Route) []string {
	var out []string
	for _, x := range r.Reexecutes {
		out = append(out, x.Condition)
	}
	return out
}

// A route as written: the conditions Envoy re-executes on, a per-try
// timeout that bounds an attempt, the pool of its cluster.
func TestWritten(t *testing.T) {
	r := route([]string{"5xx", "connect-failure", "cancelled"}, 2, 10*time.Second, 2*time.Second)
	Written(r, model.Target{Product: model.Envoy})
	if r.MaxAttempts.Value != 3 || r.AttemptTimeout.Value != 2*time.Second || r.Budget.Value != 10*time.Second || !r.BudgetCutsAttempts {
		t.Errorf("attempts %d, attempt timeout %v, budget %v", r.MaxAttempts.Value, r.AttemptTimeout.Value, r.Budget.Value)
	}
	if got := conditions(r); len(got) != 2 || got[0] != "5xx" || got[1] != "cancelled" {
		t.Errorf("re-executing conditions %v, want [5xx cancelled]", got)
	}
	if !r.Reexecutes[0].Timeout || !r.Reexecutes[0].Methods.Any {
		t.Errorf("5xx: %+v, want a timed-out try retried, for any method", r.Reexecutes[0])
	}
	if r.Pool == nil || r.Pool.Idle.Value != time.Hour {
		t.Errorf("pool %+v", r.Pool)
	}
	// A per-try timeout at the route timeout is dropped: no try times out
	// on its own.
	r = route([]string{"5xx"}, 1, 2*time.Second, 2*time.Second)
	Written(r, model.Target{Product: model.Envoy})
	if r.AttemptTimeout.Value != 2*time.Second || r.Reexecutes[0].Timeout {
		t.Errorf("per-try at the route timeout: %v, %+v", r.AttemptTimeout.Value, r.Reexecutes[0])
	}
}

// A route istiod builds: status codes are retried as such, gRPC
// conditions only on a stream, 503 added to the default conditions
// before 1.24.
func TestIstio(t *testing.T) {
	r := route([]string{"503", "unavailable", "retriable-status-codes"}, 2, 0, 0)
	Istio(r, false)
	if got := conditions(r); len(got) != 1 || got[0] != "503" || !r.Reexecutes[0].Response {
		t.Errorf("re-executing conditions %v, want [503] on a response", got)
	}
	if r.MaxAttempts.Value != 3 || r.MaxAttempts.Name() != "num_retries" {
		t.Errorf("attempts %+v", r.MaxAttempts)
	}
	r = route([]string{"unavailable"}, 2, 0, 0)
	r.Stream = model.Set(true, "ports.appProtocol", "service", model.Pos{})
	Istio(r, false)
	if got := conditions(r); len(got) != 1 || got[0] != "unavailable" {
		t.Errorf("gRPC stream: %v", got)
	}
	r = route([]string{"connect-failure"}, 2, 0, 0)
	r.Retry.On = r.Retry.On.WithDefault(true)
	Istio(r, true)
	if got := conditions(r); len(got) != 1 || got[0] != "503" {
		t.Errorf("default conditions before 1.24: %v, want 503 added", got)
	}
	r = route([]string{"bogus"}, 2, 0, 0)
	Istio(r, false)
	if r.MaxAttempts.Value != 1 || len(r.Reexecutes) != 0 {
		t.Errorf("unknown conditions retried: %+v", r.MaxAttempts)
	}
}
