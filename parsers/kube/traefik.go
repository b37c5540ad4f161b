package kube

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/internal/lazyre"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// Traefik's Kubernetes resources (product traefik): each route of an
// IngressRoute becomes a route to the first of its services, with the
// retry Middleware it names (directly or in a chain Middleware) and the
// forwarding timeouts of its ServersTransport. Traefik is neither nginx
// nor Envoy: what its retry middleware sends again is its own. Sources
// are files of traefik/traefik at the tags named (docs/kubernetes.md
// lists them):
//
//   - pkg/middlewares/retry/retry.go: "attempts" counts every try, the
//     first included (attempts 1 serves once). Up to v3.6 a try is
//     repeated only while nothing of the request was written to the
//     backend: the client trace's WroteHeaders and WroteRequest disable
//     retries (v2.11.0:88-95, v3.6.0:66-75), so only a connection that
//     failed before the request went out is retried, for every method.
//   - v3.7.0 adds status (responses whose code is retried: a request the
//     backend received and may have run), retryNonIdempotentMethod (POST,
//     PATCH and LOCK are retried on a status only when it is set:
//     v3.7.9:148-152), disableRetryOnNetworkError (a network error is
//     retried only while the request was not written: :336) and timeout
//     (retries stop once it has passed: :332); pkg/config/dynamic/
//     middlewares.go of an older release has no such fields, nor its
//     CRD, and the API server prunes them.
//   - the API group traefik.containo.us is read up to 2.11, traefik.io
//     since 2.10 (pkg/provider/kubernetes/crd at the tags).
//   - a servers transport dials for 30s, waits for response headers
//     without limit, and keeps idle connections 90s
//     (pkg/config/static/static_config.go v3.7.9:220-223); an entry point
//     keeps idle client connections 180s (:48, :207-210).

const (
	traefikDial       = 30 * time.Second
	traefikPoolIdle   = 90 * time.Second
	traefikClientIdle = 180 * time.Second
	traefikMaxIdle    = 200 // http.Transport's MaxIdleConnsPerHost as Traefik sets it
	// goMaxIdlePerHost is Go's net/http DefaultMaxIdleConnsPerHost, which
	// an http.Transport without MaxIdleConnsPerHost keeps (the package
	// is not linked for one constant: the playground links no net/http).
	goMaxIdlePerHost   = 2
	traefikClosed      = "502 Bad Gateway"
	noteTraefikDial    = "Traefik's servers transport default (pkg/config/static/static_config.go, ForwardingTimeouts.SetDefaults)"
	noteTraefikReadHdr = "Traefik waits for the backend's response headers without limit unless a ServersTransport sets forwardingTimeouts.responseHeaderTimeout"
	noteTraefikIdle    = "Traefik's entry point default, respondingTimeouts.idleTimeout 180s (pkg/config/static/static_config.go): the static configuration is not read"
)

// traefikGroup is the API group of a Traefik resource, "" for others.
func traefikGroup(o *object) string {
	switch o.APIVersion {
	case "traefik.io/v1alpha1":
		return "traefik.io"
	case "traefik.containo.us/v1alpha1":
		return "traefik.containo.us"
	}
	return ""
}

func traefikKind(o *object) bool {
	if traefikGroup(o) == "" {
		return false
	}
	switch o.Kind {
	case "IngressRoute", "Middleware", "ServersTransport":
		return true
	}
	return false
}

// traefikRelease is the release a resource is read for: the target's
// when one is named (ok is false when that release does not read the
// resource's API group), else the newest release that reads the group:
// 2.11 for traefik.containo.us, the newest for traefik.io.
func traefikRelease(o *object, t model.Target) (model.Target, bool) {
	group := traefikGroup(o)
	if t.Version.IsZero() {
		if group == "traefik.containo.us" {
			return model.Target{Product: model.Traefik, Version: releases.TraefikContainoUsLast}, true
		}
		return model.Target{Product: model.Traefik}, true
	}
	if group == "traefik.containo.us" {
		return t, !releases.TraefikContainoUsRemoved.In(t)
	}
	return t, releases.TraefikIOGroup.In(t)
}

// traefikResources are the run's Traefik objects by kind and name.
type traefikResources struct {
	middlewares, transports map[string][]*object
}

