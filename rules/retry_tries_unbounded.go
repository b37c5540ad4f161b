package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/proxylint/proxylint/model"
)

// RetryTriesUnbounded flags retries bounded by count but not by time, or
// the reverse, with the worst case they allow.
var RetryTriesUnbounded = &Rule{
	ID:       "retry-tries-unbounded",
	Summary:  "retries bounded by count but not by time (or the reverse): the worst case multiplies the timeouts",
	Severity: model.Warning,
	Tags:     []string{"nginx", "envoy", "retries", "timeouts"},
	Check:    checkRetryTriesUnbounded,
}

func checkRetryTriesUnbounded(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		for _, r := range p.Routes() {
			if r.Envoy != nil {
				if f, ok := envoyRetriesWithoutBudget(r); ok {
					pass.Report(f)
				}
				continue
			}
			if r.Forward == nil || r.Forward.Upstream == nil || len(r.Retry.On.Value) == 0 {
				continue
			}
			n, exact := r.Forward.Upstream.Peers()
			if n <= 1 && exact {
				// One peer: nginx never moves to a next server.
				continue
			}
			if f, ok := triesWithoutTimeout(r, n, exact); ok {
				f.Fix, f.Edits = retryBoundFixOf(pass, r, r.Nginx.Tries, f.Fix, "timeout")
				pass.Report(f)
			} else if f, ok := timeoutWithoutTries(r, n, exact); ok {
				f.Fix, f.Edits = retryBoundFixOf(pass, r, r.Nginx.NextTimeout, f.Fix, "tries")
				pass.Report(f)
			} else if f, ok := implicitRetries(r, n, exact); ok {
				f.Fix, f.Edits = retryBoundFixOf(pass, r, r.Retry.On, f.Fix, "tries", "timeout")
				pass.Report(f)
			}
		}
	}
}

// attempt is the longest one try can take: connect + send + read.
func attempt(r *model.Route) time.Duration {
	return r.ConnectTimeout.Value + r.Nginx.SendTimeout.Value + r.Nginx.ReadTimeout.Value
}

// worstCase renders "3 × (60s connect + 60s send + 60s read) = 540s; 180s
// when the servers accept the connection and then hang".
func worstCase(r *model.Route, tries int) string {
	return fmt.Sprintf("%d × (%s connect + %s send + %s read) = %s, or %s when the servers accept the connection and then hang",
		tries, dur(r.ConnectTimeout.Value), dur(r.Nginx.SendTimeout.Value), dur(r.Nginx.ReadTimeout.Value),
		dur(time.Duration(tries)*attempt(r)), dur(time.Duration(tries)*r.Nginx.ReadTimeout.Value))
}

// serversText says "upstream "api" (3 servers)".
func serversText(u *model.Upstream, n int, exact bool) string {
	return fmt.Sprintf("%s (%s)", upstreamName(u), countServers(n, exact))
}

