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

// Gateway API routes as Istio implements them: istiod translates each
// rule of an HTTPRoute or GRPCRoute into a VirtualService http route
// (pilot/pkg/config/kube/gateway/conversion.go, convertHTTPRoute), so
// Istio's defaults apply to what the route leaves unsaid.

const (
	noteGatewayAttempts = "Istio's default when retry names no attempts " +
		"(pilot/pkg/config/kube/gateway/conversion.go, convertHTTPRoute)"
	// conversion.go (1.26.0:174-177): a retry stanza retries on these
	// besides its codes.
	gatewayRetryOn = "connect-failure,refused-stream,unavailable,cancelled"
)

// gatewayAPI reports whether v is an API version of the Gateway API.
func gatewayAPI(v string) bool {
	switch v {
	case "gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1", "gateway.networking.k8s.io/v1alpha2":
		return true
	}
	return false
}

// retryRead reports whether the target translates an HTTPRoute's retry
// stanza: istiod reads it since 1.25 (conversion.go 1.25.0:271).
func (l *loader) retryRead() bool { return releases.IstioHTTPRouteRetry.In(l.target) }

func (l *loader) gatewayRoute(m *mesh, o *object) {
	ln := &model.Listener{Proxy: m.p, Name: o.Kind + " " + o.Name, Pos: o.pos(o.Node)}
	m.p.Listeners = append(m.p.Listeners, ln)
	grpc := o.Kind == "GRPCRoute"
	for i, rule := range items(get(o.Spec, "rules")) {
		name := fmt.Sprintf("%s rules[%d]", ln.Name, i)
		if n := scalar(get(rule, "name")); n != "" {
			name = fmt.Sprintf("%s rule %q", ln.Name, n)
		}
		r := &model.Route{Listener: ln, Kind: "route", Name: name, Pos: o.pos(rule), Envoy: &model.EnvoyRoute{}}
		ln.Routes = append(ln.Routes, r)
		r.Match, r.Methods = gatewayMatches(o, rule, grpc)
		if grpc {
			r.Stream = model.Set(true, "GRPCRoute", "route", r.Pos)
		}
		l.gatewayPolicy(r, o, rule, grpc)
		refs := items(get(rule, "backendRefs"))
		if len(refs) == 0 {
			continue // istiod answers 500 itself
		}
		ref := refs[0]
		if k := scalar(get(ref, "kind")); k != "" && k != "Service" {
			continue
		}
		nameNode := get(ref, "name")
		ns := scalar(get(ref, "namespace"))
		if ns == "" {
			ns = o.Namespace
		}
		host := fqdn(scalar(nameNode), ns)
		if host == "" {
			continue
		}
		port, _ := strconv.Atoi(scalar(get(ref, "port")))
		l.forward(r, m, dest{host: host, port: port, o: o, node: nameNode, field: "backendRefs.name"})
	}
}

// gatewayMatches reads a rule's matches: the first path, and the methods
// (an HTTPRoute match without method carries every method; gRPC is POST).
func gatewayMatches(o *object, rule *yaml.Node, grpc bool) (model.Match, model.Methods) {
	match := model.Match{Kind: model.MatchPrefix, Path: "/", CaseSensitive: true}
	ms := items(get(rule, "matches"))
	if grpc {
		return match, model.Methods{Allowed: []string{"POST"}}.NarrowedBy("GRPCRoute", o.pos(rule)).Because("a GRPCRoute carries gRPC calls, and every gRPC call is a POST")
	}
	if len(ms) == 0 {
		return match, model.Methods{Any: true}
	}
	if path := get(ms[0], "path"); path != nil {
		kind := model.MatchPrefix
		switch scalar(get(path, "type")) {
		case "Exact":
			kind = model.MatchExact
		case "RegularExpression":
			kind = model.MatchRegex
		}
		v := scalar(get(path, "value"))
		if v == "" {
			v = "/"
		}
		match = model.Match{Kind: kind, Path: v, CaseSensitive: true}
	}
	var allowed []string
	var pos *yaml.Node
	for _, mt := range ms {
		k, v := getKV(mt, "method")
		if v == nil {
			return match, model.Methods{Any: true}
		}
		if pos == nil {
			pos = k
		}
		allowed = appendNew(allowed, strings.ToUpper(scalar(v)))
	}
	return match, model.Methods{Allowed: allowed}.NarrowedBy("matches.method", o.pos(pos))
}

// gatewayPolicy reads a rule's timeouts and retry as istiod translates
// them (conversion.go 1.26.0:174-215): without a retry stanza the route
// gets Istio's default retry policy; timeouts.backendRequest becomes the
// per-try timeout when there is a retry stanza, and otherwise replaces
// timeouts.request as the route timeout.
func (l *loader) gatewayPolicy(r *model.Route, o *object, rule *yaml.Node, grpc bool) {
	e := r.Envoy
	retryKey, retry := getKV(rule, "retry")
	if retry != nil && (grpc || !l.retryRead()) {
		policy := "Istio's default retry policy"
		if l.mesh != nil {
			policy = "the mesh's defaultHttpRetryPolicy"
		}
		l.diag(CodeIgnored, model.Warning, o.pos(retryKey),
			"retry is ignored: Istio reads an HTTPRoute's retry stanza only since 1.25, so this route gets %s", policy)
		retry = nil
	}
	if retry == nil {
		l.retries(r, o, rule) // no retries block: the default policy
	} else {
		an := get(retry, "attempts")
		if an != nil {
			v, _ := l.count(o, an, "retry.attempts")
			e.NumRetries = model.Set(v, "retry.attempts", "route", o.pos(an))
		} else {
			e.NumRetries = model.Default(2, "retry.attempts", o.pos(retryKey))
			e.NumRetries = e.NumRetries.WithNote(noteGatewayAttempts)
		}
		toks := strings.Split(gatewayRetryOn, ",")
		codesKey, codes := getKV(retry, "codes")
		for _, c := range items(codes) {
			if _, ok := l.count(o, c, "retry.codes"); ok {
				toks = append(toks, scalar(c))
			}
		}
		at := retryKey
		if codesKey != nil {
			at = codesKey
		}
		r.Retry.On = model.Set(toks, "retry.codes", "route", o.pos(at))
	}
	timeouts := get(rule, "timeouts")
	if n := get(timeouts, "request"); n != nil {
		if d, ok := l.dur(o, n, "timeouts.request"); ok && d != 0 {
			e.Timeout = model.Set(d, "timeouts.request", "route", o.pos(n))
		}
	}
	if !e.Timeout.Valid() {
		e.Timeout = model.Default(time.Duration(0), "timeouts.request", r.Pos)
		e.Timeout = e.Timeout.WithNote(noteTimeout)
	}
	if n := get(timeouts, "backendRequest"); n != nil {
		if d, ok := l.dur(o, n, "timeouts.backendRequest"); ok && d != 0 {
			if retry != nil {
				e.PerTryTimeout = model.Set(d, "timeouts.backendRequest", "route", o.pos(n))
			} else {
				e.Timeout = model.Set(d, "timeouts.backendRequest", "route", o.pos(n))
			}
		}
	}
}
