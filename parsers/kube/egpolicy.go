package kube

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// Which BackendTrafficPolicy applies to an HTTPRoute, as Envoy Gateway
// computes it (envoyproxy/gateway, internal/gatewayapi/backendtrafficpolicy.go
// at v1.4.0):
//
//   - policies targeting routes are translated first (:106-232), and the
//     route's traffic settings are rebuilt from the policy
//     (applyTrafficFeatureToRoute, :469-526; r.Traffic = tf at :511);
//   - a policy targeting a Gateway then fills only the routes no policy
//     has set (translateBackendTrafficPolicyForGateway, :704-706: a route
//     with r.Traffic set is skipped), so without mergeType a route policy
//     replaces the gateway policy as a whole, and a retry or timeout set
//     only at the gateway is gone for that route;
//   - with mergeType (since 1.4.0) the route policy is merged onto the
//     gateway policy (:166-221, mergeBackendTrafficPolicy :528-534, which
//     runs internal/utils/merge.go: StrategicMerge or JSONMerge of the two
//     objects). For the fields read here both merges keep the gateway's
//     field unless the route policy sets it (maps merge key by key, lists
//     and scalars are replaced, null removes).
//
// The first policy to target a route, or a Gateway, wins (a second one is
// Conflicted: resolveBTPolicyRouteTargetRef :365-395, and the gateway
// policy map, :78-104). A Gateway reference with a sectionName (a
// listener, accepted since 1.6.0) is not read.

// egPolicy is the BackendTrafficPolicy that applies to a route: the one
// attached to it, the one attached to its Gateway, or both merged.
type egPolicy struct {
	route, gw *object
	// routeRef is the reference that attaches route to the HTTPRoute.
	routeRef *yaml.Node
	merge    bool
}

// field finds a policy field as Envoy Gateway sees it: the route policy's;
// under mergeType, the gateway policy's when the route policy does not set
// it (a null in the route policy removes it); the gateway policy's when no
// policy targets the route. o is the policy the field is found in.
func (e egPolicy) field(path ...string) (o *object, key, val *yaml.Node) {
	if e.route == nil {
		key, val = lookup(e.gw.specOrNil(), path)
		return e.gw, key, val
	}
	key, val = lookup(e.route.Spec, path)
	if val != nil || !e.merge {
		if val != nil && val.Tag == "!!null" {
			return nil, nil, nil
		}
		return e.route, key, val
	}
	if nulled(e.route.Spec, path) {
		return nil, nil, nil
	}
	key, val = lookup(e.gw.specOrNil(), path)
	return e.gw, key, val
}

// lookup walks a path of mapping keys.
func lookup(n *yaml.Node, path []string) (key, val *yaml.Node) {
	val = n
	for _, p := range path {
		key, val = getKV(val, p)
		if val == nil {
			return nil, nil
		}
	}
	return key, val
}

// nulled reports whether a prefix of path is null in n, which a merge
// patch reads as "remove".
func nulled(n *yaml.Node, path []string) bool {
	for _, p := range path {
		n = get(n, p)
		if n == nil {
			return false
		}
		if n.Tag == "!!null" {
			return true
		}
	}
	return false
}

// egPolicyFor finds the policies of route o: the first that targets it,
// and the first that targets a Gateway among its parentRefs.
func (l *loader) egPolicyFor(t model.Target, o *object, labels *yaml.Node, btps []*object) egPolicy {
	var e egPolicy
	for _, b := range btps {
		if ok, ref := btpTargets(b, "HTTPRoute", o.Name, o.Namespace, labels); ok {
			e.route, e.routeRef = b, ref
			break
		}
	}
	for _, pr := range items(get(o.Spec, "parentRefs")) {
		if k := scalar(get(pr, "kind")); k != "" && k != "Gateway" {
			continue
		}
		for _, b := range btps {
			name, ns := scalar(get(pr, "name")), parentNamespace(o, pr)
			if ok, _ := btpTargets(b, "Gateway", name, ns, l.gatewayLabels(name, ns)); ok && e.gw == nil {
				e.gw = b
			}
		}
	}
	if e.route == nil {
		return e
	}
	mk, mt := getKV(e.route.Spec, "mergeType")
	switch {
	case mt == nil:
	case !egMerges(t):
		l.diag(CodeIgnored, model.Warning, e.route.pos(mk),
			"mergeType is ignored: Envoy Gateway %s has no such field (it exists since 1.4.0), so this policy replaces the Gateway's BackendTrafficPolicy for the routes it targets", t.Version)
	case scalar(mt) != "StrategicMerge" && scalar(mt) != "JSONMerge":
		l.invalid(e.route.pos(mt), "mergeType %q is not StrategicMerge or JSONMerge: Envoy Gateway refuses the policy", scalar(mt))
	default:
		e.merge = e.gw != nil
	}
	return e
}

// egLost are the gateway policy's fields this loader reads, which a route
// policy without mergeType makes the route lose.
var egLost = [][]string{{"retry"}, {"timeout", "http", "requestTimeout"}}

