package rules

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/proxylint/proxylint/model"
)

// UpstreamNoKeepalive flags connections to an upstream that are never
// pooled, so every request pays a new TCP (and TLS) handshake.
var UpstreamNoKeepalive = &Rule{
	ID:       "upstream-no-keepalive",
	Summary:  "connections to the upstream are not pooled: every request opens a new connection",
	Severity: model.Warning,
	Tags:     []string{"nginx", "performance", "keepalive"},
	Products: nginxFamily,
	Requires: []*Analysis{RequestPaths},
	Check:    checkUpstreamNoKeepalive,
}

func checkUpstreamNoKeepalive(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		for _, u := range p.Upstreams {
			if u.Implicit {
				implicitUpstream(pass, u)
			} else {
				namedUpstream(pass, p, u)
			}
		}
	}
}

// implicitUpstream: proxy_pass to an address no upstream block names. nginx
// never pools these (keepalive_module.c skips implicit upstreams).
func implicitUpstream(pass *Pass, u *model.Upstream) {
	// The server as an upstream block must name it: with its port, which
	// a server line otherwise takes as 80 (https:// passes use 443).
	server := u.Servers[0].Raw
	if a := u.Servers[0].Address; a.Unix == "" && a.Port != 0 && !strings.HasSuffix(server, fmt.Sprintf(":%d", a.Port)) {
		host := a.Host
		if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
			host = "[" + host + "]"
		}
		server = fmt.Sprintf("%s:%d", host, a.Port)
	}
	for _, r := range u.Routes {
		if !r.Forward.CanPool {
			continue
		}
		f := Finding{
			Pos: r.Forward.Pos,
			Message: fmt.Sprintf("%s to %s has no upstream block, so nginx opens a new connection for every request. "+
				"Addresses used directly are never pooled, on any nginx version.", r.Forward.Name, u.Name),
			Fix: Advice(fmt.Sprintf("declare \"upstream backend { server %s; }\" (nginx before 1.29.7 also needs \"keepalive 16;\" in it, "+
				"proxy_http_version 1.1 and proxy_set_header Connection \"\") and use %s %s://backend", server, r.Forward.Name, schemeOr(r.Forward.Scheme, "http"))),
		}
		if u.HostAssumed {
			f.Message += fmt.Sprintf(" (%s is taken for a host name, as it reads as one: an upstream block of that name in the configuration that includes this file, which was not read, would be used instead.)",
				u.Servers[0].Address.Host)
		}
		if u.Servers[0].Address.Unix != "" {
			f.Severity = model.Note
			f.Message = fmt.Sprintf("%s to %s has no upstream block, so nginx opens a new unix-socket connection for every request. "+
				"Cheaper than TCP, but still never pooled.", r.Forward.Name, u.Name)
		}
		if r.Forward.Module == "grpc" || r.Forward.Module == "memcached" {
			f.Fix = Advice(fmt.Sprintf("declare \"upstream backend { server %s; }\" (with \"keepalive 16;\" before nginx 1.29.7) and use %s to it", server, r.Forward.Name))
		}
		f.Fix = implicitUpstreamFix(pass, u, r).Or(f.Fix.Message)
		pass.Report(f)
	}
}

func schemeOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func namedUpstream(pass *Pass, p *model.Proxy, u *model.Upstream) {
	if len(u.Routes) == 0 {
		return
	}
	var pooling []*model.Route
	for _, r := range u.Routes {
		// A location that passes upgrades on ("Connection: upgrade"
		// with every request) carries plain requests too, which pool
		// (rules/proof, TestConnectionUpgradeOnPlainRequestsPools).
		if r.Forward.CanPool {
			pooling = append(pooling, r)
		}
	}
	if len(pooling) == 0 {
		if u.PoolSize.Explicit() && u.PoolSize.Value > 0 {
			pass.Report(Finding{
				Pos: u.PoolSize.Pos(),
				Message: fmt.Sprintf("keepalive in upstream %q is never used: it is reached only by %s, and uwsgi and scgi never reuse upstream connections.",
					u.Name, u.Routes[0].Forward.Name),
				Related: []Related{{Pos: u.Routes[0].Forward.Pos, Message: "reached by " + u.Routes[0].Forward.Name}},
				Fix:     Advice("remove the keepalive directive, or talk to the backend over a protocol nginx pools (HTTP with proxy_pass, FastCGI with fastcgi_keep_conn on)"),
			})
		}
		return
	}
	if u.PoolSize.Value <= 0 {
		if f, ok := defeatedEverywhere(pass, u, pooling); ok {
			pass.Report(f)
			return
		}
		f := Finding{
			Related: []Related{{Pos: pooling[0].Forward.Pos, Message: "used by " + pooling[0].Forward.Name}},
		}
		advice := fmt.Sprintf("add \"keepalive 16;\" to upstream %q", u.Name)
		switch {
		case u.PoolSize.Explicit():
			f.Pos = u.PoolSize.Pos()
			f.Message = fmt.Sprintf("keepalive 0 disables the connection pool of upstream %q, so every request opens a new connection.", u.Name)
		case allUnix(u):
			// As for an address used directly: a unix socket is
			// cheap to connect to.
			f.Pos, f.Severity = u.Pos, model.Note
			f.Message = fmt.Sprintf("upstream %q has no keepalive directive, so every request opens a new unix-socket connection %s Cheaper than TCP, but still not pooled.",
				u.Name, u.PoolSize.Note())
		default:
			f.Pos = u.Pos
			f.Message = fmt.Sprintf("upstream %q has no keepalive directive, so every request opens a new connection %s",
				u.Name, u.PoolSize.Note())
		}
		if v := pooling[0].Nginx.HTTPVersion; v.Default() && v.Value == "1.0" {
			advice += ", with proxy_http_version 1.1 and proxy_set_header Connection \"\" where it is proxied to"
		}
		f.Fix = namedUpstreamFix(pass, u, pooling, advice).Or(advice)
		pass.Report(f)
		return
	}
	for _, r := range pooling {
		for i, d := range poolDefeats(u, r) {
			if i == 0 {
				// One repair for the route, made once.
				d.Fix = poolDefeatedFix(pass, r, d.Fix.Message).Or(d.Fix.Message)
			}
			pass.Report(d.Finding)
		}
	}
}

// defeatedEverywhere: an upstream without a pool whose every route also
// keeps connections from being reused by a setting that holds on every
// release (a Connection: close or HTTP/1.0 written in the configuration,
// a map that sends Connection: close for requests without Upgrade,
// FastCGI without fastcgi_keep_conn on, whose default no release
// changed). Adding keepalive alone would change nothing, on any nginx
// version (1.29.7's pooling by default included), so the finding names
// that setting and the fix does both: it repairs every defeat of the
// routes, those of a release's defaults included, so that it pools.
func defeatedEverywhere(pass *Pass, u *model.Upstream, routes []*model.Route) (Finding, bool) {
	var first defeat
	oldDefaults, defaultClose := false, false
	for i, r := range routes {
		var found *defeat
		ds := poolDefeats(u, r)
		for j := range ds {
			if ds[j].everyRelease && found == nil {
				found = &ds[j]
			}
			oldDefaults = oldDefaults || !ds[j].everyRelease
		}
		if c := r.Nginx.ConnectionHeader; c.Default() && c.Value != "" {
			defaultClose = true
		}
		if found == nil {
			return Finding{}, false
		}
		if i == 0 {
			first = *found
		}
	}
	fix := fmt.Sprintf("add \"keepalive 16;\" to upstream %q, and %s", u.Name, first.Fix.Message)
	switch {
	case oldDefaults && defaultClose:
		fix += "; before nginx 1.29.7 also proxy_http_version 1.1 and proxy_set_header Connection \"\" where it is proxied to"
	case oldDefaults:
		fix += "; before nginx 1.29.7 also proxy_http_version 1.1 where it is proxied to"
	}
	return Finding{
		Pos: u.Pos,
		Message: fmt.Sprintf("upstream %q has no keepalive directive, and %s: every request opens a new connection on every nginx version, and adding keepalive alone would not change that.",
			u.Name, first.cause),
		Related: []Related{{Pos: first.Pos, Message: "keeps connections from being reused (" + routes[0].Forward.Name + " in " + routeName(routes[0]) + ")"}},
		Fix:     namedUpstreamFix(pass, u, routes, fix).Or(fix),
	}, true
}

// defeat is a setting that keeps a route from reusing its upstream's
// pooled connections, as a finding; everyRelease is set when it holds on
// every release, not only where a release's default is in effect.
type defeat struct {
	Finding
	everyRelease bool
	// cause says what the setting does, for a finding at the upstream.
	cause string
}

