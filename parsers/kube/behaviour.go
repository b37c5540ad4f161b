package kube

import (
	"strconv"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/envoy"
)

// What an Istio route does with its settings, as the Envoy route istiod
// builds from it does (docs/kubernetes.md): the route timeout bounds all
// attempts and cuts a running one; perTryTimeout bounds one attempt when
// it is below the route timeout; attempts retries follow the first send.

// Which retryOn conditions can send a request again is Envoy's fact
// (envoy.Reexecution): istiod writes them into the Envoy route as they are.
// The gRPC status conditions fire only on a response carrying grpc-status
// (router/retry_state_impl.cc), so only on routes to a gRPC port.
var grpcConditions = map[string]bool{
	"cancelled": true, "deadline-exceeded": true, "internal": true, "resource-exhausted": true, "unavailable": true,
}

// statusCode reports whether a retryOn part is an HTTP status code, which
// Istio moves to retriable_status_codes (retry.go, parseRetryOn).
func statusCode(tok string) bool {
	n, err := strconv.Atoi(tok)
	return err == nil && n >= 100 && n <= 599
}

func istioBehaviour(r *model.Route, default503 bool) {
	e := r.Envoy
	r.Budget = e.Timeout
	r.BudgetCutsAttempts = true
	r.AttemptTimeout = e.Timeout
	if envoy.PerTryInEffect(e) {
		r.AttemptTimeout = e.PerTryTimeout
	}
	if u := r.Forward.Upstream; u != nil {
		r.Pool = &model.Pool{Upstream: u, Idle: u.PoolIdle, Lifetime: u.PoolLifetime}
	}
	on := r.Retry.On
	// The default conditions keep Istio's default status codes: 503
	// before 1.24.
	if on.Default && default503 {
		on.Value = append(append([]string{}, on.Value...), "503")
		r.Retry.On = on
	}
	n := e.NumRetries
	r.MaxAttempts = model.Setting[int]{Value: 1, Name: n.Name, Pos: n.Pos, Level: n.Level, Default: n.Default, Note: n.Note}
	if n.Value <= 0 {
		return
	}
	newest := model.Target{Product: model.Envoy}
	known, codes := false, false
	for _, c := range on.Value {
		known = known || envoy.KnownRetryOn(c, newest)
		codes = codes || statusCode(c)
	}
	if !known && !codes {
		return // Envoy retries on nothing it knows
	}
	r.MaxAttempts.Value = 1 + n.Value
	for _, c := range on.Value {
		x, ok := envoy.Reexecution(c)
		switch {
		case statusCode(c):
			x = model.Reexecution{Condition: c, Response: true}
		case !ok, grpcConditions[c] && !r.Stream.Value:
			continue
		case c == "retriable-status-codes":
			// Retries only the codes listed, which Istio carries as
			// numbers in retryOn (each a case above).
			continue
		}
		x.Methods = model.Methods{Any: true}
		x.Setting = on
		x.Timeout = x.Timeout && envoy.PerTryInEffect(e)
		r.Reexecutes = append(r.Reexecutes, x)
	}
}
