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

// Envoy Gateway (--target envoy-gateway[:X.Y.Z]): an HTTPRoute's rules
// become Envoy routes, with the retry policy and timeouts of the
// BackendTrafficPolicy attached to the route, or else to its Gateway
// (envoyproxy/gateway, internal/gatewayapi/backendtrafficpolicy.go: a
// policy targeting the route wins over one targeting the Gateway).

const (
	// Envoy's route timeout, which Envoy Gateway leaves alone when neither
	// the HTTPRoute nor a policy sets one (internal/xds/translator/route.go
	// v1.1.2:103-104 sets it only from a request timeout).
	egDefaultTimeout = 15 * time.Second
	noteEGTimeout    = "Envoy's route timeout, which Envoy Gateway keeps when nothing sets one"
	// internal/xds/translator/route.go v1.1.2:25-27, 539-542: a policy's
	// retry block without numRetries, triggers or status codes.
	egDefaultRetryOn = "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes"
	noteEGRetry      = "Envoy Gateway's default for a BackendTrafficPolicy retry block (internal/xds/translator/route.go)"
)

// egMerges reports whether the target reads a BackendTrafficPolicy's
// mergeType: the field exists since 1.4.0
// (api/v1alpha1/backendtrafficpolicy_types.go v1.4.0:50-56); an older
// release's CRD has no such field, so the API server prunes it and the
// route policy replaces the gateway policy.
func egMerges(t model.Target) bool {
	return releases.GatewayMergeType.In(t)
}

// egDropsRouteTimeouts reports whether the target loses an HTTPRoute's
// timeouts when a BackendTrafficPolicy targets the route: 1.1.0 to 1.1.2
// rebuilt the route's traffic settings from the policy alone
// (backendtrafficpolicy.go v1.1.2:416-437; envoyproxy/gateway#4091, fixed
// in 1.1.3 and 1.2.0).
func (l *loader) egDropsRouteTimeouts(t model.Target) bool {
	return releases.GatewayDropsRouteTimeouts.In(t)
}

// btpTargets reports whether a policy targets an object of kind with
// name, namespace and labels: targetRef, targetRefs or targetSelectors. A
// reference with a sectionName (a Gateway's listener) is not a reference
// to the whole object.
func btpTargets(b *object, kind, name, ns string, labels *yaml.Node) (bool, *yaml.Node) {
	return policyTargets(b, kind, name, ns, "", labels)
}

// policyTargets is btpTargets for the section (listener) named section, or
// for the whole object when section is "". A policy's references are
// local: they name objects of its own namespace
// (gwapiv1a2.LocalPolicyTargetReferenceWithSectionName), so a policy and
// an object whose namespaces are both written and differ do not match; a
// namespace left unsaid (set when the manifest is applied, by kustomize or
// kubectl -n) matches any.
func policyTargets(b *object, kind, name, ns, section string, labels *yaml.Node) (bool, *yaml.Node) {
	if !sameNamespace(b.Namespace, ns) {
		return false, nil
	}
	refs := items(get(b.Spec, "targetRefs"))
	if r := get(b.Spec, "targetRef"); r != nil {
		refs = append(refs, r)
	}
	for _, r := range refs {
		if scalar(get(r, "kind")) == kind && scalar(get(r, "name")) == name && scalar(get(r, "sectionName")) == section {
			return true, r
		}
	}
	if section != "" {
		return false, nil // selectors name no section
	}
	for _, sel := range items(get(b.Spec, "targetSelectors")) {
		if scalar(get(sel, "kind")) == kind && selects(sel, labels) {
			return true, sel
		}
	}
	return false, nil
}

