package nginx

import (
	"regexp"
	"slices"
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

// behaviours holds what the routes of one configuration share: the pool of
// each upstream, and the re-executions of each retry setting, which
// locations inheriting one *_next_upstream have alike (a slice per route
// would be most of the memory of the routes' behaviour on large
// configurations).
type behaviours struct {
	pools  map[*model.Upstream]*model.Pool
	reexec map[reexecKey][]model.Reexecution
}

// reexecKey is what reexecutions reads of a route: its retry setting.
type reexecKey struct {
	pos               model.Pos
	name, level, note string
	def               bool
	on                string
}

func newBehaviours() *behaviours {
	return &behaviours{pools: map[*model.Upstream]*model.Pool{}, reexec: map[reexecKey][]model.Reexecution{}}
}

// reexecutions returns reexecutions(r), the same slice for every route
// with the same retry setting.
func (bs *behaviours) reexecutions(r *model.Route) []model.Reexecution {
	on := r.Retry.On
	k := reexecKey{pos: on.Pos(), name: on.Name(), level: on.Level(), note: on.Note(), def: on.Default(), on: strings.Join(on.Value, "\x00")}
	x, ok := bs.reexec[k]
	if !ok {
		// Clipped, so that appending to one route's slice copies it.
		x = slices.Clip(reexecutions(r))
		bs.reexec[k] = x
	}
	return x
}

func behaviour(r *model.Route, bs *behaviours) {
	r.MaxAttempts = model.NewSetting(1, r.Retry.On.Name(), r.Retry.On.Level(), r.Retry.On.Pos(), r.Retry.On.Default(), "")
	f := r.Forward
	if f == nil {
		return
	}
	if f.Module == "grpc" {
		// Any gRPC method may stream, and grpc_read_timeout bounds the
		// silence between two messages of a call, not the call.
		r.Stream = model.Set(true, f.Name, r.Kind, f.Pos)
	}
	if f.Upstream == nil {
		return
	}
	r.Pool = pool(r, bs.pools)
	r.MaxAttempts = maxAttempts(r)
	if r.MaxAttempts.Value > 1 {
		r.Reexecutes = bs.reexecutions(r)
	} else if givesTryBack(r) {
		// One more try on a new connection to the same server, for an
		// error on a pooled connection only (docs/semantics.md §B).
		sz := r.Pool.Size
		r.MaxAttempts = model.NewSetting(2, "keepalive", sz.Level(), sz.Pos(), sz.Default(), sz.Note())
		for _, x := range reexecutions(r) {
			if x.Condition == "error" {
				x.SameServer = true
				r.Reexecutes = append(r.Reexecutes, x)
			}
		}
	}
}

// givesTryBack reports whether a request that fails with an error on a
// pooled connection is sent once more: nginx adds the try back before it
// decides (ngx_http_upstream.c, ngx_http_upstream_next: "if
// (u->peer.cached && ft_type == NGX_HTTP_UPSTREAM_FT_ERROR)
// u->peer.tries++", in 1.22 and the newest release alike), so even a
// single server or *_next_upstream_tries 1 retries, as long as
// *_next_upstream has error. Only connections that return to the pool
// are cached: HTTP/1.1 without "Connection: close" for proxy,
// fastcgi_keep_conn on for FastCGI.
func givesTryBack(r *model.Route) bool {
	if r.Pool == nil || !retries(r) || !r.Retry.Has("error") {
		return false
	}
	n := r.Nginx
	switch r.Forward.Module {
	case "proxy":
		plainClose := n.ConnectionHeaderPlain.Valid() && strings.EqualFold(n.ConnectionHeaderPlain.Value, "close")
		return n.HTTPVersion.Value == "1.1" && !strings.EqualFold(n.ConnectionHeader.Value, "close") && !plainClose
	case "fastcgi":
		return n.KeepConn.Value
	}
	return true
}

// maxAttempts: the servers of the upstream that are not down, primary and
// backup, capped by *_next_upstream_tries (0 = no cap); one when nothing
// is retried ("off" wins over every other flag) or the upstream has a
// single address (round_robin.c: peers->single).
func maxAttempts(r *model.Route) model.Setting[int] {
	on := r.Retry.On
	one := model.NewSetting(1, on.Name(), on.Level(), on.Pos(), on.Default(), "")
	if !retries(r) {
		return one
	}
	peers, _ := r.Forward.Upstream.Peers()
	if peers <= 1 {
		return one
	}
	tries := r.Nginx.Tries
	if t := tries.Value; t > 0 && t < peers {
		return model.NewSetting(t, tries.Name(), tries.Level(), tries.Pos(), tries.Default(), "")
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
	methods := model.Methods{Any: true, Except: nonIdempotent}.NarrowedBy(r.Retry.On.Name(), r.Retry.On.Pos())
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

// webSocket: a location that passes WebSocket upgrades on: it sends an
// Upgrade header (up) and a Connection header (conn) of "upgrade", or one
// a map on $http_upgrade sets (plain is then valid). Once upgraded, the
// connection carries a stream for as long as both ends keep it, and
// proxy_read_timeout bounds the silence between two frames
// (ngx_http_upstream.c, upgraded handlers).
func webSocket(up, conn, plain model.Setting[string]) model.Setting[bool] {
	if !up.Valid() || up.Value == "" || !conn.Valid() {
		return model.Setting[bool]{}
	}
	if strings.EqualFold(conn.Value, "upgrade") || plain.Valid() {
		return model.Set(true, up.Name()+" Upgrade "+up.Value, up.Level(), up.Pos())
	}
	return model.Setting[bool]{}
}

// knownMethods are the methods a $request_method condition is tested
// against: HTTP's and WebDAV's.
var knownMethods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT",
	"LOCK", "UNLOCK", "MKCOL", "COPY", "MOVE", "PROPFIND", "PROPPATCH"}

// guardMethods narrows the methods that reach a route's upstream by the
// "if ($request_method ...)" blocks that answer a request themselves
// (return): those of the server, which run for every request before a
// location is chosen, and those of the route's location (the rewrite
// directives of an enclosing location do not run for a nested one). An
// if block that proxies on its own carries the methods its condition
// lets in.
func guardMethods(s *scope, m model.Methods) model.Methods {
	loc := s
	for loc != nil && loc.kind != "location" {
		loc = loc.parent
	}
	var levels []*scope
	if loc != nil {
		for c := loc.parent; c != nil; c = c.parent {
			if c.kind == "server" {
				levels = append(levels, c)
				break
			}
		}
		levels = append(levels, loc)
	}
	for _, lvl := range levels {
		for _, ifd := range lvl.children("if") {
			if ifd == s.dir || !answers(ifd) {
				continue
			}
			if match, negated, ok := methodCondition(ifd); ok {
				m = narrowMethods(m, ifd, func(x string) bool { return match(x) == negated })
			}
		}
	}
	if s.kind == "if" && s.dir != nil {
		if match, negated, ok := methodCondition(s.dir); ok {
			m = narrowMethods(m, s.dir, func(x string) bool { return match(x) != negated })
		}
	}
	return m
}

// answers reports whether an if block answers the request itself.
func answers(ifd *Directive) bool {
	for _, d := range flatten(ifd.Block) {
		if d.Name == "return" {
			return true
		}
	}
	return false
}

// narrowMethods keeps the methods pass lets through.
func narrowMethods(m model.Methods, d *Directive, pass func(string) bool) model.Methods {
	out := model.Methods{}.NarrowedBy(d.String(), d.Pos)
	if !m.Any {
		for _, x := range m.Allowed {
			if pass(x) {
				out.Allowed = append(out.Allowed, x)
			}
		}
		if len(out.Allowed) == len(m.Allowed) {
			return m
		}
		return out
	}
	// When every method the condition lets through is a known one, the
	// route carries only those; otherwise it carries any method but the
	// known ones the condition keeps out.
	if !pass("X-PROXYLINT-OTHER") {
		for _, x := range knownMethods {
			if pass(x) && m.Allows(x) {
				out.Allowed = append(out.Allowed, x)
			}
		}
		return out
	}
	out.Any = true
	out.Except = append(out.Except, m.Except...)
	for _, x := range knownMethods {
		if !pass(x) && m.Allows(x) {
			out.Except = append(out.Except, x)
		}
	}
	if len(out.Except) == len(m.Except) {
		return m
	}
	return out
}

// methodCondition reads "if ($request_method OP VALUE)": match tells
// whether a method satisfies VALUE (equal to it, or matching its regular
// expression), and negated is set for != and !~. ok is false for any other
// condition, or a regular expression Go cannot read the way PCRE does.
func methodCondition(d *Directive) (match func(string) bool, negated, ok bool) {
	args := d.ArgValues()
	if len(args) > 0 && args[0] == "(" {
		args = args[1:]
	} else if len(args) > 0 {
		args[0] = strings.TrimPrefix(args[0], "(")
	}
	if n := len(args); n > 0 && args[n-1] == ")" {
		args = args[:n-1]
	} else if n > 0 {
		args[n-1] = strings.TrimSuffix(args[n-1], ")")
	}
	if len(args) != 3 || args[0] != "$request_method" || hasVariable(args[2]) {
		return nil, false, false
	}
	op, v := args[1], args[2]
	switch op {
	case "=", "!=":
		return func(x string) bool { return x == v }, op == "!=", true
	case "~", "!~", "~*", "!~*":
		expr := v
		if strings.HasSuffix(op, "*") {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, false, false
		}
		return re.MatchString, strings.HasPrefix(op, "!"), true
	}
	return nil, false, false
}

// hasVariable reports whether s refers to a variable ("$name", "${name}",
// "$1"), which a regular expression's "$" anchor is not.
func hasVariable(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if c := s[i+1]; s[i] == '$' && (c == '{' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return true
		}
	}
	return false
}
