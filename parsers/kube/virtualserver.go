package kube

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// NGINX Inc's own resources: VirtualServer and VirtualServerRoute
// (k8s.nginx.org/v1), which NGINX Ingress Controller writes into nginx
// configuration from internal/configs/version2/nginx.virtualserver.tmpl
// with the settings of each upstream, else its ConfigMap, else its
// defaults. Line numbers are of nginx/kubernetes-ingress at v5.5.4
// (docs/kubernetes.md lists them):
//
//   - Every location that proxies gets proxy_connect_timeout,
//     proxy_read_timeout and proxy_send_timeout from the upstream's
//     connect-timeout, read-timeout and send-timeout, else the ConfigMap's
//     proxy-*-timeout, else 60s (internal/configs/virtualserver.go:
//     2014-2016; config_params.go:262-264; tmpl:418-420).
//   - proxy_next_upstream, _timeout and _tries are always written
//     (tmpl:578-580): the upstream's next-upstream, else "error timeout";
//     next-upstream-timeout, else 0s; next-upstream-tries, else 0
//     (virtualserver.go:2025-2027). The ConfigMap has no key for them.
//   - The upstream block has one server per endpoint of the Service (its
//     cluster IP with use-cluster-ip), "max_fails= fail_timeout=
//     max_conns=" from the upstream, else the ConfigMap, else 1, 10s and
//     0, and "keepalive N" only when N is above 0 (tmpl:9-15;
//     virtualserver.go:1570-1573; config_params.go:279-282). Without
//     keepalive every location sends Connection: close (tmpl:416,452).
//   - An upstream of type grpc is passed with grpc_pass (tmpl:565;
//     virtualserver.go:2044).

// vsKind reports whether o is one of NGINX Inc's VirtualServer resources.
func vsKind(o *object) bool {
	return (o.Kind == "VirtualServer" || o.Kind == "VirtualServerRoute") && o.APIVersion == "k8s.nginx.org/v1"
}

// vsField is a setting of a VirtualServer upstream: its field, the
// ConfigMap key that gives it when the upstream does not ("" when none
// does), its default, and whether it is a location's setting (its
// default points at the route) or the upstream block's.
type vsField struct {
	field, cmKey, value string
	upstreamLevel       bool
	note                string
	// zeroUnset: the field is a plain int in the controller's Go type, so
	// 0 is unset to it, as to a program that writes the type out.
	zeroUnset bool
}

const (
	noteVSDefault = "NGINX Ingress Controller's default (nginx/kubernetes-ingress, internal/configs/config_params.go)"
	noteVSWritten = "what NGINX Ingress Controller writes when the upstream does not set it (internal/configs/virtualserver.go, generateLocationForProxying)"
)

var (
	vsConnect     = vsField{field: "connect-timeout", cmKey: "proxy-connect-timeout", value: "60s", note: noteVSDefault}
	vsRead        = vsField{field: "read-timeout", cmKey: "proxy-read-timeout", value: "60s", note: noteVSDefault}
	vsSend        = vsField{field: "send-timeout", cmKey: "proxy-send-timeout", value: "60s", note: noteVSDefault}
	vsNext        = vsField{field: "next-upstream", value: "error timeout", note: noteVSWritten}
	vsNextTimeout = vsField{field: "next-upstream-timeout", value: "0s", note: noteVSWritten}
	vsNextTries   = vsField{field: "next-upstream-tries", value: "0", note: noteVSWritten, zeroUnset: true} // types.go v5.5.4:152
	vsKeepalive   = vsField{field: "keepalive", cmKey: "keepalive", value: "0", upstreamLevel: true,
		note: "NGINX Ingress Controller writes no keepalive directive unless the upstream or its ConfigMap sets one (internal/configs/virtualserver.go, nginx.virtualserver.tmpl)"}
	vsMaxFails    = vsField{field: "max-fails", cmKey: "max-fails", value: "1", upstreamLevel: true, note: noteVSDefault}
	vsMaxConns    = vsField{field: "max-conns", cmKey: "max-conns", value: "0", upstreamLevel: true, note: noteVSDefault}
	vsFailTimeout = vsField{field: "fail-timeout", cmKey: "fail-timeout", value: "10s", upstreamLevel: true, note: noteVSDefault}
)

