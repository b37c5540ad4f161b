package rules

import (
	"fmt"
	"time"

	"github.com/proxylint/proxylint/chain"
	"github.com/proxylint/proxylint/model"
)

// TimeoutBudgetInverted flags an inner hop that keeps waiting after the hop
// in front of it has given up.
var TimeoutBudgetInverted = &Rule{
	ID:       "timeout-budget-inverted",
	Summary:  "an inner hop waits longer than the hop in front of it, which has given up by then",
	Severity: model.Warning,
	Tags:     []string{"nginx", "envoy", "timeouts", "chain"},
	Requires: []*Analysis{RequestPaths},
	Check:    checkTimeoutBudgetInverted,
}

func checkTimeoutBudgetInverted(pass *Pass) {
	c := pass.Chain()
	var front *model.Hop
	hops := c.Front()
	if len(hops) > 0 {
		front = hops[len(hops)-1]
	}
	// Declared hops in a configuration file have positions to point at.
	for i := 0; i+1 < len(hops); i++ {
		outer, inner := hops[i].RequestTimeout, hops[i+1].RequestTimeout
		if !outer.Valid() || !inner.Valid() || outer.Value == 0 || inner.Value <= outer.Value || !inner.Pos().IsValid() {
			continue
		}
		pass.Report(Finding{
			Pos: inner.Pos(),
			Message: fmt.Sprintf("%s waits %s, longer than %s in front of it (%s): after %s the request's client has given up, and the hops behind keep working on it for %s more.",
				hops[i+1].Name, dur(inner.Value), declaredName(hops[i], outer), dur(outer.Value), dur(outer.Value), dur(inner.Value-outer.Value)),
			Related: relatedSetting(outer, inner.Pos(), "declared here"),
			Fix:     Advice(fmt.Sprintf("make %s give up before %s: below %s", hops[i+1].Name, declaredName(hops[i], outer), dur(outer.Value))),
		})
	}
	for _, p := range pass.Model.Proxies {
		for _, r := range p.Routes() {
			w, ok := chain.Wait(r)
			if !ok {
				continue
			}
			if front != nil && !c.Reached(r.Listener) {
				if f, ok := outlivesFront(r, w, front); ok {
					pass.Report(f)
				}
			}
			for _, link := range c.Next(r) {
				if f, ok := outlivedByInner(r, w, link); ok {
					pass.Report(f)
				}
			}
		}
	}
}

// outlivesFront: the entry route waits longer than the declared hop in
// front of the proxy.
func outlivesFront(r *model.Route, w model.Setting[time.Duration], front *model.Hop) (Finding, bool) {
	t := front.RequestTimeout
	if !t.Valid() || t.Value == 0 || w.Value <= t.Value {
		return Finding{}, false
	}
	who := declaredName(front, t)
	return Finding{
		Pos: w.Pos(),
		Message: fmt.Sprintf("%s in %s waits longer than the hop in front of it: %s gives up after %s, so for %s more this proxy and its backend work on a request whose client has already been answered.",
			durText(w), routeName(r), who, dur(t.Value), dur(w.Value-t.Value)),
		Related: relatedSetting(t, w.Pos(), "declared here"),
		Fix:     Advice(fmt.Sprintf("keep each hop's timeout strictly below the one in front of it: %s %s", w.Name(), dur(shorter(t.Value)))),
	}, true
}

// outlivedByInner: the route of the next loaded hop waits longer than r.
// The finding is at the inner hop, which is the one to shorten.
func outlivedByInner(r *model.Route, w model.Setting[time.Duration], link *model.Link) (Finding, bool) {
	in := link.To
	iw, ok := chain.Wait(in)
	if !ok || iw.Value <= w.Value {
		return Finding{}, false
	}
	return Finding{
		Pos: iw.Pos(),
		Message: fmt.Sprintf("%s in %s waits longer than the hop in front of it: %s gives up after %s (%s), so for %s more this hop and its backend work on a request whose client has already been answered.",
			durText(iw), routeName(in), whereRoute(r), dur(w.Value), w.Name(), dur(iw.Value-w.Value)),
		Related: []Related{{Pos: w.Pos(), Message: "the hop in front: " + durText(w)}},
		Fix:     Advice(fmt.Sprintf("shorten %s here below %s (e.g. %s), or lengthen the outer one", iw.Name(), dur(w.Value), dur(shorter(w.Value)))),
	}, true
}
