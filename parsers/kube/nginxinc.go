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

// NGINX Inc's Ingress controller (nginx/kubernetes-ingress, "NGINX
// Ingress Controller"), which also serves the class "nginx" but is not
// ingress-nginx: it writes each Ingress into nginx configuration from its
// templates (internal/configs/version1/nginx.ingress.tmpl), with the
// settings of its annotations (nginx.org/KEY, internal/configs/
// annotations.go), its ConfigMap (internal/configs/configmaps.go) and its
// defaults (internal/configs/config_params.go, NewDefaultConfigParams).
// Line numbers are of the v5.5.4 tag; the defaults read here are the same
// since v2.4.0.
//
//   - Each Ingress backend is an upstream of its own, named
//     NAMESPACE-INGRESS-HOST-SERVICE-PORT (ingress.go:1143-1148), with one
//     server per endpoint of the Service (the pods' addresses, not the
//     Service's cluster IP, unless nginx.org/use-cluster-ip), each written
//     "server ADDRESS max_fails=1 fail_timeout=10s max_conns=0"
//     (nginx.ingress.tmpl:12; config_params.go:279-282).
//   - The upstream keeps no idle connections unless keepalive is set:
//     "keepalive N" is written only when it is above 0 (nginx.ingress.tmpl:
//     14-16; ingress.go:711-714), and the default is 0
//     (config_params.go: Keepalive is not set). Every location sends
//     proxy_http_version 1.1, with Connection "" only when keepalive is set
//     (nginx.ingress.tmpl:352-358).
//   - proxy_connect_timeout, proxy_read_timeout and proxy_send_timeout are
//     60s (config_params.go:262-264; nginx.ingress.tmpl:368-370).
//   - proxy_next_upstream, its timeout and tries are written only when an
//     annotation sets them (nginx.ingress.tmpl:412-420; annotations.go:
//     317-335, since v5.4.0), so nginx's defaults apply otherwise: "error
//     timeout", no time limit, as many tries as servers.

const (
	nginxIncPrefix      = "nginx.org/"
	noteNginxIncDefault = "NGINX Ingress Controller's default (nginx/kubernetes-ingress, internal/configs/config_params.go)"
	noteNginxIncNginx   = "nginx's default: NGINX Ingress Controller writes no such directive unless an annotation sets it (internal/configs/version1/nginx.ingress.tmpl)"
	noteNginxIncPeers   = "one server per endpoint of the Service: how many the Service has is not in the manifests, so retries are judged as for one"
)

var (
	keyIncConnect     = ingressDefault{key: "proxy-connect-timeout", value: "60s"}
	keyIncRead        = ingressDefault{key: "proxy-read-timeout", value: "60s"}
	keyIncSend        = ingressDefault{key: "proxy-send-timeout", value: "60s"}
	keyIncKeepalive   = ingressDefault{key: "keepalive", value: "0"}
	keyIncNext        = ingressDefault{key: "proxy-next-upstream", value: "error timeout", annotationOnly: true}
	keyIncNextTimeout = ingressDefault{key: "proxy-next-upstream-timeout", value: "0", annotationOnly: true}
	keyIncNextTries   = ingressDefault{key: "proxy-next-upstream-tries", value: "0", annotationOnly: true}
	keyIncMaxFails    = ingressDefault{key: "max-fails", value: "1"}
	keyIncFailTimeout = ingressDefault{key: "fail-timeout", value: "10s"}
)

// nginx's defaults for an upstream's idle connections, which the
// controller's template leaves unset (ngx_http_upstream_keepalive_module:
// keepalive_timeout 60s, keepalive_time 1h).
const (
	nginxKeepaliveTimeout = 60 * time.Second
	nginxKeepaliveTime    = time.Hour
)

// nextUpstreamRead reports whether the target reads the
// nginx.org/proxy-next-upstream annotations: since v5.4.0.
func nextUpstreamRead(t model.Target) bool {
	return releases.NginxIncNextUpstream.In(t)
}

