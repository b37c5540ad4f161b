package kube

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/model"
)

// Istio's Gateway (networking.istio.io): the ingress gateway's Envoy,
// which runs the routes of the VirtualServices bound to it (gateways:
// [NAMESPACE/NAME]) for the hosts its servers and theirs share
// (pilot/pkg/networking/core/gateway.go 1.30.0:428-447: a VirtualService
// whose hosts meet no server host of the Gateway is skipped there). The
// Gateway is the entry hop of such a VirtualService: its listener runs
// Via the Gateway, and a request sent to the Service in front of the
// gateway's pods (one whose selector carries the Gateway's selector; by
// default istio-ingressgateway in istio-system, as Istio's gateway chart
// names it) lands on its routes.

func istioGatewayKind(o *object) bool {
	return o.Kind == "Gateway" && istioNetworking(o.APIVersion)
}

// defaultGatewayService is the Service of Istio's default ingress
// gateway (manifests/charts/gateways/istio-ingress, values.yaml: name
// istio-ingressgateway, labels istio: ingressgateway), which a Gateway
// selecting istio: ingressgateway reaches when the run holds no Service
// for its pods.
const defaultGatewayService = "istio-ingressgateway.istio-system.svc.cluster.local"

// bindGateways binds a VirtualService's listener to the Gateways of the
// run its gateways name: the listener runs Via the first Gateway it binds
// to, and takes the requests sent to that Gateway's Services. A Gateway
// whose hosts meet none of the VirtualService's is a warning: Istio
// applies none of its routes there.
func (l *loader) bindGateways(ln *model.Listener, vs *object, m *mesh) {
	gws, svcs := m.gateways, m.svcList
	if len(gws) == 0 {
		return
	}
	vsHosts := scalars(get(vs.Spec, "hosts"))
	for _, ref := range items(get(vs.Spec, "gateways")) {
		name := scalar(ref)
		if name == "mesh" || name == "" {
			continue
		}
		ns, gwName, ok := strings.Cut(name, "/")
		if !ok {
			ns, gwName = vs.Namespace, name
		}
		var gw *object
		for _, g := range gws {
			if g.Name == gwName && sameNamespace(ns, g.Namespace) {
				gw = g
				break
			}
		}
		if gw == nil {
			continue // in another part of the deployment: the VirtualService is an entry of its own
		}
		m.bound[gw] = true
		serverHosts := gatewayHosts(gw)
		// Only HTTP routes are built from the HTTP servers' hosts: a
		// VirtualService of tls or tcp routes alone has none to skip.
		if !hostsMeet(serverHosts, vsHosts, namespace(vs), namespace(gw)) && len(items(get(vs.Spec, "http"))) > 0 {
			l.diag(CodeIgnored, model.Warning, vs.pos(ref),
				"VirtualService %s is bound to Gateway %s, but none of its hosts (%s) is among the Gateway's (%s): Istio applies none of its routes at that gateway (pilot/pkg/networking/core/gateway.go, buildGatewayRoutes)",
				vs.Name, gwName, strings.Join(vsHosts, ", "), strings.Join(serverHosts, ", "))
			continue
		}
		if !ln.Via.Valid() {
			ln.Via = model.Set(fmt.Sprintf("Gateway %s/%s", namespace(gw), gw.Name), "gateways", "gateway", gw.pos(gw.Node))
		}
		for _, h := range gatewayServices(gw, svcs) {
			ln.MeshHosts = appendNew(ln.MeshHosts, h)
		}
	}
}

func scalars(n *yaml.Node) []string {
	var out []string
	for _, it := range items(n) {
		if s := scalar(it); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// gatewayHosts are the hosts of a Gateway's HTTP servers, as written
// ("ns/host" restricts them to VirtualServices of that namespace). A
// server that passes TLS through runs no HTTP routes.
func gatewayHosts(gw *object) []string {
	var out []string
	for _, s := range items(get(gw.Spec, "servers")) {
		if strings.EqualFold(scalar(get(get(s, "tls"), "mode")), "PASSTHROUGH") || strings.EqualFold(scalar(get(get(s, "tls"), "mode")), "AUTO_PASSTHROUGH") {
			continue
		}
		for _, h := range scalars(get(s, "hosts")) {
			out = appendNew(out, h)
		}
	}
	return out
}

// hostsMeet reports whether a VirtualService of namespace ns and hosts
// vsHosts shares a host with the servers of a Gateway of namespace gwNS:
// the server host's namespace part ("*", the VirtualService's, or "."
// when the VirtualService is in the Gateway's: sanitizeServerHostNamespace,
// pilot/pkg/model/gateway.go 1.30.0:651-672) must admit it, and
// the names match with "*" wildcards either way
// (host.NamesForNamespace, Intersection).
func hostsMeet(serverHosts, vsHosts []string, ns, gwNS string) bool {
	for _, sh := range serverHosts {
		host := sh
		if n, h, ok := strings.Cut(sh, "/"); ok {
			if n != "*" && n != ns && (n != "." || ns != gwNS) {
				continue
			}
			host = h
		}
		for _, vh := range vsHosts {
			if wildcardMeet(host, vh) {
				return true
			}
		}
	}
	return false
}

// wildcardMeet reports whether two host names, either of which may start
// with "*", can name the same host.
func wildcardMeet(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	switch {
	case a == "*" || b == "*" || a == b:
		return true
	case strings.HasPrefix(a, "*"):
		return strings.HasSuffix(b, a[1:]) || strings.HasPrefix(b, "*") && (strings.HasSuffix(a[1:], b[1:]) || strings.HasSuffix(b[1:], a[1:]))
	case strings.HasPrefix(b, "*"):
		return strings.HasSuffix(a, b[1:])
	}
	return false
}

// gatewayServices are the cluster hosts of the Services in front of a
// Gateway's pods: those of the run whose selector carries every label of
// the Gateway's selector (every pod they select runs the gateway), else
// Istio's default ingress gateway Service for its default selector.
func gatewayServices(gw *object, svcs []*object) []string {
	sel := labels(get(gw.Spec, "selector"))
	if len(sel) == 0 {
		return nil
	}
	var out []string
	for _, s := range svcs {
		ss := s.service.Selector
		all := len(ss) > 0
		for k, v := range sel {
			all = all && ss[k] == v
		}
		if all {
			out = append(out, s.Name+"."+namespace(s)+".svc.cluster.local")
		}
	}
	if len(out) == 0 && len(sel) == 1 && sel["istio"] == "ingressgateway" {
		out = append(out, defaultGatewayService)
	}
	return out
}
