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

// ingressDefault is one setting of a controller: its key (the same in
// annotations and the ConfigMap, unless configMapOnly or annotationOnly)
// and default.
type ingressDefault struct {
	key            string
	value          string
	configMapOnly  bool
	annotationOnly bool
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

// controller is an Ingress controller proxylint models: the product its
// Ingresses are read as, the name its IngressClass gives in
// spec.controller, and the prefix of its annotations.
type controller struct {
	product model.Product
	name    string
	prefix  string
	// note names where a default of the controller comes from.
	note string
}

var (
	ingressNginxController = &controller{product: model.IngressNginx, name: "k8s.io/ingress-nginx", prefix: annotationPrefix, note: noteIngressDefault}
	nginxIncController     = &controller{product: model.NginxIngress, name: "nginx.org/ingress-controller", prefix: nginxIncPrefix, note: noteNginxIncDefault}
	// controllers in the order their proxies are built.
	controllers = []*controller{ingressNginxController, nginxIncController}
)

// ingressKind reports whether o is an Ingress.
func ingressKind(o *object) bool {
	switch o.APIVersion {
	case "networking.k8s.io/v1", "networking.k8s.io/v1beta1", "extensions/v1beta1":
		return o.Kind == "Ingress"
	}
	return false
}

// ingressClassKind reports whether o is an IngressClass.
func ingressClassKind(o *object) bool {
	return o.Kind == "IngressClass" && (o.APIVersion == "networking.k8s.io/v1" || o.APIVersion == "networking.k8s.io/v1beta1")
}

// ingressClass is the class an Ingress names: spec.ingressClassName, or
// the older kubernetes.io/ingress.class annotation.
func ingressClass(o *object) string {
	if class := scalar(get(o.Spec, "ingressClassName")); class != "" {
		return class
	}
	return scalar(get(get(get(o.Node, "metadata"), "annotations"), "kubernetes.io/ingress.class"))
}

// ingressControllers tells which controller serves each Ingress of the
// run. An IngressClass of the run decides for the Ingresses of its class
// (its spec.controller: k8s.io/ingress-nginx for ingress-nginx,
// nginx.org/ingress-controller for NGINX Inc's), and the one marked
// ingressclass.kubernetes.io/is-default-class for the Ingresses that name
// no class, as the API server's admission sets it. Without one, a class
// that names nginx (both controllers' default class is "nginx"), or no
// class, is NGINX Inc's when the Ingress carries one of its annotations
// (nginx.org/, nginx.com/) or the target names its product, and
// ingress-nginx's otherwise. The rest are other controllers' (other).
func (l *loader) ingressControllers(ings, classes []*object, target model.Target) (map[*controller][]*object, []*object) {
	byName := map[string]*object{}
	var dflt *object
	for _, c := range classes {
		name := scalar(get(c.Spec, "controller"))
		for _, ctl := range controllers {
			if ctl.name == name {
				c.controller = ctl
			}
		}
		if byName[c.Name] == nil {
			byName[c.Name] = c
		}
		ann := get(get(c.Node, "metadata"), "annotations")
		if dflt == nil && scalar(get(ann, "ingressclass.kubernetes.io/is-default-class")) == "true" {
			dflt = c
		}
	}
	groups := map[*controller][]*object{}
	var other []*object
	for _, ing := range ings {
		class := ingressClass(ing)
		c := byName[class]
		if class == "" {
			c = dflt
		}
		var ctl *controller
		switch {
		case c != nil:
			ctl = c.controller
		case class == "" || strings.Contains(class, "nginx"):
			ctl = guessController(ing, target)
		}
		if ctl == nil {
			other = append(other, ing)
			continue
		}
		groups[ctl] = append(groups[ctl], ing)
	}
	return groups, other
}

// guessController tells an Ingress of class nginx, or of none, whose
// IngressClass is not in the run: NGINX Inc's when it has one of that
// controller's annotations, or the target is its product; else
// ingress-nginx's.
func guessController(ing *object, target model.Target) *controller {
	ann := get(get(ing.Node, "metadata"), "annotations")
	if ann != nil && ann.Kind == yaml.MappingNode {
		for i := 0; i < len(ann.Content); i += 2 {
			k := ann.Content[i].Value
			if strings.HasPrefix(k, nginxIncPrefix) || strings.HasPrefix(k, "nginx.com/") {
				return nginxIncController
			}
		}
	}
	if target.Product == model.NginxIngress {
		return nginxIncController
	}
	return ingressNginxController
}

// controllerConfigMap reports whether a ConfigMap may configure an Ingress
// controller: its name says nginx (ingress-nginx-controller, as
// ingress-nginx's chart names it, or nginx-configuration; nginx-config or
// RELEASE-nginx-ingress for NGINX Inc's).
func controllerConfigMap(o *object) bool {
	return o.Kind == "ConfigMap" && o.APIVersion == "v1" && strings.Contains(o.Name, "nginx")
}

// configMaps are the ConfigMaps of the run that configure the controller,
// best first: one whose name is the controller's (ingress-nginx in
// ingress-nginx's names, nginx-ingress or nginx-config in NGINX Inc's),
// then the other names that say nginx and not the other controller, in
// the run's order. The controller reads one; the first is used.
func (ctl *controller) configMaps(cms []*object) []*object {
	own, other := "ingress-nginx", "nginx-ingress"
	if ctl == nginxIncController {
		own, other = "nginx-ingress", "ingress-nginx"
	}
	var best, rest []*object
	for _, c := range cms {
		if !controllerConfigMap(c) {
			continue
		}
		switch {
		case strings.Contains(c.Name, own) || ctl == ingressNginxController && c.Name == "nginx-configuration" || ctl == nginxIncController && c.Name == "nginx-config":
			best = append(best, c)
		case !strings.Contains(c.Name, other) && c.Name != "nginx-configuration" && c.Name != "nginx-config":
			rest = append(rest, c)
		}
	}
	switch {
	case len(best) > 0:
		return best[:1]
	case len(rest) > 0:
		return rest[:1]
	}
	return nil
}

// ingressScope finds a setting's value: the Ingress annotation, else the
// ConfigMap, else the controller's default (pointing at block).
type ingressScope struct {
	l           *loader
	ctl         *controller
	ing, cm     *object
	annotations *yaml.Node
	data        *yaml.Node
	block       model.Pos
	// master is the master Ingress of a minion (NGINX Inc's mergeable
	// Ingresses), whose annotations the minion inherits (nginxinc.go).
	master *object
}

func (s ingressScope) lookup(d ingressDefault) (value string, name, level string, pos model.Pos, dflt bool, at model.Pos) {
	if !d.configMapOnly {
		if v := get(s.annotations, s.ctl.prefix+d.key); v != nil {
			return scalar(v), s.ctl.prefix + d.key, "annotation", s.ing.pos(v), false, s.ing.pos(v)
		}
		if s.master != nil && minionInherits[s.ctl.prefix+d.key] {
			if v := get(get(get(s.master.Node, "metadata"), "annotations"), s.ctl.prefix+d.key); v != nil {
				return scalar(v), s.ctl.prefix + d.key, "annotation", s.master.pos(v), false, s.master.pos(v)
			}
		}
	}
	if !d.annotationOnly {
		if _, v := getKV(s.data, d.key); v != nil {
			return scalar(v), "ConfigMap " + d.key, "configmap", s.cm.pos(v), false, s.cm.pos(v)
		}
	}
	return d.value, d.key, "default", s.block, true, s.block
}

// seconds reads a timeout: whole seconds as the controller writes them
// ("60"), or an nginx time ("60s", "1m").
func (s ingressScope) seconds(d ingressDefault) model.Setting[time.Duration] {
	v, name, level, pos, dflt, at := s.lookup(d)
	dur, err := parseNginxTime(v)
	if err != nil {
		s.l.invalid(at, "%s: %q is not a time (want seconds, e.g. 60, or 1m); the controller's default %s applies", name, v, defaultText(d))
		v, name, level, pos, dflt = d.value, d.key, "default", s.block, true
		dur, _ = parseNginxTime(v)
	}
	return typedSetting[time.Duration](s.ctl, anySetting{v: dur, name: name, level: level, pos: pos, dflt: dflt})
}

func defaultText(d ingressDefault) string {
	if _, err := strconv.Atoi(d.value); err == nil {
		return d.value + "s"
	}
	return d.value
}

func (s ingressScope) count(d ingressDefault) model.Setting[int] {
	v, name, level, pos, dflt, at := s.lookup(d)
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		s.l.invalid(at, "%s: %q is not a count (want 0 or more); the controller's default %s applies", name, v, d.value)
		n, _ = strconv.Atoi(d.value)
		name, level, pos, dflt = d.key, "default", s.block, true
	}
	return typedSetting[int](s.ctl, anySetting{v: n, name: name, level: level, pos: pos, dflt: dflt})
}

