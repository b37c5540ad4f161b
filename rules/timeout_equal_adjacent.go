package rules

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/proxylint/proxylint/chain"
	"github.com/proxylint/proxylint/model"
)

// TimeoutEqualAdjacent flags two adjacent hops that wait the same time for
// the same request, so they give up at the same moment and race.
var TimeoutEqualAdjacent = &Rule{
	ID:       "timeout-equal-adjacent",
	Summary:  "two adjacent hops wait the same time, so they race: one logs 499, the other 504",
	Severity: model.Warning,
	Tags:     []string{"nginx", "envoy", "timeouts", "chain"},
	Requires: []*Analysis{RequestPaths},
	Check:    checkTimeoutEqualAdjacent,
}

func checkTimeoutEqualAdjacent(pass *Pass) {
	var front *model.Hop
	hops := pass.Chain().Front()
	if len(hops) > 0 {
		front = hops[len(hops)-1]
	}
	// Declared hops in a configuration file have positions to point at.
	for i := 0; i+1 < len(hops); i++ {
		outer, inner := hops[i].RequestTimeout, hops[i+1].RequestTimeout
		if !outer.Valid() || !inner.Valid() || outer.Value == 0 || inner.Value != outer.Value || !inner.Pos().IsValid() {
			continue
		}
		pass.Report(Finding{
			Pos: inner.Pos(),
			Message: fmt.Sprintf("%s waits %s, as long as %s in front of it: both give up at the same moment, so which one answers is a race.",
				hops[i+1].Name, dur(inner.Value), declaredName(hops[i], outer)),
			Related: relatedSetting(outer, inner.Pos(), "declared here"),
			Fix:     Advice(fmt.Sprintf("make %s give up first: below %s", hops[i+1].Name, dur(outer.Value))),
		})
	}
	for _, p := range pass.Model.Proxies {
		for r := range envoyRoutes(p) {
			if r.Forward == nil {
				continue
			}
			if f, ok := perTryNotShorter(r); ok {
				pass.Report(f)
			}
			// A route timeout equal to the connection manager's
			// request_timeout does not race: request_timeout is disarmed
			// once the request has been sent upstream, and the route
			// timeout starts then (docs/semantics.md §0b).
		}
		for _, r := range p.Routes() {
			w, ok := chain.Wait(r)
			if !ok {
				continue
			}
			if f, ok := equalToInnerLayer(pass.Chain(), r, w); ok {
				f.Fix = innerTimeoutFix(pass, pass.Chain(), r, w).Or(f.Fix.Message)
				pass.Report(f)
				continue
			}
			if front != nil && !pass.Chain().Reached(r.Listener) {
				if f, ok := equalToFront(r, w, front); ok {
					pass.Report(f)
					continue
				}
			}
			if f, ok := retryBudgetEqualsRead(r); ok {
				pass.Report(f)
			}
		}
	}
}

// equalToInnerLayer: the route proxies to another nginx layer (in the same
// configuration or another one linted with it) whose route waits just as
// long.
func equalToInnerLayer(c *model.Chain, r *model.Route, w model.Setting[time.Duration]) (Finding, bool) {
	for _, link := range c.Next(r) {
		in := link.To
		iw, ok := chain.Wait(in)
		if !ok || iw.Value != w.Value {
			continue
		}
		via := link.Server.Address.String()
		return Finding{
			Pos: w.Pos(),
			Message: fmt.Sprintf("%s equals the timeout of the layer it proxies to (%s on %s waits %s too): "+
				"both give up at the same moment, so which one answers is a race: the same request can show as 504 in one layer's log and 499 in the other's.",
				durText(w), routeName(in), via, dur(iw.Value)),
			Related: []Related{
				{Pos: iw.Pos(), Message: "the inner layer's " + durText(iw)},
				{Pos: r.Forward.Pos, Message: "proxied to " + via + " here"},
			},
			Fix: Advice(fmt.Sprintf("make each inner layer give up first: for example %s %s in the inner %s, so its 504 reaches the client",
				iw.Name(), dur(shorter(iw.Value)), routeName(in))),
		}, true
	}
	return Finding{}, false
}