// vsOwner is the resource that holds a route and the upstreams its
// actions name: the VirtualServer, or a VirtualServerRoute it delegates
// to.
type vsOwner struct {
	o         *object
	upstreams map[string]*yaml.Node
	// vs is the VirtualServer: o itself, or the one that delegates to o.
	vs *object
}

func newVSOwner(l *loader, o, vs *object) vsOwner {
	ow := vsOwner{o: o, upstreams: map[string]*yaml.Node{}, vs: vs}
	for _, u := range items(get(o.Spec, "upstreams")) {
		name := scalar(get(u, "name"))
		if name == "" {
			continue
		}
		if _, dup := ow.upstreams[name]; dup {
			l.invalid(o.pos(get(u, "name")), "%s %s: upstream %q is defined twice; NGINX Ingress Controller refuses the resource", o.Kind, o.Name, name)
			continue
		}
		ow.upstreams[name] = u
	}
	return ow
}

// vsScope finds an upstream setting: the upstream's field, else the
// ConfigMap's key, else the default, which points at block.
type vsScope struct {
	l     *loader
	owner vsOwner
	up    *yaml.Node // the upstream entry
	cm    *object
	data  *yaml.Node
	block model.Pos
}

func (s vsScope) lookup(f vsField) (value, name, level string, pos model.Pos, dflt bool) {
	if v := get(s.up, f.field); v != nil && scalar(v) != "" && (!f.zeroUnset || strings.TrimSpace(scalar(v)) != "0") {
		return scalar(v), f.field, "upstream", s.owner.o.pos(v), false
	}
	if f.cmKey != "" {
		if v := get(s.data, f.cmKey); v != nil {
			return scalar(v), "ConfigMap " + f.cmKey, "configmap", s.cm.pos(v), false
		}
	}
	name = f.field
	if f.cmKey != "" {
		name = f.cmKey
	}
	block := s.block
	if f.upstreamLevel {
		block = s.owner.o.pos(s.up)
	}
	return f.value, name, "default", block, true
}

func (s vsScope) seconds(f vsField) model.Setting[time.Duration] {
	v, name, level, pos, dflt := s.lookup(f)
	d, err := parseNginxTime(v)
	if err != nil {
		s.l.invalid(pos, "%s: %q is not a time (want e.g. 60s, 1m); NGINX Ingress Controller's default %s applies", name, v, f.value)
		v, name, level, pos, dflt = f.value, f.field, "default", s.block, true
		d, _ = parseNginxTime(v)
	}
	return vsSetting(f, model.NewSetting(d, name, level, pos, dflt, ""))
}

func (s vsScope) count(f vsField) model.Setting[int] {
	v, name, level, pos, dflt := s.lookup(f)
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		s.l.invalid(pos, "%s: %q is not a count (want 0 or more); NGINX Ingress Controller's default %s applies", name, v, f.value)
		n, _ = strconv.Atoi(f.value)
		name, level, pos, dflt = f.field, "default", s.block, true
	}
	return vsSetting(f, model.NewSetting(n, name, level, pos, dflt, ""))
}

func (s vsScope) text(f vsField) model.Setting[string] {
	v, name, level, pos, dflt := s.lookup(f)
	return vsSetting(f, model.NewSetting(v, name, level, pos, dflt, ""))
}

func vsSetting[T any](f vsField, s model.Setting[T]) model.Setting[T] {
	if s.Default() {
		s = s.WithNote(f.note)
	}
	return s
}

