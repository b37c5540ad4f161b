package kube

import (
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

const egSrc = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: api, labels: {app: api}}
spec:
  parentRefs: [{name: public}]
  rules:
  - backendRefs: [{name: api, port: 8080}]
    timeouts: {request: 40s}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: retries}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: api}]
  retry:
    perRetry: {timeout: 5s}
`

func eg(line, col int) model.Pos {
	return model.Pos{File: "eg.yaml", Line: int32(line), Col: int32(col)}
}

func TestEnvoyGateway(t *testing.T) {
	for _, c := range []struct {
		version model.Version
		timeout model.Setting[time.Duration]
		dropped bool
	}{
		{model.Version{Major: 1, Minor: 1, Patch: 2}, model.NewSetting(15*time.Second, "timeouts.request", "", eg(7, 5), true, ""), true},
		{model.Version{Major: 1, Minor: 1, Patch: 3}, model.Set(40*time.Second, "timeouts.request", "", eg(8, 25)), false},
		{model.Version{}, model.Set(40*time.Second, "timeouts.request", "", eg(8, 25)), false},
	} {
		res := LoadBytes("eg.yaml", []byte(egSrc), Options{Target: model.Target{Product: model.EnvoyGateway, Version: c.version}})
		if len(res.Diagnostics) != 0 || len(res.Proxies) != 1 || res.Proxies[0].Product != model.EnvoyGateway {
			t.Fatalf("%v: diagnostics %v, proxies %v", c.version, res.Diagnostics, res.Proxies)
		}
		p := res.Proxies[0]
		r := p.Routes()[0]
		check(t, c.version.String()+" budget", r.Budget, c.timeout.Value, c.timeout.Name(), c.timeout.Pos(), c.timeout.Default())
		// The lost timeout, and the policy reference that loses it.
		if got := len(p.Dropped) == 1 && p.Dropped[0].Pos() == eg(8, 25) && p.Dropped[0].By == eg(14, 16) && !p.Dropped[0].Replaced; got != c.dropped {
			t.Errorf("%v: invalid %v, want dropped %v", c.version, p.Dropped, c.dropped)
		}
		// The policy's retry block: Envoy Gateway's defaults, with 503.
		check(t, "retry on", r.Retry.On, []string{"connect-failure", "refused-stream", "unavailable", "cancelled", "retriable-status-codes", "503"}, "retry.retryOn", eg(15, 3), true)
		check(t, "max attempts", r.MaxAttempts, 3, "retry.numRetries", eg(15, 3), true)
		check(t, "attempt", r.AttemptTimeout, 5*time.Second, "retry.perRetry.timeout", eg(16, 25), false)
	}
	// Without the envoy-gateway target, the route is read as Istio's and
	// the policy is left out.
	res := LoadBytes("eg.yaml", []byte(egSrc), Options{})
	if len(res.Proxies) != 1 || res.Proxies[0].Product != model.Istio || res.Skipped["gateway.envoyproxy.io/v1alpha1 BackendTrafficPolicy"] != 1 {
		t.Errorf("proxies %v, skipped %v", res.Proxies, res.Skipped)
	}
}
