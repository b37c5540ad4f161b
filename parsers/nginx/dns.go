package nginx

import (
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// When nginx looks up the host names of upstream servers (docs/semantics.md
// §I). A name in an upstream block's server, or in a literal pass
// directive, is resolved once, when nginx reads its configuration, with
// the system's resolver (getaddrinfo: /etc/hosts, then the DNS servers of
// /etc/resolv.conf); the peers keep those addresses until the
// configuration is read again (rules/proof/dns_test.go). Since nginx
// 1.27.3 (Angie 1.1.0, NGINX Plus long before) a server with the
// "resolve" parameter is looked up again while nginx runs, through the
// upstream block's resolver or else the http block's, which needs the
// block in shared memory ("zone"): ngx_http_upstream_round_robin.c,
// ngx_http_upstream_init_round_robin, refuses the configuration otherwise
// ("resolving names at run time requires upstream ... to be in shared
// memory", "no resolver defined to resolve names at run time").

// upstreamDNS reads what an upstream block says about looking its servers'
// names up while nginx runs: its zone and the resolver in effect.
func (b *builder) upstreamDNS(u *model.Upstream, s *scope) {
	if d := s.last("zone"); d != nil && len(d.Args) > 0 {
		u.Zone = model.Set(strings.Join(d.ArgValues(), " "), d.Name, "upstream", d.Pos)
	}
	if r := resolverAt(s); r.Valid() {
		u.Resolver = r
	} else {
		u.Resolver = b.httpResolver
	}
	if !u.Resolver.Valid() {
		u.Resolver = b.defaultResolver(u.Pos)
	}
}

// defaultResolver is the resolver in effect where none is written: Angie
// 1.12.0 and newer look names up with the DNS servers of /etc/resolv.conf
// ("resolver conf", releases.ResolverConf); nginx has none (the zero
// Setting).
func (b *builder) defaultResolver(at model.Pos) model.Setting[string] {
	if !releases.ResolverConf.In(b.target) {
		return model.Setting[string]{}
	}
	r := model.Default("conf", "resolver", at)
	r = r.WithNote("the DNS servers of /etc/resolv.conf, Angie's default since " + releases.Full(releases.ResolverConf.Since(model.Angie)))
	return r
}

// resolverAt is the resolver directive in effect at s, or the zero
// Setting.
func resolverAt(s *scope) model.Setting[string] {
	if d, lvl := s.lookup("resolver"); d != nil && len(d.Args) > 0 {
		return model.Set(strings.Join(d.ArgValues(), " "), d.Name, lvl.kind, d.Pos)
	}
	return model.Setting[string]{}
}
