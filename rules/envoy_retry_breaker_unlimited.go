package rules

import (
	"fmt"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// EnvoyRetryBreakerUnlimited flags a cluster whose retry circuit breaker
// lets effectively any number of retries run at once while routes to it
// retry.
var EnvoyRetryBreakerUnlimited = &Rule{
	ID:       "envoy-retry-breaker-unlimited",
	Summary:  "a cluster's circuit breaker lets any number of retries run at once while routes to it retry: nothing stops retries piling onto a backend that fails under load",
	Severity: model.Warning,
	Tags:     []string{"envoy", "retries", "overload"},
	Products: []model.Product{model.Envoy, model.Istio},
	Check:    checkEnvoyRetryBreakerUnlimited,
}

// envoyMaxRetries is Envoy's default max_retries: three retries in flight
// per cluster and priority (upstream_impl.cc, ResourceManagers::load).
const envoyMaxRetries = 3

// breakerUnlimited reports whether a retry limit bounds nothing: no retry
// budget, and max_retries at or above both max_requests (every request in
// flight could be a retry, so the request breaker opens first) and
// Envoy's default max_requests of 1024.
func breakerUnlimited(rl *model.RetryLimit) bool {
	if rl == nil || rl.Budget.Valid() {
		return false
	}
	return rl.MaxRetries.Value >= rl.MaxRequests.Value && rl.MaxRetries.Value >= 1024
}

type breakerHit struct {
	u      *model.Upstream
	routes []*model.Route // the routes that retry to it
}

func checkEnvoyRetryBreakerUnlimited(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		byGenerator := map[string][]breakerHit{}
		var generators []string
		for _, u := range p.Upstreams {
			if !breakerUnlimited(u.RetryLimit) {
				continue
			}
			h := breakerHit{u: u}
			for _, r := range u.Routes {
				if r.MaxAttempts.Value > 1 {
					h.routes = append(h.routes, r)
				}
			}
			if len(h.routes) == 0 {
				continue
			}
			if g := u.RetryLimit.Generator; g != "" {
				if _, ok := byGenerator[g]; !ok {
					generators = append(generators, g)
				}
				byGenerator[g] = append(byGenerator[g], h)
				continue
			}
			pass.Report(breakerFinding(h))
		}
		// A control plane that writes the value on every cluster is one
		// cause: one finding, the clusters as related places.
		for _, g := range generators {
			pass.Report(generatorFinding(g, byGenerator[g]))
		}
	}
}

// retryText describes a route's retry policy: "route /api retries up to 3
// times (retry_policy.num_retries) on 5xx,reset".
func retryText(r *model.Route) string {
	n := r.MaxAttempts.Value - 1
	name := r.MaxAttempts.Name()
	if n, ok := numRetries(r); ok && n.Valid() {
		name = n.Name()
		if n.Default() {
			name += ", default"
		}
	}
	on := strings.Join(r.Retry.On.Value, ",")
	times := fmt.Sprintf("up to %d times", n)
	if n == 1 {
		times = "once"
	}
	return fmt.Sprintf("%s retries %s (%s) on %s", routeName(r), times, name, on)
}

func explicitRetries(hs []breakerHit) bool {
	_, ok := exampleRoute(hs)
	return ok
}

// explicitRetry reports whether the route's retries are written in the
// input, not a platform's default policy.
func explicitRetry(r *model.Route) bool {
	n, ok := numRetries(r)
	return r.Retry.On.Explicit() || ok && n.Explicit()
}

// exampleRoute is the route the message names: the first whose retries
// are written in the input (the part the user chose, and the same
// whatever the platform's default policy is on the target), else the
// first; explicit reports whether one is written.
func exampleRoute(hs []breakerHit) (r *model.Route, explicit bool) {
	for _, h := range hs {
		for _, r := range h.routes {
			if explicitRetry(r) {
				return r, true
			}
		}
	}
	return hs[0].routes[0], false
}

const breakerWhy = "Envoy's default of 3 retries in flight per cluster is what stops retries piling onto a backend that fails under load: " +
	"when it slows or sheds load, every failing request may now be retried at once, multiplying the requests it gets when it can least take them"

