package kube

import (
	"math"
	"testing"

	"github.com/proxylint/proxylint/model"
)

const breakerManifest = `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: web, namespace: default}
spec:
  hosts: [web, zero, budget]
  http:
  - match: [{uri: {prefix: /zero}}]
    route: [{destination: {host: zero}}]
  - match: [{uri: {prefix: /budget}}]
    route: [{destination: {host: budget}}]
  - route: [{destination: {host: web}}]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: web, namespace: default}
spec:
  host: web
  trafficPolicy:
    connectionPool:
      http: {maxRetries: 5, http2MaxRequests: 100}
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: zero, namespace: default}
spec:
  host: zero
  trafficPolicy:
    connectionPool:
      http: {maxRetries: 0}
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: budget, namespace: default}
spec:
  host: budget
  trafficPolicy:
    retryBudget: {percent: {value: 10}}
`

// What istiod writes into each cluster's circuit breaker: maxRetries when
// a DestinationRule sets it above 0, else 4294967295 on every cluster;
// trafficPolicy.retryBudget from Istio 1.27.0.
func TestIstioRetryLimit(t *testing.T) {
	limits := func(target model.Target) map[string]*model.RetryLimit {
		res := LoadBytes("mesh.yaml", []byte(breakerManifest), Options{Target: target})
		out := map[string]*model.RetryLimit{}
		for _, p := range res.Proxies {
			for _, u := range p.Upstreams {
				out[u.Name] = u.RetryLimit
			}
		}
		return out
	}
	got := limits(model.Target{Product: model.Istio})
	web := got["web.default.svc.cluster.local"]
	if web == nil || web.MaxRetries.Value != 5 || web.MaxRetries.Default() || web.MaxRequests.Value != 100 || web.Generator != "" {
		t.Errorf("web: %+v, want maxRetries 5 and http2MaxRequests 100 as written", web)
	}
	zero := got["zero.default.svc.cluster.local"]
	if zero == nil || zero.MaxRetries.Value != math.MaxUint32 || !zero.MaxRetries.Default() || zero.Generator != "Istio" || zero.MaxRetries.Pos().Line != 29 {
		t.Errorf("zero: %+v, want istiod's 4294967295 (maxRetries 0 is ignored), at the http block (line 29)", zero)
	}
	budget := got["budget.default.svc.cluster.local"]
	if budget == nil || budget.Budget.Value != "percent 10, minRetryConcurrency 3 (default)" {
		t.Errorf("budget on the newest Istio: %+v", budget)
	}
	old := limits(model.Target{Product: model.Istio, Version: model.Version{Major: 1, Minor: 26}})["budget.default.svc.cluster.local"]
	if old == nil || old.Budget.Valid() {
		t.Errorf("budget on Istio 1.26: %+v, want no budget (retryBudget came in 1.27.0)", old)
	}
}
