package kube

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkLoadBytes reads a helm-template-like file: 500 VirtualServices
// with DestinationRules, with other kinds between them.
func BenchmarkLoadBytes(b *testing.B) {
	var sb strings.Builder
	for i := range 500 {
		fmt.Fprintf(&sb, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: svc%[1]d}
spec: {replicas: 2}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: svc%[1]d, namespace: ns}
spec:
  hosts: [svc%[1]d]
  http:
  - match:
    - uri: {prefix: /api}
      method: {exact: POST}
    route:
    - destination: {host: svc%[1]d, port: {number: 8080}}
    timeout: 10s
    retries: {attempts: 3, perTryTimeout: 2s, retryOn: "5xx,connect-failure"}
  - route:
    - destination: {host: svc%[1]d}
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: svc%[1]d, namespace: ns}
spec:
  host: svc%[1]d
  trafficPolicy:
    connectionPool:
      http: {idleTimeout: 30s, maxRequestsPerConnection: 100}
`, i)
	}
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		res := LoadBytes("bench.yaml", src, Options{})
		if len(res.Proxies) != 1 || len(res.Proxies[0].Routes()) != 1000 {
			b.Fatalf("%d proxies", len(res.Proxies))
		}
	}
}
