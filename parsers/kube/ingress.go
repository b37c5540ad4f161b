package kube

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/model"
)

// ingress-nginx: each Ingress path becomes an nginx location that the
// controller writes from its annotations, the controller's ConfigMap and
// its defaults (kubernetes/ingress-nginx,
// internal/ingress/controller/config/config.go, NewDefault: 858-868 for
// the proxy settings, 888-891 for the upstream keepalive; the keys are the
// json tags there and in internal/ingress/defaults/main.go).

const annotationPrefix = "nginx.ingress.kubernetes.io/"

// ingressDefault is one setting of the controller: its key (the same in
// annotations and the ConfigMap, unless configMapOnly) and default.
type ingressDefault struct {
	key           string
	value         string
	configMapOnly bool
}

var (
	keyConnect     = ingressDefault{key: "proxy-connect-timeout", value: "5"}
	keySend        = ingressDefault{key: "proxy-send-timeout", value: "60"}
	keyRead        = ingressDefault{key: "proxy-read-timeout", value: "60"}
	keyNext        = ingressDefault{key: "proxy-next-upstream", value: "error timeout"}
	keyNextTimeout = ingressDefault{key: "proxy-next-upstream-timeout", value: "0"}
	keyNextTries   = ingressDefault{key: "proxy-next-upstream-tries", value: "3"}
	keyHTTPVersion = ingressDefault{key: "proxy-http-version", value: "1.1"}
	keyNonIdem     = ingressDefault{key: "retry-non-idempotent", value: "false", configMapOnly: true}
	keyPoolSize    = ingressDefault{key: "upstream-keepalive-connections", value: "320", configMapOnly: true}
	keyPoolIdle    = ingressDefault{key: "upstream-keepalive-timeout", value: "60", configMapOnly: true}
	keyPoolTime    = ingressDefault{key: "upstream-keepalive-time", value: "1h", configMapOnly: true}
	keyPoolReqs    = ingressDefault{key: "upstream-keepalive-requests", value: "10000", configMapOnly: true}
)

const noteIngressDefault = "ingress-nginx's default (internal/ingress/controller/config/config.go)"

// nginxClass reports whether an Ingress is for ingress-nginx: class
// "nginx" (the controller's default), or no class at all.
func nginxClass(o *object) bool {
	class := scalar(get(o.Spec, "ingressClassName"))
	if class == "" {
		class = scalar(get(get(get(o.Node, "metadata"), "annotations"), "kubernetes.io/ingress.class"))
	}
	return class == "" || strings.Contains(class, "nginx")
}

// controllerConfigMap reports whether a ConfigMap configures the
// controller: its name says nginx (ingress-nginx-controller, as the chart
// names it, or nginx-configuration).
func controllerConfigMap(o *object) bool {
	return strings.Contains(o.Name, "nginx")
}

// ingressScope finds a setting's value: the Ingress annotation, else the
// ConfigMap, else the controller's default (pointing at block).
type ingressScope struct {
	l           *loader
	annotations *yaml.Node
	data        *yaml.Node
	block       model.Pos
}

func (s ingressScope) lookup(d ingressDefault) (value string, name, level string, pos model.Pos, dflt bool, node *yaml.Node) {
	if !d.configMapOnly {
		if v := get(s.annotations, annotationPrefix+d.key); v != nil {
			return scalar(v), annotationPrefix + d.key, "annotation", s.l.pos(v), false, v
		}
	}
	if _, v := getKV(s.data, d.key); v != nil {
		return scalar(v), "ConfigMap " + d.key, "configmap", s.l.pos(v), false, v
	}
	return d.value, d.key, "default", s.block, true, nil
}

// seconds reads a timeout: whole seconds as the controller writes them
// ("60"), or an nginx time ("60s", "1m").
func (s ingressScope) seconds(d ingressDefault) model.Setting[time.Duration] {
	v, name, level, pos, dflt, node := s.lookup(d)
	dur, err := parseNginxTime(v)
	if err != nil {
		s.l.invalid(node, "%s: %q is not a time (want seconds, e.g. 60, or 1m); the controller's default %ss applies", name, v, d.value)
		v, name, level, pos, dflt = d.value, d.key, "default", s.block, true
		dur, _ = parseNginxTime(v)
	}
	return typed[time.Duration](s.setting(dur, name, level, pos, dflt))
}

