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
	Requires: []*Analysis{Peers, Attempts},
	Check:    checkRetryTriesUnbounded,
}

func checkRetryTriesUnbounded(pass *Pass) {
	seen := reported{}
	for _, p := range pass.Model.Proxies {
		var same samePolicy // one Envoy policy on many routes: one finding
		for r := range envoyRoutes(p) {
			if f, ok := envoyRetriesWithoutBudget(r); ok {
				if gen := generatedBy(pass, f.Pos); gen != "" && !p.Product.Kubernetes() {
					f.Fix = writtenElsewhere(gen, f.Pos, f.Fix.Message, timeoutsWritten(r))
				}
				same.add(f, r)
			}
		}
		same.report(pass)
		for r := range nginxRoutes(p) {
			if r.Forward == nil || r.Forward.Upstream == nil || len(r.Retry.On.Value) == 0 || r.Retry.Has("off") || !retriesFailures(r) {
				continue
			}
			n, exact := pass.peers(r.Forward.Upstream)
			if n <= 1 && exact {
				// One peer: nginx never moves to a next server.
				continue
			}
			a := pass.attempts(r)
			// The finding's position and message come first: a route
			// whose finding another route reported already needs no
			// related places and no fix.
			if f, ok := triesWithoutTimeout(r, a, n, exact); ok {
				if seen.first(f) {
					triesWithoutTimeoutDetails(&f, r, a)
					f.Fix = retryBoundFix(pass, r, a, r.Nginx.Tries, "timeout").Or(f.Fix.Message)
					pass.Report(f)
				}
			} else if f, ok := timeoutWithoutTries(r, a, n, exact); ok {
				if seen.first(f) {
					timeoutWithoutTriesDetails(&f, r)
					f.Fix = retryBoundFix(pass, r, a, r.Budget, "tries").Or(f.Fix.Message)
					pass.Report(f)
				}
			} else if f, ok := implicitRetries(r, a, n, exact); ok {
				if seen.first(f) {
					implicitRetriesDetails(&f, r, a)
					f.Fix = retryBoundFix(pass, r, a, r.Retry.On, "tries", "timeout").Or(f.Fix.Message)
					pass.Report(f)
				}
			}
		}
	}
}

// connectText renders the connect part of a worst case: "60s connect", or
// "75s connect (the operating system's limit; proxy_connect_timeout 120s)".
func connectText(r *model.Route) string {
	if allUnix(r.Forward.Upstream) {
		return "0s connect (unix sockets connect at once or fail)"
	}
	if r.ConnectTimeout.Value > osConnectLimit {
		return fmt.Sprintf("%s connect (the operating system's limit; %s)", dur(osConnectLimit), durText(r.ConnectTimeout))
	}
	return dur(r.ConnectTimeout.Value) + " connect"
}

// worstCase renders "3 × (60s connect + 60s send + 60s read) = 540s, or
// 180s when the servers accept the connection and then hang", saying which
// methods a hang passes on when nginx keeps some back.
func worstCase(r *model.Route, a attempts, tries int) string {
	return worstCaseOf(r, a, tries) + assumedDefaults(r)
}

// assumedDefaults says that the timeouts counted are defaults that an
// include proxylint did not read may set otherwise.
func assumedDefaults(r *model.Route) string {
	n := r.Nginx
	if !r.Listener.Proxy.Partial || !r.ConnectTimeout.Default() && !n.SendTimeout.Default() && !r.AttemptTimeout.Default() {
		return ""
	}
	return " (with the default timeouts, which an include that was not read may set otherwise)"
}