// poolDefeats lists every setting that keeps a route from reusing its
// upstream's pooled connections (docs/semantics.md §D), in the order the
// request meets them. HTTP/1.0 and the default Connection: close before
// nginx 1.29.7 are one defeat, named by the HTTP version, whose fix sets
// both.
func poolDefeats(u *model.Upstream, r *model.Route) []defeat {
	related := []Related{{Pos: u.Pos, Message: fmt.Sprintf("upstream %q keeps a pool", u.Name)}}
	var out []defeat
	switch r.Forward.Module {
	case "proxy":
		version := false
		if v := r.Nginx.HTTPVersion; v.Valid() && v.Value == "1.0" {
			f := Finding{
				Pos: v.Pos(),
				Message: fmt.Sprintf("%s defeats the keepalive pool of upstream %q: nginx never reuses a connection after an HTTP/1.0 request, so every request opens a new one.",
					settingText(v, "1.0"), u.Name),
				Related: related,
				Fix:     Advice("set proxy_http_version 1.1 and proxy_set_header Connection \"\" in this location (or at server or http level)"),
			}
			if v.Default() {
				f.Message = fmt.Sprintf("proxy_http_version defaults to 1.0 %s, which defeats the keepalive pool of upstream %q: nginx never reuses a connection after an HTTP/1.0 request.",
					v.Note(), u.Name)
			}
			if c := r.Nginx.ConnectionHeader; c.Explicit() && !strings.EqualFold(c.Value, "close") {
				// The location sets its Connection header (the
				// websocket idiom): only the version is to change.
				f.Fix = Advice("set proxy_http_version 1.1 in this location (or at server or http level)")
			}
			out = append(out, defeat{f, !v.Default(), "proxy_http_version 1.0 is set, and nginx never reuses a connection after an HTTP/1.0 request"})
			// Its fix sets Connection "" too: the default
			// Connection: close is not a defeat of its own then.
			version = true
		}
		if c := r.Nginx.ConnectionHeader; c.Valid() && strings.EqualFold(c.Value, "close") && (!c.Default() || !version) {
			f := Finding{
				Pos: c.Pos(),
				Message: fmt.Sprintf("proxy_set_header Connection close defeats the keepalive pool of upstream %q: the backend closes every connection after one request.",
					u.Name),
				Related: related,
				Fix:     Advice("set proxy_set_header Connection \"\" (for websockets, map $http_upgrade to \"upgrade\" or \"\", not \"close\")"),
			}
			if c.Default() {
				f.Message = fmt.Sprintf("nginx sends \"Connection: close\" upstream by default %s, which defeats the keepalive pool of upstream %q: the backend closes every connection after one request.",
					c.Note(), u.Name)
				f.Fix = Advice("add proxy_set_header Connection \"\" (and proxy_http_version 1.1) in this location or at server or http level")
			}
			out = append(out, defeat{f, !c.Default(), "proxy_set_header Connection close makes the backend close every connection after one request"})
		}
		if c, plain := r.Nginx.ConnectionHeader, r.Nginx.ConnectionHeaderPlain; plain.Valid() && strings.EqualFold(plain.Value, "close") {
			out = append(out, defeat{Finding{
				Pos: c.Pos(),
				Message: fmt.Sprintf("proxy_set_header Connection %s defeats the keepalive pool of upstream %q: %s sends \"Connection: close\" with every request that does not upgrade, so the backend closes the connection after it.",
					c.Value, u.Name, plain.Name()),
				Related: append(related, Related{Pos: plain.Pos(), Message: "the value for requests without Upgrade: close"}),
				Fix:     Advice("map requests without Upgrade to an empty Connection header: map $http_upgrade " + c.Value + " { default upgrade; '' ''; }"),
			}, true, plain.Name() + " sends \"Connection: close\" with every request that does not upgrade, so the backend closes the connection after it"})
		}
	case "fastcgi":
		if k := r.Nginx.KeepConn; k.Valid() && !k.Value {
			f := Finding{
				Pos: k.Pos(),
				Message: fmt.Sprintf("%s: nginx asks the FastCGI server to close the connection after each request, so the keepalive pool of upstream %q is never used.",
					settingText(k, "off"), u.Name),
				Related: related,
				Fix:     Advice("set fastcgi_keep_conn on where the upstream is used"),
			}
			cause := "fastcgi_keep_conn off makes nginx ask the FastCGI server to close the connection after each request"
			if k.Default() {
				f.Message = fmt.Sprintf("fastcgi_keep_conn is off by default: nginx asks the FastCGI server to close the connection after each request, so the keepalive pool of upstream %q is never used.", u.Name)
				cause = "fastcgi_keep_conn is off by default, so nginx asks the FastCGI server to close the connection after each request"
			}
			// No release changed the default: it holds on all.
			out = append(out, defeat{f, true, cause})
		}
	}
	return out
}

