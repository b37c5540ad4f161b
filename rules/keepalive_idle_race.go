package rules

import (
	"fmt"
	"time"

	"github.com/proxylint/proxylint/chain"
	"github.com/proxylint/proxylint/model"
)

// KeepaliveIdleRace flags a connection pool that keeps idle connections at
// least as long as the hop it connects to keeps them open.
var KeepaliveIdleRace = &Rule{
	ID:       "keepalive-idle-race",
	Summary:  "a pool keeps idle connections as long as (or longer than) the next hop keeps them open: reuse races the close",
	Severity: model.Warning,
	Tags:     []string{"nginx", "envoy", "keepalive", "chain"},
	Requires: []*Analysis{RequestPaths},
	Check:    checkKeepaliveIdleRace,
}

func checkKeepaliveIdleRace(pass *Pass) {
	c := pass.Chain()
	var front *model.Hop
	if hops := c.Front(); len(hops) > 0 {
		front = hops[len(hops)-1]
	}
	backend := c.Backend()
	for _, p := range pass.Model.Proxies {
		if front != nil {
			for _, l := range p.Listeners {
				if !c.Reached(l) {
					if f, ok := frontPoolRace(l, front); ok {
						pass.Report(f)
					}
				}
			}
		}
		for _, r := range p.Routes() {
			idle, u, ok := chain.Pool(r)
			if !ok {
				continue
			}
			links := c.Next(r)
			for _, link := range links {
				if f, ok := poolRace(r, idle, u, link.Listener.IdleTimeout, hopName(link.Listener, p)); ok {
					pass.Report(f)
				}
			}
			if len(links) == 0 && backend != nil {
				if f, ok := poolRace(r, idle, u, backend.IdleTimeout, declaredName(backend, backend.IdleTimeout)); ok {
					pass.Report(f)
				}
			}
		}
	}
}

// poolRace: the pool keeps idle connections for idle, the next hop closes
// them after serverIdle.
func poolRace(r *model.Route, idle model.Setting[time.Duration], u *model.Upstream, serverIdle model.Setting[time.Duration], next string) (Finding, bool) {
	if !serverIdle.Valid() || serverIdle.Value <= 0 || idle.Value < serverIdle.Value {
		return Finding{}, false
	}
	if idle.Value == serverIdle.Value && idle.Default() && serverIdle.Default() {
		// Two Envoys left at their defaults (1h on both sides): the
		// timers run together and the window is one round trip.
		return Finding{}, false
	}
	pos := idle.Pos()
	f := Finding{
		Pos: pos,
		Message: fmt.Sprintf("%s keeps idle connections for %s (%s), but %s closes them after %s: a request sent on a pooled connection just as the other side closes it fails (%s), and a POST is not retried.",
			upstreamName(u), dur(idle.Value), settingText(idle, dur(idle.Value)), next, dur(serverIdle.Value), u.ClosedUnderRequest),
		Related: append(relatedSetting(serverIdle, pos, "closes idle connections after "+dur(serverIdle.Value)), Related{Pos: r.Forward.Pos, Message: "used by " + routeName(r)}),
		Fix:     Advice(fmt.Sprintf("keep the pool's idle timeout below the next hop's: %s %s (or raise the next hop's idle timeout)", idle.Name(), dur(shorter(serverIdle.Value)))),
	}
	return f, true
}

// frontPoolRace: the load balancer in front keeps idle connections to this
// listener at least as long as the listener keeps them open (AWS documents
// the resulting 502s for ALB targets).
func frontPoolRace(l *model.Listener, front *model.Hop) (Finding, bool) {
	pool, idle := front.PoolIdleTimeout, l.IdleTimeout
	if !pool.Valid() || !idle.Valid() || idle.Value <= 0 || idle.Value > pool.Value {
		return Finding{}, false
	}
	return Finding{
		Pos: idle.Pos(),
		Message: fmt.Sprintf("%s is not above the %s that %s keeps idle connections to this proxy: the proxy closes connections the load balancer still considers open, and requests it sends on them fail with 502.",
			durText(idle), dur(pool.Value), declaredName(front, pool)),
		Related: relatedSetting(pool, idle.Pos(), "declared here"),
		Fix:     Advice(fmt.Sprintf("%s %s (above the load balancer's %s)", idle.Name(), dur(pool.Value+20*time.Second), dur(pool.Value))),
	}, true
}