// equalToFront: the hop declared in front of the proxy (--behind,
// --client-timeout) waits as long as the route.
func equalToFront(r *model.Route, w model.Setting[time.Duration], front *model.Hop) (Finding, bool) {
	t := front.RequestTimeout
	if !t.Valid() || t.Value != w.Value || t.Value == 0 {
		return Finding{}, false
	}
	who := front.Name
	if front.Kind == model.HopClient {
		who = "the client"
	}
	return Finding{
		Pos: w.Pos(),
		Message: fmt.Sprintf("%s equals the %s that %s (%s) waits for this proxy: both give up at the same moment, "+
			"so which one answers is a race: the same request can show as 504 on one side and 499 on the other.",
			durText(w), dur(t.Value), who, t.Name()),
		Related: relatedSetting(t, w.Pos(), "declared here"),
		Fix: Advice(fmt.Sprintf("keep each hop's timeout strictly below the one in front of it: %s %s behind a %s %s",
			w.Name(), dur(shorter(t.Value)), dur(t.Value), strings.TrimPrefix(who, "the "))),
	}, true
}

// retryBudgetEqualsRead: *_next_upstream_timeout equal to the read timeout
// leaves no time for the retry after a timeout (the budget is checked only
// when an attempt fails, from the start of the first; docs/semantics.md §C).
func retryBudgetEqualsRead(r *model.Route) (Finding, bool) {
	b, a := r.Budget, r.AttemptTimeout
	if r.BudgetCutsAttempts || !b.Explicit() || b.Value == 0 || b.Value != a.Value || !r.Retry.Has("timeout") {
		return Finding{}, false
	}
	return Finding{
		Pos: b.Pos(),
		Message: fmt.Sprintf("%s equals %s: an attempt that times out has used the whole retry budget, "+
			"so the retry on \"timeout\" that %s asks for can never start.",
			durText(b), durText(a), r.Retry.On.Name()),
		Related: relatedSetting(a, b.Pos(), durText(a)),
		Fix: Advice(fmt.Sprintf("give retries room: %s well above %s (e.g. %s), or lower %s",
			b.Name(), a.Name(), dur(2*a.Value), a.Name())),
	}, true
}

// innerTimeoutFix shortens the timeout of the inner layer a route proxies
// to, where that layer is a Kubernetes resource (an Istio VirtualService's
// timeout, an Ingress annotation): the value is written as the resource
// writes it, whole seconds where it has whole seconds ("30" → "25"), a
// duration where it has one ("30s" → "25s"). It is unsafe: a request that
// took between the new and the old timeout, and was answered, now ends in
// a 504; lengthening the outer layer instead is the owner's other choice.
func innerTimeoutFix(pass *Pass, c *model.Chain, r *model.Route, w model.Setting[time.Duration]) Fix {
	for _, link := range c.Next(r) {
		in := link.To
		iw, ok := chain.Wait(in)
		if !ok || iw.Value != w.Value {
			continue
		}
		if !iw.Explicit() || in.Listener == nil || in.Listener.Proxy == nil || !in.Listener.Proxy.Product.Kubernetes() {
			return Fix{}
		}
		x := newFixer(pass)
		ed, n := x.field(iw.Pos())
		if ed == nil || n.Kind != model.StringValue {
			return Fix{}
		}
		to := shorter(iw.Value)
		text := dur(to)
		if _, err := strconv.Atoi(n.Text); err == nil {
			if to%time.Second != 0 {
				return Fix{}
			}
			text = strconv.Itoa(int(to / time.Second))
		}
		x.setValue(iw.Pos(), model.String(text))
		return UnsafeFix(fmt.Sprintf("set %s to %s in the inner %s, so that it gives up first and its 504 reaches the client", iw.Name(), text, routeName(in)), x.result())
	}
	return Fix{}
}