// egReplaced records, once per route policy and field, a gateway policy's
// retry or request timeout that a route policy without mergeType drops. A
// request timeout lost where the rule sets its own timeouts is no loss:
// the HTTPRoute's timeout wins over any policy's.
func (l *loader) egReplaced(p *model.Proxy, r *model.Route, rule *yaml.Node, pol egPolicy, done map[string]bool) {
	if pol.route == nil || pol.gw == nil || pol.merge || pol.route == pol.gw {
		return
	}
	for _, path := range egLost {
		name := strings.Join(path, ".")
		gk, gv := lookup(pol.gw.Spec, path)
		if gv == nil || gv.Tag == "!!null" {
			continue
		}
		if _, rv := lookup(pol.route.Spec, path); rv != nil {
			continue
		}
		if name != "retry" && get(rule, "timeouts") != nil && (get(get(rule, "timeouts"), "request") != nil || get(get(rule, "timeouts"), "backendRequest") != nil) {
			continue
		}
		key := pol.route.Name + "\x00" + r.Listener.Name + "\x00" + name
		if done[key] {
			continue
		}
		done[key] = true
		why := "without mergeType"
		if _, mt := getKV(pol.route.Spec, "mergeType"); mt != nil && !egMerges(p.Target) {
			why = fmt.Sprintf("and Envoy Gateway %s ignores its mergeType", p.Target.Version)
		}
		lost := name
		if name == "retry" {
			lost = "retry policy"
		} else if d, ok := durQuiet(gv); ok {
			lost = name + " " + dur(d)
		}
		p.Dropped = append(p.Dropped, model.Drop{
			Setting: model.Set(fmt.Sprintf("BackendTrafficPolicy %s targets %s %s, so Envoy Gateway builds the route from it in place of the Gateway's BackendTrafficPolicy %s: "+
				"the gateway policy's %s does not apply to this route", pol.route.Name, r.Listener.Name, why, pol.gw.Name, lost), name, "policy", pol.route.pos(pol.routeRef)),
			By:       pol.gw.pos(gk),
			ByText:   fmt.Sprintf("%s set by BackendTrafficPolicy %s on the Gateway, lost for %s", lost, pol.gw.Name, r.Listener.Name),
			Replaced: true,
		})
	}
}

// durQuiet reads a duration without reporting a bad one (egTimeouts
// does).
func durQuiet(n *yaml.Node) (time.Duration, bool) {
	d, err := time.ParseDuration(scalar(n))
	return d, err == nil
}

// ClientTrafficPolicy (gateway.envoyproxy.io/v1alpha1), attached to a
// Gateway or to one of its listeners (sectionName): the listener's
// settings towards clients. A policy naming the listener wins over one
// naming the whole Gateway (internal/gatewayapi/clienttrafficpolicy.go
// v1.5.0:60-161 translates the sectioned policies first, :246-252 skips
// their listeners). Fields, as internal/xds/translator/listener.go v1.5.0
// maps them onto the HttpConnectionManager:
//
//   - timeout.http.requestReceivedTimeout: request_timeout (:399-400);
//     unset, Envoy's default: none;
//   - timeout.http.idleTimeout (since 1.1.0):
//     common_http_protocol_options.idle_timeout (:403-404); unset, Envoy's
//     default of 1h, since Envoy Gateway sets only headers_with_underscores
//     there (:369-371).
//
// timeout.tcp.idleTimeout is the TCP proxy's idle timeout (:698-699), for
// TCPRoutes, not HTTP listeners; connection settings (limits, buffers)
// have no counterpart in the model.

const noteEGClientIdle = "Envoy's idle_timeout, which Envoy Gateway leaves unset without a ClientTrafficPolicy timeout.http.idleTimeout " +
	"(internal/xds/translator/listener.go)"

// egClient applies to listener ln of route o the ClientTrafficPolicy of
// its Gateway, and returns it (nil when none applies).
func (l *loader) egClient(t model.Target, ln *model.Listener, o *object, ctps []*object) *object {
	var ctp *object
	for _, pr := range items(get(o.Spec, "parentRefs")) {
		if k := scalar(get(pr, "kind")); k != "" && k != "Gateway" {
			continue
		}
		gw, section, ns := scalar(get(pr, "name")), scalar(get(pr, "sectionName")), parentNamespace(o, pr)
		for _, c := range ctps {
			if ok, _ := policyTargets(c, "Gateway", gw, ns, section, l.gatewayLabels(gw, ns)); ok && section != "" {
				ctp = c
				break
			}
		}
		for _, c := range ctps {
			if ok, _ := policyTargets(c, "Gateway", gw, ns, "", l.gatewayLabels(gw, ns)); ok && ctp == nil {
				ctp = c
			}
		}
		break // the first parent stands for the route
	}
	ln.IdleTimeout = model.Default(defaultIdleTimeout, "timeout.http.idleTimeout", ln.Pos)
	ln.IdleTimeout = ln.IdleTimeout.WithNote(noteEGClientIdle)
	if ctp == nil {
		return nil
	}
	if n := get(get(get(ctp.Spec, "timeout"), "http"), "requestReceivedTimeout"); n != nil {
		if d, ok := l.dur(ctp, n, "timeout.http.requestReceivedTimeout"); ok {
			ln.RequestTimeout = model.Set(d, "timeout.http.requestReceivedTimeout", "policy", ctp.pos(n))
		}
	}
	k, n := getKV(get(get(ctp.Spec, "timeout"), "http"), "idleTimeout")
	switch {
	case n == nil:
	case !releases.GatewayClientIdle.In(t):
		l.diag(CodeIgnored, model.Warning, ctp.pos(k),
			"timeout.http.idleTimeout is ignored: Envoy Gateway %s has no such field (it exists since %s), so Envoy's 1h idle timeout applies",
			t.Version, releases.Full(releases.GatewayClientIdle.Since(model.EnvoyGateway)))
	default:
		if d, ok := l.dur(ctp, n, "timeout.http.idleTimeout"); ok {
			ln.IdleTimeout = model.Set(d, "timeout.http.idleTimeout", "policy", ctp.pos(n))
		}
	}
	return ctp
}
