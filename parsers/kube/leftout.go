package kube

import (
	"fmt"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// leftOut says, for each manifest of the run that no proxy reads
// anything from, why: Ingresses of another controller's class, a mesh
// config without routes to apply it to, or Envoy Gateway's policies read
// without their target are notes or a warning; a manifest of other kinds
// configures no proxy and is listed in res.Idle, for the caller to skip.
func (l *loader) leftOut(res *Result, ms []*Manifest, j joined) {
	spoken := map[string]bool{}
	for _, d := range res.Diagnostics {
		spoken[d.Pos.File] = true
	}
	other := map[*Manifest][]*object{}
	for _, o := range j.otherClass {
		other[o.src] = append(other[o.src], o)
	}
	for _, m := range ms {
		if m.syntax || m.used > 0 || spoken[m.path] {
			continue
		}
		switch {
		case len(other[m]) > 0:
			res.Diagnostics = append(res.Diagnostics, otherClassNote(m, other[m]))
		case l.meshAlone(res, m):
		case l.policiesAlone(res, m, j):
		case l.middlewaresAlone(res, m):
		default:
			res.Idle = append(res.Idle, idleManifest(m))
		}
	}
}

// otherClassNote says why a manifest whose Ingresses all name another
// controller's class yields nothing to lint (Istio's samples write
// `kubernetes.io/ingress.class: istio`): it is a valid manifest that this
// loader does not model, which is a note, not a failure to read it.
func otherClassNote(m *Manifest, ings []*object) model.Diagnostic {
	var names, classes []string
	for _, o := range ings {
		names = appendNew(names, o.Name)
		classes = appendNew(classes, fmt.Sprintf("%q", ingressClass(o)))
	}
	first := ings[0]
	return model.Diagnostic{
		Code: model.CodeLoad, Severity: model.Note, Pos: first.pos(first.Node),
		Message: fmt.Sprintf("%s: Ingress %s names ingress class %s; proxylint reads the Ingresses of ingress-nginx and of NGINX Inc's Ingress controller only, so nothing here is linted",
			m.path, strings.Join(names, ", "), strings.Join(classes, ", ")),
	}
}

// meshAlone says why a manifest that holds a mesh config yields nothing
// to lint when the run holds no route to apply it to (istio/istio's
// tests/integration/base.yaml is an IstioOperator alone).
func (l *loader) meshAlone(res *Result, m *Manifest) bool {
	for _, o := range m.objs {
		if !meshSource(o) {
			continue
		}
		name := o.Kind + " " + o.Name
		if o.Name == "" {
			name = o.Kind
		}
		res.Diagnostics = append(res.Diagnostics, model.Diagnostic{
			Code: model.CodeLoad, Severity: model.Note, Pos: o.pos(o.Node),
			Message: fmt.Sprintf("%s: %s configures Istio, not routes: proxylint applies its mesh config to the VirtualServices and routes linted with it, and none is, so nothing here is linted",
				m.path, name),
		})
		return true
	}
	return false
}

// policiesAlone warns of Envoy Gateway policies in a run that holds no
// Gateway API route, linted without the envoy-gateway target: the run
// would otherwise say nothing configures a proxy. Beside routes (read as
// Istio translates them), the policies are left out as other kinds.
func (l *loader) policiesAlone(res *Result, m *Manifest, j joined) bool {
	if j.gatewayRoutes > 0 {
		return false
	}
	counts := map[string]int{}
	var kinds []string
	for _, o := range m.objs {
		if egPolicyKind(o) {
			counts[o.Kind]++
			kinds = appendNew(kinds, o.Kind)
		}
	}
	if len(kinds) == 0 {
		return false
	}
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	res.Diagnostics = append(res.Diagnostics, model.Diagnostic{Code: model.CodeLoad, Severity: model.Warning, Pos: model.Pos{File: m.path},
		Message: fmt.Sprintf("%s: %s not read: Envoy Gateway's policies are read with --target envoy-gateway, with the HTTPRoutes they attach to", m.path, strings.Join(parts, " and "))})
	return true
}

// middlewaresAlone says why a manifest of Traefik Middlewares (or
// ServersTransports) yields nothing to lint: no IngressRoute of the run
// names them, and what they set (a retry middleware's attempts) applies
// only to the routes that do.
func (l *loader) middlewaresAlone(res *Result, m *Manifest) bool {
	var names []string
	var first *object
	for _, o := range m.objs {
		if traefikKind(o) && o.Kind != "IngressRoute" && !o.used {
			names = append(names, o.Kind+" "+o.Name)
			if first == nil {
				first = o
			}
		}
	}
	if first == nil {
		return false
	}
	res.Diagnostics = append(res.Diagnostics, model.Diagnostic{
		Code: "load-error", Severity: model.Note, Pos: first.pos(first.Node),
		Message: fmt.Sprintf("%s: %s configure%s Traefik's routers, and no IngressRoute of the input names %s: proxylint reads them with the IngressRoutes that use them (an Ingress's router.middlewares annotation and Traefik's static configuration are not read), so nothing here is linted",
			m.path, strings.Join(names, ", "), map[bool]string{true: "s", false: ""}[len(names) == 1], map[bool]string{true: "it", false: "them"}[len(names) == 1]),
	})
	return true
}

// egPolicyKind reports whether o is one of Envoy Gateway's policies this
// package reads.
func egPolicyKind(o *object) bool {
	return (o.Kind == "BackendTrafficPolicy" || o.Kind == "ClientTrafficPolicy") && o.APIVersion == "gateway.envoyproxy.io/v1alpha1"
}

// idleManifest says why a manifest configures no proxy.
func idleManifest(m *Manifest) Idle {
	idle := Idle{Path: m.path}
	var linked, policies, rest []string
	var gateways []string
	for _, o := range m.objs {
		switch {
		case o.linked:
			linked = appendNew(linked, o.Kind)
		case egPolicyKind(o):
			policies = appendNew(policies, o.Kind)
		case istioGatewayKind(o):
			gateways = appendNew(gateways, o.Kind)
		}
	}
	for _, k := range m.kinds {
		if !contains(linked, k) && !contains(policies, k) && !contains(gateways, k) {
			rest = appendNew(rest, k)
		}
	}
	idle.Linked = len(linked) > 0
	var parts []string
	if len(linked) > 0 {
		parts = append(parts, strings.Join(linked, ", ")+": read only to link routes to the pods behind them")
	}
	if len(policies) > 0 {
		parts = append(parts, strings.Join(policies, ", ")+": read with --target envoy-gateway")
	}
	if len(gateways) > 0 {
		parts = append(parts, "Istio Gateway: read as the entry of the VirtualServices bound to it, and none of the input is")
	}
	switch {
	case len(rest) > 0 && len(parts) == 0 && len(rest) == 1:
		idle.Reason = "a Kubernetes resource proxylint does not read (" + rest[0] + ")"
		return idle
	case len(rest) > 0 && len(parts) == 0:
		idle.Reason = "Kubernetes resources proxylint does not read (" + strings.Join(rest, ", ") + ")"
		return idle
	case len(rest) > 0:
		parts = append(parts, strings.Join(rest, ", ")+": not read")
	case len(parts) == 0:
		idle.Reason = "a Kubernetes manifest that holds no resource"
		return idle
	}
	idle.Reason = "Kubernetes resources that configure no proxy (" + strings.Join(parts, "; ") + ")"
	return idle
}
