// Package chain links loaded configurations into the path a request takes:
// a route whose upstream server is an address another loaded listener
// serves (an nginx upstream pointing at an Envoy listener, an Envoy cluster
// endpoint that is an nginx listen, two nginx layers in one file) is
// adjacent to the route of that listener that takes the request.
package chain

import (
	"path/filepath"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// Relation says how sure it is that two configurations belong to one
// deployment, which decides what links them.
type Relation int

const (
	// Unrelated configurations are never linked.
	Unrelated Relation = iota
	// Neighbours (files close in the tree) link by addresses that name a
	// listener: a loopback or local address on its port, its own IP, a
	// unix socket.
	Neighbours
	// Together (named together on the command line, or the same
	// configuration) also link a host name to the one wildcard listener
	// on its port, as a container's service name reaches it.
	Together
)

// Analyze links the loaded proxies into request paths and places them
// between the declared hops (client, balancers, backend; nil: none), and
// reports the entry routes with more request paths than maxPaths (0: the
// default) as fatal diagnostics. It reads the proxies and never changes
// them: the rule engine runs it as an analysis (rules.RequestPaths).
// Files named together on the command line link by any address, files
// close in the tree (neighbours) by addresses that name a listener exactly.
func Analyze(proxies []*model.Proxy, declared *model.Chain, maxPaths int) (*model.Chain, []model.Diagnostic) {
	c := &model.Chain{MaxPaths: maxPaths, Links: Link(proxies, func(a, b *model.Proxy) Relation {
		switch {
		case a.Named && b.Named:
			return Together
		case a.Product.Kubernetes() && b.Product.Kubernetes():
			// Joined from the run's manifests: one deployment.
			return Together
		case neighbours(a.Entry, b.Entry):
			return Neighbours
		}
		return Unrelated
	})}
	if declared != nil {
		c.Hops = declared.Hops
	}
	return c, pathBudget(proxies, c)
}

// neighbours reports whether two configuration files are close enough in
// the tree to be parts of one deployment (the same directory, or one
// directly above the other), so that addresses naming a listener link them
// without their being named together on the command line. A host name
// links only configurations named together: in a tree of unrelated
// examples, two files using port 8080 are not one path.
func neighbours(a, b string) bool {
	da, db := filepath.Dir(a), filepath.Dir(b)
	return da == db || filepath.Dir(da) == db || filepath.Dir(db) == da
}

// Link finds every link between the routes and listeners of the proxies.
// relate says how two different configurations are related; nil treats
// every pair as named together.
func Link(proxies []*model.Proxy, relate func(a, b *model.Proxy) Relation) []*model.Link {
	related := func(a, b *model.Proxy) Relation {
		if a == b || relate == nil {
			return Together
		}
		return relate(a, b)
	}
	byPort := map[int][]*model.Listener{}
	for _, p := range proxies {
		for _, l := range p.Listeners {
			seen := map[int]bool{}
			for _, a := range l.Addresses {
				if !seen[a.Port] {
					seen[a.Port] = true
					byPort[a.Port] = append(byPort[a.Port], l)
				}
			}
		}
	}
	var links []*model.Link
	done := map[*model.Upstream][]reach{}
	for _, p := range proxies {
		for _, r := range p.Routes() {
			if r.Forward == nil || r.Forward.Upstream == nil {
				continue
			}
			u := r.Forward.Upstream
			reached, ok := done[u]
			if !ok {
				reached = reachedBy(u, byPort, related)
				done[u] = reached
			}
			path, known := forwardedPath(r)
			for _, re := range reached {
				if re.listener == r.Listener {
					continue
				}
				links = append(links, &model.Link{
					From: r, Server: re.server, Listener: re.listener,
					To: landingRoute(re.listener, path, known),
				})
			}
		}
	}
	return append(links, meshLinks(proxies, related)...)
}

type reach struct {
	server   model.Server
	listener *model.Listener
}

// reachedBy lists the loaded listeners the servers of u connect to. An
// address on this machine (a loopback or unspecified host) or a host a
// listener names reaches it; a host name nothing names reaches a listener
// on a wildcard address only when it is the one loaded configuration
// listening on that port (the service name of a container, say).
func reachedBy(u *model.Upstream, byPort map[int][]*model.Listener, related func(a, b *model.Proxy) Relation) []reach {
	var out []reach
	for _, s := range u.Servers {
		if s.Down {
			continue
		}
		a := s.Address
		var exact, wildcard []*model.Listener
		for _, l := range byPort[a.Port] {
			rel := related(u.Proxy, l.Proxy)
			if rel == Unrelated || (rel == Neighbours && serves(l, a) != matchExact) {
				continue
			}
			switch serves(l, a) {
			case matchExact:
				exact = append(exact, l)
			case matchWildcard:
				wildcard = append(wildcard, l)
			}
		}
		for _, l := range exact {
			out = append(out, reach{s, l})
		}
		if len(exact) == 0 && len(wildcard) > 0 && !isLocal(a.Host) && onlyProxy(wildcard, u.Proxy) {
			out = append(out, reach{s, wildcard[0]})
		}
	}
	return out
}

// onlyProxy reports whether the listeners all belong to one configuration
// other than from.
func onlyProxy(ls []*model.Listener, from *model.Proxy) bool {
	p := ls[0].Proxy
	if p == from {
		return false
	}
	for _, l := range ls[1:] {
		if l.Proxy != p {
			return false
		}
	}
	return len(ls) == 1
}

type match int

const (
	noMatch match = iota
	matchExact
	matchWildcard
)

// serves says whether listener l accepts connections to address a: the
// same unix socket; the same port on a wildcard listen with a local target,
// or on the same host (loopback addresses are all this machine).
func serves(l *model.Listener, a model.Address) match {
	best := noMatch
	for _, la := range l.Addresses {
		if la.Unix != "" || a.Unix != "" {
			if la.Unix != "" && la.Unix == a.Unix {
				return matchExact
			}
			continue
		}
		if la.Port != a.Port {
			continue
		}
		switch {
		case strings.EqualFold(la.Host, a.Host), isLoopback(la.Host) && isLoopback(a.Host):
			return matchExact
		case la.Wildcard() && isLocal(a.Host):
			return matchExact
		case la.Wildcard():
			best = matchWildcard
		}
	}
	return best
}

func isLoopback(h string) bool {
	h = strings.ToLower(strings.Trim(h, "[]"))
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}

func isLocal(h string) bool {
	h = strings.Trim(h, "[]")
	return isLoopback(h) || h == "0.0.0.0" || h == "::" || h == "*" || h == ""
}

// forwardedPath is the path a proxied request carries to the next hop: the
// URI of an nginx pass directive when it has one, else the route's own path.
func forwardedPath(r *model.Route) (string, bool) {
	if r.Forward.Module != "envoy" {
		url := r.Forward.URL
		if i := strings.Index(url, "://"); i >= 0 {
			rest := url[i+3:]
			if strings.HasPrefix(rest, "unix:") {
				if j := strings.Index(rest[len("unix:"):], ":"); j >= 0 {
					uri := rest[len("unix:")+j+1:]
					return uri, !strings.Contains(uri, "$")
				}
			} else if j := strings.IndexByte(rest, '/'); j >= 0 {
				return rest[j:], !strings.Contains(rest[j:], "$")
			}
		}
	}
	switch r.Match.Kind {
	case model.MatchPrefix, model.MatchExact:
		return r.Match.Path, true
	}
	return "", false
}

// landingRoute picks the route of l that takes a request for path, by the
// selection its loader gave the listener. It returns nil whenever the
// choice is uncertain.
func landingRoute(l *model.Listener, path string, known bool) *model.Route {
	if l.Select == nil {
		return nil
	}
	return l.Select(l, path, known)
}
