package kube

import (
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
)

// A VirtualService bound to an Istio Gateway of the run runs at that
// gateway: its listener is Via the Gateway and takes the requests sent to
// the gateway's Service. Istio binds it only where its hosts meet a
// server's (namespace-scoped ones included); a Gateway named by a short
// name is in the VirtualService's namespace.
func TestIstioGatewayBinding(t *testing.T) {
	gws := `apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: public, namespace: shop}
spec:
  selector: {istio: ingressgateway}
  servers:
  - port: {number: 443, name: https, protocol: HTTPS}
    hosts: ["./*.example.com"]
    tls: {mode: SIMPLE}
  - port: {number: 8443, name: tls, protocol: TLS}
    hosts: ["pass.example.org"]
    tls: {mode: PASSTHROUGH}
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: internal, namespace: shop}
spec:
  selector: {app: internal-gw}
  servers:
  - port: {number: 80, name: http, protocol: HTTP}
    hosts: ["other/*"]
---
apiVersion: v1
kind: Service
metadata: {name: internal-gw, namespace: gateways}
spec:
  selector: {app: internal-gw, version: v1}
  ports: [{port: 80}]
`
	vs := func(name, hosts, gateways string) string {
		return "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: " + name + ", namespace: shop}\nspec:\n  hosts: " + hosts +
			"\n  gateways: " + gateways + "\n  http:\n  - route: [{destination: {host: web}}]\n---\n"
	}
	src := vs("shop", "[shop.example.com]", "[public, mesh]") + vs("tls", "[pass.example.org]", "[public]") + vs("internal", "[api.internal]", "[internal]") + vs("elsewhere", "[x.example.com]", "[istio-system/edge]")
	res := Link([]*Manifest{Parse("gw.yaml", []byte(gws)), Parse("vs.yaml", []byte(src))}, Options{})
	var diags []string
	for _, d := range res.Diagnostics {
		diags = append(diags, d.Pos.String()+" "+string(d.Code)+" "+d.Message)
	}
	want := []string{
		"vs.yaml:15:14 kube-ignored VirtualService tls is bound to Gateway public, but none of its hosts (pass.example.org) is among the Gateway's (./*.example.com): Istio applies none of its routes at that gateway (pilot/pkg/networking/core/gateway.go, buildGatewayRoutes)",
		"vs.yaml:24:14 kube-ignored VirtualService internal is bound to Gateway internal, but none of its hosts (api.internal) is among the Gateway's (other/*): Istio applies none of its routes at that gateway (pilot/pkg/networking/core/gateway.go, buildGatewayRoutes)",
	}
	if strings.Join(diags, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(diags, "\n"), strings.Join(want, "\n"))
	}
	ls := res.Proxies[0].Listeners
	if len(ls) != 4 {
		t.Fatalf("listeners %d", len(ls))
	}
	shop := ls[0]
	check(t, "via", shop.Via, "Gateway shop/public", "gateways", model.Pos{File: "gw.yaml", Line: 1, Col: 1}, false)
	if strings.Join(shop.MeshHosts, " ") != defaultGatewayService {
		t.Errorf("mesh hosts %q", shop.MeshHosts)
	}
	for _, l := range ls[1:] {
		if l.Via.Valid() || len(l.MeshHosts) != 0 {
			t.Errorf("%s: via %+v, mesh hosts %q", l.Name, l.Via, l.MeshHosts)
		}
	}
	if res.Read["Gateway"] != 2 {
		t.Errorf("read %v: the Gateways VirtualServices bind to are read", res.Read)
	}

	// The Service whose selector carries the Gateway's is its entry.
	bound := strings.Replace(src, "hosts: [api.internal]", "hosts: [api.other.svc.cluster.local]", 1)
	bound = strings.Replace(bound, "namespace: shop}\nspec:\n  hosts: [api.other", "namespace: other}\nspec:\n  hosts: [api.other", 1)
	bound = strings.Replace(bound, "gateways: [internal]", "gateways: [shop/internal]", 1)
	res = Link([]*Manifest{Parse("gw.yaml", []byte(gws)), Parse("vs.yaml", []byte(bound))}, Options{})
	internal := res.Proxies[0].Listeners[2]
	if internal.Via.Value != "Gateway shop/internal" || strings.Join(internal.MeshHosts, " ") != "internal-gw.gateways.svc.cluster.local" {
		t.Errorf("via %+v, mesh hosts %q", internal.Via, internal.MeshHosts)
	}
}

// A VirtualService of tls routes only, bound to servers that pass TLS
// through (Istio's multicluster sample exposing istiod), has no HTTP
// routes for the gateway to skip: no warning.
func TestIstioGatewayPassthroughTLSRoutes(t *testing.T) {
	src := `apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: istiod-gateway}
spec:
  selector: {istio: eastwestgateway}
  servers:
  - port: {name: tls-istiod, number: 15012, protocol: tls}
    tls: {mode: PASSTHROUGH}
    hosts: ["*"]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: istiod-vs}
spec:
  hosts: ["*"]
  gateways: [istiod-gateway]
  tls:
  - match: [{port: 15012, sniHosts: ["*"]}]
    route: [{destination: {host: istiod.istio-system.svc.cluster.local, port: {number: 15012}}}]
`
	res := Link([]*Manifest{Parse("expose.yaml", []byte(src))}, Options{})
	for _, d := range res.Diagnostics {
		t.Errorf("diagnostic %s %s %s", d.Pos, d.Code, d.Message)
	}
}

// A server host "./host" admits the VirtualServices of the Gateway's own
// namespace only; "*/host" and "host" admit any.
func TestIstioGatewayDotNamespace(t *testing.T) {
	if !hostsMeet([]string{"./*.example.com"}, []string{"shop.example.com"}, "shop", "shop") {
		t.Error("./ admits the Gateway's namespace")
	}
	if hostsMeet([]string{"./*.example.com"}, []string{"shop.example.com"}, "web", "shop") {
		t.Error("./ admits another namespace")
	}
	if !hostsMeet([]string{"*/*.example.com", "x.org"}, []string{"shop.example.com"}, "web", "shop") || !hostsMeet([]string{"x.org"}, []string{"x.org"}, "web", "shop") {
		t.Error("*/ and a bare host admit any namespace")
	}
}
