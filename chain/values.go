package chain

import (
	"time"

	"github.com/proxylint/proxylint/model"
)

// What the path analysis reads off a route: the behaviour its loader
// computed, whichever proxy it belongs to.

// Wait is how long a route waits for the next hop before it gives up and
// answers (504): its budget when the budget cuts attempts short (Envoy's
// route timeout), else one attempt's timeout (nginx's read timeout of the
// pass module). ok is false when the route has no limit (0) or does not
// proxy.
//
// A route that carries long-lived streams (Stream) has no such deadline:
// its timeouts bound the silence on a stream, which pings keep alive, so
// ok is false for it too.
func Wait(r *model.Route) (model.Setting[time.Duration], bool) {
	if r == nil || r.Forward == nil || r.Stream.Value {
		return model.Setting[time.Duration]{}, false
	}
	s := r.AttemptTimeout
	if r.BudgetCutsAttempts {
		s = r.Budget
	}
	return s, s.Valid() && s.Value > 0
}

// Attempts is how many times a route may send one request to the next hop
// for failures that happen after the request arrived, and the setting that
// allows it.
//
// Only conditions met when the next hop timed out or answered count: a
// proxy in front of another answers failures with a status (502, 504),
// and closes a connection under a request (nginx's "error") only when it
// fails itself.
func Attempts(r *model.Route) (int, model.Setting[[]string]) {
	on := r.Retry.On
	if r.Forward == nil {
		return 1, on
	}
	for _, x := range r.Reexecutes {
		if x.Timeout || x.Response {
			return max(r.MaxAttempts.Value, 1), on
		}
	}
	return 1, on
}

// Pool is the idle timeout of the connection pool a route keeps toward the
// next hop, and the upstream that keeps it.
func Pool(r *model.Route) (model.Setting[time.Duration], *model.Upstream, bool) {
	if r == nil || r.Pool == nil {
		return model.Setting[time.Duration]{}, nil, false
	}
	p := r.Pool
	return p.Idle, p.Upstream, p.Idle.Valid() && p.Idle.Value > 0
}

// Lifetime is how long a pooled connection to the next hop may live.
func Lifetime(r *model.Route) model.Setting[time.Duration] {
	if _, _, ok := Pool(r); !ok {
		return model.Setting[time.Duration]{}
	}
	return r.Pool.Lifetime
}

func contains(rs []*model.Route, r *model.Route) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}