// ---- the fixes ----
//
// Declaring an upstream block, adding keepalive to one and making its
// locations speak HTTP/1.1 without "Connection: close" keep the request
// nginx sends and pool the connections it opens: safe. Turning
// fastcgi_keep_conn on is unsafe: each pooled connection then holds a
// PHP-FPM child for as long as it idles, which a small pm.max_children
// pool may not afford (docs/upstream-no-keepalive.md, "Fixes").

// poolFix is the fix of edits that pool an upstream's connections:
// unsafe when they turn fastcgi_keep_conn on, else safe.
func poolFix(msg string, edits []Edit, keepConn bool) Fix {
	if keepConn {
		return UnsafeFix(msg, edits)
	}
	return SafeFix(msg, edits)
}

// backendIdle is the idle timeout of the declared backend, when one is
// declared: a pool must keep idle connections for less.
func backendIdle(c *model.Chain) (time.Duration, bool) {
	if c == nil {
		return 0, false
	}
	b := c.Backend()
	if b == nil || !b.IdleTimeout.Valid() || b.IdleTimeout.Value <= 0 {
		return 0, false
	}
	return b.IdleTimeout.Value, true
}

// poolLines are the directives an upstream block needs to keep a pool on
// the target, below the idle timeout of the declared backend.
func poolLines(c *model.Chain, p *model.Proxy, idle model.Setting[time.Duration]) []model.Directive {
	var lines []model.Directive
	if !p.UpstreamsPoolByDefault {
		lines = append(lines, directive("keepalive", "16"))
	}
	if b, ok := backendIdle(c); ok && (!idle.Valid() || idle.Value >= b) {
		lines = append(lines, directive("keepalive_timeout", dur(shorter(b))))
	}
	return lines
}

// upstreamLabel derives an upstream name from an address: letters, digits
// and underscores, unique among the proxy's upstreams and the host names
// it proxies to.
func (x *fixer) upstreamLabel(p *model.Proxy, a model.Address) string {
	raw := a.Unix
	if raw == "" {
		raw = a.Host + "_" + strconv.Itoa(a.Port)
	}
	var b strings.Builder
	b.WriteString("backend_")
	for _, c := range strings.ToLower(raw) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		} else if !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	base := strings.TrimSuffix(b.String(), "_")
	names := x.sources.upstreamNames(p)
	taken := func(n string) bool { return names[strings.ToLower(n)] }
	name := base
	for i := 2; taken(name); i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	return name
}

// passURL splits a pass directive's target as written: the scheme with
// "://", the address, and the URI after it.
func passURL(module, raw string) (scheme, addr, uri string, ok bool) {
	rest := raw
	if module == "proxy" || module == "grpc" {
		i := strings.Index(raw, "://")
		if i < 0 {
			return "", "", "", false
		}
		scheme, rest = raw[:i+3], raw[i+3:]
	}
	if strings.HasPrefix(rest, "unix:") {
		if j := strings.IndexByte(rest[len("unix:"):], ':'); j >= 0 {
			return scheme, rest[:len("unix:")+j], rest[len("unix:")+j+1:], true
		}
		return scheme, rest, "", true
	}
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		return scheme, rest[:j], rest[j:], true
	}
	return scheme, rest, "", true
}