func (l *loader) envoyGateway(p *model.Proxy, routes, policies []*object) {
	var btps, ctps []*object
	for _, o := range policies {
		if o.Kind == "ClientTrafficPolicy" {
			ctps = append(ctps, o)
		} else {
			btps = append(btps, o)
		}
	}
	ups := map[string]*model.Upstream{}
	replaced := map[string]bool{}
	attached := map[*object]bool{}
	defer func() {
		for _, b := range policies {
			if !attached[b] {
				l.unattached(b, policies, routes)
			}
		}
	}()
	for _, o := range routes {
		if o.Kind != "HTTPRoute" {
			continue
		}
		labels := get(get(o.Node, "metadata"), "labels")
		pol := l.egPolicyFor(p.Target, o, labels, btps)
		attached[pol.route], attached[pol.gw] = true, true
		routeLevel := pol.route != nil
		ln := &model.Listener{Proxy: p, Name: "HTTPRoute " + o.Name, Pos: o.pos(o.Node)}
		p.Listeners = append(p.Listeners, ln)
		attached[l.egClient(p.Target, ln, o, ctps)] = true
		for i, rule := range items(get(o.Spec, "rules")) {
			r := &model.Route{Listener: ln, Kind: "route", Name: fmt.Sprintf("%s rules[%d]", ln.Name, i), Pos: o.pos(rule), Envoy: &model.EnvoyRoute{}}
			if n := scalar(get(rule, "name")); n != "" {
				r.Name = fmt.Sprintf("%s rule %q", ln.Name, n)
			}
			ln.Routes = append(ln.Routes, r)
			r.Match, r.Methods = gatewayMatches(o, rule, false)
			l.egTimeouts(p, r, o, rule, pol, routeLevel)
			l.egRetry(r, pol)
			l.egReplaced(p, r, rule, pol, replaced)
			refs := items(get(rule, "backendRefs"))
			if len(refs) == 0 {
				continue
			}
			nameNode := get(refs[0], "name")
			ns := scalar(get(refs[0], "namespace"))
			if ns == "" {
				ns = o.Namespace
			}
			host := fqdn(scalar(nameNode), ns)
			port, _ := strconv.Atoi(scalar(get(refs[0], "port")))
			key := host + ":" + strconv.Itoa(port)
			u, ok := ups[key]
			if !ok {
				u = &model.Upstream{Proxy: p, Kind: "backend", Name: key, Pos: o.pos(nameNode),
					Servers:            []model.Server{{Address: model.Address{Host: host, Port: port}, Raw: host, Pos: o.pos(nameNode)}},
					ClosedUnderRequest: "reset",
					PoolIdle:           model.Default(defaultIdleTimeout, "idle_timeout", o.pos(nameNode)),
					PoolLifetime:       model.Default(time.Duration(0), "max_connection_duration", o.pos(nameNode)),
				}
				ups[key] = u
				p.Upstreams = append(p.Upstreams, u)
			}
			u.Routes = append(u.Routes, r)
			r.Forward = &model.Forward{Module: "envoy", Name: "backendRefs.name", Pos: o.pos(nameNode), URL: scalar(nameNode),
				Target: model.Address{Host: host, Port: port}, CanPool: true, Upstream: u}
			r.Pool = &model.Pool{Upstream: u, Idle: u.PoolIdle, Lifetime: u.PoolLifetime}
			egBehaviour(r)
		}
	}
}

// egTimeouts: the HTTPRoute's timeouts.request (backendRequest replaces
// it: internal/gatewayapi/route.go v1.1.2:258-291), else the policy's
// timeout.http.requestTimeout, else Envoy's 15s (the HTTPRoute's timeout
// takes precedence: internal/xds/translator/route.go v1.4.0:312-326,
// getEffectiveRequestTimeout). A policy targeting the route drops the
// HTTPRoute's timeouts on 1.1.0 to 1.1.2; what is dropped is recorded on
// the proxy, with the policy that causes it.
func (l *loader) egTimeouts(p *model.Proxy, r *model.Route, o *object, rule *yaml.Node, pol egPolicy, routeLevel bool) {
	e := r.Envoy
	timeouts := get(rule, "timeouts")
	var written model.Setting[time.Duration]
	for _, f := range []string{"request", "backendRequest"} {
		if n := get(timeouts, f); n != nil {
			if d, ok := l.dur(o, n, "timeouts."+f); ok {
				written = model.Set(d, "timeouts."+f, "route", o.pos(n))
			}
		}
	}
	if written.Valid() && routeLevel && l.egDropsRouteTimeouts(p.Target) {
		policy := pol.route
		p.Dropped = append(p.Dropped, model.Drop{
			Setting: model.Set(fmt.Sprintf("BackendTrafficPolicy %s targets HTTPRoute %s, and Envoy Gateway %s rebuilds the route's settings from the policy alone, "+
				"so the route's %s %s is lost and Envoy's %s route timeout applies (envoyproxy/gateway#4091, fixed in 1.1.3 and 1.2.0)",
				policy.Name, strings.TrimPrefix(r.Listener.Name, "HTTPRoute "), p.Target.Version, written.Name(), dur(written.Value), dur(egDefaultTimeout)), written.Name(), "route", written.Pos()),
			By:     policy.pos(pol.routeRef),
			ByText: fmt.Sprintf("BackendTrafficPolicy %s attaches to the route here and makes it lose %s", policy.Name, written.Name()),
		})
		written = model.Setting[time.Duration]{}
	}
	switch {
	case written.Valid():
		e.Timeout = written
	default:
		if po, _, n := pol.field("timeout", "http", "requestTimeout"); n != nil {
			if d, ok := l.dur(po, n, "timeout.http.requestTimeout"); ok {
				e.Timeout = model.Set(d, "timeout.http.requestTimeout", "policy", po.pos(n))
			}
		}
	}
	if !e.Timeout.Valid() {
		e.Timeout = model.Default(egDefaultTimeout, "timeouts.request", r.Pos)
		e.Timeout = e.Timeout.WithNote(noteEGTimeout)
	}
}

