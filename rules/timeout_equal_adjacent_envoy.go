package rules

import (
	"fmt"
	"time"

	"github.com/proxylint/proxylint/model"
)

// perTryNotShorter: a per_try_timeout equal to the route timeout, or
// above it. Envoy zeroes a per-try timeout that is not shorter than a
// non-zero route timeout (router.cc, FilterUtility::finalTimeout), so the
// first try takes the whole budget and a timed-out try is never retried
// (docs/semantics.md §C).
func perTryNotShorter(r *model.Route) (Finding, bool) {
	pt, total := r.Envoy.PerTryTimeout, r.Envoy.Timeout
	if !pt.Explicit() || pt.Value <= 0 || !total.Valid() || total.Value <= 0 || pt.Value < total.Value {
		return Finding{}, false
	}
	relation := "equals"
	if pt.Value > total.Value {
		relation = "is above"
	}
	return Finding{
		Pos: pt.Pos(),
		Message: fmt.Sprintf("%s %s the route timeout (%s): Envoy silently ignores a per-try timeout that is not shorter "+
			"than the route timeout, so the first try takes the whole budget and a try that times out is never retried.",
			durText(pt), relation, durText(total)),
		Related: relatedSetting(total, pt.Pos(), "the route timeout bounds all tries: "+durText(total)),
		Fix: Advice(fmt.Sprintf("make per_try_timeout a fraction of the route timeout (e.g. %s for %d tries within %s), or raise the route timeout",
			dur((total.Value / time.Duration(envoyTries(r))).Truncate(time.Millisecond)), envoyTries(r), dur(total.Value))),
	}, true
}

// envoyTries is the number of tries a route's retry policy allows: the
// first one and num_retries more.
func envoyTries(r *model.Route) int {
	return max(r.Envoy.NumRetries.Value, 0) + 1
}
