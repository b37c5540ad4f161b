package chain

import (
	"strings"
	"time"

	"github.com/proxylint/proxylint/model"
)

// What the path analysis reads off a route, whichever proxy it belongs to.

func isEnvoy(r *model.Route) bool {
	return r.Listener != nil && r.Listener.Proxy != nil && r.Listener.Proxy.Product == model.Envoy
}

// Wait is how long a route waits for the next hop's response before it
// gives up: nginx's read timeout of the pass module (per attempt), Envoy's
// route timeout (for all attempts). ok is false when the route has no limit
// (0) or does not proxy.
func Wait(r *model.Route) (model.Setting[time.Duration], bool) {
	if r == nil || r.Pass == nil {
		return model.Setting[time.Duration]{}, false
	}
	s := r.ReadTimeout
	if isEnvoy(r) {
		s = r.Timeout
	}
	return s, s.Valid() && s.Value > 0
}

// reexecuting reports whether a route retries failures that happen after
// the next hop received the request, so that a retry runs it again.
func reexecuting(r *model.Route) bool {
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

// Attempts is how many times a route may send one request to the next hop
// for failures that happen after the request arrived, and the setting that
// allows it: nginx, the servers of the upstream (not down) capped by
// *_next_upstream_tries; Envoy, num_retries + 1.
func Attempts(r *model.Route) (int, model.Setting[[]string]) {
	on := r.Retry.On
	if r.Pass == nil || !reexecuting(r) {
		return 1, on
	}
	if isEnvoy(r) {
		return 1 + max(r.Retry.NumRetries.Value, 0), on
	}
	if r.Pass.Upstream == nil {
		return 1, on
	}
	n := 0
	for _, s := range r.Pass.Upstream.Servers {
		if !s.Down {
			n++
		}
	}
	if t := r.Retry.Tries.Value; t > 0 && t < n {
		n = t
	}
	return max(n, 1), on
}

// poolingModules can reuse a cached upstream connection; uwsgi and scgi
// never do (semantics.md §D).
var poolingModules = map[string]bool{"proxy": true, "grpc": true, "memcached": true, "fastcgi": true}

// Pool is the idle timeout of the connection pool a route keeps toward the
// next hop, and the upstream that keeps it: an nginx upstream block's
// keepalive_timeout when it keeps a pool its module can use, an Envoy
// cluster's idle_timeout.
func Pool(r *model.Route) (model.Setting[time.Duration], *model.Upstream, bool) {
	if r == nil || r.Pass == nil || r.Pass.Upstream == nil {
		return model.Setting[time.Duration]{}, nil, false
	}
	u := r.Pass.Upstream
	if isEnvoy(r) {
		return u.IdleTimeout, u, u.IdleTimeout.Valid() && u.IdleTimeout.Value > 0
	}
	if u.Implicit || u.Keepalive.Value <= 0 || !poolingModules[r.Pass.Module] {
		return model.Setting[time.Duration]{}, nil, false
	}
	return u.KeepaliveTimeout, u, u.KeepaliveTimeout.Valid() && u.KeepaliveTimeout.Value > 0
}

// Lifetime is how long a pooled connection to the next hop may live: nginx
// upstream keepalive_time, Envoy cluster max_connection_duration.
func Lifetime(r *model.Route) model.Setting[time.Duration] {
	_, u, ok := Pool(r)
	if !ok {
		return model.Setting[time.Duration]{}
	}
	if isEnvoy(r) {
		return u.MaxConnectionDuration
	}
	return u.KeepaliveTime
}

func contains(rs []*model.Route, r *model.Route) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}