// implicitUpstreamFix declares an upstream block for a pass directive to a
// literal address and points the directive at it. The request nginx sends
// stays the same: proxy_pass keeps its scheme and URI, and the Host
// header, the default proxy_redirect and the TLS name, which nginx takes
// from the address written in proxy_pass, are set to what they were.
func implicitUpstreamFix(pass *Pass, u *model.Upstream, r *model.Route) Fix {
	fw := r.Forward
	if fw.Variable || fw.Inherited || len(u.Servers) != 1 || len(u.Routes) == 0 {
		return Fix{}
	}
	for _, other := range u.Routes {
		if other.Forward != nil && other.Forward.Variable {
			// A pass directive whose host is computed reaches this
			// upstream by its host and port; made an upstream block,
			// which matches only a name without a port, it would be
			// looked up instead (docs/semantics.md §D).
			return Fix{}
		}
	}
	if srv := u.Servers[0]; !srv.Literal && srv.Addresses > 1 {
		// localhost: an upstream of both its addresses retries each
		// request on the other; which one the backend listens on is the
		// user's to say.
		return Fix{}
	}
	if n := r.Nginx; (n.ConnectionHeader.Explicit() && strings.EqualFold(n.ConnectionHeader.Value, "close")) || strings.EqualFold(n.ConnectionHeaderPlain.Value, "close") {
		// The location's Connection header would still defeat the new
		// pool; poolDefeated's advice comes first.
		return Fix{}
	}
	switch fw.Module {
	case "proxy", "fastcgi", "memcached":
	default:
		return Fix{} // grpc: the authority sent is not ours to change
	}
	x := newFixer(pass)
	p := u.Proxy
	s := x.nginxStatement(fw.Pos, fw.Name)
	if s == nil || len(s.Args) != 1 {
		return Fix{}
	}
	scheme, addr, uri, ok := passURL(fw.Module, s.Args[0])
	if !ok || strings.ContainsAny(s.Args[0], "$\"'\\") || strings.ContainsAny(s.Raw[0], "$\\") {
		return Fix{}
	}
	a := u.Servers[0].Address
	name := x.upstreamLabel(p, a)
	server := "unix:" + a.Unix
	if a.Unix == "" {
		if a.Port == 0 {
			return Fix{}
		}
		host := a.Host
		if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
			host = "[" + host + "]"
		}
		server = host + ":" + strconv.Itoa(a.Port)
	}
	var inLocation []model.Directive
	if fw.Module == "proxy" {
		hostHeader := addr
		if a.Unix != "" {
			hostHeader = "localhost"
		}
		// proxy_set_header and proxy_redirect set in a location replace
		// every one inherited: add them only where that loses nothing.
		own := x.ownDirectives(r)
		if x.failed || r.Kind != "location" || r.Match.Kind != model.MatchPrefix && r.Match.Kind != model.MatchExact && uri != "" {
			return Fix{}
		}
		if x.variableUsed("proxy_host") || x.setAnywhere("proxy_ssl_name") {
			return Fix{}
		}
		switch {
		case own["proxy_set_header"] != nil:
			for _, args := range own["proxy_set_header"] {
				if strings.EqualFold(args[0], "Host") {
					return Fix{}
				}
			}
			inLocation = append(inLocation, directive("proxy_set_header", "Host", hostHeader))
		case x.setAnywhere("proxy_set_header") || p.Partial:
			// Inherited headers would be dropped, or may be.
			return Fix{}
		default:
			inLocation = append(inLocation, directive("proxy_set_header", "Host", hostHeader))
		}
		switch {
		case own["proxy_redirect"] != nil:
			for _, args := range own["proxy_redirect"] {
				if args[0] == "default" {
					return Fix{}
				}
			}
		case x.setAnywhere("proxy_redirect") || p.Partial:
			return Fix{}
		case uri == "":
			inLocation = append(inLocation, directive("proxy_redirect", scheme+addr+"/", "/"))
		default:
			inLocation = append(inLocation, directive("proxy_redirect", scheme+addr+uri, r.Match.Path))
		}
		if scheme == "https://" {
			host := a.Host
			if a.Unix != "" {
				host = "localhost"
			}
			inLocation = append(inLocation, directive("proxy_ssl_name", host))
		}
		if !p.UpstreamsPoolByDefault {
			if v := r.Nginx.HTTPVersion; v.Value != "1.1" {
				inLocation = append(inLocation, directive("proxy_http_version", "1.1"))
			}
			if c := r.Nginx.ConnectionHeader; c.Value != "" {
				inLocation = append(inLocation, directive("proxy_set_header", "Connection", `""`))
			}
		}
	}
	keepConn := fw.Module == "fastcgi" && !r.Nginx.KeepConn.Value
	if keepConn {
		inLocation = append(inLocation, directive("fastcgi_keep_conn", "on"))
	}
	ed, at := x.httpLevel(p, r)
	block := model.Directive{Name: "upstream", Args: []string{name}, Block: []model.Directive{directive("server", server)}}
	block.Block = append(block.Block, poolLines(pass.Chain(), p, u.PoolIdle)...)
	x.insertBefore(ed, at, block, model.Directive{})
	x.setArg(s, 0, scheme+name+uri)
	if len(inLocation) > 0 {
		x.insertAfter(s, inLocation...)
	}
	return poolFix(fmt.Sprintf("declare upstream %s for %s and point %s at it, keeping the request it sends", name, u.Name, fw.Name), x.result(), keepConn)
}