func dur(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return d.String()
}

// egRetry: the policy's retry block (merged field by field with the
// gateway policy's under mergeType); no policy retry, no retries.
func (l *loader) egRetry(r *model.Route, pol egPolicy) {
	ko, key, retry := pol.field("retry")
	if retry == nil {
		return
	}
	e := r.Envoy
	if po, _, n := pol.field("retry", "numRetries"); n != nil {
		v, _ := l.count(po, n, "retry.numRetries")
		e.NumRetries = model.Set(v, "retry.numRetries", "policy", po.pos(n))
	} else {
		e.NumRetries = model.Default(2, "retry.numRetries", ko.pos(key))
		e.NumRetries = e.NumRetries.WithNote(noteEGRetry)
	}
	if po, _, n := pol.field("retry", "perRetry", "timeout"); n != nil {
		if d, ok := l.dur(po, n, "retry.perRetry.timeout"); ok {
			e.PerTryTimeout = model.Set(d, "retry.perRetry.timeout", "policy", po.pos(n))
		}
	}
	toks := strings.Split(egDefaultRetryOn, ",")
	onSetting := model.Default(toks, "retry.retryOn", ko.pos(key))
	onSetting = onSetting.WithNote(noteEGRetry)
	// retryOn is an object; its triggers a list (api/v1alpha1/retry_types.go).
	shape := model.WordsInTriggers
	if po, _, t := pol.field("retry", "retryOn", "triggers"); len(items(t)) > 0 {
		toks = nil
		for _, x := range items(t) {
			toks = append(toks, scalar(x))
		}
		onSetting = model.Set(toks, "retry.retryOn.triggers", "policy", po.pos(t))
		shape = model.WordsInList
	}
	codes := []string{"503"}
	if _, _, c := pol.field("retry", "retryOn", "httpStatusCodes"); len(items(c)) > 0 {
		codes = nil
		for _, x := range items(c) {
			codes = append(codes, scalar(x))
		}
	}
	// Status codes count only under retriable-status-codes.
	if contains(toks, "retriable-status-codes") {
		onSetting.Value = append(append([]string{}, toks...), codes...)
	}
	r.Retry.On = onSetting
	r.Retry.OnShape = shape
}

func (o *object) specOrNil() *yaml.Node {
	if o == nil {
		return nil
	}
	return o.Spec
}

// egBehaviour: an Envoy route's, as envoyroute.Istio computes it; status
// codes in Retry.On are the retriable status codes.
func egBehaviour(r *model.Route) {
	if !r.Retry.On.Valid() {
		// No retry policy: Envoy retries nothing.
		e := r.Envoy
		r.Budget, r.AttemptTimeout, r.BudgetCutsAttempts = e.Timeout, e.Timeout, true
		r.MaxAttempts = model.Set(1, "", "", model.Pos{})
		return
	}
	envoyroute.Istio(r, false)
}

// selects reports whether a targetSelector's matchLabels and
// matchExpressions match labels, as a Kubernetes label selector does
// (Envoy Gateway's selectorFromTargetSelector, internal/gatewayapi/
// helpers.go v1.4.0:545-555, runs metav1.LabelSelectorAsSelector): a
// selector with neither matches everything of its kind.
func selects(sel, labels *yaml.Node) bool {
	ml := get(sel, "matchLabels")
	if ml != nil && ml.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(ml.Content); i += 2 {
			if v := get(labels, ml.Content[i].Value); v == nil || scalar(v) != scalar(ml.Content[i+1]) {
				return false
			}
		}
	}
	for _, e := range items(get(sel, "matchExpressions")) {
		v := get(labels, scalar(get(e, "key")))
		in := false
		for _, x := range items(get(e, "values")) {
			in = in || v != nil && scalar(v) == scalar(x)
		}
		switch scalar(get(e, "operator")) {
		case "In":
			if !in {
				return false
			}
		case "NotIn":
			if in {
				return false
			}
		case "Exists":
			if v == nil {
				return false
			}
		case "DoesNotExist":
			if v != nil {
				return false
			}
		default:
			return false // an operator the API server refuses
		}
	}
	return true
}

// gatewayLabels are the labels of the Gateway named name in namespace ns,
// when the run holds it: a targetSelector of kind Gateway matches them.
func (l *loader) gatewayLabels(name, ns string) *yaml.Node {
	for _, g := range l.gateways[name] {
		if sameNamespace(g.Namespace, ns) {
			return get(get(g.Node, "metadata"), "labels")
		}
	}
	return nil
}