func breakerFinding(h breakerHit) Finding {
	rl := h.u.RetryLimit
	r, _ := exampleRoute([]breakerHit{h})
	more := ""
	if len(h.routes) > 1 {
		more = fmt.Sprintf(" (and %d more routes)", len(h.routes)-1)
	}
	f := Finding{
		Pos: rl.MaxRetries.Pos(),
		Message: fmt.Sprintf("%s lets %d retries run at once (%s), no fewer than the %d requests it lets run at once (%s), while %s%s: %s.",
			upstreamName(h.u), rl.MaxRetries.Value, rl.MaxRetries.Name(), rl.MaxRequests.Value, settingName(rl.MaxRequests), retryText(r), more, breakerWhy),
		Related: []Related{{Pos: r.Retry.On.Pos(), Message: "the retry policy of " + routeName(r)}},
		Fix: Advice(fmt.Sprintf("bound the retries to %s: a max_retries the backend can absorb (Envoy's default is %d), or a retry_budget (budget_percent 20, min_retry_concurrency 3), which scales with the requests in flight and replaces max_retries",
			upstreamName(h.u), envoyMaxRetries)),
	}
	if !explicitRetries([]breakerHit{h}) {
		f.Severity = model.Note
	}
	return f
}

func settingName[T any](s model.Setting[T]) string {
	if s.Default() {
		return s.Name() + ", default"
	}
	return s.Name()
}

func generatorFinding(g string, hs []breakerHit) Finding {
	first := hs[0]
	rl := first.u.RetryLimit
	pos := rl.GeneratorPos
	if !pos.IsValid() {
		pos = rl.MaxRetries.Pos()
	}
	routes := 0
	for _, h := range hs {
		routes += len(h.routes)
	}
	retry := "retry"
	if routes == 1 {
		retry = "retries"
	}
	r, _ := exampleRoute(hs)
	clusters := "1 cluster"
	if len(hs) > 1 {
		clusters = fmt.Sprintf("%d clusters", len(hs))
	}
	f := Finding{
		Pos: pos,
		Message: fmt.Sprintf("%s gives every cluster it makes a circuit breaker of %d retries in flight (%s), and %d %s %s to %s of them (%s): %s. "+
			"%s chose this on purpose: its source says Envoy's default of 3 \"has shown to be insufficient during periods of pod churn (e.g. rolling updates)\", when the breaker opens before the control plane delivers the new endpoints and clients get 503s; "+
			"the price is that nothing bounds retries when a backend is overloaded.",
			g, rl.MaxRetries.Value, rl.MaxRetries.Name(), routes, routesWord(routes), retry, clusters, retryText(r), breakerWhy, g),
		Fix: Advice("set connectionPool.http.maxRetries (above 0: istiod ignores 0) in the DestinationRules of these hosts, or, on Istio 1.27 and newer, trafficPolicy.retryBudget (percent 20, minRetryConcurrency 3); " +
			"or keep Istio's trade-off and make sure the backends shed load early (outlierDetection, a concurrency limit)"),
	}
	if g != "Istio" {
		f.Fix = Advice("bound max_retries, or give the clusters a retry_budget, where " + g + " lets you set them")
	}
	for _, h := range hs {
		if len(f.Related) == 10 {
			break
		}
		if h.u.RetryLimit.MaxRetries.Pos() == pos {
			continue
		}
		f.Related = append(f.Related, Related{Pos: h.u.RetryLimit.MaxRetries.Pos(), Message: fmt.Sprintf("%s, %d retries in flight", upstreamName(h.u), h.u.RetryLimit.MaxRetries.Value)})
	}
	if len(hs) > 10 {
		f.Message += fmt.Sprintf(" (%d clusters in all; the first 10 are listed.)", len(hs))
	}
	if !explicitRetries(hs) {
		f.Severity = model.Note
	}
	return f
}

func routesWord(n int) string {
	if n == 1 {
		return "route"
	}
	return "routes"
}
