package kube

import (
	"testing"

	"github.com/proxylint/proxylint/model"
)

// Requests per connection are not in the model, but a value that is not a
// count is still reported where it is written.
func TestPoolRequestsStillChecked(t *testing.T) {
	cases := []struct {
		name, src string
		target    model.Target
		pos       model.Pos
		message   string
	}{
		{"dr.yaml", `apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: reviews, namespace: shop}
spec:
  host: reviews
  trafficPolicy:
    connectionPool:
      http: {maxRequestsPerConnection: lots}
`, model.Target{Product: model.Istio}, model.Pos{File: "dr.yaml", Line: 8, Col: 40},
			`connectionPool.http.maxRequestsPerConnection: "lots" is not a count (want 0 or more); the field is left out`},
		{"ing.yaml", `apiVersion: v1
kind: ConfigMap
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
data:
  upstream-keepalive-requests: "many"
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: default}
spec:
  rules:
  - host: a.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend: {service: {name: web, port: {number: 80}}}
`, model.Target{Product: model.IngressNginx}, model.Pos{File: "ing.yaml", Line: 5, Col: 32},
			`ConfigMap upstream-keepalive-requests: "many" is not a count (want 0 or more); the controller's default 10000 applies`},
	}
	for _, c := range cases {
		res := LoadBytes(c.name, []byte(c.src), Options{Target: c.target})
		if len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != CodeInvalid || res.Diagnostics[0].Pos != c.pos || res.Diagnostics[0].Message != c.message {
			t.Errorf("%s: diagnostics %+v", c.name, res.Diagnostics)
		}
	}
}
