// Package envoyroute is what an Envoy route does with its settings, for
// every loader that builds Envoy routes: the Envoy loader from the route
// as written, and the Kubernetes loader from the route a control plane
// (Istio, Envoy Gateway, Contour) writes for its resources (docs/
// semantics.md §A–§D, docs/kubernetes.md). How long one attempt and all
// attempts may take, how often one request may be sent, which retry
// conditions can run it again, and the pool it reuses are computed here
// once, into the route's behaviour; rules and the path analysis read
// those values, never the fields.
package envoyroute

import (
	"strconv"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// retryOnTokens are the retry_on values Envoy knows, with the change that
// added each one when it is recent (EnvoyRetryOnValues and
// EnvoyGrpcRetryOnValues in source/common/http/headers.h; router
// retry_state_impl.cc). Envoy drops any other token without a word.
var retryOnTokens = map[string]*releases.Change{
	"5xx":                        nil,
	"gateway-error":              nil,
	"connect-failure":            nil,
	"envoy-ratelimited":          nil,
	"retriable-4xx":              nil,
	"refused-stream":             nil,
	"retriable-status-codes":     nil,
	"retriable-headers":          nil,
	"reset":                      nil,
	"reset-before-request":       releases.ResetBeforeRequest,
	"http3-post-connect-failure": nil,
	// gRPC status conditions, accepted in the same field.
	"cancelled":          nil,
	"deadline-exceeded":  nil,
	"internal":           nil,
	"resource-exhausted": nil,
	"unavailable":        nil,
}

// KnownRetryOn reports whether Envoy release t understands retry_on token
// tok.
func KnownRetryOn(tok string, t model.Target) bool {
	added, ok := retryOnTokens[tok]
	if !ok {
		return false
	}
	return added == nil || added.In(t)
}

// RetryOnSince is the release that added token tok, zero when every
// release knows it (or none does).
func RetryOnSince(tok string) model.Version {
	if added := retryOnTokens[tok]; added != nil {
		return added.Since(model.Envoy)
	}
	return model.Version{}
}

// RetryOnTokens lists the tokens Envoy knows, for suggestions.
func RetryOnTokens() []string {
	out := make([]string, 0, len(retryOnTokens))
	for k := range retryOnTokens {
		out = append(out, k)
	}
	return out
}

// reexecuting are the retry_on conditions that can send a request again
// after the upstream received it (source/common/router/retry_state_impl.cc):
// 5xx, gateway-error and reset retry any upstream reset, even after the
// whole request was sent, and a per-try timeout, when one is in effect
// (PerTryInEffect), counts as a reset under them (router.cc,
// onPerTryTimeoutCommon → maybeRetryReset); the others
// retry on a response the upstream sent. connect-failure, refused-stream
// and reset-before-request retry only what never reached the upstream.
var reexecuting = map[string]model.Reexecution{
	"5xx":                    {Condition: "5xx", Timeout: true, Response: true, Reset: true},
	"gateway-error":          {Condition: "gateway-error", Timeout: true, Response: true, Reset: true},
	"reset":                  {Condition: "reset", Timeout: true},
	"retriable-4xx":          {Condition: "retriable-4xx", Response: true},
	"retriable-status-codes": {Condition: "retriable-status-codes", Response: true},
	"retriable-headers":      {Condition: "retriable-headers", Response: true},
	"cancelled":              {Condition: "cancelled", Response: true},
	"deadline-exceeded":      {Condition: "deadline-exceeded", Response: true},
	"internal":               {Condition: "internal", Response: true},
	"resource-exhausted":     {Condition: "resource-exhausted", Response: true},
	"unavailable":            {Condition: "unavailable", Response: true},
}

// grpcConditions fire only on a response carrying grpc-status
// (router/retry_state_impl.cc), so only on routes to a gRPC port.
var grpcConditions = map[string]bool{
	"cancelled": true, "deadline-exceeded": true, "internal": true, "resource-exhausted": true, "unavailable": true,
}

// PerTryInEffect reports whether a route's per_try_timeout bounds an
// attempt: one at or above a non-zero route timeout is dropped (router.cc,
// FilterUtility::finalTimeout), and without one no try times out on its
// own, so the conditions that retry a timed-out try never see one.
func PerTryInEffect(e *model.EnvoyRoute) bool {
	pt := e.PerTryTimeout
	return pt.Value > 0 && (e.Timeout.Value == 0 || pt.Value < e.Timeout.Value)
}

// timeouts sets the deadlines of an Envoy route: the route timeout bounds
// all attempts and cuts a running one; the per-try timeout bounds one
// attempt when it is in effect.
func timeouts(r *model.Route) {
	e := r.Envoy
	r.Budget = e.Timeout
	r.BudgetCutsAttempts = true
	r.AttemptTimeout = e.Timeout
	if PerTryInEffect(e) {
		r.AttemptTimeout = e.PerTryTimeout
	}
}

// pool sets the pool the route reuses: its cluster's.
func pool(r *model.Route) {
	if r.Forward != nil && r.Forward.Upstream != nil {
		u := r.Forward.Upstream
		r.Pool = &model.Pool{Upstream: u, Idle: u.PoolIdle, Lifetime: u.PoolLifetime}
	}
}

// reexecute adds a condition that sends the request again, with the
// methods it applies to and the setting that names it.
func reexecute(r *model.Route, x model.Reexecution, methods model.Methods, on model.Setting[[]string]) {
	x.Methods = methods
	x.Setting = on
	x.Timeout = x.Timeout && PerTryInEffect(r.Envoy)
	r.Reexecutes = append(r.Reexecutes, x)
}

// Written is what a route written in an Envoy configuration does: its
// retry policy's conditions as Envoy release target reads them, for the
// retriable methods it names (every method when it names none).
func Written(r *model.Route, target model.Target) {
	e := r.Envoy
	timeouts(r)
	pool(r)
	on := r.Retry.On
	r.MaxAttempts = model.NewSetting(1, on.Name(), on.Level(), on.Pos(), on.Default(), "")
	if !on.Valid() || !e.NumRetries.Valid() {
		// No retry policy: Envoy retries nothing.
		return
	}
	known := false
	for _, c := range on.Value {
		known = known || KnownRetryOn(c, target)
	}
	if !known || r.Forward == nil {
		return
	}
	n := e.NumRetries
	r.MaxAttempts = model.NewSetting(1+max(n.Value, 0), n.Name(), n.Level(), n.Pos(), n.Default(), "")
	if r.MaxAttempts.Value <= 1 {
		return
	}
	methods := model.Methods{Any: true}
	if e.RetriableMethods != nil {
		methods = *e.RetriableMethods
	}
	for _, c := range on.Value {
		x, ok := reexecuting[c]
		if !ok || !KnownRetryOn(c, target) {
			continue
		}
		reexecute(r, x, methods, on)
	}
}

// statusCode reports whether a retryOn part is an HTTP status code, which
// Istio moves to retriable_status_codes (retry.go, parseRetryOn).
func statusCode(tok string) bool {
	n, err := strconv.Atoi(tok)
	return err == nil && n >= 100 && n <= 599
}

// Istio is what the Envoy route istiod builds from an Istio route does
// (docs/kubernetes.md): attempts retries follow the first send, on the
// retryOn conditions as istiod writes them into the Envoy route (status
// codes among them become retriable status codes), for every method. The
// default conditions keep Istio's default status codes: 503 before 1.24
// (default503). Envoy Gateway and Contour routes are computed the same
// way, without a default of the control plane's own.
func Istio(r *model.Route, default503 bool) {
	e := r.Envoy
	timeouts(r)
	pool(r)
	on := r.Retry.On
	if on.Default() && default503 {
		on.Value = append(append([]string{}, on.Value...), "503")
		r.Retry.On = on
	}
	n := e.NumRetries
	r.MaxAttempts = model.Revalued(n, 1)
	if n.Value <= 0 {
		return
	}
	newest := model.Target{Product: model.Envoy}
	known, codes := false, false
	for _, c := range on.Value {
		known = known || KnownRetryOn(c, newest)
		codes = codes || statusCode(c)
	}
	if !known && !codes {
		return // Envoy retries on nothing it knows
	}
	r.MaxAttempts.Value = 1 + n.Value
	for _, c := range on.Value {
		x, ok := reexecuting[c]
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
		reexecute(r, x, model.Methods{Any: true}, on)
	}
}