func (s ingressScope) text(d ingressDefault) model.Setting[string] {
	v, name, level, pos, dflt, _ := s.lookup(d)
	return typedSetting[string](s.ctl, anySetting{v: v, name: name, level: level, pos: pos, dflt: dflt})
}

// anySetting carries a setting until its type is known.
type anySetting struct {
	v           any
	name, level string
	pos         model.Pos
	dflt        bool
}

func typedSetting[T any](ctl *controller, a anySetting) model.Setting[T] {
	s := model.NewSetting(a.v.(T), a.name, a.level, a.pos, a.dflt, "")
	if a.dflt {
		s = s.WithNote(ctl.note)
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

// ingresses builds the locations of the Ingresses a controller serves,
// with the settings of its ConfigMap (the first of cms, when any).
func (l *loader) ingresses(ctl *controller, p *model.Proxy, ings, cms []*object) {
	var cm *object
	var data *yaml.Node
	if len(cms) > 0 {
		cm = cms[0]
		data = get(cm.Node, "data")
	}
	ups := map[string]*model.Upstream{}
	var masters map[string]*object
	if ctl == nginxIncController {
		masters = l.mergeableMasters(ings)
	}
	for _, ing := range ings {
		ln := &model.Listener{Proxy: p, Name: "Ingress " + ing.Name, Pos: ing.pos(ing.Node)}
		p.Listeners = append(p.Listeners, ln)
		ann := get(get(ing.Node, "metadata"), "annotations")
		var master *object
		if ctl == nginxIncController && mergeableType(ing) == "minion" {
			master = l.masterOf(ing, masters)
		}
		for _, rule := range items(get(ing.Spec, "rules")) {
			host := scalar(get(rule, "host"))
			for _, path := range items(get(get(rule, "http"), "paths")) {
				s := ingressScope{l: l, ctl: ctl, ing: ing, cm: cm, annotations: ann, data: data, block: ing.pos(path), master: master}
				var r *model.Route
				if ctl == nginxIncController {
					r = l.nginxIncPath(p, ln, ing, host, path, s, ups)
				} else {
					r = l.ingressPath(p, ln, ing, host, path, s, ups)
				}
				if r != nil {
					r.Host = ingressUpstreamHost(ctl, ann, host)
				}
				ln.Routes = append(ln.Routes, r)
			}
		}
	}
}

// ingressUpstreamHost is the Host header an Ingress path's requests carry
// to the backend: the rule's host, which both controllers pass on
// (ingress-nginx: proxy_set_header Host $best_http_host, the request's
// Host; NGINX Inc: proxy_set_header Host $host, nginx.ingress.tmpl
// v5.5.4:384), unless ingress-nginx's upstream-vhost annotation sets
// another.
func ingressUpstreamHost(ctl *controller, ann *yaml.Node, host string) string {
	if ctl == ingressNginxController {
		if v := scalar(get(ann, annotationPrefix+"upstream-vhost")); v != "" {
			if strings.Contains(v, "$") {
				return "" // a variable: not known here
			}
			return v
		}
	}
	return host
}

// ingressRoute is the location of an Ingress path, before its settings.
func ingressRoute(ln *model.Listener, ing *object, host string, path *yaml.Node) *model.Route {
	pv := scalar(get(path, "path"))
	if pv == "" {
		pv = "/"
	}
	match := model.Match{Kind: model.MatchPrefix, Path: pv, CaseSensitive: true}
	if scalar(get(path, "pathType")) == "Exact" {
		match.Kind = model.MatchExact
	}
	name := fmt.Sprintf("%s %s%s", ln.Name, host, pv)
	return &model.Route{Listener: ln, Kind: "location", Name: name, Pos: ing.pos(path), Match: match, Methods: model.Methods{Any: true}, Nginx: &model.NginxRoute{}}
}

// ingressBackend reads the Service a path sends to: its name node, the
// name, and the port as written (a number or a name).
func ingressBackend(path *yaml.Node) (svc *yaml.Node, name, port string) {
	svc = get(get(path, "backend"), "service")
	name = scalar(get(svc, "name"))
	port = scalar(get(get(svc, "port"), "number"))
	if port == "" {
		port = scalar(get(get(svc, "port"), "name"))
	}
	if name == "" {
		// networking.k8s.io/v1beta1 and extensions/v1beta1.
		svc = get(path, "backend")
		name, port = scalar(get(svc, "serviceName")), scalar(get(svc, "servicePort"))
	}
	return svc, name, port
}

func (l *loader) ingressPath(p *model.Proxy, ln *model.Listener, ing *object, host string, path *yaml.Node, s ingressScope, ups map[string]*model.Upstream) *model.Route {
	r := ingressRoute(ln, ing, host, path)
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
	ni := s.text(keyNonIdem)
	niAdded := ni.Value == "true" && !contains(conds, "non_idempotent")
	if niAdded {
		conds = append(conds, "non_idempotent")
	}
	r.Retry.On = model.Revalued(on, conds)

	svc, svcName, port := ingressBackend(path)
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
		u = &model.Upstream{Proxy: p, Kind: "upstream", Name: upName, Pos: ing.pos(path),
			Servers:            []model.Server{{Address: model.Address{Host: fqdn(svcName, ns)}, Raw: svcName, Pos: ing.pos(path), Service: serviceRef(ns, svcName, port)}},
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
		r.Stream = model.Set(true, annotationPrefix+"backend-protocol", "annotation", ing.pos(get(s.annotations, annotationPrefix+"backend-protocol")))
	}
	r.Forward = &model.Forward{Module: module, Name: "backend.service", Pos: ing.pos(svc), URL: svcName + ":" + port,
		Target: model.Address{Host: upName}, CanPool: true, Upstream: u}
	ingressBehaviour(r)
	switch {
	case niAdded:
		// What lets a write through is the ConfigMap's key, not the
		// setting of the conditions: a fix changes it there.
		for i := range r.Reexecutes {
			r.Reexecutes[i].Methods = r.Reexecutes[i].Methods.NarrowedBy(ni.Name(), ni.Pos())
		}
	case ni.Value == "true" && ni.Explicit():
		// The conditions name non_idempotent, and the ConfigMap would
		// add it again were it removed from them (buildNextUpstream).
		for i := range r.Reexecutes {
			r.Reexecutes[i].Methods = r.Reexecutes[i].Methods.AlsoBy(ni.Name(), ni.Pos())
		}
	}
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
	r.MaxAttempts = model.Revalued(on, 1)
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
		r.MaxAttempts = r.MaxAttempts.WithNote("no cap: the Lua balancer adds a try on every pick")
	}
	if r.MaxAttempts.Value > 1 {
		r.Reexecutes = nginxReexecutions(on)
	}
}