func (tr traefikResources) find(m map[string][]*object, name, ns string) *object {
	if base, provider, ok := strings.Cut(name, "@"); ok {
		if provider != "kubernetescrd" {
			return nil
		}
		// NAMESPACE-NAME@kubernetescrd.
		for _, list := range m {
			for _, o := range list {
				if namespace(o)+"-"+o.Name == base {
					return o
				}
			}
		}
		return nil
	}
	for _, o := range m[name] {
		if sameNamespace(ns, o.Namespace) {
			return o
		}
	}
	return nil
}

// traefik builds the proxy of the run's IngressRoutes.
func (l *loader) traefik(p *model.Proxy, objs []*object, res *Result) {
	tr := traefikResources{middlewares: map[string][]*object{}, transports: map[string][]*object{}}
	var routes []*object
	for _, o := range objs {
		if _, ok := traefikRelease(o, p.Target); !ok {
			l.diag(CodeIgnored, model.Warning, o.pos(get(o.Node, "apiVersion")),
				"%s %s is ignored: Traefik %s does not read the API group %s (traefik.containo.us is read up to 2.11, traefik.io since 2.10)", o.Kind, o.Name, p.Target.Version, traefikGroup(o))
			o.used = true
			o.src.used++
			continue
		}
		switch o.Kind {
		case "IngressRoute":
			routes = append(routes, o)
		case "Middleware":
			tr.middlewares[o.Name] = append(tr.middlewares[o.Name], o)
		case "ServersTransport":
			tr.transports[o.Name] = append(tr.transports[o.Name], o)
		}
	}
	ups := map[string]*model.Upstream{}
	for _, ir := range routes {
		ir.use(res)
		ln := &model.Listener{Proxy: p, Name: "IngressRoute " + ir.Name, Pos: ir.pos(ir.Node), Select: traefikSelect}
		ln.IdleTimeout = model.NewSetting(traefikClientIdle, "respondingTimeouts.idleTimeout", "default", ir.pos(ir.Node), true, noteTraefikIdle)
		p.Listeners = append(p.Listeners, ln)
		for i, rt := range items(get(ir.Spec, "routes")) {
			l.traefikRoute(p, ln, ir, i, rt, tr, ups, res)
		}
	}
}

var (
	traefikPathRE   = lazyre.New("(PathPrefix|Path|PathRegexp)\\(\\s*`([^`]*)`")
	traefikMethodRE = lazyre.New("Method\\(([^)]*)\\)")
	traefikHostRE   = lazyre.New("Host\\(\\s*`([^`]*)`\\s*\\)")
)

// traefikMatch reads a router rule: its first Path, PathPrefix or
// PathRegexp, and, in a rule without "||" or "!", the methods its Method
// matchers allow (one each in v3's syntax, several in v2's).
func traefikMatch(o *object, n *yaml.Node) (model.Match, model.Methods) {
	rule := scalar(n)
	match := model.Match{Kind: model.MatchPrefix, Path: "/", CaseSensitive: true}
	if m := traefikPathRE().FindStringSubmatch(rule); m != nil {
		switch m[1] {
		case "PathPrefix":
			match.Path = m[2]
		case "Path":
			match = model.Match{Kind: model.MatchExact, Path: m[2], CaseSensitive: true}
		case "PathRegexp":
			match = model.Match{Kind: model.MatchRegex, Path: m[2], CaseSensitive: true}
		}
	}
	methods := model.Methods{Any: true}
	if strings.Contains(rule, "||") || strings.Contains(rule, "!") {
		return match, methods
	}
	var allowed []string
	for _, m := range traefikMethodRE().FindAllStringSubmatch(rule, -1) {
		var these []string
		for _, a := range strings.Split(m[1], ",") {
			if a = strings.ToUpper(strings.Trim(strings.TrimSpace(a), "`\"")); a != "" {
				these = append(these, a)
			}
		}
		if allowed == nil {
			allowed = these
			continue
		}
		// Two Method matchers joined by && allow what both allow.
		var both []string
		for _, a := range allowed {
			if contains(these, a) {
				both = append(both, a)
			}
		}
		allowed = both
	}
	if allowed != nil {
		methods = model.Methods{Allowed: allowed}.NarrowedBy("match Method", o.pos(n))
	}
	return match, methods
}

// traefikSelect: Traefik orders routers by priority, by default the
// rule's length (pkg/muxer/http), so among prefixes the longest takes a
// request; with regular expressions the choice is left uncertain.
func traefikSelect(l *model.Listener, path string, known bool) *model.Route {
	return longestMatch(l, path, known)
}