// countServers says "3 servers", or "1 server or more" when a host name may
// resolve to several addresses.
func countServers(n int, exact bool) string {
	more := ""
	if !exact {
		more = " or more"
	}
	return fmt.Sprintf("%d server%s%s", n, plural(n), more)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// triesWithoutTimeout: *_next_upstream_tries other than 1 with no
// *_next_upstream_timeout.
func triesWithoutTimeout(r *model.Route, n int, exact bool) (Finding, bool) {
	tries, budget := r.Nginx.Tries, r.Nginx.NextTimeout
	if !tries.Explicit() || tries.Value == 1 || budget.Value != 0 {
		return Finding{}, false
	}
	attempts, bound := tries.Value, fmt.Sprintf("%s %d", tries.Name, tries.Value)
	if tries.Value == 0 {
		attempts, bound = n, fmt.Sprintf("%s 0 (no limit: every server of %s)", tries.Name, serversText(r.Forward.Upstream, n, exact))
	} else if exact && n < attempts {
		attempts = n
		bound = fmt.Sprintf("%s %d (%d attempts at most: %s)", tries.Name, tries.Value, n, serversText(r.Forward.Upstream, n, exact))
	}
	return Finding{
		Pos: tries.Pos,
		Message: fmt.Sprintf("%s bounds retries by count but not by time (%s): one request can take up to %s.",
			bound, settingText(budget, "0"), worstCase(r, attempts)),
		Related: routeRelated(r, tries.Pos),
		Fix: fmt.Sprintf("add %s_next_upstream_timeout (e.g. %s) so that retries stop when the client has given up anyway",
			r.Forward.Module, dur(min(attempt(r), 2*r.Nginx.ReadTimeout.Value))),
	}, true
}

// timeoutWithoutTries: a time budget but no count. The budget is checked
// only when an attempt fails (docs/semantics.md §C), so the last attempt runs
// its full length past it.
func timeoutWithoutTries(r *model.Route, n int, exact bool) (Finding, bool) {
	tries, budget := r.Nginx.Tries, r.Nginx.NextTimeout
	if !budget.Explicit() || budget.Value == 0 || tries.Value != 0 {
		return Finding{}, false
	}
	worst := budget.Value + attempt(r)
	if exact && time.Duration(n)*attempt(r) < worst {
		worst = time.Duration(n) * attempt(r)
	}
	return Finding{
		Pos: budget.Pos,
		Message: fmt.Sprintf("%s bounds retries by time but not by count: every server of %s may be tried, "+
			"and the budget is checked only when an attempt fails, so an attempt started just before %s still runs up to %s (%s connect + %s send + %s read): up to %s in all.",
			durText(budget), serversText(r.Forward.Upstream, n, exact), dur(budget.Value), dur(attempt(r)),
			dur(r.ConnectTimeout.Value), dur(r.Nginx.SendTimeout.Value), dur(r.Nginx.ReadTimeout.Value), dur(worst)),
		Related: routeRelated(r, budget.Pos),
		Fix:     fmt.Sprintf("add %s_next_upstream_tries (e.g. 2) next to %s", r.Forward.Module, budget.Name),
	}, true
}

// implicitRetries: several servers, a next_upstream that retries on
// timeout (the default "error timeout" does), and neither bound.
func implicitRetries(r *model.Route, n int, exact bool) (Finding, bool) {
	tries, budget, on := r.Nginx.Tries, r.Nginx.NextTimeout, r.Retry.On
	if tries.Explicit() || budget.Explicit() || n < 2 || !r.Retry.Has("timeout") {
		return Finding{}, false
	}
	// With nginx's default policy, the upstream's several servers are what
	// make the retries: point there, once for all its locations.
	pos := on.Pos
	if on.Default {
		pos = r.Forward.Upstream.Pos
	}
	return Finding{
		Pos: pos,
		Message: fmt.Sprintf("%s has %s and %s retries a timed-out request on the next one, with neither %s_next_upstream_tries nor %s_next_upstream_timeout: one request can take up to %s.",
			upstreamName(r.Forward.Upstream), countServers(n, exact), settingText(on, strings.Join(on.Value, " ")), r.Forward.Module, r.Forward.Module, worstCase(r, n)),
		Related: implicitRelated(r, pos),
		Fix: fmt.Sprintf("bound the retries: %s_next_upstream_tries 2; and %s_next_upstream_timeout %s;",
			r.Forward.Module, r.Forward.Module, dur(min(attempt(r), 2*r.Nginx.ReadTimeout.Value))),
	}, true
}

func implicitRelated(r *model.Route, pos model.Pos) []Related {
	rel := []Related{{Pos: r.Forward.Pos, Message: "proxied to by " + routeName(r)}}
	if u := r.Forward.Upstream; u.Pos != pos {
		rel = append(rel, Related{Pos: u.Pos, Message: "the servers of " + upstreamName(u)})
	}
	return rel
}