// virtualServers builds the locations of NGINX Inc's VirtualServers,
// with the routes they delegate to VirtualServerRoutes (by name, or by
// routeSelector: internal/k8s/controller.go, the VirtualServerRoutes of
// the VirtualServer's host).
func (l *loader) virtualServers(p *model.Proxy, vss, vsrs []*object, cm *object, res *Result) {
	var data *yaml.Node
	if cm != nil {
		data = get(cm.Node, "data")
	}
	ups := map[string]*model.Upstream{}
	delegated := map[*object]bool{}
	for _, vs := range vss {
		vs.use(res)
		host := scalar(get(vs.Spec, "host"))
		ln := &model.Listener{Proxy: p, Name: "VirtualServer " + vs.Name, Pos: vs.pos(vs.Node)}
		p.Listeners = append(p.Listeners, ln)
		owner := newVSOwner(l, vs, vs)
		for i, rt := range items(get(vs.Spec, "routes")) {
			path := scalar(get(rt, "path"))
			refKey, ref := getKV(rt, "route")
			selKey, sel := getKV(rt, "routeSelector")
			if scalar(ref) == "" && sel == nil {
				l.vsRoute(p, ln, owner, rt, fmt.Sprintf("%s %s", ln.Name, vsPathName(path, i)), cm, data, ups)
				continue
			}
			var found []*object
			for _, r := range vsrs {
				if l.vsrMatches(vs, host, ref, sel, r) {
					found = append(found, r)
				}
			}
			at := vs.pos(refKey)
			if selKey != nil {
				at = vs.pos(selKey)
			}
			if len(found) == 0 {
				what := fmt.Sprintf("VirtualServerRoute %s", scalar(ref))
				if sel != nil {
					what = "no VirtualServerRoute of host " + host + " whose labels its routeSelector matches"
				}
				l.diag("load-error", model.Note, at, "VirtualServer %s delegates %s to %s, which is not in the input: its locations are not checked (lint it with this VirtualServer)", vs.Name, path, what)
				continue
			}
			for _, r := range found {
				delegated[r] = true
				r.use(res)
				sub := newVSOwner(l, r, vs)
				multi := vsMultiRegex(p.Target)
				regexSet := multi && strings.HasPrefix(path, "~")
				if regexSet {
					paths := l.vsPathsTo(vs, host, r)
					if refused := l.vsRegexRefused(r, paths, vsNormalize(path) == vsNormalize(paths[0])); refused {
						continue
					}
				}
				for j, srt := range items(get(r.Spec, "subroutes")) {
					spath := scalar(get(srt, "path"))
					switch {
					case regexSet && vsNormalize(spath) != vsNormalize(path):
						continue // the location of the route whose path it is
					case vsSubPath(path, spath, multi):
					case strings.HasPrefix(path, "~") || strings.HasPrefix(path, "="):
						l.invalid(r.pos(get(srt, "path")), "VirtualServerRoute %s: subroute path %q is not %q, the path of the VirtualServer route that delegates to it; NGINX Ingress Controller refuses the VirtualServerRoute", r.Name, spath, path)
						continue
					default:
						l.invalid(r.pos(get(srt, "path")), "VirtualServerRoute %s: subroute path %q does not start with %q, the path of the VirtualServer route that delegates to it; NGINX Ingress Controller refuses the VirtualServerRoute", r.Name, spath, path)
						continue
					}
					l.vsRoute(p, ln, sub, srt, fmt.Sprintf("%s VirtualServerRoute %s %s", ln.Name, r.Name, vsPathName(spath, j)), cm, data, ups)
				}
			}
		}
	}
	for _, r := range vsrs {
		if !delegated[r] {
			l.diag("load-error", model.Note, r.pos(r.Node), "VirtualServerRoute %s: no VirtualServer of the input delegates to it (host %s), so its subroutes are not checked: lint it with the VirtualServer whose route names it", r.Name, scalar(get(r.Spec, "host")))
			r.used = true // spoken of: not a file that configures nothing
			r.src.used++
		}
	}
}

// vsrMatches reports whether a VirtualServer route delegates to the
// VirtualServerRoute r: by "namespace/name" (the VirtualServer's
// namespace when none is written), or by routeSelector labels; either
// way the VirtualServerRoute's host must be the VirtualServer's.
func (l *loader) vsrMatches(vs *object, host string, ref, sel *yaml.Node, r *object) bool {
	if r.Kind != "VirtualServerRoute" || scalar(get(r.Spec, "host")) != host {
		return false
	}
	if sel != nil {
		return selects(sel, get(get(r.Node, "metadata"), "labels"))
	}
	ns, name, ok := strings.Cut(scalar(ref), "/")
	if !ok {
		ns, name = vs.Namespace, scalar(ref)
	}
	return r.Name == name && sameNamespace(ns, r.Namespace)
}