func (l *loader) traefikRoute(p *model.Proxy, ln *model.Listener, ir *object, i int, rt *yaml.Node, tr traefikResources, ups map[string]*model.Upstream, res *Result) {
	matchNode := get(rt, "match")
	match, methods := traefikMatch(ir, matchNode)
	r := &model.Route{Listener: ln, Kind: "route", Name: fmt.Sprintf("%s routes[%d] %s", ln.Name, i, match.Path), Pos: ir.pos(rt), Match: match, Methods: methods}
	ln.Routes = append(ln.Routes, r)
	rel, _ := traefikRelease(ir, p.Target)
	// The retry middleware: the first of the route's middlewares that is
	// one, following chain middlewares.
	var retry *object
	for _, ref := range items(get(rt, "middlewares")) {
		if retry = l.traefikRetryMiddleware(ir, ref, tr, res, 0); retry != nil {
			break
		}
	}
	r.Budget = model.Default(time.Duration(0), "retry.timeout", r.Pos)
	l.traefikRetry(r, retry, rel)

	svcs := items(get(rt, "services"))
	if len(svcs) == 0 {
		return
	}
	svc := svcs[0]
	if k := scalar(get(svc, "kind")); k != "" && k != "Service" {
		l.diag("load-error", model.Note, ir.pos(get(svc, "name")), "%s forwards to %s %s, which proxylint does not read (weighted and mirrored services): the route's retries are checked, not the backends behind it", r.Name, k, scalar(get(svc, "name")))
		return
	}
	nameNode := get(svc, "name")
	ns := scalar(get(svc, "namespace"))
	if ns == "" {
		ns = ir.Namespace
	}
	name, port := scalar(nameNode), scalar(get(svc, "port"))
	var transport *object
	if st := scalar(get(svc, "serversTransport")); st != "" {
		if transport = tr.find(tr.transports, st, ns); transport == nil {
			l.diag("load-error", model.Note, ir.pos(get(svc, "serversTransport")), "IngressRoute %s names ServersTransport %s, which is not in the input: Traefik's default forwarding timeouts are assumed", ir.Name, st)
		} else {
			transport.use(res)
		}
	}
	nsName := ns
	if nsName == "" {
		nsName = "default"
	}
	key := nsName + "/" + name + ":" + port
	if transport != nil {
		key += "@" + transport.Name
	}
	u, ok := ups[key]
	if !ok {
		u = &model.Upstream{Proxy: p, Kind: "service", Name: nsName + "-" + name + "-" + port, Pos: ir.pos(nameNode),
			Servers:            []model.Server{{Address: model.Address{Host: fqdn(name, nsName)}, Raw: name, Pos: ir.pos(nameNode), Service: serviceRef(nsName, name, port)}},
			ClosedUnderRequest: traefikClosed}
		l.traefikTransport(u, transport, ir.pos(nameNode))
		ups[key] = u
		p.Upstreams = append(p.Upstreams, u)
	}
	u.Routes = append(u.Routes, r)
	// The rule's Host, which Traefik passes on unless passHostHeader is
	// false; under "||" or "!" it is not known.
	if m := traefikHostRE().FindStringSubmatch(scalar(matchNode)); m != nil && !strings.ContainsAny(scalar(matchNode), "|!") && scalar(get(svc, "passHostHeader")) != "false" {
		r.Host = m[1]
	}
	r.Forward = &model.Forward{Module: "traefik", Name: "services.name", Pos: ir.pos(nameNode), URL: name + ":" + port,
		Target: model.Address{Host: fqdn(name, nsName)}, CanPool: true, Upstream: u}
	r.ConnectTimeout = u.ConnectTimeout
	r.AttemptTimeout = l.traefikHeaderTimeout(transport, r.Pos)
	if u.PoolSize.Value > 0 {
		r.Pool = &model.Pool{Upstream: u, Size: u.PoolSize, Idle: u.PoolIdle, Lifetime: u.PoolLifetime}
	}
}