func (s ingressScope) count(d ingressDefault) model.Setting[int] {
	v, name, level, pos, dflt, node := s.lookup(d)
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		s.l.invalid(node, "%s: %q is not a count (want 0 or more); the controller's default %s applies", name, v, d.value)
		n, _ = strconv.Atoi(d.value)
		name, level, pos, dflt = d.key, "default", s.block, true
	}
	return typed[int](s.setting(n, name, level, pos, dflt))
}

func (s ingressScope) text(d ingressDefault) model.Setting[string] {
	v, name, level, pos, dflt, _ := s.lookup(d)
	return typed[string](s.setting(v, name, level, pos, dflt))
}

func (s ingressScope) setting(v any, name, level string, pos model.Pos, dflt bool) anySetting {
	return anySetting{v: v, name: name, level: level, pos: pos, dflt: dflt}
}

// anySetting carries a setting until its type is known.
type anySetting struct {
	v           any
	name, level string
	pos         model.Pos
	dflt        bool
}

func typed[T any](a anySetting) model.Setting[T] {
	s := model.Setting[T]{Value: a.v.(T), Name: a.name, Level: a.level, Pos: a.pos, Default: a.dflt}
	if a.dflt {
		s.Note = noteIngressDefault
	}
	return s
}

func parseNginxTime(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := model.ParseDuration(v)
	if err == nil && d < 0 {
		err = fmt.Errorf("negative")
	}
	return d, err
}

func (l *loader) ingressNginx(p *model.Proxy, ings, cms []*object) {
	var data *yaml.Node
	if len(cms) > 0 {
		data = get(cms[0].Node, "data")
	}
	ups := map[string]*model.Upstream{}
	for _, ing := range ings {
		ln := &model.Listener{Proxy: p, Name: "Ingress " + ing.Name, Pos: l.pos(ing.Node)}
		p.Listeners = append(p.Listeners, ln)
		ann := get(get(ing.Node, "metadata"), "annotations")
		for _, rule := range items(get(ing.Spec, "rules")) {
			host := scalar(get(rule, "host"))
			for _, path := range items(get(get(rule, "http"), "paths")) {
				r := l.ingressPath(p, ln, ing, host, path, ingressScope{l: l, annotations: ann, data: data, block: l.pos(path)}, ups)
				ln.Routes = append(ln.Routes, r)
			}
		}
	}
}

