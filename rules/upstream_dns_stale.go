package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// UpstreamDNSStale flags a host name in an upstream block's server, or in
// a literal pass directive, that nginx resolves once, when it starts.
var UpstreamDNSStale = &Rule{
	ID: "upstream-dns-stale",
	// gixy-ng, Gixy-Next and nginx-lint flag parts of this.
	Aliases:  []string{"missing_resolver", "stale_dns_cache", "proxy-pass-domain", "upstream-server-no-resolve"},
	Summary:  "a host name in an upstream server or a literal proxy_pass is resolved once, at start: when its address changes, requests go to the old one until a reload",
	Severity: model.Warning,
	Tags:     []string{"nginx", "upstreams", "dns"},
	Products: nginxFamily,
	Check:    checkUpstreamDNSStale,
}

// loopbackNames are the names every system resolves to this machine; their
// address does not change.
var loopbackNames = map[string]bool{"localhost": true, "localhost.localdomain": true, "ip6-localhost": true, "ip6-loopback": true}

// staleName reports whether a server's address is a host name whose
// address may change: not an IP literal, a unix socket or a loopback name.
func staleName(s model.Server) bool {
	h := strings.ToLower(strings.TrimSuffix(s.Address.Host, "."))
	if s.Literal || s.Address.Unix != "" || h == "" || h == "*" || strings.ContainsAny(h, "$[]") {
		return false
	}
	return !loopbackNames[h] && !strings.HasSuffix(h, ".localhost")
}

// dnsUse is one place that names a host nginx resolves once: a server of
// an upstream block (with the pass directives that reach the block), or
// the pass directive of an implicit upstream.
type dnsUse struct {
	u      *model.Upstream
	s      model.Server
	passes []*model.Route // the routes whose pass directive reaches it
}

func checkUpstreamDNSStale(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		// One finding per host: its address is taken once, at start,
		// wherever it is named.
		uses := map[string][]dnsUse{}
		var order []string
		add := func(host string, x dnsUse) {
			if _, ok := uses[host]; !ok {
				order = append(order, host)
			}
			uses[host] = append(uses[host], x)
		}
		for _, u := range p.Upstreams {
			var passes []*model.Route
			for _, r := range u.Routes {
				if r.Forward != nil && !r.Forward.Inherited && (!u.Implicit || !r.Forward.Variable) {
					passes = append(passes, r)
				}
			}
			if u.Implicit {
				// Only computed values reach it: those are looked up per
				// request through the resolver.
				if len(passes) > 0 && staleName(u.Servers[0]) {
					add(strings.ToLower(u.Servers[0].Address.Host), dnsUse{u, u.Servers[0], passes})
				}
				continue
			}
			for _, s := range u.Servers {
				if staleName(s) && !s.Resolve {
					add(strings.ToLower(s.Address.Host), dnsUse{u, s, passes})
				}
			}
		}
		for _, host := range order {
			pass.Report(dnsFinding(pass, p, uses[host]))
		}
	}
}

// where is the place a use is reported at: the first pass directive that
// reaches it (a fix that gives an implicit upstream a block of its own
// keeps that place), else the server line.
func (x dnsUse) where() model.Pos {
	var first model.Pos
	for _, r := range x.passes {
		if !first.IsValid() || r.Forward.Pos.Before(first) {
			first = r.Forward.Pos
		}
	}
	if !first.IsValid() {
		return x.s.Pos
	}
	return first
}

// clusterName reports whether a host is a cluster service's DNS name (or,
// one label, may be one: a Docker Compose service, a Kubernetes Service of
// the same namespace, a hosts-file alias).
func clusterName(host string) (service, single bool) {
	if !strings.Contains(host, ".") {
		return false, true
	}
	_, ok := model.ServiceOfHost(host, 0)
	h := strings.TrimSuffix(host, ".")
	return ok || strings.HasSuffix(h, ".svc") || strings.HasSuffix(h, ".svc.cluster.local"), false
}

func dnsFinding(pass *Pass, p *model.Proxy, uses []dnsUse) Finding {
	sort.SliceStable(uses, func(i, j int) bool { return uses[i].where().Before(uses[j].where()) })
	first := uses[0]
	host := first.s.Address.Host
	f := Finding{Pos: first.where()}
	var what string
	switch {
	case first.u.Implicit:
		r := first.passes[0]
		what = fmt.Sprintf("%s %s sends requests to %s", r.Forward.Name, r.Forward.URL, host)
	case len(first.passes) > 0:
		r := first.passes[0]
		what = fmt.Sprintf("%s %s sends requests to %s (server %s in %s)", r.Forward.Name, r.Forward.URL, host, first.s.Raw, upstreamName(first.u))
	default:
		what = fmt.Sprintf("server %s in %s names %s", first.s.Raw, upstreamName(first.u), host)
	}
	places := 0
	for _, x := range uses {
		if !x.u.Implicit && x.s.Pos != f.Pos {
			f.Related = append(f.Related, Related{Pos: x.s.Pos, Message: fmt.Sprintf("server %s in %s: resolved once", x.s.Raw, upstreamName(x.u))})
		}
		for _, r := range x.passes {
			if r.Forward.Pos != f.Pos {
				places++
				if len(f.Related) < 6 {
					f.Related = append(f.Related, Related{Pos: r.Forward.Pos, Message: fmt.Sprintf("%s %s reaches %s too", r.Forward.Name, r.Forward.URL, host)})
				}
			}
		}
	}
	also := ""
	if places > 0 {
		also = fmt.Sprintf(" (%d more %s it)", places, placesWord(places))
	}
	service, single := clusterName(host)
	f.Message = fmt.Sprintf("%s, a host name nginx looks up once, when it reads its configuration%s: when the name's address changes, requests keep going to the old address until nginx is reloaded or restarted.", what, also)
	switch {
	case service:
		f.Severity = model.Note
		f.Message += " A Kubernetes Service's ClusterIP stays while the Service exists (it changes when the Service is recreated, or for an ExternalName or headless Service)."
	case single:
		f.Severity = model.Note
		f.Message += " A one-label name is often a Docker Compose service, whose address changes whenever its container is recreated, or a Kubernetes Service of the same namespace, whose ClusterIP stays."
	default:
		f.Message += " Cloud load balancers, managed databases and failover names change addresses without notice."
	}
	f.Fix = dnsFix(pass, p, uses)
	return f
}