// traefikRetryMiddleware resolves a middleware reference to the retry
// Middleware it is or chains to, nil when there is none; a reference to
// a Middleware not in the run is a note.
func (l *loader) traefikRetryMiddleware(from *object, ref *yaml.Node, tr traefikResources, res *Result, depth int) *object {
	name := scalar(get(ref, "name"))
	ns := scalar(get(ref, "namespace"))
	if ns == "" {
		ns = from.Namespace
	}
	m := tr.find(tr.middlewares, name, ns)
	if m == nil {
		at := from.pos(get(ref, "name"))
		if !l.once[at] {
			l.once[at] = true
			l.diag("load-error", model.Note, at, "%s %s names Middleware %s, which is not in the input: a retry it may hold is not checked (lint it with the IngressRoute)", from.Kind, from.Name, name)
		}
		return nil
	}
	m.use(res)
	if get(m.Spec, "retry") != nil {
		return m
	}
	if depth < 10 {
		for _, c := range items(get(get(m.Spec, "chain"), "middlewares")) {
			if r := l.traefikRetryMiddleware(m, c, tr, res, depth+1); r != nil {
				return r
			}
		}
	}
	return nil
}

// traefikDuration reads a Traefik duration: a number of seconds, or a Go
// duration.
func (l *loader) traefikDuration(o *object, n *yaml.Node, field string) (time.Duration, bool) {
	s := strings.TrimSpace(scalar(n))
	if s == "" {
		return 0, false
	}
	if v, err := strconv.Atoi(s); err == nil && v >= 0 {
		return time.Duration(v) * time.Second, true
	}
	return l.dur(o, n, field)
}

// traefikRetry reads the retry middleware of a route as the release rel
// runs it: how many tries, and which of them may run the request again.
func (l *loader) traefikRetry(r *model.Route, m *object, rel model.Target) {
	r.MaxAttempts = model.NewSetting(1, "middlewares", "route", r.Pos, true, "a route without a retry middleware is sent once")
	if m == nil {
		return
	}
	retryKey, retry := getKV(m.Spec, "retry")
	newer := releases.TraefikRetryStatus.In(rel)
	if !newer {
		for _, f := range []string{"status", "retryNonIdempotentMethod", "disableRetryOnNetworkError", "timeout", "maxRequestBodyBytes"} {
			if k, _ := getKV(retry, f); k != nil {
				l.diag(CodeIgnored, model.Warning, m.pos(k), "retry.%s is ignored: Traefik %s does not have it (it does since 3.7.0), so the API server prunes it and the middleware retries network errors only", f, rel.Version)
			}
		}
	}
	attemptsNode := get(retry, "attempts")
	attempts, ok := l.count(m, attemptsNode, "retry.attempts")
	if !ok || attempts == 0 {
		l.invalid(m.pos(attemptsNode), "Middleware %s: retry.attempts must be 1 or more; Traefik refuses the middleware (\"incorrect (or empty) value for attempt\") and the routes that use it", m.Name)
		if attemptsNode == nil {
			l.diags[len(l.diags)-1].Pos = m.pos(retryKey)
		}
		return
	}
	at := m.pos(attemptsNode)
	r.MaxAttempts = model.NewSetting(attempts, "retry.attempts", "middleware", at, false, "retry.attempts counts every try, the first included (pkg/middlewares/retry/retry.go)")
	network := true
	var codes []string
	var codesNode *yaml.Node
	nonIdem, nonIdemNode := false, (*yaml.Node)(nil)
	if newer {
		if n := get(retry, "disableRetryOnNetworkError"); n != nil {
			b, _ := strconv.ParseBool(scalar(n))
			network = !b
		}
		codesNode = get(retry, "status")
		for _, c := range items(codesNode) {
			codes = append(codes, strings.TrimSpace(scalar(c)))
		}
		if n := get(retry, "retryNonIdempotentMethod"); n != nil {
			nonIdem, _ = strconv.ParseBool(scalar(n))
			nonIdemNode = n
		}
		if n := get(retry, "timeout"); n != nil {
			if d, ok := l.traefikDuration(m, n, "retry.timeout"); ok {
				r.Budget = model.Set(d, "retry.timeout", "middleware", m.pos(n))
			}
		}
		if !network && len(codes) == 0 {
			l.invalid(m.pos(get(retry, "disableRetryOnNetworkError")), "Middleware %s: disableRetryOnNetworkError without status retries nothing; Traefik refuses the middleware (\"retry middleware requires at least HTTP status codes or retry on TCP\")", m.Name)
			r.MaxAttempts = model.Set(1, "retry.attempts", "middleware", at)
			return
		}
	}
	var on []string
	if network {
		on = append(on, "network-error")
	}
	on = append(on, codes...)
	onPos := m.pos(retryKey)
	name := "retry"
	if codesNode != nil {
		onPos, name = m.pos(codesNode), "retry.status"
	}
	r.Retry.On = model.Set(on, name, "middleware", onPos)
	if attempts < 2 || len(codes) == 0 {
		// A network error is retried only while nothing was written to
		// the backend: nothing it ran is sent again.
		return
	}
	methods := model.Methods{Any: true, Except: ingressNonIdempotent}.NarrowedBy(name, onPos).Because("Traefik retries POST, PATCH and LOCK on a status only with retryNonIdempotentMethod")
	if nonIdem {
		methods = model.Methods{Any: true}.NarrowedBy("retry.retryNonIdempotentMethod", m.pos(nonIdemNode)).Because("retry.retryNonIdempotentMethod true makes Traefik retry POST, PATCH and LOCK on a status too")
	}
	for _, c := range codes {
		r.Reexecutes = append(r.Reexecutes, model.Reexecution{Condition: c, Response: true, Methods: methods, Setting: r.Retry.On})
	}
}

