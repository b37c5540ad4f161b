package chain

import (
	"path/filepath"
	"time"

	"github.com/proxylint/proxylint/model"
)

// Step is one hop of a request's path with the values that decide how the
// hops around it interact.
type Step struct {
	Kind model.HopKind
	// Name says what the hop is: "client", "aws-alb", "nginx edge.conf
	// location /api/", "backend uvicorn".
	Name  string
	Route *model.Route // for proxies
	Hop   *model.Hop   // for declared hops
	// Service and Workload are the cluster hops, defined at Pos.
	Service  *model.Service
	Workload *model.Workload
	Pos      model.Pos
	// Note says what is unusual about the hop, such as why the path ends
	// there.
	Note string
	// Waits is how long the hop waits for the next one before it gives up.
	Waits model.Setting[time.Duration]
	// Attempts is how many times it may send one request on, for failures
	// after the next hop received it; Retry is the setting that allows it.
	Attempts int
	Retry    model.Setting[[]string]
	// Idle is how long it keeps an idle connection from the hop in front.
	Idle model.Setting[time.Duration]
	// PoolIdle and Lifetime bound its idle connections to the next hop.
	PoolIdle model.Setting[time.Duration]
	Lifetime model.Setting[time.Duration]
}

// Path is one way a request travels, outermost hop first.
type Path struct {
	Steps []Step
}

// Describe lists every path through the model, linked into chain c
// (Analyze): for each entry route (a route of a listener no loaded route
// passes requests to), each way through the linked loaded hops, with the
// declared hops in front and behind.
func Describe(m *model.Model, c *model.Chain) []Path {
	var front []Step
	for _, h := range c.Front() {
		front = append(front, declaredStep(h))
	}
	var back []Step
	if b := c.Backend(); b != nil {
		back = append(back, declaredStep(b))
	}
	var out []Path
	cx := newClusterIndex(m)
	for _, p := range m.Proxies {
		for _, r := range p.Routes() {
			if r.Forward == nil || c.Reached(r.Listener) {
				continue
			}
			for _, rs := range Paths(c, r) {
				// A step is large: each path's are allocated once, at
				// their number.
				tails, ends := clusterTails(cx, rs[len(rs)-1])
				hops := len(front) + len(rs)
				var mid []Step
				if len(tails) > 1 {
					mid = make([]Step, len(rs))
					for i, x := range rs {
						mid[i] = routeStep(x)
					}
				}
				withTail := func(tail []Step, end bool) Path {
					n := hops + len(tail)
					if !end {
						n += len(back)
					}
					steps := make([]Step, 0, n)
					steps = append(steps, front...)
					if mid != nil {
						steps = append(steps, mid...)
					} else {
						for _, x := range rs {
							steps = append(steps, routeStep(x))
						}
					}
					steps = append(steps, tail...)
					if !end {
						steps = append(steps, back...)
					}
					return Path{Steps: steps}
				}
				if tails == nil {
					out = append(out, withTail(nil, false))
					continue
				}
				for i, t := range tails {
					out = append(out, withTail(t, ends[i]))
				}
			}
		}
	}
	return out
}

func declaredStep(h *model.Hop) Step {
	name := string(h.Kind)
	if h.Name != name {
		name += " " + h.Name
	}
	return Step{
		Kind: h.Kind, Name: name, Hop: h,
		Waits: h.RequestTimeout, Attempts: 1, Idle: h.IdleTimeout, PoolIdle: h.PoolIdleTimeout,
	}
}

func routeStep(r *model.Route) Step {
	s := Step{Kind: model.HopProxy, Route: r}
	product := "proxy"
	if r.Listener != nil && r.Listener.Proxy != nil {
		product = string(r.Listener.Proxy.Product)
	}
	s.Name = product + " " + filepath.ToSlash(r.Pos.File) + " " + r.Name
	if r.Listener != nil && r.Listener.Via.Valid() {
		// The entry point whose proxy runs the route (an Istio Gateway).
		s.Name = product + " " + filepath.ToSlash(r.Pos.File) + " " + r.Listener.Via.Value + " > " + r.Name
	}
	s.Waits, _ = Wait(r)
	s.Attempts, s.Retry = Attempts(r)
	if r.Listener != nil {
		s.Idle = r.Listener.IdleTimeout
	}
	if idle, _, ok := Pool(r); ok {
		s.PoolIdle = idle
		s.Lifetime = Lifetime(r)
	}
	return s
}
