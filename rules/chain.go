package rules

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/proxylint/proxylint/parsers"
)

// What the rules about adjacent hops read off a route, whichever proxy it
// belongs to.

// routeWait is how long a route waits for the next hop's response before it
// gives up: nginx's read timeout of the pass module (per attempt), Envoy's
// route timeout (for all attempts). ok is false when the route has no
// limit (0) or does not proxy.
func routeWait(r *parsers.Route) (parsers.Setting[time.Duration], bool) {
	if r == nil || r.Pass == nil {
		return parsers.Setting[time.Duration]{}, false
	}
	s := r.ReadTimeout
	if r.Listener != nil && r.Listener.Proxy != nil && r.Listener.Proxy.Product == parsers.Envoy {
		s = r.Timeout
	}
	return s, s.Valid() && s.Value > 0
}

// reexecuting are the retry conditions met after the next hop received the
// request, so that a retry runs it again.
func reexecuting(r *parsers.Route) bool {
	for _, c := range r.Retry.On.Value {
		switch {
		case c == "timeout", c == "invalid_header", strings.HasPrefix(c, "http_"),
			c == "5xx", c == "gateway-error", c == "reset", c == "retriable-4xx",
			c == "retriable-status-codes", c == "retriable-headers",
			c == "cancelled", c == "deadline-exceeded", c == "internal", c == "resource-exhausted", c == "unavailable":
			return true
		}
	}
	return false
}

// attempts is how many times a route may send one request to the next hop
// for failures that happen after the request arrived, and the setting that
// allows it.
func attempts(r *parsers.Route) (int, parsers.Setting[[]string]) {
	on := r.Retry.On
	if r.Pass == nil || !reexecuting(r) {
		return 1, on
	}
	if r.Listener != nil && r.Listener.Proxy != nil && r.Listener.Proxy.Product == parsers.Envoy {
		return 1 + max(r.Retry.NumRetries.Value, 0), on
	}
	if r.Pass.Upstream == nil {
		return 1, on
	}
	n, _ := peers(r.Pass.Upstream)
	if t := r.Retry.Tries.Value; t > 0 && t < n {
		n = t
	}
	return max(n, 1), on
}

// pool is the idle timeout of the connection pool a route keeps toward the
// next hop: an nginx upstream block's keepalive_timeout when it keeps a
// pool its modules can use, an Envoy cluster's idle_timeout.
func pool(r *parsers.Route) (parsers.Setting[time.Duration], *parsers.Upstream, bool) {
	if r.Pass == nil || r.Pass.Upstream == nil {
		return parsers.Setting[time.Duration]{}, nil, false
	}
	u := r.Pass.Upstream
	if r.Listener != nil && r.Listener.Proxy != nil && r.Listener.Proxy.Product == parsers.Envoy {
		return u.IdleTimeout, u, u.IdleTimeout.Valid() && u.IdleTimeout.Value > 0
	}
	if u.Implicit || u.Keepalive.Value <= 0 || !poolingModules[r.Pass.Module] {
		return parsers.Setting[time.Duration]{}, nil, false
	}
	return u.KeepaliveTimeout, u, u.KeepaliveTimeout.Valid() && u.KeepaliveTimeout.Value > 0
}

// hopName names a listener for messages about another hop: "server
// 127.0.0.1:8081 in inner.conf".
func hopName(l *parsers.Listener, from *parsers.Proxy) string {
	name := l.Name
	if name == "" || name == "server" {
		name = "the server"
		if len(l.Addresses) > 0 {
			name = "the server on " + l.Addresses[0].String()
		}
	}
	if l.Proxy != nil && l.Proxy != from {
		name += " in " + filepath.Base(l.Proxy.Entry)
	}
	return name
}

// declaredName describes a declared hop: "aws-alb (--behind aws-alb)".
func declaredName(h *parsers.Hop, s parsers.Setting[time.Duration]) string {
	who := h.Name
	if h.Kind == parsers.HopClient {
		who = "the client"
	}
	if s.Name != "" {
		who += " (" + s.Name + ")"
	}
	return who
}

// paths lists the ways a request entering at route r continues through
// loaded hops: each path starts with r and follows links to the route of
// the next hop, up to a route with no further loaded hop.
func paths(c *parsers.Chain, r *parsers.Route) [][]*parsers.Route {
	var out [][]*parsers.Route
	var walk func(path []*parsers.Route)
	walk = func(path []*parsers.Route) {
		last := path[len(path)-1]
		extended := false
		for _, l := range c.Next(last) {
			if l.To == nil || l.To.Pass == nil || contains(path, l.To) {
				continue
			}
			extended = true
			walk(append(append([]*parsers.Route{}, path...), l.To))
		}
		if !extended {
			out = append(out, path)
		}
	}
	walk([]*parsers.Route{r})
	return out
}

func contains(rs []*parsers.Route, r *parsers.Route) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// whereRoute names a route with its file: "location /api/ (edge.conf)".
func whereRoute(r *parsers.Route) string {
	return fmt.Sprintf("%s (%s)", routeName(r), filepath.Base(r.Pos.File))
}