// traefikTransport gives an upstream its servers transport's settings:
// the dial timeout, and the pool (maxIdleConnsPerHost; below 0 no reuse)
// with its idle timeout.
func (l *loader) traefikTransport(u *model.Upstream, st *object, block model.Pos) {
	u.ConnectTimeout = model.NewSetting(traefikDial, "forwardingTimeouts.dialTimeout", "default", block, true, noteTraefikDial)
	u.PoolIdle = model.NewSetting(traefikPoolIdle, "forwardingTimeouts.idleConnTimeout", "default", block, true, noteTraefikDial)
	u.PoolLifetime = model.Default(time.Duration(0), "max connection lifetime", block)
	u.PoolSize = model.NewSetting(traefikMaxIdle, "maxIdleConnsPerHost", "default", block, true, "Traefik's default of 200 idle connections per host (cmd/configuration.go), for the default servers transport")
	if st == nil {
		return
	}
	// A ServersTransport passes its maxIdleConnsPerHost, 0 when unset, to
	// Go's http.Transport, whose default is then 2
	// (pkg/provider/kubernetes/crd/kubernetes.go v3.7.9:541;
	// pkg/server/service/transport.go :311): the static default of 200 is
	// the default transport's alone.
	u.PoolSize = model.NewSetting(goMaxIdlePerHost, "maxIdleConnsPerHost", "default", block, true, "Go's default of 2 idle connections per host, which a ServersTransport that does not set maxIdleConnsPerHost gets")
	ft := get(st.Spec, "forwardingTimeouts")
	if n := get(ft, "dialTimeout"); n != nil {
		if d, ok := l.traefikDuration(st, n, "forwardingTimeouts.dialTimeout"); ok {
			u.ConnectTimeout = model.Set(d, "forwardingTimeouts.dialTimeout", "serversTransport", st.pos(n))
		}
	}
	if n := get(ft, "idleConnTimeout"); n != nil {
		if d, ok := l.traefikDuration(st, n, "forwardingTimeouts.idleConnTimeout"); ok {
			u.PoolIdle = model.Set(d, "forwardingTimeouts.idleConnTimeout", "serversTransport", st.pos(n))
		}
	}
	if n := get(st.Spec, "maxIdleConnsPerHost"); n != nil {
		v, err := strconv.Atoi(scalar(n))
		switch {
		case err != nil:
			l.invalid(st.pos(n), "maxIdleConnsPerHost: %q is not a number; the API server refuses the ServersTransport", scalar(n))
		case v < 0:
			u.PoolSize = model.Set(0, "maxIdleConnsPerHost", "serversTransport", st.pos(n))
		case v > 0:
			u.PoolSize = model.Set(v, "maxIdleConnsPerHost", "serversTransport", st.pos(n))
		}
	}
}

// traefikHeaderTimeout is how long one try waits for the response
// headers: the servers transport's responseHeaderTimeout, else no limit.
func (l *loader) traefikHeaderTimeout(st *object, block model.Pos) model.Setting[time.Duration] {
	if st != nil {
		if n := get(get(st.Spec, "forwardingTimeouts"), "responseHeaderTimeout"); n != nil {
			if d, ok := l.traefikDuration(st, n, "forwardingTimeouts.responseHeaderTimeout"); ok {
				return model.Set(d, "forwardingTimeouts.responseHeaderTimeout", "serversTransport", st.pos(n))
			}
		}
	}
	s := model.Default(time.Duration(0), "forwardingTimeouts.responseHeaderTimeout", block)
	s = s.WithNote(noteTraefikReadHdr)
	return s
}