func placesWord(n int) string {
	if n == 1 {
		return "pass directive reaches"
	}
	return "pass directives reach"
}

// resolveSupported reports whether every release of the target takes the
// resolve parameter in an upstream block's server (releases.UpstreamResolve:
// nginx 1.27.3, Angie 1.1.0).
func resolveSupported(t model.Target) bool { return releases.UpstreamResolve.In(t) }

// dnsFix: on releases with the resolve parameter, the parameter (with a
// zone and a resolver); before them, a variable with a resolver, which
// nginx looks up per request.
func dnsFix(pass *Pass, p *model.Proxy, uses []dnsUse) Fix {
	first := uses[0]
	u := first.u
	needs := func() string {
		var miss []string
		if !u.Zone.Valid() {
			miss = append(miss, fmt.Sprintf("zone %s 64k; in the upstream block", zoneName(u)))
		}
		if !u.Resolver.Valid() {
			miss = append(miss, "a resolver (the DNS server of nginx's network, e.g. resolver 10.0.0.2 valid=30s;) at http level or in the upstream block")
		}
		if len(miss) == 0 {
			return ""
		}
		return ", with " + quoteList(miss)
	}
	passLine, uri := "proxy_pass http://$backend", ""
	if len(first.passes) > 0 {
		r := first.passes[0]
		switch m := r.Forward.Module; m {
		case "proxy", "grpc":
			passLine = fmt.Sprintf("%s %s://$backend", r.Forward.Name, schemeOr(r.Forward.Scheme, map[string]string{"proxy": "http", "grpc": "grpc"}[m]))
		default:
			passLine = r.Forward.Name + " $backend"
		}
		if _, _, x, ok := passURL(r.Forward.Module, r.Forward.URL); ok && x != "" && u.Implicit {
			uri = fmt.Sprintf("; with a variable, a URI written after the host replaces the whole request URI rather than the location's prefix, so rewrite the URI first (rewrite ^/prefix/(.*)$ %s$1 break;) and pass without one", strings.TrimSuffix(x, "/")+"/")
		}
	}
	variable := fmt.Sprintf("set $backend %s; %s; with a resolver at http or server level: nginx then looks the name up per request, keeping answers for the resolver's valid= time (an upstream block's pool and balancing are given up)%s",
		first.s.Raw, passLine, uri)
	if u.Implicit {
		resolve := fmt.Sprintf("declare upstream %s { zone %s 64k; server %s resolve; } with a resolver and proxy to it", zoneName(u), zoneName(u), first.s.Raw)
		if resolveSupported(p.Target) {
			return Advice(resolve + ", or " + variable)
		}
		return Advice(fmt.Sprintf("%s; on nginx 1.27.3 and newer (Angie 1.1.0, NGINX Plus), %s", variable, resolve))
	}
	resolve := "add the resolve parameter to the server" + needs()
	if !resolveSupported(p.Target) {
		return Advice(fmt.Sprintf("on nginx 1.27.3 and newer (Angie 1.1.0, NGINX Plus), %s; %s has no such parameter: there, %s, or reload nginx when the address changes",
			resolve, p.Target.Releases(releases.UpstreamResolve.Since(model.Nginx)), variable))
	}
	if needs() != "" {
		return Advice(resolve)
	}
	x := newFixer(pass)
	for _, use := range uses {
		if use.u.Implicit || !use.u.Zone.Valid() || !use.u.Resolver.Valid() {
			x.fail()
			break
		}
		s := x.nginxStatement(use.s.Pos, "server")
		if s != nil {
			x.setArg(s, len(s.Args), "resolve")
		}
	}
	return UnsafeFix("add the resolve parameter to server "+first.s.Raw+": nginx looks the name up again through "+u.Resolver.Name()+" "+u.Resolver.Value, x.result()).Or(resolve)
}

// zoneName is a shared-memory zone name for an upstream's fix.
func zoneName(u *model.Upstream) string {
	if u.Implicit {
		h := strings.NewReplacer(".", "_", ":", "_", "-", "_").Replace(u.Servers[0].Address.Host)
		return h
	}
	return u.Name
}