func (l *loader) nginxIncPath(p *model.Proxy, ln *model.Listener, ing *object, host string, path *yaml.Node, s ingressScope, ups map[string]*model.Upstream) *model.Route {
	r := ingressRoute(ln, ing, host, path)
	n := r.Nginx
	r.ConnectTimeout = s.seconds(keyIncConnect)
	r.AttemptTimeout = s.seconds(keyIncRead)
	n.SendTimeout = s.seconds(keyIncSend)
	n.HTTPVersion = model.NewSetting("1.1", "proxy_http_version", "default", s.block, true, "NGINX Ingress Controller writes proxy_http_version 1.1 in every location (internal/configs/version1/nginx.ingress.tmpl)")
	s.seconds(keyIncFailTimeout) // checked only: failed servers are not modelled
	s.count(keyIncMaxFails)

	next := []ingressDefault{keyIncNext, keyIncNextTimeout, keyIncNextTries}
	if !nextUpstreamRead(p.Target) {
		for _, d := range next {
			if k, v := getKV(s.annotations, nginxIncPrefix+d.key); v != nil {
				l.diag(CodeIgnored, model.Warning, ing.pos(k),
					"%s%s is ignored: NGINX Ingress Controller %s does not read it (it does since %s), so nginx's default applies", nginxIncPrefix, d.key, p.Target.Version,
					releases.Full(releases.NginxIncNextUpstream.Since(model.NginxIngress)))
			}
		}
		s.annotations = withoutKeys(s.annotations, nginxIncPrefix, next)
	}
	on := s.text(keyIncNext)
	r.Retry.On = model.Revalued(on, strings.Fields(on.Value))
	r.Budget = s.seconds(keyIncNextTimeout)
	n.Tries = s.count(keyIncNextTries)
	if r.Retry.On.Default() {
		r.Retry.On = r.Retry.On.WithNote(noteNginxIncNginx)
	}
	if r.Budget.Default() {
		r.Budget = r.Budget.WithNote(noteNginxIncNginx)
	}
	if n.Tries.Default() {
		n.Tries = n.Tries.WithNote(noteNginxIncNginx)
	}

	svc, svcName, port := ingressBackend(path)
	if svcName == "" {
		return r
	}
	ns := ing.Namespace
	if ns == "" {
		ns = "default"
	}
	hostPart := host
	if hostPart == "" {
		hostPart = "default"
	}
	upName := ns + "-" + ing.Name + "-" + hostPart + "-" + svcName + "-" + port
	u, ok := ups[upName]
	if !ok {
		u = &model.Upstream{Proxy: p, Kind: "upstream", Name: upName, Pos: ing.pos(path),
			Servers:            []model.Server{{Address: model.Address{Host: fqdn(svcName, ns)}, Raw: svcName, Pos: ing.pos(path), Service: serviceRef(ns, svcName, port)}},
			ClosedUnderRequest: "retry",
		}
		clusterIP, _ := strconv.ParseBool(scalar(get(s.annotations, nginxIncPrefix+"use-cluster-ip")))
		u.Servers = l.endpointServers(u.Servers[0], clusterIP)
		u.PoolSize = s.count(keyIncKeepalive)
		if u.PoolSize.Default() {
			u.PoolSize = u.PoolSize.WithNote("NGINX Ingress Controller writes no keepalive directive unless its ConfigMap or an nginx.org/keepalive annotation sets one (internal/configs/ingress.go, nginx.ingress.tmpl)")
		}
		u.PoolIdle = model.NewSetting(nginxKeepaliveTimeout, "keepalive_timeout", "default", s.block, true, "nginx's default: the controller's template writes no keepalive_timeout")
		u.PoolLifetime = model.NewSetting(nginxKeepaliveTime, "keepalive_time", "default", s.block, true, "nginx's default: the controller's template writes no keepalive_time")
		ups[upName] = u
		p.Upstreams = append(p.Upstreams, u)
	}
	u.Routes = append(u.Routes, r)
	module := "proxy"
	grpcKey, grpcServices := getKV(s.annotations, nginxIncPrefix+"grpc-services")
	http2, _ := strconv.ParseBool(scalar(get(s.data, "http2")))
	switch {
	case listsService(s.annotations, nginxIncPrefix+"grpc-services", svcName) && !http2:
		// internal/configs/ingress.go:261-265: "requires HTTP2,
		// ignoring"; http2 is false unless the ConfigMap sets it
		// (configmaps.go:147-155).
		if at := ing.pos(grpcKey); !l.once[at] {
			l.once[at] = true
			l.diag(CodeIgnored, model.Warning, at,
				"nginx.org/grpc-services is ignored: NGINX Ingress Controller reads it only when its ConfigMap sets http2: \"true\", so %s is proxied as HTTP/1.1, not gRPC", scalar(grpcServices))
		}
	case listsService(s.annotations, nginxIncPrefix+"grpc-services", svcName):
		module = "grpc"
		r.Stream = model.Set(true, nginxIncPrefix+"grpc-services", "annotation", ing.pos(grpcServices))
	case listsService(s.annotations, nginxIncPrefix+"websocket-services", svcName):
		r.Stream = model.Set(true, nginxIncPrefix+"websocket-services", "annotation", ing.pos(get(s.annotations, nginxIncPrefix+"websocket-services")))
	}
	r.Forward = &model.Forward{Module: module, Name: "backend.service", Pos: ing.pos(svc), URL: svcName + ":" + port,
		Target: model.Address{Host: upName}, CanPool: true, Upstream: u}
	nginxIncBehaviour(r)
	return r
}