// vsSubPath reports whether a subroute's path lies under the delegating
// route's: a prefix of the same path, or, for an exact or regex route,
// the same path (the controller's validation,
// pkg/apis/configuration/validation/virtualserver.go).
//
// Since 5.5.0 the paths are compared as the controller normalises them
// (NormalizePath: "~ /x" is "~/x"), and several regex routes may delegate
// to one VirtualServerRoute, each subroute the location of the route
// whose path it is (pkg/apis/configuration/validation/virtualserver.go
// v5.5.4:1659-1760, validateVirtualServerRouteSubroutes); before, a regex
// or exact route takes one subroute of its very path (v5.4.0:1584-1600).
func vsSubPath(route, sub string, normalised bool) bool {
	if normalised {
		route, sub = vsNormalize(route), vsNormalize(sub)
	}
	if strings.HasPrefix(route, "=") || strings.HasPrefix(route, "~") {
		return sub == route
	}
	return strings.HasPrefix(sub, route)
}

// vsMultiRegex reports whether the target's VirtualServerRoutes take
// several regex routes, with paths normalised: 5.5.0 and later.
func vsMultiRegex(t model.Target) bool {
	return releases.VSMultipleRegexRoutes.In(t)
}

// vsNormalize is a route path as NGINX Ingress Controller compares it:
// the space after a modifier dropped.
func vsNormalize(path string) string {
	for _, mod := range []string{"~*", "~", "^~", "="} {
		if strings.HasPrefix(path, mod) {
			return mod + strings.TrimLeft(strings.TrimPrefix(path, mod), " \t")
		}
	}
	return path
}

// vsPathsTo are the paths of the routes of vs that delegate to the
// VirtualServerRoute r.
func (l *loader) vsPathsTo(vs *object, host string, r *object) []string {
	var out []string
	for _, rt := range items(get(vs.Spec, "routes")) {
		ref, sel := get(rt, "route"), get(rt, "routeSelector")
		if (scalar(ref) != "" || sel != nil) && l.vsrMatches(vs, host, ref, sel, r) {
			out = append(out, scalar(get(rt, "path")))
		}
	}
	return out
}

// vsRegexRefused checks the subroutes of a VirtualServerRoute that
// regex routes of paths delegate to, as 5.5.0 does
// (validateSubroutesRegex): they must be those paths, each once, once
// normalised; otherwise the controller refuses the VirtualServerRoute,
// said once (report) for all the routes.
func (l *loader) vsRegexRefused(r *object, paths []string, report bool) bool {
	refused := false
	bad := func(at model.Pos, format string, args ...any) {
		refused = true
		if report {
			l.invalid(at, format, args...)
		}
	}
	seen := map[string]bool{}
	key, subs := getKV(r.Spec, "subroutes")
	for _, srt := range items(subs) {
		spath := scalar(get(srt, "path"))
		n := vsNormalize(spath)
		switch {
		case seen[n]:
			bad(r.pos(get(srt, "path")), "VirtualServerRoute %s: subroute path %q is %q again once normalised; NGINX Ingress Controller refuses the VirtualServerRoute", r.Name, spath, n)
		case !vsNamedBy(paths, spath):
			bad(r.pos(get(srt, "path")), "VirtualServerRoute %s: subroute path %q is none of %s, the paths of the VirtualServer routes that delegate to it; NGINX Ingress Controller refuses the VirtualServerRoute", r.Name, spath, quoted(paths))
		}
		seen[n] = true
	}
	for _, p := range paths {
		if !seen[vsNormalize(p)] {
			at := r.pos(key)
			if key == nil {
				at = r.pos(r.Node)
			}
			bad(at, "VirtualServerRoute %s has no subroute of path %q, which a VirtualServer route delegates to it; NGINX Ingress Controller refuses the VirtualServerRoute", r.Name, p)
		}
	}
	return refused
}

// vsNamedBy reports whether a subroute's path is one of the routes'.
func vsNamedBy(paths []string, sub string) bool {
	for _, p := range paths {
		if vsNormalize(p) == vsNormalize(sub) {
			return true
		}
	}
	return false
}

