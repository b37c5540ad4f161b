package nginx

import (
	"strings"

	"github.com/proxylint/proxylint/model"
)

// What a location does with its settings (docs/semantics.md §B, §C, §D):
// how long one attempt and all attempts may take, how often one request
// may be sent, which retries can run it again, and the pool it reuses.
// Rules and the path analysis read these values, never the directives.

// nonIdempotent are the methods nginx does not pass to the next server
// once the request was sent, unless non_idempotent is set
// (ngx_http_upstream.c, ngx_http_upstream_next: NGX_HTTP_POST|LOCK|PATCH).
var nonIdempotent = []string{"POST", "PATCH", "LOCK"}

// poolingModules set u->keepalive and so can reuse a cached upstream
// connection; uwsgi and scgi never do (docs/semantics.md §D).
var poolingModules = map[string]bool{"proxy": true, "grpc": true, "memcached": true, "fastcgi": true}

func behaviour(r *model.Route, pools map[*model.Upstream]*model.Pool) {
	n := r.Nginx
	r.AttemptTimeout = n.ReadTimeout
	r.Budget = n.NextTimeout
	r.MaxAttempts = model.Setting[int]{Value: 1, Name: r.Retry.On.Name, Pos: r.Retry.On.Pos, Level: r.Retry.On.Level, Default: r.Retry.On.Default}
	f := r.Forward
	if f == nil {
		return
	}
	r.Stream = stream(r)
	if f.Upstream == nil {
		return
	}
	r.MaxAttempts = maxAttempts(r)
	if r.MaxAttempts.Value > 1 {
		r.Reexecutes = reexecutions(r)
	}
	r.Pool = pool(r, pools)
}

// maxAttempts: the servers of the upstream that are not down, primary and
// backup, capped by *_next_upstream_tries (0 = no cap); one when nothing
// is retried ("off" wins over every other flag) or the upstream has a
// single address (round_robin.c: peers->single).
func maxAttempts(r *model.Route) model.Setting[int] {
	on := r.Retry.On
	one := model.Setting[int]{Value: 1, Name: on.Name, Pos: on.Pos, Level: on.Level, Default: on.Default}
	if !retries(r) {
		return one
	}
	peers, _ := r.Forward.Upstream.Peers()
	if peers <= 1 {
		return one
	}
	tries := r.Nginx.Tries
	if t := tries.Value; t > 0 && t < peers {
		return model.Setting[int]{Value: t, Name: tries.Name, Pos: tries.Pos, Level: tries.Level, Default: tries.Default}
	}
	one.Value = peers
	return one
}

// retries reports whether the route's *_next_upstream passes anything to
// the next server.
func retries(r *model.Route) bool {
	if r.Retry.Has("off") {
		return false
	}
	for _, c := range r.Retry.On.Value {
		if c != "non_idempotent" {
			return true
		}
	}
	return false
}

// reexecutions lists the *_next_upstream conditions that can pass a request
// to the next server after the previous one may have received it:
// "error" covers failures while sending and a connection closed before the
// response header, "timeout" a read timeout while waiting for the header,
// the rest a response the server sent (ngx_http_upstream.c,
// ngx_http_upstream_next and ngx_http_upstream_test_next).
func reexecutions(r *model.Route) []model.Reexecution {
	methods := model.Methods{Any: true, Except: nonIdempotent, Pos: r.Retry.On.Pos, Source: r.Retry.On.Name}
	if r.Retry.Has("non_idempotent") {
		methods.Except = nil
	}
	// With *_request_buffering off (always for gRPC) nginx does not pass
	// on a request whose body it streamed (request_sent &&
	// request_body_no_buffering), but it clears that flag when the whole
	// body arrived with the header (ngx_http_request_body.c), as small
	// bodies and unary gRPC calls do: those are still sent again.
	out := make([]model.Reexecution, 0, len(r.Retry.On.Value))
	for _, c := range r.Retry.On.Value {
		x := model.Reexecution{Condition: c, Methods: methods, Setting: r.Retry.On}
		switch {
		case c == "error":
		case c == "timeout":
			x.Timeout = true
		case c == "invalid_header", c == "invalid_response", c == "not_found", strings.HasPrefix(c, "http_"):
			x.Response = true
		default:
			continue
		}
		out = append(out, x)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// pool is the upstream block's pool when the route's module reuses
// connections and the upstream keeps some; implicit upstreams are never
// pooled (keepalive_module.c skips them). Settings that keep a request
// from returning its connection (HTTP/1.0, Connection: close,
// fastcgi_keep_conn off) are left to the rules that name them. The routes
// of one upstream share its pool, which pools holds by upstream.
func pool(r *model.Route, pools map[*model.Upstream]*model.Pool) *model.Pool {
	u := r.Forward.Upstream
	if u.Implicit || u.PoolSize.Value <= 0 || !r.Forward.CanPool {
		return nil
	}
	p := pools[u]
	if p == nil {
		p = &model.Pool{Upstream: u, Size: u.PoolSize, Idle: u.PoolIdle, Lifetime: u.PoolLifetime}
		pools[u] = p
	}
	return p
}

// stream: a location that passes WebSocket upgrades on: it sends an
// Upgrade header and a Connection header of "upgrade" (or one a map on
// $http_upgrade sets). Once upgraded, the connection carries a stream for
// as long as both ends keep it, and proxy_read_timeout bounds the silence
// between two frames (ngx_http_upstream.c, upgraded handlers).
func stream(r *model.Route) model.Setting[bool] {
	n := r.Nginx
	up, conn := n.UpgradeHeader, n.ConnectionHeader
	if !up.Valid() || up.Value == "" || !conn.Valid() {
		return model.Setting[bool]{}
	}
	if strings.EqualFold(conn.Value, "upgrade") || n.ConnectionHeaderPlain.Valid() {
		return model.Set(true, up.Name+" Upgrade "+up.Value, up.Level, up.Pos)
	}
	return model.Setting[bool]{}
}
