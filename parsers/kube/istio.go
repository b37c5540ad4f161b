package kube

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/internal/envoyroute"
	"github.com/proxylint/proxylint/releases"
)

// Istio's defaults, with where istiod sets them (istio/istio, the release
// tags named). docs/kubernetes.md lists them.
const (
	// pilot/pkg/networking/core/route/retry/retry.go (1.23.0:46-48,
	// 1.24.0:47-53): a route without a retries block gets 2 retries on
	// these conditions.
	defaultAttempts = 2
	defaultRetryOn  = "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes"
	// pkg/config/mesh/mesh.go (1.24.0:94): meshConfig.connectTimeout.
	defaultConnectTimeout = 10 * time.Second
	// Envoy's HttpProtocolOptions.idle_timeout, which istiod leaves alone
	// unless connectionPool sets idleTimeout
	// (pilot/pkg/networking/core/cluster_traffic_policy.go, 1.24.0:122-159).
	defaultIdleTimeout = time.Hour
)

const (
	noteTimeout = "Istio gives a route no timeout when its VirtualService sets none, " +
		"replacing Envoy's 15s default (pilot/pkg/networking/core/route/route.go, setTimeout: Notimeout)"
	noteRetryBefore124 = "Istio's default retry policy, applied to a route that sets no retry policy " +
		"(pilot/pkg/networking/core/route/retry/retry.go); before 1.24 it retries on a 503 response, " +
		"which the backend may have sent after it ran the request"
	noteRetry124 = "Istio's default retry policy, applied to a route that sets no retry policy " +
		"(pilot/pkg/networking/core/route/retry/retry.go); since 1.24 it retries no 503 unless istiod runs " +
		"with EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY=false (until 1.26)"
	noteRetryFields = "what Istio's retry policy keeps when the retries block does not say " +
		"(pilot/pkg/networking/core/route/retry/retry.go, ConvertPolicy)"
	noteIdle    = "Envoy's default idle_timeout for upstream connections, which Istio keeps"
	noteConnect = "meshConfig.connectTimeout, 10s unless the mesh sets another (pkg/config/mesh/mesh.go)"
)

// default503 reports whether the target's default retry policy retries a
// 503 response: before 1.24 always; from 1.24 only with a feature flag
// that is off by default (features.Exclude503FromDefaultRetries).
func (l *loader) default503() bool { return !releases.IstioNo503Retry.In(l.target) }

// dur reads a duration field of o: "10s", "0.5s", "1m30s", "250ms".
func (l *loader) dur(o *object, n *yaml.Node, field string) (time.Duration, bool) {
	s := scalar(n)
	if s == "" {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		l.invalid(o.pos(n), "%s: %q is not a duration (want e.g. 10s, 500ms, 1m30s); the field is left out", field, s)
		return 0, false
	}
	return d, true
}

// count reads a non-negative integer field of o.
func (l *loader) count(o *object, n *yaml.Node, field string) (int, bool) {
	s := scalar(n)
	if s == "" {
		return 0, false
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		l.invalid(o.pos(n), "%s: %q is not a count (want 0 or more); the field is left out", field, s)
		return 0, false
	}
	return v, true
}

// fqdn expands a short service name the way Istio does, relative to the
// namespace of the resource that names it.
func fqdn(host, ns string) string {
	if host == "" || strings.Contains(host, ".") || strings.HasPrefix(host, "*") {
		return host
	}
	if ns == "" {
		ns = "default"
	}
	return host + "." + ns + ".svc.cluster.local"
}

// istio builds the proxy for Istio's resources: a listener per
// VirtualService, a route per http entry, and an upstream per destination
// host and subset, whose pool settings come from the DestinationRule for
// that host.
func (l *loader) istio(p *model.Proxy, vss, routes, drs, svcs, gws []*object) *mesh {
	ups := map[string]*model.Upstream{}
	m := &mesh{p: p, drs: newDRIndex(drs), svcs: servicesByHost(svcs), ups: ups, gateways: gws, svcList: svcs, bound: map[*object]bool{}}
	for _, vs := range vss {
		l.virtualService(m, vs)
	}
	for _, o := range routes {
		l.gatewayRoute(m, o)
	}
	// A DestinationRule whose host no route names still configures its
	// cluster: it is read so that its own settings are checked.
	for _, dr := range drs {
		host := fqdn(scalar(get(dr.Spec, "host")), dr.Namespace)
		if host == "" || strings.HasPrefix(host, "*") {
			continue
		}
		if _, ok := ups[host+"|"]; !ok {
			ups[host+"|"] = l.upstream(p, host, "", 0, dr, get(dr.Spec, "host"), m.drs)
		}
	}
	return m
}

