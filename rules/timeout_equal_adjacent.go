package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/proxylint/proxylint/parsers"
)

// TimeoutEqualAdjacent flags two adjacent hops that wait the same time for
// the same request, so they give up at the same moment and race.
var TimeoutEqualAdjacent = register(&Rule{
	ID:       "timeout-equal-adjacent",
	Summary:  "two adjacent hops wait the same time, so they race: one logs 499, the other 504",
	Severity: parsers.Warning,
	Tags:     []string{"nginx", "envoy", "timeouts", "chain"},
	Check:    checkTimeoutEqualAdjacent,
})

func checkTimeoutEqualAdjacent(pass *Pass) {
	chain := pass.Model.Chain
	var front *parsers.Hop
	hops := chain.Front()
	if len(hops) > 0 {
		front = hops[len(hops)-1]
	}
	// Declared hops in a configuration file have positions to point at.
	for i := 0; i+1 < len(hops); i++ {
		outer, inner := hops[i].RequestTimeout, hops[i+1].RequestTimeout
		if !outer.Valid() || !inner.Valid() || outer.Value == 0 || inner.Value != outer.Value || !inner.Pos.IsValid() {
			continue
		}
		pass.Report(Finding{
			Pos: inner.Pos,
			Message: fmt.Sprintf("%s waits %s, as long as %s in front of it: both give up at the same moment, so which one answers is a race.",
				hops[i+1].Name, dur(inner.Value), declaredName(hops[i], outer)),
			Related: relatedSetting(outer, inner.Pos, "declared here"),
			Fix:     fmt.Sprintf("make %s give up first: below %s", hops[i+1].Name, dur(outer.Value)),
		})
	}
	for _, p := range pass.Model.Proxies {
		if p.Product == parsers.Envoy {
			timeoutEqualAdjacentEnvoy(pass, p)
			continue
		}
		for _, r := range p.Routes() {
			if r.Pass == nil || !r.ReadTimeout.Valid() {
				continue
			}
			if f, ok := equalToInnerLayer(chain, r); ok {
				pass.Report(f)
				continue
			}
			if front != nil && !chain.Reached(r.Listener) {
				if f, ok := equalToFront(r, front); ok {
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
func equalToInnerLayer(chain *parsers.Chain, r *parsers.Route) (Finding, bool) {
	for _, link := range chain.Next(r) {
		in := link.To
		if in == nil || in.Pass == nil || in.Listener.Proxy.Product == parsers.Envoy || !in.ReadTimeout.Valid() ||
			in.ReadTimeout.Value != r.ReadTimeout.Value || r.ReadTimeout.Value == 0 {
			continue
		}
		via := link.Server.Address.String()
		return Finding{
			Pos: r.ReadTimeout.Pos,
			Message: fmt.Sprintf("%s equals the timeout of the layer it proxies to (%s on %s waits %s too): "+
				"both give up at the same moment, so which one answers is a race: the same request can show as 504 in one layer's log and 499 in the other's.",
				durText(r.ReadTimeout), routeName(in), via, dur(in.ReadTimeout.Value)),
			Related: []Related{
				{Pos: in.ReadTimeout.Pos, Message: "the inner layer's " + durText(in.ReadTimeout)},
				{Pos: r.Pass.Pos, Message: "proxied to " + via + " here"},
			},
			Fix: fmt.Sprintf("make each inner layer give up first: for example %s %s in the inner %s, so its 504 reaches the client",
				in.ReadTimeout.Name, dur(shorter(in.ReadTimeout.Value)), routeName(in)),
		}, true
	}
	return Finding{}, false
}

// equalToFront: the hop declared in front of the proxy (--behind,
// --client-timeout) waits as long as the route.
func equalToFront(r *parsers.Route, front *parsers.Hop) (Finding, bool) {
	t := front.RequestTimeout
	if !t.Valid() || t.Value != r.ReadTimeout.Value || t.Value == 0 {
		return Finding{}, false
	}
	who := front.Name
	if front.Kind == parsers.HopClient {
		who = "the client"
	}
	return Finding{
		Pos: r.ReadTimeout.Pos,
		Message: fmt.Sprintf("%s equals the %s that %s (%s) waits for this proxy: both give up at the same moment, "+
			"so which one answers is a race: the same request can show as 504 on one side and 499 on the other.",
			durText(r.ReadTimeout), dur(t.Value), who, t.Name),
		Related: relatedSetting(t, r.ReadTimeout.Pos, "declared here"),
		Fix: fmt.Sprintf("keep each hop's timeout strictly below the one in front of it: %s %s behind a %s %s",
			r.ReadTimeout.Name, dur(shorter(t.Value)), dur(t.Value), strings.TrimPrefix(who, "the ")),
	}, true
}

// retryBudgetEqualsRead: *_next_upstream_timeout equal to the read timeout
// leaves no time for the retry after a timeout (the budget is checked only
// when an attempt fails, from the start of the first; semantics.md §C).
func retryBudgetEqualsRead(r *parsers.Route) (Finding, bool) {
	b := r.Retry.Timeout
	if !b.Explicit() || b.Value == 0 || b.Value != r.ReadTimeout.Value || !r.Retry.Has("timeout") {
		return Finding{}, false
	}
	return Finding{
		Pos: b.Pos,
		Message: fmt.Sprintf("%s equals %s: an attempt that times out has used the whole retry budget, "+
			"so the retry on \"timeout\" that %s asks for can never start.",
			durText(b), durText(r.ReadTimeout), r.Retry.On.Name),
		Related: relatedSetting(r.ReadTimeout, b.Pos, durText(r.ReadTimeout)),
		Fix: fmt.Sprintf("give retries room: %s well above %s (e.g. %s), or lower %s",
			b.Name, r.ReadTimeout.Name, dur(2*r.ReadTimeout.Value), r.ReadTimeout.Name),
	}, true
}

// shorter suggests a timeout a little below d.
func shorter(d time.Duration) time.Duration {
	switch {
	case d >= 20*time.Second:
		return d - 5*time.Second
	case d >= 2*time.Second:
		return d - time.Second
	}
	return d / 2
}