func worstCaseOf(r *model.Route, a attempts, tries int) string {
	if !sentPassedOn(r) {
		// Only failures before the request was sent pass it on: every
		// attempt but the last fails to connect.
		return fmt.Sprintf("%d × %s + (%s + %s send + %s read) = %s (nginx passes %s on only when the request was never sent)",
			tries-1, connectText(r), connectText(r), dur(r.Nginx.SendTimeout.Value), dur(r.AttemptTimeout.Value),
			dur(addDur(mulDur(tries-1, a.connect), a.one)), quoteList(r.Methods.Allowed))
	}
	out := fmt.Sprintf("%d × (%s + %s send + %s read) = %s",
		tries, connectText(r), dur(r.Nginx.SendTimeout.Value), dur(r.AttemptTimeout.Value),
		dur(mulDur(tries, a.one)))
	hang, methods := hangPassedOn(r)
	if !hang {
		return out + " (a server that accepts the connection and then hangs is not passed on: the retries do not include timeout)"
	}
	out += fmt.Sprintf(", or %s when the servers accept the connection and then hang", dur(mulDur(tries, r.AttemptTimeout.Value)))
	if len(methods.Except) > 0 {
		out += fmt.Sprintf(" (for every method but %s, which nginx does not pass on once sent)", quoteList(methods.Except))
	}
	return out
}

// sentPassedOn reports whether some method the route carries is passed
// on after it was sent (on an error or a timeout): not so for a route
// that carries only POST (every gRPC call) without non_idempotent.
func sentPassedOn(r *model.Route) bool {
	if r.Methods.Any {
		return true
	}
	for _, x := range r.Reexecutes {
		if x.Response {
			continue
		}
		for _, m := range r.Methods.Allowed {
			if x.Methods.Allows(m) {
				return true
			}
		}
	}
	return false
}

// hangPassedOn reports whether a read timeout passes the request on, and
// for which methods.
func hangPassedOn(r *model.Route) (bool, model.Methods) {
	for _, x := range r.Reexecutes {
		if x.Timeout {
			return true, x.Methods
		}
	}
	return false, model.Methods{}
}

