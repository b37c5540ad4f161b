package rules

import (
	"fmt"

	"github.com/proxylint/proxylint/model"
)

// envoyRetriesWithoutBudget: num_retries > 0 on a route whose timeout is 0.
// The route timeout is the only bound on all tries together (docs/semantics.md
// §A, §C); 0 disables it.
func envoyRetriesWithoutBudget(r *model.Route) (Finding, bool) {
	n, total, pt := r.Envoy.NumRetries, r.Envoy.Timeout, r.Envoy.PerTryTimeout
	if r.Forward == nil || len(r.Retry.On.Value) == 0 || n.Value <= 0 || !total.Explicit() || total.Value != 0 {
		return Finding{}, false
	}
	if pt.Value > 0 {
		// Every try is bounded, and the configuration says how long all
		// may take: (num_retries + 1) × per_try_timeout plus the
		// back-off. That is a bound the author chose, not an unbounded
		// wait (docs/accuracy.md, C5).
		return Finding{}, false
	}
	worst := "an unbounded time: no per_try_timeout bounds a try either, so each one waits as long as the upstream takes"
	pos := n.Pos
	return Finding{
		Pos: pos,
		Message: fmt.Sprintf("%s bounds retries by count but not by time: the route timeout is 0 (disabled), so one request can take %s.",
			settingText(n, fmt.Sprint(n.Value)), worst),
		Related: relatedSetting(total, pos, "timeout 0 disables the route's overall budget"),
		Fix:     "give the route a timeout that covers all tries (for example the client's own timeout), and a per_try_timeout below it",
	}, true
}