// minionInherits are the annotations a minion Ingress takes from its
// master when it does not set them itself (internal/configs/
// annotations.go v5.5.4:141-167, minionInheritanceList; applied at
// :807-815, mergeMasterAnnotationsIntoMinion). The proxy-next-upstream annotations are not among them.
var minionInherits = map[string]bool{}

func init() {
	for _, k := range []string{"proxy-connect-timeout", "proxy-read-timeout", "proxy-send-timeout", "client-max-body-size",
		"proxy-buffering", "proxy-buffers", "proxy-buffer-size", "proxy-busy-buffers-size", "proxy-max-temp-file-size",
		"upstream-zone-size", "location-snippets", "lb-method", "keepalive", "max-fails", "max-conns", "fail-timeout",
		"limit-req-rate", "limit-req-key", "limit-req-zone-size", "limit-req-delay", "limit-req-no-delay", "limit-req-burst",
		"limit-req-dry-run", "limit-req-log-level", "limit-req-reject-code", "limit-req-scale"} {
		minionInherits[nginxIncPrefix+k] = true
	}
}

// mergeableType is an NGINX Inc Ingress's nginx.org/mergeable-ingress-type:
// "master" (the host, and annotations for its minions), "minion" (paths
// of the master's host), or "".
func mergeableType(ing *object) string {
	return scalar(get(get(get(ing.Node, "metadata"), "annotations"), nginxIncPrefix+"mergeable-ingress-type"))
}

func ingressHost(ing *object) string {
	for _, rule := range items(get(ing.Spec, "rules")) {
		if h := scalar(get(rule, "host")); h != "" {
			return h
		}
	}
	return ""
}

// mergeableMasters are the master Ingresses of the run by host; the
// oldest is the one the controller takes, here the first in the run.
func (l *loader) mergeableMasters(ings []*object) map[string]*object {
	out := map[string]*object{}
	for _, ing := range ings {
		if mergeableType(ing) != "master" {
			continue
		}
		h := ingressHost(ing)
		if _, ok := out[h]; !ok {
			out[h] = ing
		}
	}
	return out
}

// masterOf is the master of a minion Ingress: the master of its host in
// the run. Without one, what a master would give it is not known: a note
// says so, and the defaults are assumed.
func (l *loader) masterOf(minion *object, masters map[string]*object) *object {
	h := ingressHost(minion)
	if m := masters[h]; m != nil {
		return m
	}
	at := minion.pos(get(get(get(minion.Node, "metadata"), "annotations"), nginxIncPrefix+"mergeable-ingress-type"))
	if !l.once[at] {
		l.once[at] = true
		l.diag("load-error", model.Note, at, "Ingress %s is a minion of host %s, whose master Ingress is not in the input: the timeouts and keepalive a master gives its minions are not known, and the controller's defaults are assumed (lint the master with it)", minion.Name, h)
	}
	return nil
}

