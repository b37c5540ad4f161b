package rules

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/proxylint/proxylint/model"
)

// envoyRetriesWithoutBudget: num_retries > 0 on a route whose timeout is 0.
// The route timeout is the only bound on all tries together (docs/semantics.md
// §A, §C); 0 disables it. With a per_try_timeout every try is bounded and
// the count bounds their number, as nginx's *_next_upstream_tries without
// *_next_upstream_timeout does: the worst case is then the tries, each up
// to its per_try_timeout, and the back-off between them, and it is said.
// A route that carries long-lived streams (a WebSocket upgrade, a gRPC or
// event-stream route with the timeout off) turns the route timeout off so
// that a stream is not cut; its silence is bounded by idle_timeout, and it
// is not reported.
func envoyRetriesWithoutBudget(r *model.Route) (Finding, bool) {
	n, total, pt := r.Envoy.NumRetries, r.Envoy.Timeout, r.Envoy.PerTryTimeout
	if r.Forward == nil || len(r.Retry.On.Value) == 0 || n.Value <= 0 || !total.Explicit() || total.Value != 0 {
		return Finding{}, false
	}
	if r.Stream.Value {
		return Finding{}, false
	}
	pos := n.Pos()
	related := relatedSetting(total, pos, "timeout 0 disables the route's overall budget")
	if pt.Value <= 0 {
		return Finding{
			Pos: pos,
			Message: fmt.Sprintf("%s bounds retries by count but not by time: the route timeout is 0 (disabled), so one request can take an unbounded time: no per_try_timeout bounds a try either, so each one waits as long as the upstream takes.",
				settingText(n, fmt.Sprint(n.Value))),
			Related: related,
			Fix:     Advice("give the route a timeout that covers all tries (for example the client's own timeout), and a per_try_timeout below it"),
		}, true
	}
	tries := n.Value + 1
	triesTime := time.Duration(tries) * pt.Value
	backOff := envoyBackOff(r.Envoy, n.Value)
	related = append(related, relatedSetting(pt, pos, "each try waits up to "+dur(pt.Value))...)
	return Finding{
		Pos: pos,
		Message: fmt.Sprintf("%s bounds retries by count and %s bounds each try, but nothing bounds the request as a whole: the route timeout is 0 (disabled), "+
			"so a request whose tries time out takes up to %d × %s = %s, and up to %s of waits between them (%s): up to %s in all, however long its client waits.",
			settingText(n, fmt.Sprint(n.Value)), settingText(pt, dur(pt.Value)), tries, dur(pt.Value), dur(triesTime),
			dur(backOff), backOffText(r.Envoy), roughly(triesTime+backOff)),
		Related: related,
		Fix:     Advice(fmt.Sprintf("give the route a timeout that covers all tries, below what its clients wait (for example %s), and keep the per_try_timeout below it", dur(min(triesTime, 2*pt.Value)))),
	}, true
}

// timeoutsWritten says where the route timeout and per-try timeout of a
// route of a generated Envoy configuration are written.
func timeoutsWritten(r *model.Route) string {
	if istioRoute(r) {
		return "in Istio: the VirtualService's http[].timeout and http[].retries.perTryTimeout"
	}
	return "in the bootstrap or in the control plane that serves this Envoy (Istio: a VirtualService's timeout and retries.perTryTimeout; Envoy Gateway: an HTTPRoute rule's timeouts.request and a BackendTrafficPolicy's retry.perRetry.timeout)"
}

// envoyBackOff is the longest the waits before retries can add up to:
// before the k-th retry Envoy waits a random time below min(base × 2^k,
// max) (JitteredExponentialBackOffStrategy, backoff_strategy.cc).
func envoyBackOff(e *model.EnvoyRoute, retries int) time.Duration {
	base, maxi := e.BackOffBase.Value, e.BackOffMax.Value
	if base <= 0 {
		return 0
	}
	var sum time.Duration
	interval := base
	for range retries {
		sum += min(interval, maxi)
		if interval < maxi {
			interval *= 2
		}
	}
	return sum
}

// backOffText says where the back-off comes from: "Envoy's default
// back-off, 25ms doubling up to 250ms", or "retryPolicy.retryBackOff 13s
// doubling up to 14s".
func backOffText(e *model.EnvoyRoute) string {
	base, maxi := e.BackOffBase, e.BackOffMax
	if base.Default() && maxi.Default() {
		return fmt.Sprintf("Envoy's default back-off, %s doubling up to %s", dur(base.Value), dur(maxi.Value))
	}
	name := base.Name()
	if !base.Default() {
		name = base.Name()[:strings.LastIndexByte(base.Name(), '.')]
	} else if i := strings.LastIndexByte(maxi.Name(), '.'); i > 0 {
		name = maxi.Name()[:i]
	}
	text := func(s model.Setting[time.Duration]) string {
		if s.Default() {
			return dur(s.Value) + " (default)"
		}
		return dur(s.Value)
	}
	return fmt.Sprintf("%s %s doubling up to %s", name, text(base), text(maxi))
}

// roughly writes a long duration to a tenth of a second: "80.2s".
func roughly(d time.Duration) string {
	if d < 10*time.Second || d%time.Second == 0 {
		return dur(d)
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}