// parentNamespace is the namespace of the Gateway a route's parentRef
// names: its namespace, else the route's (Gateway API's default), "" when
// neither is written.
func parentNamespace(route *object, ref *yaml.Node) string {
	if ns := scalar(get(ref, "namespace")); ns != "" {
		return ns
	}
	return route.Namespace
}

// sameNamespace reports whether two resources may be in one namespace: a
// namespace left unsaid in a manifest is set when it is applied (by
// kustomize, a Flux Kustomization or kubectl -n), so it matches any.
func sameNamespace(a, b string) bool {
	return a == "" || b == "" || a == b
}

// unattached says why a policy applies to no route of the run: another
// policy of its kind that comes first targets the same route or Gateway,
// and Envoy Gateway marks this one Conflicted (a warning: what it sets is
// ignored); or what it targets is not in the run (a note: what it sets is
// not checked, for want of the other half).
func (l *loader) unattached(b *object, policies, routes []*object) {
	for _, o := range routes {
		ref, what := l.reaches(b, o)
		if ref == nil {
			continue
		}
		for _, w := range policies {
			if w.order < b.order && w.Kind == b.Kind {
				if wref, wwhat := l.reaches(w, o); wref != nil && wwhat == what {
					l.conflicted(b, ref, w, what)
					return
				}
			}
		}
		if b.Kind == "ClientTrafficPolicy" && strings.HasPrefix(what, "Gateway ") {
			l.diag(model.CodeLoad, model.Note, b.pos(ref),
				"ClientTrafficPolicy %s applies to no route linted with it: each HTTPRoute linted with it that names %s takes the ClientTrafficPolicy of its listener (sectionName), which wins over a Gateway-wide one",
				b.Name, what)
			return
		}
	}
	refs := items(get(b.Spec, "targetRefs"))
	if r := get(b.Spec, "targetRef"); r != nil {
		refs = append([]*yaml.Node{r}, refs...)
	}
	at, why := b.pos(b.Node), "it targets nothing"
	if len(refs) > 0 {
		at = b.pos(refs[0])
		kind, name := scalar(get(refs[0], "kind")), scalar(get(refs[0], "name"))
		why = fmt.Sprintf("it targets %s %s, which is not linted with it", kind, name)
		if kind == "Gateway" {
			why = fmt.Sprintf("it targets Gateway %s, and no HTTPRoute linted with it has that Gateway among its parentRefs", name)
		}
	} else if sels := items(get(b.Spec, "targetSelectors")); len(sels) > 0 {
		at = b.pos(sels[0])
		why = fmt.Sprintf("no %s linted with it has the labels its targetSelectors match", scalar(get(sels[0], "kind")))
	}
	l.diag(model.CodeLoad, model.Note, at,
		"%s %s applies to no route linted with it: %s, so what it sets is not checked; lint it with the routes it applies to (the directory of the deployment)",
		b.Kind, b.Name, why)
}

// reaches says how policy b reaches route o: the reference (or selector)
// that does, and what it names ("HTTPRoute orders", "Gateway public");
// nil when it does not.
func (l *loader) reaches(b *object, o *object) (*yaml.Node, string) {
	if o.Kind != "HTTPRoute" {
		return nil, ""
	}
	if ok, ref := btpTargets(b, "HTTPRoute", o.Name, o.Namespace, get(get(o.Node, "metadata"), "labels")); ok {
		return ref, "HTTPRoute " + o.Name
	}
	for _, pr := range items(get(o.Spec, "parentRefs")) {
		if k := scalar(get(pr, "kind")); k != "" && k != "Gateway" {
			continue
		}
		name := scalar(get(pr, "name"))
		if ok, ref := btpTargets(b, "Gateway", name, parentNamespace(o, pr), l.gatewayLabels(name, parentNamespace(o, pr))); ok {
			return ref, "Gateway " + name
		}
	}
	return nil, ""
}

// conflicted warns of policy b, which Envoy Gateway ignores because w, of
// the same kind and earlier, targets the same object, what.
func (l *loader) conflicted(b *object, ref *yaml.Node, w *object, what string) {
	src := "internal/gatewayapi/backendtrafficpolicy.go v1.4.0:365-395"
	if b.Kind == "ClientTrafficPolicy" {
		src = "internal/gatewayapi/clienttrafficpolicy.go v1.5.0:195-212"
	}
	l.diag(CodeIgnored, model.Warning, b.pos(ref),
		"%s %s is ignored: %s %s, earlier in the run, targets %s too, and Envoy Gateway attaches only the first policy to an object, marking the others Conflicted (%s)",
		b.Kind, b.Name, w.Kind, w.Name, what, src)
}
