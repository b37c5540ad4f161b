package parsers

import "time"

// HopKind says what a hop on the request's path is.
type HopKind string

// Hop kinds, from the outside in.
const (
	HopClient   HopKind = "client"
	HopBalancer HopKind = "balancer"
	HopProxy    HopKind = "proxy"
	HopBackend  HopKind = "backend"
)

// Chain is the ordered path a request takes: the client, the load
// balancers in front, the loaded proxies, the backend. A single file with
// no declaration is a chain of one proxy with unknown neighbours.
type Chain struct {
	Hops []*Hop
}

// Hop is one stop on the request's path. Values that a hop does not have
// are left invalid (the zero Setting).
type Hop struct {
	Kind   HopKind
	Name   string // "client", "aws-alb", the config file, "uvicorn"
	Preset string // the preset the values come from, if any
	Proxy  *Proxy // for loaded configurations

	// RequestTimeout is how long the hop waits for the next hop's response
	// before it gives up (a client's patience, an ALB's idle timeout,
	// Cloudflare's proxy read timeout).
	RequestTimeout Setting[time.Duration]
	// IdleTimeout is how long the hop keeps an idle connection from the
	// hop in front of it open (server-side keep-alive).
	IdleTimeout Setting[time.Duration]
	// PoolIdleTimeout is how long the hop keeps an idle connection to the
	// next hop in its pool (client-side keep-alive).
	PoolIdleTimeout Setting[time.Duration]
	// CancelsOnDisconnect says whether a backend stops work when its
	// client goes away.
	CancelsOnDisconnect Setting[bool]
}

// Front returns the declared hops in front of proxy p (client first), or
// nil when nothing is declared.
func (c *Chain) Front(p *Proxy) []*Hop {
	if c == nil {
		return nil
	}
	for i, h := range c.Hops {
		if h.Proxy == p {
			return c.Hops[:i]
		}
	}
	var out []*Hop
	for _, h := range c.Hops {
		if h.Kind == HopClient || h.Kind == HopBalancer {
			out = append(out, h)
		}
	}
	return out
}
