package model

import "time"

// HopKind says what a hop on the request's path is.
type HopKind string

// Hop kinds, from the outside in.
const (
	HopClient   HopKind = "client"
	HopBalancer HopKind = "balancer"
	HopProxy    HopKind = "proxy"
	// A cluster service and a workload whose pods it selects.
	HopService  HopKind = "service"
	HopWorkload HopKind = "workload"
	HopBackend  HopKind = "backend"
)

// Chain is what proxylint knows of the path a request takes: the hops
// declared around the loaded configurations (the client and the load
// balancers in front, outermost first, then the backend) and the links by
// which one loaded route passes requests to a listener of another (or of
// the same) loaded configuration. A single file with no declaration is a
// chain of one proxy with unknown neighbours.
type Chain struct {
	Hops  []*Hop
	Links []*Link
	// MaxPaths bounds the request paths analysed from one entry route
	// (0: the analysis' default).
	MaxPaths int

	// Indexes of Links, built on first use; Links must not change after
	// Next or Reached was called.
	next    map[*Route][]*Link
	reached map[*Listener]bool
}

func (c *Chain) index() {
	if c.next != nil {
		return
	}
	c.next = map[*Route][]*Link{}
	c.reached = map[*Listener]bool{}
	for _, l := range c.Links {
		c.next[l.From] = append(c.next[l.From], l)
		c.reached[l.Listener] = true
	}
}

// Link says that a route passes requests to an address a loaded listener
// serves, so the two are adjacent hops.
type Link struct {
	From     *Route
	Server   Server    // the upstream server whose address the listener serves
	Listener *Listener // the listener reached
	// To is the route of Listener that takes the requests; nil when it
	// cannot be told (a path rewritten at run time, an ambiguous match).
	To *Route
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

// Front returns the declared hops in front of the loaded configurations,
// outermost (the client) first.
func (c *Chain) Front() []*Hop {
	if c == nil {
		return nil
	}
	var out []*Hop
	for _, h := range c.Hops {
		if h.Kind == HopClient || h.Kind == HopBalancer {
			out = append(out, h)
		}
	}
	return out
}

// Backend returns the declared backend, or nil.
func (c *Chain) Backend() *Hop {
	if c == nil {
		return nil
	}
	for _, h := range c.Hops {
		if h.Kind == HopBackend {
			return h
		}
	}
	return nil
}

// Next returns the links by which route r passes requests to loaded
// listeners.
func (c *Chain) Next(r *Route) []*Link {
	if c == nil {
		return nil
	}
	c.index()
	return c.next[r]
}

// Reached reports whether a loaded route passes requests to listener l,
// which is then an inner hop rather than an entry point.
func (c *Chain) Reached(l *Listener) bool {
	if c == nil {
		return false
	}
	c.index()
	return c.reached[l]
}
