package rules

import (
	"fmt"
	"time"

	"github.com/proxylint/proxylint/chain"
	"github.com/proxylint/proxylint/model"
)

// The facts several retry rules share, computed once per run by the
// engine (Requires) and read through the pass: how many servers an
// upstream has, to which the next try goes (Peers), and the arithmetic of
// a route's attempts (Attempts): how many times one request may be sent,
// and how long one try and several take.

// peerCount is how many servers of an upstream can take a request, and
// whether the count is exact (model.Upstream.Peers).
type peerCount struct {
	n     int
	exact bool
}

// Peers counts the servers of every upstream of the run that can take a
// request, primary and backup, as nginx counts tries (a host name, which
// the proxy resolves to as many peers as it has addresses, counts once
// and makes the count inexact).
var Peers = &Analysis{
	Name: "peer counts",
	Run: func(ap *AnalysisPass) any {
		out := map[*model.Upstream]peerCount{}
		add := func(u *model.Upstream) {
			if _, ok := out[u]; !ok && u != nil {
				n, exact := u.Peers()
				out[u] = peerCount{n, exact}
			}
		}
		for _, p := range ap.Model.Proxies {
			for _, u := range p.Upstreams {
				add(u)
			}
			for _, r := range p.Routes() {
				if r.Forward != nil {
					add(r.Forward.Upstream)
				}
			}
		}
		return out
	},
}

// peers is the peer count of u (Peers, which the rule must require).
func (p *Pass) peers(u *model.Upstream) (n int, exact bool) {
	c, ok := p.ResultOf(Peers).(map[*model.Upstream]peerCount)[u]
	if !ok {
		// An upstream no route or proxy of the model holds (a test's
		// own): counted as the analysis counts.
		return u.Peers()
	}
	return c.n, c.exact
}

// Who the next try goes to, as messages say it.

// serversText says "upstream "api" (3 servers)".
func serversText(u *model.Upstream, n int, exact bool) string {
	return fmt.Sprintf("%s (%s)", upstreamName(u), countServers(u, n, exact))
}

// countServers says "3 servers", "1 server or more" when a host name may
// resolve to several addresses, "2 addresses (localhost is ::1 and
// 127.0.0.1)" when the loader knows a name's addresses, or "one server per
// ready pod of Service NS/NAME" for an upstream of a Service's endpoints.
func countServers(u *model.Upstream, n int, exact bool) string {
	if svc := endpointsOf(u); svc != "" {
		// An Ingress controller's upstream holds the Service's
		// endpoints, as many as it has ready pods, which no manifest
		// fixes (a Deployment's replicas, scaled, are not the count).
		return "one server per ready pod of Service " + svc
	}
	for _, s := range u.Servers {
		if !s.Literal && s.Addresses > 1 && len(u.Servers) == 1 {
			// nginx resolves with AI_ADDRCONFIG (ngx_inet.c,
			// ngx_inet_resolve_host), which leaves ::1 out on a machine
			// whose only IPv6 address is the loopback's.
			return fmt.Sprintf("%d addresses (%s is ::1 and 127.0.0.1 in the usual /etc/hosts, and nginx makes a peer of each on a machine with an IPv6 address besides ::1)", n, s.Address.Host)
		}
	}
	more := ""
	if !exact {
		more = " or more"
	}
	return fmt.Sprintf("%d server%s%s", n, plural(n), more)
}

// endpointsOf names the Service ("namespace/name") whose endpoints are the
// servers of u, as its loader says (an Ingress backend), or "".
func endpointsOf(u *model.Upstream) string {
	svc := ""
	for _, s := range u.Servers {
		switch {
		case s.Down:
		case s.Service == nil || svc != "" && svc != s.Service.Key():
			return ""
		default:
			svc = s.Service.Key()
		}
	}
	return svc
}

// sentAgainTo says where nginx sends a request again: to the next server
// of the upstream, or, when only a failed pooled connection gives the try
// back, to the same server on a new connection.
func sentAgainTo(r *model.Route, u *model.Upstream, n int, exact bool) string {
	for _, x := range r.Reexecutes {
		if x.SameServer {
			return fmt.Sprintf("on a new connection to the same server of %s (%s) when the kept-alive connection it went out on fails: nginx gives that try back even to a single server (%s)",
				upstreamName(u), countServers(u, n, true), settingText(r.MaxAttempts, fmt.Sprint(r.Forward.Upstream.PoolSize.Value)))
		}
	}
	return fmt.Sprintf("to the next server of %s (%s)", upstreamName(u), countServers(u, n, exact))
}

// attempts is the arithmetic of one forwarding route's attempts.
type attempts struct {
	// tries is how many times the route may send one request to the
	// next hop for failures after the request arrived (chain.Attempts).
	tries int
	// connect is the connect timeout that can actually elapse: none for
	// unix sockets, whose connect succeeds or fails at once (nginx
	// connects without blocking and takes EAGAIN on a unix socket as a
	// failure), and at most the operating system's limit.
	connect time.Duration
	// one is the longest one try of an nginx route can take: connect +
	// send + read (0 for other routes).
	one time.Duration
}

// osConnectLimit is how long a connect can wait at most whatever
// *_connect_timeout says: nginx's documentation notes that it "cannot
// usually exceed 75 seconds", the operating system's own limit on an
// unanswered SYN (docs/semantics.md §A).
const osConnectLimit = 75 * time.Second

// Attempts computes the attempt arithmetic of every route of the run that
// forwards requests.
var Attempts = &Analysis{
	Name: "attempt arithmetic",
	Run: func(ap *AnalysisPass) any {
		out := map[*model.Route]attempts{}
		for _, p := range ap.Model.Proxies {
			for _, r := range p.Routes() {
				if r.Forward != nil {
					out[r] = attemptsOf(r)
				}
			}
		}
		return out
	},
}

func attemptsOf(r *model.Route) attempts {
	var a attempts
	a.tries, _ = chain.Attempts(r)
	if u := r.Forward.Upstream; u == nil || !allUnix(u) {
		a.connect = min(r.ConnectTimeout.Value, osConnectLimit)
	}
	if send, ok := sendTimeout(r); ok {
		a.one = addDur(a.connect, send.Value, r.AttemptTimeout.Value)
	}
	return a
}

// attempts is the attempt arithmetic of a forwarding route (Attempts,
// which the rule must require).
func (p *Pass) attempts(r *model.Route) attempts {
	a, ok := p.ResultOf(Attempts).(map[*model.Route]attempts)[r]
	if !ok {
		// A route the model does not hold (a test's own).
		return attemptsOf(r)
	}
	return a
}

// hopTime is the longest a hop can take to answer one request when the
// hops behind it take up to inner (negative: a backend that hangs): tries
// attempts of at most the attempt timeout each (or inner, when shorter),
// within the budget: exactly when the budget cuts attempts short (Envoy),
// else the last attempt may start just before it ends (nginx).
func hopTime(r *model.Route, tries int, inner time.Duration) (time.Duration, bool) {
	if _, ok := chain.Wait(r); !ok {
		return 0, false
	}
	per := r.AttemptTimeout.Value
	if per <= 0 || (inner >= 0 && inner < per) {
		per = inner
	}
	b := r.Budget.Value
	if per < 0 {
		return b, b > 0
	}
	total := mulDur(tries, per)
	switch {
	case b <= 0:
	case r.BudgetCutsAttempts:
		total = min(total, b)
	default:
		total = min(total, addDur(b, per))
	}
	return total, true
}
