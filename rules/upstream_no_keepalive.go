package rules

import (
	"fmt"
	"strings"

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
			Fix: fmt.Sprintf("declare \"upstream backend { server %s; }\" (nginx before 1.29.7 also needs \"keepalive 16;\" in it, "+
				"proxy_http_version 1.1 and proxy_set_header Connection \"\") and use %s %s://backend", server, r.Forward.Name, schemeOr(r.Forward.Scheme, "http")),
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
			f.Fix = fmt.Sprintf("declare \"upstream backend { server %s; }\" (with \"keepalive 16;\" before nginx 1.29.7) and use %s to it", server, r.Forward.Name)
		}
		f.Fix, f.Edits = implicitUpstreamFixOf(pass, u, r, f.Fix)
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
				Pos: u.PoolSize.Pos,
				Message: fmt.Sprintf("keepalive in upstream %q is never used: it is reached only by %s, and uwsgi and scgi never reuse upstream connections.",
					u.Name, u.Routes[0].Forward.Name),
				Related: []Related{{Pos: u.Routes[0].Forward.Pos, Message: "reached by " + u.Routes[0].Forward.Name}},
				Fix:     "remove the keepalive directive, or talk to the backend over a protocol nginx pools (HTTP with proxy_pass, FastCGI with fastcgi_keep_conn on)",
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
			Fix:     fmt.Sprintf("add \"keepalive 16;\" to upstream %q", u.Name),
		}
		switch {
		case u.PoolSize.Explicit():
			f.Pos = u.PoolSize.Pos
			f.Message = fmt.Sprintf("keepalive 0 disables the connection pool of upstream %q, so every request opens a new connection.", u.Name)
		case allUnix(u):
			// As for an address used directly: a unix socket is
			// cheap to connect to.
			f.Pos, f.Severity = u.Pos, model.Note
			f.Message = fmt.Sprintf("upstream %q has no keepalive directive, so every request opens a new unix-socket connection %s Cheaper than TCP, but still not pooled.",
				u.Name, u.PoolSize.Note)
		default:
			f.Pos = u.Pos
			f.Message = fmt.Sprintf("upstream %q has no keepalive directive, so every request opens a new connection %s",
				u.Name, u.PoolSize.Note)
		}
		if v := pooling[0].Nginx.HTTPVersion; v.Default && v.Value == "1.0" {
			f.Fix += ", with proxy_http_version 1.1 and proxy_set_header Connection \"\" where it is proxied to"
		}
		f.Edits = namedUpstreamFix(pass, u, pooling)
		pass.Report(f)
		return
	}
	for _, r := range pooling {
		for i, d := range poolDefeats(u, r) {
			if i == 0 {
				// One repair for the route, made once.
				d.Edits = poolDefeatedFix(pass, r)
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
		if c := r.Nginx.ConnectionHeader; c.Default && c.Value != "" {
			defaultClose = true
		}
		if found == nil {
			return Finding{}, false
		}
		if i == 0 {
			first = *found
		}
	}
	fix := fmt.Sprintf("add \"keepalive 16;\" to upstream %q, and %s", u.Name, first.Fix)
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
		Fix:     fix,
		Edits:   namedUpstreamFix(pass, u, routes),
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
				Pos: v.Pos,
				Message: fmt.Sprintf("%s defeats the keepalive pool of upstream %q: nginx never reuses a connection after an HTTP/1.0 request, so every request opens a new one.",
					settingText(v, "1.0"), u.Name),
				Related: related,
				Fix:     "set proxy_http_version 1.1 and proxy_set_header Connection \"\" in this location (or at server or http level)",
			}
			if v.Default {
				f.Message = fmt.Sprintf("proxy_http_version defaults to 1.0 %s, which defeats the keepalive pool of upstream %q: nginx never reuses a connection after an HTTP/1.0 request.",
					v.Note, u.Name)
			}
			if c := r.Nginx.ConnectionHeader; c.Explicit() && !strings.EqualFold(c.Value, "close") {
				// The location sets its Connection header (the
				// websocket idiom): only the version is to change.
				f.Fix = "set proxy_http_version 1.1 in this location (or at server or http level)"
			}
			out = append(out, defeat{f, !v.Default, "proxy_http_version 1.0 is set, and nginx never reuses a connection after an HTTP/1.0 request"})
			// Its fix sets Connection "" too: the default
			// Connection: close is not a defeat of its own then.
			version = true
		}
		if c := r.Nginx.ConnectionHeader; c.Valid() && strings.EqualFold(c.Value, "close") && (!c.Default || !version) {
			f := Finding{
				Pos: c.Pos,
				Message: fmt.Sprintf("proxy_set_header Connection close defeats the keepalive pool of upstream %q: the backend closes every connection after one request.",
					u.Name),
				Related: related,
				Fix:     "set proxy_set_header Connection \"\" (for websockets, map $http_upgrade to \"upgrade\" or \"\", not \"close\")",
			}
			if c.Default {
				f.Message = fmt.Sprintf("nginx sends \"Connection: close\" upstream by default %s, which defeats the keepalive pool of upstream %q: the backend closes every connection after one request.",
					c.Note, u.Name)
				f.Fix = "add proxy_set_header Connection \"\" (and proxy_http_version 1.1) in this location or at server or http level"
			}
			out = append(out, defeat{f, !c.Default, "proxy_set_header Connection close makes the backend close every connection after one request"})
		}
		if c, plain := r.Nginx.ConnectionHeader, r.Nginx.ConnectionHeaderPlain; plain.Valid() && strings.EqualFold(plain.Value, "close") {
			out = append(out, defeat{Finding{
				Pos: c.Pos,
				Message: fmt.Sprintf("proxy_set_header Connection %s defeats the keepalive pool of upstream %q: %s sends \"Connection: close\" with every request that does not upgrade, so the backend closes the connection after it.",
					c.Value, u.Name, plain.Name),
				Related: append(related, Related{Pos: plain.Pos, Message: "the value for requests without Upgrade: close"}),
				Fix:     "map requests without Upgrade to an empty Connection header: map $http_upgrade " + c.Value + " { default upgrade; '' ''; }",
			}, true, plain.Name + " sends \"Connection: close\" with every request that does not upgrade, so the backend closes the connection after it"})
		}
	case "fastcgi":
		if k := r.Nginx.KeepConn; k.Valid() && !k.Value {
			f := Finding{
				Pos: k.Pos,
				Message: fmt.Sprintf("%s: nginx asks the FastCGI server to close the connection after each request, so the keepalive pool of upstream %q is never used.",
					settingText(k, "off"), u.Name),
				Related: related,
				Fix:     "set fastcgi_keep_conn on where the upstream is used",
			}
			cause := "fastcgi_keep_conn off makes nginx ask the FastCGI server to close the connection after each request"
			if k.Default {
				f.Message = fmt.Sprintf("fastcgi_keep_conn is off by default: nginx asks the FastCGI server to close the connection after each request, so the keepalive pool of upstream %q is never used.", u.Name)
				cause = "fastcgi_keep_conn is off by default, so nginx asks the FastCGI server to close the connection after each request"
			}
			// No release changed the default: it holds on all.
			out = append(out, defeat{f, true, cause})
		}
	}
	return out
}