func (l *loader) ingressPath(p *model.Proxy, ln *model.Listener, ing *object, host string, path *yaml.Node, s ingressScope, ups map[string]*model.Upstream) *model.Route {
	pv := scalar(get(path, "path"))
	if pv == "" {
		pv = "/"
	}
	match := model.Match{Kind: model.MatchPrefix, Path: pv, CaseSensitive: true}
	if scalar(get(path, "pathType")) == "Exact" {
		match.Kind = model.MatchExact
	}
	name := fmt.Sprintf("%s %s%s", ln.Name, host, pv)
	r := &model.Route{Listener: ln, Kind: "location", Name: name, Pos: l.pos(path), Match: match, Methods: model.Methods{Any: true}, Nginx: &model.NginxRoute{}}
	n := r.Nginx
	r.ConnectTimeout = s.seconds(keyConnect)
	n.SendTimeout = s.seconds(keySend)
	r.AttemptTimeout = s.seconds(keyRead)
	r.Budget = s.seconds(keyNextTimeout)
	n.Tries = s.count(keyNextTries)
	n.HTTPVersion = s.text(keyHTTPVersion)
	on := s.text(keyNext)
	conds := strings.Fields(on.Value)
	// buildNextUpstream (internal/ingress/controller/template/template.go)
	// adds non_idempotent when the ConfigMap's retry-non-idempotent is true.
	if ni := s.text(keyNonIdem); ni.Value == "true" && !contains(conds, "non_idempotent") {
		conds = append(conds, "non_idempotent")
	}
	r.Retry.On = model.Setting[[]string]{Value: conds, Name: on.Name, Level: on.Level, Pos: on.Pos, Default: on.Default, Note: on.Note}

	svc := get(get(path, "backend"), "service")
	svcName := scalar(get(svc, "name"))
	portNode := get(get(svc, "port"), "number")
	port := scalar(portNode)
	if port == "" {
		port = scalar(get(get(svc, "port"), "name"))
	}
	if svcName == "" {
		// networking.k8s.io/v1beta1 and extensions/v1beta1.
		svcName, port = scalar(get(get(path, "backend"), "serviceName")), scalar(get(get(path, "backend"), "servicePort"))
	}
	if svcName == "" {
		return r
	}
	ns := ing.Namespace
	if ns == "" {
		ns = "default"
	}
	// The controller names upstreams NAMESPACE-SERVICE-PORT.
	upName := ns + "-" + svcName + "-" + port
	u, ok := ups[upName]
	if !ok {
		u = &model.Upstream{Proxy: p, Kind: "upstream", Name: upName, Pos: l.pos(path),
			Servers:            []model.Server{{Address: model.Address{Host: fqdn(svcName, ns)}, Raw: svcName, Pos: l.pos(path), Service: serviceRef(ns, svcName, port)}},
			ClosedUnderRequest: "retry",
		}
		block := s
		block.annotations = nil
		u.PoolSize = block.count(keyPoolSize)
		u.PoolIdle = block.seconds(keyPoolIdle)
		u.PoolLifetime = block.seconds(keyPoolTime)
		block.count(keyPoolReqs) // checked only: requests per connection change nothing a rule judges
		ups[upName] = u
		p.Upstreams = append(p.Upstreams, u)
	}
	u.Routes = append(u.Routes, r)
	module := "proxy"
	if bp := strings.ToUpper(scalar(get(s.annotations, annotationPrefix+"backend-protocol"))); bp == "GRPC" || bp == "GRPCS" {
		module = "grpc"
		r.Stream = model.Set(true, annotationPrefix+"backend-protocol", "annotation", l.pos(get(s.annotations, annotationPrefix+"backend-protocol")))
	}
	r.Forward = &model.Forward{Module: module, Name: "backend.service", Pos: l.pos(svc), URL: svcName + ":" + port,
		Target: model.Address{Host: upName}, CanPool: true, Upstream: u}
	ingressBehaviour(r)
	return r
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ingressNonIdempotent are the methods nginx does not pass to the next
// server once sent, unless non_idempotent is set (ngx_http_upstream.c).
var ingressNonIdempotent = []string{"POST", "PATCH", "LOCK"}

// ingressBehaviour: what an ingress-nginx location does. Its upstream is
// the Lua balancer's (upstream_balancer, one placeholder server), which
// adds a try on every pick (rootfs/etc/nginx/lua/balancer.lua:
// ngx_balancer.set_more_tries(1)), so a request is sent up to
// proxy-next-upstream-tries times whatever the number of endpoints; with
// 0 nothing caps the tries.
func ingressBehaviour(r *model.Route) {
	if u := r.Forward.Upstream; u.PoolSize.Value > 0 {
		r.Pool = &model.Pool{Upstream: u, Size: u.PoolSize, Idle: u.PoolIdle, Lifetime: u.PoolLifetime}
	}
	on := r.Retry.On
	r.MaxAttempts = model.Setting[int]{Value: 1, Name: on.Name, Pos: on.Pos, Level: on.Level, Default: on.Default, Note: on.Note}
	retries := false
	for _, c := range on.Value {
		retries = retries || c != "non_idempotent" && c != "off"
	}
	if contains(on.Value, "off") || !retries {
		return
	}
	t := r.Nginx.Tries
	r.MaxAttempts = t
	if t.Value == 0 {
		r.MaxAttempts.Value = math.MaxInt32
		r.MaxAttempts.Note = "no cap: the Lua balancer adds a try on every pick"
	}
	if r.MaxAttempts.Value > 1 {
		methods := model.Methods{Any: true, Except: ingressNonIdempotent, Pos: on.Pos, Source: on.Name}
		if contains(on.Value, "non_idempotent") {
			methods.Except = nil
		}
		for _, c := range on.Value {
			x := model.Reexecution{Condition: c, Methods: methods, Setting: on}
			switch {
			case c == "error":
			case c == "timeout":
				x.Timeout = true
			case c == "invalid_header", strings.HasPrefix(c, "http_"):
				x.Response = true
			default:
				continue
			}
			r.Reexecutes = append(r.Reexecutes, x)
		}
	}
}
