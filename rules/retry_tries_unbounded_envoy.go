package rules

import (
	"fmt"
	"time"

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
	tries := n.Value + 1
	worst := "an unbounded time: no per_try_timeout bounds a try either, so each one waits as long as the upstream takes"
	if pt.Value > 0 {
		worst = fmt.Sprintf("(%d + 1) × per_try_timeout %s = %s, plus up to %s of back-off between tries",
			n.Value, dur(pt.Value), dur(time.Duration(tries)*pt.Value), dur(time.Duration(n.Value)*r.Envoy.BackOffMax.Value))
	}
	pos := n.Pos
	return Finding{
		Pos: pos,
		Message: fmt.Sprintf("%s bounds retries by count but not by time: the route timeout is 0 (disabled), so one request can take %s.",
			settingText(n, fmt.Sprint(n.Value)), worst),
		Related: relatedSetting(total, pos, "timeout 0 disables the route's overall budget"),
		Fix:     "give the route a timeout that covers all tries (for example the client's own timeout), and a per_try_timeout below it",
	}, true
}