// retriesFailures reports whether a next server is tried when one fails to
// connect or answer (error, timeout); with only response conditions
// (http_404, http_503) every attempt ends with an answer, whose time the
// rule cannot bound.
func retriesFailures(r *model.Route) bool {
	return r.Retry.Has("error") || r.Retry.Has("timeout")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// triesWithoutTimeout: *_next_upstream_tries other than 1 with no
// *_next_upstream_timeout.
func triesWithoutTimeout(r *model.Route, a attempts, n int, exact bool) (Finding, bool) {
	tries, budget := r.Nginx.Tries, r.Budget
	if !tries.Explicit() || tries.Value == 1 || budget.Value != 0 {
		return Finding{}, false
	}
	attempts, bound := tries.Value, fmt.Sprintf("%s %d", tries.Name(), tries.Value)
	if tries.Value == 0 {
		attempts, bound = n, fmt.Sprintf("%s 0 (no limit: every server of %s)", tries.Name(), serversText(r.Forward.Upstream, n, exact))
	} else if exact && n < attempts {
		attempts = n
		bound = fmt.Sprintf("%s %d (%d attempts at most: %s)", tries.Name(), tries.Value, n, serversText(r.Forward.Upstream, n, exact))
	}
	return Finding{
		Pos: tries.Pos(),
		Message: fmt.Sprintf("%s bounds retries by count but not by time (%s): a request whose servers time out can take up to %s.",
			bound, settingText(budget, "0"), worstCase(r, a, attempts)),
	}, true
}

// triesWithoutTimeoutDetails adds the related places and the advice to
// a finding of triesWithoutTimeout that is reported.
func triesWithoutTimeoutDetails(f *Finding, r *model.Route, a attempts) {
	f.Related = routeRelated(r, f.Pos)
	f.Fix = Advice(fmt.Sprintf("add %s_next_upstream_timeout (e.g. %s) so that retries stop when the client has given up anyway",
		r.Forward.Module, dur(min(a.one, 2*r.AttemptTimeout.Value))))
}

// timeoutWithoutTries: a time budget but no count. The budget is checked
// only when an attempt fails (docs/semantics.md §C), so the last attempt runs
// its full length past it.
func timeoutWithoutTries(r *model.Route, a attempts, n int, exact bool) (Finding, bool) {
	tries, budget := r.Nginx.Tries, r.Budget
	if !budget.Explicit() || budget.Value == 0 || tries.Value != 0 {
		return Finding{}, false
	}
	worst := addDur(budget.Value, a.one)
	if exact && mulDur(n, a.one) < worst {
		worst = mulDur(n, a.one)
	}
	return Finding{
		Pos: budget.Pos(),
		Message: fmt.Sprintf("%s bounds retries by time but not by count: every server of %s may be tried, "+
			"and the budget is checked only when an attempt fails, so an attempt started just before %s still runs up to %s (%s + %s send + %s read): up to %s in all.",
			durText(budget), serversText(r.Forward.Upstream, n, exact), dur(budget.Value), dur(a.one),
			connectText(r), dur(r.Nginx.SendTimeout.Value), dur(r.AttemptTimeout.Value), dur(worst)),
	}, true
}

// timeoutWithoutTriesDetails adds the related places and the advice to
// a finding of timeoutWithoutTries that is reported.
func timeoutWithoutTriesDetails(f *Finding, r *model.Route) {
	f.Related = routeRelated(r, f.Pos)
	f.Fix = Advice(fmt.Sprintf("add %s_next_upstream_tries (e.g. 2) next to %s", r.Forward.Module, r.Budget.Name()))
}

// implicitRetries: several servers, a next_upstream that retries on
// timeout (the default "error timeout" does), and neither bound.
func implicitRetries(r *model.Route, a attempts, n int, exact bool) (Finding, bool) {
	tries, budget, on := r.Nginx.Tries, r.Budget, r.Retry.On
	if tries.Explicit() || budget.Explicit() || n < 2 || !r.Retry.Has("timeout") {
		return Finding{}, false
	}
	// With nginx's default policy, the upstream's several servers are what
	// make the retries: point there, once for all its locations.
	pos := on.Pos()
	if on.Default() {
		pos = r.Forward.Upstream.Pos
	}
	return Finding{
		Pos: pos,
		Message: fmt.Sprintf("%s has %s and %s retries a %s on the next one, with neither %s_next_upstream_tries nor %s_next_upstream_timeout: a request whose servers time out can take up to %s.",
			upstreamName(r.Forward.Upstream), countServers(r.Forward.Upstream, n, exact), settingText(on, strings.Join(on.Value, " ")), timedOut(r), r.Forward.Module, r.Forward.Module, worstCase(r, a, n)),
	}, true
}

// implicitRetriesDetails adds the related places and the advice to a
// finding of implicitRetries that is reported.
func implicitRetriesDetails(f *Finding, r *model.Route, a attempts) {
	f.Related = implicitRelated(r, f.Pos)
	f.Fix = Advice(fmt.Sprintf("bound the retries: %s_next_upstream_tries 2; and %s_next_upstream_timeout %s;",
		r.Forward.Module, r.Forward.Module, dur(min(a.one, 2*r.AttemptTimeout.Value))))
}

// timedOut names what a timeout passes on: any timed-out request, or,
// where nothing sent is passed on, a connect that timed out.
func timedOut(r *model.Route) string {
	if sentPassedOn(r) {
		return "timed-out request"
	}
	return "request whose connect timed out"
}

func implicitRelated(r *model.Route, pos model.Pos) []Related {
	rel := []Related{{Pos: r.Forward.Pos, Message: "proxied to by " + routeName(r)}}
	if u := r.Forward.Upstream; u.Pos != pos {
		rel = append(rel, Related{Pos: u.Pos, Message: "the servers of " + upstreamName(u)})
	}
	return rel
}

// retryBoundFix adds the bounds a location's retries lack, next to the
// directive s that sets the other one (or the retry conditions): "tries",
// "timeout" or both. A time bound alone is safe: it ends retries only
// after more than one attempt's worth of waiting, when the request's
// client has given up, and every quick failure is still passed on. A
// count is unsafe: *_next_upstream_tries 2 stops passing a request on
// after the second server, so an upstream whose first two servers are
// down answers 502 where the third would have answered.
func retryBoundFix[T any](pass *Pass, r *model.Route, a attempts, s model.Setting[T], add ...string) Fix {
	if !s.Explicit() || r.Forward == nil {
		return Fix{}
	}
	// Both bounds must hold after the fix: "tries 0" is no count at all.
	addsTries := len(add) == 2 || add[0] == "tries"
	if !addsTries && r.Nginx.Tries.Value == 0 {
		return Fix{}
	}
	if f := newFixer(pass).sources.file(s.Pos().File); f != nil {
		if _, tree := f.Tree(); tree {
			return nextUpstreamBoundFix(pass, r, a, s, addsTries)
		}
	}
	mod := r.Forward.Module
	var lines []model.Directive
	var what []string
	for _, bound := range add {
		switch bound {
		case "tries":
			lines = append(lines, directive(mod+"_next_upstream_tries", "2"))
			what = append(what, mod+"_next_upstream_tries 2")
		case "timeout":
			t := dur(min(a.one, 2*r.AttemptTimeout.Value))
			if t == "0s" {
				return Fix{}
			}
			lines = append(lines, directive(mod+"_next_upstream_timeout", t))
			what = append(what, mod+"_next_upstream_timeout "+t)
		}
	}
	x := newFixer(pass)
	x.insertAfter(x.nginxStatement(s.Pos(), s.Name()), lines...)
	return boundFix(pass, x, what, s.Name(), s.Pos(), addsTries)
}

// boundFix is the fix that adds the bounds what next to the setting
// name at pos: unsafe when it adds tries (fewer attempts than before). A
// generated file gets no edit (the fixer refuses it), so the same words
// are advice there, which the engine tells where to write
// (inGenerated).
func boundFix(pass *Pass, x *fixer, what []string, name string, pos model.Pos, addsTries bool) Fix {
	if len(what) == 0 {
		return Fix{}
	}
	msg := "add " + strings.Join(what, " and ") + " next to " + name
	if generatedBy(pass, pos) != "" {
		return Advice(msg)
	}
	if addsTries {
		return UnsafeFix(msg, x.result())
	}
	return SafeFix(msg, x.result())
}

// nextUpstreamBoundFix is retryBoundFix where the location is written in
// a Kubernetes resource: the bounds are fields beside the field s (see
// nextUpstreamFields), tries only when addsTries, and a bound the
// resource already sets (to 0, at this level or another) is left to the
// author, as a field added beside it would be read in its place or
// written twice.
func nextUpstreamBoundFix[T any](pass *Pass, r *model.Route, a attempts, s model.Setting[T], addsTries bool) Fix {
	if s.Level() == "configmap" {
		// A ConfigMap key bounds every Ingress of the controller, and the
		// bound is worked out from one route's timeouts: a value taken
		// from a 10s Ingress would cut the retries of a 300s one, and two
		// routes would write the key twice. The advice stays.
		return Fix{}
	}
	tries, budget := r.Nginx.Tries, r.Budget
	var timeout time.Duration
	if budget.Value == 0 {
		timeout = min(a.one, 2*r.AttemptTimeout.Value)
		if timeout <= 0 || budget.Explicit() {
			return Fix{}
		}
	}
	if addsTries && tries.Explicit() {
		return Fix{}
	}
	x := newFixer(pass)
	// Annotations and ConfigMap data are strings; a VirtualServer's
	// fields are typed.
	stringy := strings.Contains(s.Name(), "/") || s.Level() == "configmap"
	return boundFix(pass, x, x.nextUpstreamFields(s.Pos(), stringy, addsTries, timeout), s.Name(), s.Pos(), addsTries)
}