// endpointServers are the servers NGINX Inc writes for a Service: one
// per endpoint (nginx.ingress.tmpl:11-13, nginx.virtualserver.tmpl:9-11),
// each one address, when the run says how many pods serve it; the
// Service's cluster IP alone with use-cluster-ip; else the Service's name
// alone, which stands for as many endpoints as it has.
func (l *loader) endpointServers(s model.Server, clusterIP bool) []model.Server {
	if clusterIP {
		s.Addresses = 1
		return []model.Server{s}
	}
	n := l.endpoints(s.Service)
	if n == 0 {
		return []model.Server{s}
	}
	s.Addresses = 1
	out := make([]model.Server, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// listsService reports whether the annotation key lists the Service
// name (nginx.org/grpc-services: "a,b").
func listsService(ann *yaml.Node, key, name string) bool {
	for _, s := range strings.Split(scalar(get(ann, key)), ",") {
		if strings.TrimSpace(s) == name {
			return true
		}
	}
	return false
}

// withoutKeys is a copy of the annotations without the keys of ds.
func withoutKeys(ann *yaml.Node, prefix string, ds []ingressDefault) *yaml.Node {
	if ann == nil || ann.Kind != yaml.MappingNode {
		return ann
	}
	drop := map[string]bool{}
	for _, d := range ds {
		drop[prefix+d.key] = true
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: ann.Tag, Line: ann.Line, Column: ann.Column}
	for i := 0; i+1 < len(ann.Content); i += 2 {
		if !drop[ann.Content[i].Value] {
			out.Content = append(out.Content, ann.Content[i], ann.Content[i+1])
		}
	}
	return out
}

// nginxIncBehaviour: what an NGINX Inc location does. The upstream has
// one server per endpoint of the Service: nginx tries the next server on
// a retried failure, up to the number of servers or
// proxy_next_upstream_tries (docs/semantics.md §C). How many endpoints a
// Service has is known when the workloads it selects in the run all say
// how many replicas they run (one server each: endpointServers); otherwise it is
// not in the manifests, and the tries are taken as one, as for an nginx
// server whose name resolves to addresses only DNS knows, unless
// proxy_next_upstream_tries is written above one: its author expects
// that many endpoints, and up to that many tries are counted. The pool is
// the keepalive directive's, none by default.
func nginxIncBehaviour(r *model.Route) {
	u := r.Forward.Upstream
	if u.PoolSize.Value > 0 {
		r.Pool = &model.Pool{Upstream: u, Size: u.PoolSize, Idle: u.PoolIdle, Lifetime: u.PoolLifetime}
	}
	on := r.Retry.On
	r.MaxAttempts = model.NewSetting(1, on.Name(), on.Level(), on.Pos(), on.Default(), noteNginxIncPeers)
	if !nginxRetries(on.Value) {
		return
	}
	tries := r.Nginx.Tries
	peers, exact := u.Peers()
	switch {
	case exact && peers >= 2:
		r.MaxAttempts = model.NewSetting(peers, on.Name(), on.Level(), on.Pos(), on.Default(), fmt.Sprintf("one server per endpoint: the workloads the Service selects run %d replicas", peers))
		if t := tries.Value; t > 0 && t < peers {
			r.MaxAttempts = tries
		}
	case exact:
		return // one endpoint, or the Service's cluster IP: no next server
	case tries.Explicit() && tries.Value >= 2:
		r.MaxAttempts = tries
		r.MaxAttempts = r.MaxAttempts.WithNote(fmt.Sprintf("up to %d tries when the Service has %d endpoints or more (how many it has is not in the manifests)", tries.Value, tries.Value))
	default:
		return
	}
	r.Reexecutes = nginxReexecutions(on)
}

// nginxRetries reports whether nginx conditions pass anything to the next
// server: "off" wins, and non_idempotent alone retries nothing.
func nginxRetries(on []string) bool {
	if contains(on, "off") {
		return false
	}
	for _, c := range on {
		if c != "non_idempotent" {
			return true
		}
	}
	return false
}

// nginxReexecutions lists the *_next_upstream conditions that can send a
// request to the next server after the previous one may have run it, and
// the methods they send again: all but POST, PATCH and LOCK unless
// non_idempotent is among them (ngx_http_upstream.c).
func nginxReexecutions(on model.Setting[[]string]) []model.Reexecution {
	methods := model.Methods{Any: true, Except: ingressNonIdempotent}.NarrowedBy(on.Name(), on.Pos())
	if contains(on.Value, "non_idempotent") {
		methods.Except = nil
	}
	var out []model.Reexecution
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
		out = append(out, x)
	}
	return out
}