// namedUpstreamFix adds keepalive to an upstream block that has none, and
// makes its locations reuse the pool: HTTP/1.1 without "Connection:
// close", fastcgi_keep_conn on.
func namedUpstreamFix(pass *Pass, u *model.Upstream, pooling []*model.Route, msg string) Fix {
	x := newFixer(pass)
	c := pass.Chain()
	if u.PoolSize.Explicit() {
		s := x.nginxStatement(u.PoolSize.Pos(), "keepalive")
		if s == nil || len(s.Args) != 1 {
			return Fix{}
		}
		x.setArg(s, 0, "16")
		if lines := poolLines(c, u.Proxy, u.PoolIdle); len(lines) > 1 || len(lines) == 1 && lines[0].Name != "keepalive" {
			x.insertAfter(s, lines[len(lines)-1])
		}
	} else {
		lines := poolLines(c, u.Proxy, u.PoolIdle)
		if len(lines) == 0 {
			return Fix{}
		}
		x.insertAfter(x.lastServer(u), lines...)
	}
	keepConn := false
	for _, r := range pooling {
		if x.failed {
			break
		}
		keepConn = x.poolRoute(r) || keepConn
	}
	return poolFix(msg, x.result(), keepConn)
}

// lastServer returns the last server directive of an upstream block:
// a server's position, at its address, names its directive.
func (x *fixer) lastServer(u *model.Upstream) *statement {
	if len(u.Servers) == 0 {
		x.fail()
		return nil
	}
	return x.nginxStatement(u.Servers[len(u.Servers)-1].Pos, "server")
}

// poolRoute makes a location reuse pooled connections: HTTP/1.1 without
// "Connection: close" for proxy_pass, fastcgi_keep_conn for FastCGI. It
// reports whether it turns fastcgi_keep_conn on.
func (x *fixer) poolRoute(r *model.Route) (keepConn bool) {
	fw := r.Forward
	if fw.Inherited {
		return false
	}
	var lines []model.Directive
	switch fw.Module {
	case "proxy":
		if r.Nginx.HTTPVersion.Value != "1.1" {
			if v := r.Nginx.HTTPVersion; v.Explicit() {
				x.setArg(x.nginxStatement(v.Pos(), "proxy_http_version"), 0, "1.1")
			} else {
				lines = append(lines, directive("proxy_http_version", "1.1"))
			}
		}
		if c := r.Nginx.ConnectionHeader; c.Value != "" {
			if c.Explicit() || !x.ownHeaders(r) && (x.setAnywhere("proxy_set_header") || r.Listener.Proxy.Partial) {
				x.fail() // replacing or adding one changes what is inherited
				return false
			}
			lines = append(lines, directive("proxy_set_header", "Connection", `""`))
		}
	case "fastcgi":
		if k := r.Nginx.KeepConn; !k.Value {
			keepConn = true
			if k.Explicit() {
				x.setArg(x.nginxStatement(k.Pos(), "fastcgi_keep_conn"), 0, "on")
			} else {
				lines = append(lines, directive("fastcgi_keep_conn", "on"))
			}
		}
	}
	if len(lines) > 0 {
		x.insertAfter(x.nginxStatement(fw.Pos, fw.Name), lines...)
	}
	return keepConn
}

// poolDefeatedFix repairs what keeps a location from reusing its
// upstream's pool.
func poolDefeatedFix(pass *Pass, r *model.Route, msg string) Fix {
	x := newFixer(pass)
	keepConn := x.poolRoute(r)
	return poolFix(msg, x.result(), keepConn)
}

// ownDirectives lists the arguments of the simple directives directly in
// the block of a route, by name.
func (x *fixer) ownDirectives(r *model.Route) map[string][][]string {
	ed := x.conf(r.Pos)
	if ed == nil {
		return nil
	}
	kids, err := ed.Children(r.Pos)
	if err != nil {
		x.fail()
		return nil
	}
	out := map[string][][]string{}
	for _, k := range kids {
		if !k.Block && len(k.Args) > 0 {
			out[k.Name] = append(out[k.Name], k.Args)
		}
	}
	return out
}

// ownHeaders reports whether a location sets proxy_set_header itself, so
// that adding one inherits nothing less.
func (x *fixer) ownHeaders(r *model.Route) bool {
	own := x.ownDirectives(r)
	if x.failed {
		return false
	}
	return own["proxy_set_header"] != nil
}