func (l *loader) virtualService(m *mesh, vs *object) {
	p := m.p
	ln := &model.Listener{Proxy: p, Name: "VirtualService " + vs.Name, Pos: vs.pos(vs.Node), MeshHosts: meshHosts(vs), Hosts: scalars(get(vs.Spec, "hosts")), Select: firstMatch}
	p.Listeners = append(p.Listeners, ln)
	l.bindGateways(ln, vs, m)
	for i, h := range items(get(vs.Spec, "http")) {
		r := l.httpRoute(ln, vs, i, h)
		ln.Routes = append(ln.Routes, r)
		dests := items(get(h, "route"))
		if len(dests) == 0 {
			continue // redirect, directResponse: nothing is proxied
		}
		// The first destination stands for the route: weighted
		// destinations share its retry policy and timeouts.
		d := get(dests[0], "destination")
		hostNode := get(d, "host")
		host := fqdn(scalar(hostNode), vs.Namespace)
		if host == "" {
			continue
		}
		subset := scalar(get(d, "subset"))
		port, _ := strconv.Atoi(scalar(get(get(d, "port"), "number")))
		l.forward(r, m, dest{host: host, subset: subset, port: port, o: vs, node: hostNode, field: "destination.host"})
	}
}

// mesh is what the resources of one run share.
type mesh struct {
	p    *model.Proxy
	drs  *drIndex
	svcs map[string][]*object       // by host
	ups  map[string]*model.Upstream // by host and subset
	// gateways are the run's Istio Gateways, bound those a
	// VirtualService of the run is bound to; svcList the run's Services.
	gateways []*object
	bound    map[*object]bool
	svcList  []*object
}

// dest is where a route forwards.
type dest struct {
	host, subset string
	port         int
	o            *object
	node         *yaml.Node // the host as written, in o
	field        string
}

// forward points a route at the upstream for its destination, and
// computes what the route does.
func (l *loader) forward(r *model.Route, m *mesh, d dest) {
	key := d.host + "|" + d.subset
	u, ok := m.ups[key]
	if !ok {
		u = l.upstream(m.p, d.host, d.subset, d.port, d.o, d.node, m.drs)
		m.ups[key] = u
	}
	u.Routes = append(u.Routes, r)
	r.Forward = &model.Forward{
		Module: "envoy", Name: d.field, Pos: d.o.pos(d.node), URL: scalar(d.node),
		Target: model.Address{Host: d.host, Port: d.port, Pos: d.o.pos(d.node)}, CanPool: true, Upstream: u,
	}
	r.ConnectTimeout = u.ConnectTimeout
	if !r.Stream.Valid() && grpcPort(m.svcs, d.host, d.port) {
		r.Stream = model.Set(true, "ports.appProtocol", "service", d.o.pos(d.node))
	}
	envoyroute.Istio(r, l.default503())
}

// httpRoute reads one entry of a VirtualService's http list.
func (l *loader) httpRoute(ln *model.Listener, vs *object, i int, h *yaml.Node) *model.Route {
	name := fmt.Sprintf("%s http[%d]", ln.Name, i)
	if n := scalar(get(h, "name")); n != "" {
		name = fmt.Sprintf("%s http %q", ln.Name, n)
	}
	r := &model.Route{Listener: ln, Kind: "route", Name: name, Pos: vs.pos(h), Envoy: &model.EnvoyRoute{}}
	r.Match, r.Methods = matches(vs, h)
	e := r.Envoy
	if n := get(h, "timeout"); n != nil {
		if d, ok := l.dur(vs, n, "timeout"); ok {
			e.Timeout = model.Set(d, "timeout", "route", vs.pos(n))
		}
	}
	if !e.Timeout.Valid() {
		e.Timeout = model.Default(time.Duration(0), "timeout", r.Pos)
		e.Timeout = e.Timeout.WithNote(noteTimeout)
	}
	l.retries(r, vs, h)
	return r
}