func quoted(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func vsPathName(path string, i int) string {
	if path == "" {
		return fmt.Sprintf("routes[%d]", i)
	}
	return path
}

// vsMatch reads a route's path: "/x" a prefix, "=/x" an exact path, "~"
// and "~*" a regular expression (case-insensitive).
func vsMatch(path string) model.Match {
	switch {
	case strings.HasPrefix(path, "="):
		return model.Match{Kind: model.MatchExact, Path: strings.TrimSpace(path[1:]), CaseSensitive: true}
	case strings.HasPrefix(path, "~*"):
		return model.Match{Kind: model.MatchRegex, Path: strings.TrimSpace(path[2:])}
	case strings.HasPrefix(path, "~"):
		return model.Match{Kind: model.MatchRegex, Path: strings.TrimSpace(path[1:]), CaseSensitive: true}
	}
	return model.Match{Kind: model.MatchPrefix, Path: path, CaseSensitive: true}
}

// vsRoute builds the locations of one route (or subroute): its action
// (or first split), and one for each of its matches, whose conditions on
// $request_method narrow the methods it carries.
func (l *loader) vsRoute(p *model.Proxy, ln *model.Listener, owner vsOwner, rt *yaml.Node, name string, cm *object, data *yaml.Node, ups map[string]*model.Upstream) {
	o := owner.o
	match := vsMatch(scalar(get(rt, "path")))
	methods := model.Methods{Any: true}
	var except []string
	ms := items(get(rt, "matches"))
	for i, m := range ms {
		mm, only := vsMethods(o, m)
		r := &model.Route{Listener: ln, Kind: "location", Name: fmt.Sprintf("%s matches[%d]", name, i), Pos: o.pos(m), Match: match, Methods: mm, Nginx: &model.NginxRoute{}}
		ln.Routes = append(ln.Routes, r)
		l.vsAction(p, r, owner, m, cm, data, ups)
		except = append(except, only...)
	}
	if len(except) > 0 {
		// The route's own action takes what no match takes: a request of
		// a method a match names alone goes to that match.
		methods.Except = except
		methods = methods.NarrowedBy("matches", o.pos(ms[0]))
	}
	r := &model.Route{Listener: ln, Kind: "location", Name: name, Pos: o.pos(rt), Match: match, Methods: methods, Nginx: &model.NginxRoute{}}
	ln.Routes = append(ln.Routes, r)
	l.vsAction(p, r, owner, rt, cm, data, ups)
}

// vsMethods reads a match's conditions on the request method
// ("variable: $request_method", "value: POST"; "!POST" excludes it):
// the methods the match takes, and, when that condition is its only one,
// the methods it takes whatever else the request carries.
func vsMethods(o *object, m *yaml.Node) (model.Methods, []string) {
	conds := items(get(m, "conditions"))
	for _, c := range conds {
		if scalar(get(c, "variable")) != "$request_method" {
			continue
		}
		v := strings.ToUpper(strings.TrimSpace(scalar(get(c, "value"))))
		if v == "" || strings.HasPrefix(v, "!") || strings.ContainsAny(v, "~*") {
			return model.Methods{Any: true}, nil
		}
		methods := model.Methods{Allowed: []string{v}}.NarrowedBy("conditions $request_method", o.pos(get(c, "value")))
		if len(conds) == 1 {
			return methods, []string{v}
		}
		return methods, nil
	}
	return model.Methods{Any: true}, nil
}

// vsAction reads what a route or match does: pass or proxy to an upstream,
// or return and redirect, which proxy nothing. A route of splits takes
// the first split's action for its settings (the splits' upstreams share
// the route's location settings only when they share the upstream).
func (l *loader) vsAction(p *model.Proxy, r *model.Route, owner vsOwner, n *yaml.Node, cm *object, data *yaml.Node, ups map[string]*model.Upstream) {
	o := owner.o
	action := get(n, "action")
	if action == nil {
		if splits := items(get(n, "splits")); len(splits) > 0 {
			action = get(splits[0], "action")
		}
	}
	if action == nil {
		return
	}
	upNode := get(action, "pass")
	if upNode == nil {
		upNode = get(get(action, "proxy"), "upstream")
	}
	upName := scalar(upNode)
	if upName == "" {
		return // return, redirect
	}
	// The controller sends Host $host unless the action sets Host
	// (virtualserver.go v5.5.4:1930-1947, generateProxySetHeaders).
	r.Host = scalar(get(owner.vs.Spec, "host"))
	for _, h := range items(get(get(get(action, "proxy"), "requestHeaders"), "set")) {
		if strings.EqualFold(scalar(get(h, "name")), "Host") {
			r.Host = ""
		}
	}
	up, ok := owner.upstreams[upName]
	if !ok {
		l.invalid(o.pos(upNode), "%s %s: action names upstream %q, which its upstreams do not define; NGINX Ingress Controller refuses the resource", o.Kind, o.Name, upName)
		return
	}
	s := vsScope{l: l, owner: owner, up: up, cm: cm, data: data, block: r.Pos}
	nr := r.Nginx
	r.ConnectTimeout = s.seconds(vsConnect)
	r.AttemptTimeout = s.seconds(vsRead)
	nr.SendTimeout = s.seconds(vsSend)
	nr.HTTPVersion = model.NewSetting("1.1", "proxy_http_version", "default", r.Pos, true, "NGINX Ingress Controller writes proxy_http_version 1.1 in every location of a VirtualServer (internal/configs/version2/nginx.virtualserver.tmpl)")
	on := s.text(vsNext)
	r.Retry.On = model.Revalued(on, strings.Fields(on.Value))
	r.Budget = s.seconds(vsNextTimeout)
	nr.Tries = s.count(vsNextTries)
	s.seconds(vsFailTimeout) // checked only: failed servers are not modelled
	s.count(vsMaxFails)
	s.count(vsMaxConns)
	if b := get(up, "buffering"); b != nil && scalar(b) != "" { // null: unset
		if _, err := strconv.ParseBool(scalar(b)); err != nil {
			l.invalid(o.pos(b), "buffering: %q is not a boolean; the API server refuses the resource", scalar(b))
		}
	}

	ns := o.Namespace
	if ns == "" {
		ns = "default"
	}
	svcName, port := scalar(get(up, "service")), scalar(get(up, "port"))
	key := o.Kind + "/" + ns + "/" + o.Name + "/" + upName
	u, ok := ups[key]
	if !ok {
		// internal/configs/virtualserver.go:168-190 (upstreamNamer).
		prefix := "vs_" + namespace(owner.vs) + "_" + owner.vs.Name
		if o != owner.vs {
			prefix += "_vsr_" + ns + "_" + o.Name
		}
		srv := model.Server{Address: model.Address{Host: fqdn(svcName, ns)}, Raw: svcName, Pos: o.pos(get(up, "service")), Service: serviceRef(ns, svcName, port)}
		clusterIP, _ := strconv.ParseBool(scalar(get(up, "use-cluster-ip")))
		u = &model.Upstream{Proxy: p, Kind: "upstream", Name: prefix + "_" + upName, Pos: o.pos(up),
			Servers: l.endpointServers(srv, clusterIP), ClosedUnderRequest: "retry"}
		u.PoolSize = s.count(vsKeepalive)
		u.PoolIdle = model.NewSetting(nginxKeepaliveTimeout, "keepalive_timeout", "default", o.pos(up), true, "nginx's default: the controller's template writes no keepalive_timeout")
		u.PoolLifetime = model.NewSetting(nginxKeepaliveTime, "keepalive_time", "default", o.pos(up), true, "nginx's default: the controller's template writes no keepalive_time")
		ups[key] = u
		p.Upstreams = append(p.Upstreams, u)
	}
	u.Routes = append(u.Routes, r)
	module := "proxy"
	if scalar(get(up, "type")) == "grpc" {
		module = "grpc"
		r.Stream = model.Set(true, "type", "upstream", o.pos(get(up, "type")))
	}
	r.Forward = &model.Forward{Module: module, Name: "action", Pos: o.pos(upNode), URL: svcName + ":" + port,
		Target: model.Address{Host: u.Name}, CanPool: true, Upstream: u}
	nginxIncBehaviour(r)
}
