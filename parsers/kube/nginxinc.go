package kube

import (
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
	n.HTTPVersion = model.Setting[string]{Value: "1.1", Name: "proxy_http_version", Level: "default", Pos: s.block, Default: true,
		Note: "NGINX Ingress Controller writes proxy_http_version 1.1 in every location (internal/configs/version1/nginx.ingress.tmpl)"}
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
	r.Retry.On = model.Setting[[]string]{Value: strings.Fields(on.Value), Name: on.Name, Level: on.Level, Pos: on.Pos, Default: on.Default, Note: on.Note}
	r.Budget = s.seconds(keyIncNextTimeout)
	n.Tries = s.count(keyIncNextTries)
	if r.Retry.On.Default {
		r.Retry.On.Note = noteNginxIncNginx
	}
	if r.Budget.Default {
		r.Budget.Note = noteNginxIncNginx
	}
	if n.Tries.Default {
		n.Tries.Note = noteNginxIncNginx
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
		u.PoolSize = s.count(keyIncKeepalive)
		if u.PoolSize.Default {
			u.PoolSize.Note = "NGINX Ingress Controller writes no keepalive directive unless its ConfigMap or an nginx.org/keepalive annotation sets one (internal/configs/ingress.go, nginx.ingress.tmpl)"
		}
		u.PoolIdle = model.Setting[time.Duration]{Value: nginxKeepaliveTimeout, Name: "keepalive_timeout", Level: "default", Pos: s.block, Default: true, Note: "nginx's default: the controller's template writes no keepalive_timeout"}
		u.PoolLifetime = model.Setting[time.Duration]{Value: nginxKeepaliveTime, Name: "keepalive_time", Level: "default", Pos: s.block, Default: true, Note: "nginx's default: the controller's template writes no keepalive_time"}
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
// one server per endpoint of the Service, which the manifests do not
// count: nginx tries the next server on a retried failure, up to the
// number of servers or proxy_next_upstream_tries, so the number of tries
// is not known and is taken as one (as for an nginx server whose name
// resolves to addresses only DNS knows). The pool is the keepalive
// directive's, none by default.
func nginxIncBehaviour(r *model.Route) {
	u := r.Forward.Upstream
	if u.PoolSize.Value > 0 {
		r.Pool = &model.Pool{Upstream: u, Size: u.PoolSize, Idle: u.PoolIdle, Lifetime: u.PoolLifetime}
	}
	on := r.Retry.On
	r.MaxAttempts = model.Setting[int]{Value: 1, Name: on.Name, Pos: on.Pos, Level: on.Level, Default: on.Default, Note: noteNginxIncPeers}
}