// matches reads the route's request conditions: the first uri condition
// for the path, and the methods every match lets through (a match without
// a method condition lets every method through).
func matches(o *object, h *yaml.Node) (model.Match, model.Methods) {
	match := model.Match{Kind: model.MatchPrefix, Path: "/", CaseSensitive: true}
	ms := items(get(h, "match"))
	methods := model.Methods{Any: true}
	if len(ms) == 0 {
		return match, methods
	}
	for i, m := range ms {
		if uri := get(m, "uri"); uri != nil && i == 0 {
			for _, k := range []model.MatchKind{model.MatchExact, model.MatchPrefix, model.MatchRegex} {
				if v := get(uri, string(k)); v != nil {
					match = model.Match{Kind: k, Path: scalar(v), CaseSensitive: scalar(get(m, "ignoreUriCase")) != "true"}
				}
			}
		}
	}
	allowed, narrowed := []string{}, true
	var pos *yaml.Node
	for _, m := range ms {
		mk, mv := getKV(m, "method")
		if mv == nil {
			narrowed = false
			break
		}
		if pos == nil {
			pos = mk
		}
		switch {
		case get(mv, "exact") != nil:
			allowed = appendNew(allowed, strings.ToUpper(scalar(get(mv, "exact"))))
		case get(mv, "regex") != nil && simpleAlternation(scalar(get(mv, "regex"))):
			for _, x := range strings.Split(scalar(get(mv, "regex")), "|") {
				allowed = appendNew(allowed, x)
			}
		default:
			narrowed = false // a prefix or regex that may let anything through
		}
	}
	if narrowed {
		methods = model.Methods{Allowed: allowed}.NarrowedBy("match.method", o.pos(pos))
	}
	return match, methods
}

// simpleAlternation reports whether a method regex is a list of method
// names such as "GET|HEAD".
func simpleAlternation(re string) bool {
	if re == "" {
		return false
	}
	for _, c := range re {
		if (c < 'A' || c > 'Z') && c != '|' {
			return false
		}
	}
	return true
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// retries reads the route's retries block, or, when there is none, applies
// the mesh's defaultHttpRetryPolicy or else Istio's default policy
// (ConvertPolicy: in == nil). A block with attempts 0 or without attempts
// turns retries off (in.Attempts <= 0); one without retryOn keeps the
// default conditions.
func (l *loader) retries(r *model.Route, o *object, h *yaml.Node) {
	e := r.Envoy
	key, block := getKV(h, "retries")
	if block == nil && l.mesh != nil {
		l.retryPolicy(r, l.mesh.o, l.mesh.key, l.mesh.policy, meshPrefix, "mesh",
			"a defaultHttpRetryPolicy without attempts turns retries off for every route that sets no retries")
		return
	}
	if block == nil {
		e.NumRetries = model.Default(defaultAttempts, "retries.attempts", r.Pos)
		on := model.Default(strings.Split(defaultRetryOn, ","), "retries.retryOn", r.Pos)
		on = on.WithNote(noteRetry124)
		if l.default503() {
			on = on.WithNote(noteRetryBefore124)
		}
		e.NumRetries = e.NumRetries.WithNote(on.Note())
		r.Retry.On = on
		return
	}
	l.retryPolicy(r, o, key, block, "retries.", "route", "a retries block without attempts turns retries off")
}

// meshPrefix names the fields of the mesh's retry policy.
const meshPrefix = "meshConfig.defaultHttpRetryPolicy."

// retryPolicy reads an HTTPRetry (a route's retries block, or the mesh's
// defaultHttpRetryPolicy) as ConvertPolicy does: the fields it sets
// override Istio's default policy.
func (l *loader) retryPolicy(r *model.Route, o *object, key, block *yaml.Node, prefix, level, noAttempts string) {
	e := r.Envoy
	attemptsNode := get(block, "attempts")
	attempts, _ := l.count(o, attemptsNode, prefix+"attempts")
	if attemptsNode != nil {
		e.NumRetries = model.Set(attempts, prefix+"attempts", level, o.pos(attemptsNode))
	} else {
		e.NumRetries = model.NewSetting(0, prefix+"attempts", level, o.pos(key), false, noAttempts)
	}
	if n := get(block, "perTryTimeout"); n != nil {
		if d, ok := l.dur(o, n, prefix+"perTryTimeout"); ok {
			e.PerTryTimeout = model.Set(d, prefix+"perTryTimeout", level, o.pos(n))
		}
	}
	if n := get(block, "retryOn"); scalar(n) != "" {
		var toks []string
		for _, t := range strings.Split(scalar(n), ",") {
			if t = strings.TrimSpace(t); t != "" {
				toks = append(toks, t)
			}
		}
		r.Retry.On = model.Set(toks, prefix+"retryOn", level, o.pos(n))
	} else {
		on := model.Default(strings.Split(defaultRetryOn, ","), prefix+"retryOn", o.pos(key))
		on = on.WithNote(noteRetryFields)
		r.Retry.On = on
	}
}
