package chain_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The controllers' own resources are entries of the request's path as
// Ingresses are: each route reaches the Service its backend names and the
// workload behind it, wherever in the run those are.

var shopWorkload = strings.Replace(shopService, "targetPort: web", "targetPort: 8000", 1)

// NGINX Inc's VirtualServer delegates to a VirtualServerRoute of another
// file; the subroute's upstream reaches the Service and its Deployment.
func TestVirtualServerRouteReachesTheWorkload(t *testing.T) {
	vs := `apiVersion: k8s.nginx.org/v1
kind: VirtualServer
metadata: {name: shop, namespace: shop}
spec:
  host: shop.example.com
  routes:
  - path: /api
    route: api
`
	vsr := `apiVersion: k8s.nginx.org/v1
kind: VirtualServerRoute
metadata: {name: api, namespace: shop}
spec:
  host: shop.example.com
  upstreams:
  - {name: api, service: api, port: 80}
  subroutes:
  - path: /api
    action: {pass: api}
`
	got := describe(t, map[string]string{"vs.yaml": vs, "vsr.yaml": vsr, "shop.yaml": shopWorkload})
	assert.Equal(t, []string{
		"nginx-ingress vsr.yaml VirtualServer shop VirtualServerRoute api /api | Service shop/api:80 | Deployment shop/api:8000",
	}, got)
}

// Contour's root HTTPProxy includes another under /api: the included
// route, with the include's prefix, reaches the Service.
func TestHTTPProxyIncludeReachesTheWorkload(t *testing.T) {
	root := `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: shop, namespace: shop}
spec:
  virtualhost: {fqdn: shop.example.com}
  includes:
  - name: api
    conditions: [{prefix: /api}]
`
	api := `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: api, namespace: shop}
spec:
  routes:
  - conditions: [{prefix: /v1}]
    services: [{name: api, port: 80}]
`
	got := describe(t, map[string]string{"root.yaml": root, "api.yaml": api, "shop.yaml": shopWorkload})
	assert.Equal(t, []string{
		"contour api.yaml HTTPProxy shop HTTPProxy api routes[0] /api/v1 | Service shop/api:80 | Deployment shop/api:8000",
	}, got)
}

// A Traefik IngressRoute whose Service a mesh VirtualService routes:
// Traefik's route, then the mesh's, then the Service and its pods.
func TestIngressRouteReachesTheMesh(t *testing.T) {
	ir := `apiVersion: traefik.io/v1alpha1
kind: IngressRoute
metadata: {name: shop, namespace: shop}
spec:
  routes:
  - match: PathPrefix(` + "`/api`" + `)
    kind: Rule
    services: [{name: api, port: 80}]
`
	vs := `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: api, namespace: shop}
spec:
  hosts: [api]
  http:
  - route: [{destination: {host: api}}]
    timeout: 10s
`
	got := describe(t, map[string]string{"ir.yaml": ir, "vs.yaml": vs, "shop.yaml": shopWorkload})
	assert.Equal(t, []string{
		"traefik ir.yaml IngressRoute shop routes[0] /api | istio vs.yaml VirtualService api http[0] | Service shop/api:80 | Deployment shop/api:8000",
	}, got)
}

// Istio's Gateway is the entry hop of the VirtualServices bound to it: an
// Ingress that sends to the gateway's Service (its selector carries the
// Gateway's) lands on the VirtualService's route, named with the Gateway.
// Without the Service in the run, a Gateway selecting istio:
// ingressgateway is reached at Istio's default gateway Service.
func TestIstioGatewayIsTheEntryHop(t *testing.T) {
	gw := `apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: public, namespace: istio-system}
spec:
  selector: {istio: ingressgateway}
  servers:
  - port: {number: 80, name: http, protocol: HTTP}
    hosts: ["*.example.com"]
`
	vs := `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: shop, namespace: shop}
spec:
  hosts: [shop.example.com]
  gateways: [istio-system/public]
  http:
  - route: [{destination: {host: api}}]
`
	edge := `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: edge, namespace: istio-system}
spec:
  rules:
  - http:
      paths:
      - path: /
        pathType: Prefix
        backend: {service: {name: istio-ingressgateway, port: {number: 80}}}
`
	gwService := `apiVersion: v1
kind: Service
metadata: {name: istio-ingressgateway, namespace: istio-system}
spec:
  selector: {app: istio-ingressgateway, istio: ingressgateway}
  ports: [{port: 80, targetPort: 8080}]
`
	alone := describe(t, map[string]string{"gw.yaml": gw, "vs.yaml": vs, "shop.yaml": shopWorkload})
	assert.Equal(t, []string{
		"istio vs.yaml Gateway istio-system/public > VirtualService shop http[0] | Service shop/api:80 | Deployment shop/api:8000",
	}, alone)
	behind := describe(t, map[string]string{"gw.yaml": gw, "vs.yaml": vs, "shop.yaml": shopWorkload, "edge.yaml": edge, "gwsvc.yaml": gwService})
	assert.Equal(t, []string{
		"ingress-nginx edge.yaml Ingress edge / | istio vs.yaml Gateway istio-system/public > VirtualService shop http[0] | Service shop/api:80 | Deployment shop/api:8000",
	}, behind)
	byDefault := describe(t, map[string]string{"gw.yaml": gw, "vs.yaml": vs, "shop.yaml": shopWorkload, "edge.yaml": edge})
	assert.Equal(t, behind, byDefault)
}

// A gateway runs a VirtualService for the requests of its hosts alone: an
// Ingress of host shop.example.com in front of the gateway lands on the
// VirtualService of that host, not on another bound to the same Gateway.
func TestIstioGatewayTakesTheRequestsOfItsHosts(t *testing.T) {
	gw := `apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: public, namespace: istio-system}
spec:
  selector: {istio: ingressgateway}
  servers:
  - port: {number: 80, name: http, protocol: HTTP}
    hosts: ["*"]
`
	vs := `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: shop, namespace: shop}
spec:
  hosts: ["*.example.com"]
  gateways: [istio-system/public]
  http:
  - route: [{destination: {host: api}}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: admin, namespace: shop}
spec:
  hosts: [admin.internal.org]
  gateways: [istio-system/public]
  http:
  - route: [{destination: {host: admin}}]
`
	edge := `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: edge, namespace: istio-system}
spec:
  rules:
  - host: shop.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend: {service: {name: istio-ingressgateway, port: {number: 80}}}
`
	got := describe(t, map[string]string{"gw.yaml": gw, "vs.yaml": vs, "shop.yaml": shopWorkload, "edge.yaml": edge})
	assert.Equal(t, []string{
		"ingress-nginx edge.yaml Ingress edge shop.example.com/ | istio vs.yaml Gateway istio-system/public > VirtualService shop http[0] | Service shop/api:80 | Deployment shop/api:8000",
		"istio vs.yaml Gateway istio-system/public > VirtualService admin http[0] | Service shop/admin (is not in the input: the path ends here)",
	}, got)
}
