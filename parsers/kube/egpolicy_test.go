package kube

import (
	"reflect"
	"testing"
	"time"

	"github.com/proxylint/proxylint/model"
)

// A Gateway policy with a retry block and a request timeout, and a route
// policy of the orders route whose mergeType and own fields vary.
const egGatewaySrc = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: orders}
spec:
  parentRefs: [{name: public, sectionName: https}]
  rules:
  - backendRefs: [{name: orders, port: 8080}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: gw}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: public}]
  retry:
    numRetries: 3
    perRetry: {timeout: 4s}
  timeout: {http: {requestTimeout: 20s}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: orders}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: orders}]
`

func egLoad(t *testing.T, src string, v model.Version) Result {
	t.Helper()
	return LoadBytes("eg.yaml", []byte(src), Options{Target: model.Target{Product: model.EnvoyGateway, Version: v}})
}

func TestEnvoyGatewayPolicyPrecedence(t *testing.T) {
	v15 := model.Version{Major: 1, Minor: 5}
	t.Run("gateway policy alone", func(t *testing.T) {
		src := egGatewaySrc[:len(egGatewaySrc)-len("---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: orders}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: orders}]\n")]
		res := egLoad(t, src, v15)
		p := res.Proxies[0]
		r := p.Routes()[0]
		check(t, "budget", r.Budget, 20*time.Second, "timeout.http.requestTimeout", eg(17, 36), false)
		check(t, "attempts", r.MaxAttempts, 4, "retry.numRetries", eg(15, 17), false)
		check(t, "attempt", r.AttemptTimeout, 4*time.Second, "retry.perRetry.timeout", eg(16, 25), false)
		if len(p.Dropped) != 0 || len(res.Diagnostics) != 0 {
			t.Errorf("dropped %v, diagnostics %v", p.Dropped, res.Diagnostics)
		}
	})
	t.Run("route policy replaces", func(t *testing.T) {
		res := egLoad(t, egGatewaySrc+"  circuitBreaker: {maxConnections: 10}\n", v15)
		p := res.Proxies[0]
		r := p.Routes()[0]
		check(t, "budget", r.Budget, 15*time.Second, "timeouts.request", eg(7, 5), true)
		check(t, "attempts", r.MaxAttempts, 1, "", model.Pos{}, false)
		want := []model.Drop{
			{Setting: model.Set("BackendTrafficPolicy orders targets HTTPRoute orders without mergeType, so Envoy Gateway builds the route from it in place of the Gateway's BackendTrafficPolicy gw: "+
				"the gateway policy's retry policy does not apply to this route", "retry", "policy", eg(23, 16)),
				By: eg(14, 3), ByText: "retry policy set by BackendTrafficPolicy gw on the Gateway, lost for HTTPRoute orders", Replaced: true},
			{Setting: model.Set("BackendTrafficPolicy orders targets HTTPRoute orders without mergeType, so Envoy Gateway builds the route from it in place of the Gateway's BackendTrafficPolicy gw: "+
				"the gateway policy's timeout.http.requestTimeout 20s does not apply to this route", "timeout.http.requestTimeout", "policy", eg(23, 16)),
				By: eg(17, 20), ByText: "timeout.http.requestTimeout 20s set by BackendTrafficPolicy gw on the Gateway, lost for HTTPRoute orders", Replaced: true},
		}
		if !reflect.DeepEqual(p.Dropped, want) || len(res.Diagnostics) != 0 {
			t.Errorf("dropped\n%+v\nwant\n%+v\ndiagnostics %v", p.Dropped, want, res.Diagnostics)
		}
	})
	t.Run("merge", func(t *testing.T) {
		// The route policy's perRetry timeout wins; the Gateway's
		// numRetries and request timeout stay.
		res := egLoad(t, egGatewaySrc+"  mergeType: StrategicMerge\n  retry: {perRetry: {timeout: 2s}}\n", v15)
		p := res.Proxies[0]
		r := p.Routes()[0]
		check(t, "budget", r.Budget, 20*time.Second, "timeout.http.requestTimeout", eg(17, 36), false)
		check(t, "attempts", r.MaxAttempts, 4, "retry.numRetries", eg(15, 17), false)
		check(t, "attempt", r.AttemptTimeout, 2*time.Second, "retry.perRetry.timeout", eg(25, 31), false)
		if len(p.Dropped) != 0 || len(res.Diagnostics) != 0 {
			t.Errorf("dropped %v, diagnostics %v", p.Dropped, res.Diagnostics)
		}
	})
	t.Run("merge removes with null", func(t *testing.T) {
		res := egLoad(t, egGatewaySrc+"  mergeType: JSONMerge\n  retry: null\n", v15)
		r := res.Proxies[0].Routes()[0]
		check(t, "attempts", r.MaxAttempts, 1, "", model.Pos{}, false)
		check(t, "budget", r.Budget, 20*time.Second, "timeout.http.requestTimeout", eg(17, 36), false)
	})
	t.Run("route policy sets both", func(t *testing.T) {
		res := egLoad(t, egGatewaySrc+"  retry: {numRetries: 1}\n  timeout: {http: {requestTimeout: 90s}}\n", v15)
		p := res.Proxies[0]
		r := p.Routes()[0]
		check(t, "budget", r.Budget, 90*time.Second, "timeout.http.requestTimeout", eg(25, 36), false)
		check(t, "attempts", r.MaxAttempts, 2, "retry.numRetries", eg(24, 23), false)
		if len(p.Dropped) != 0 {
			t.Errorf("dropped %v", p.Dropped)
		}
	})
	t.Run("mergeType before 1.4", func(t *testing.T) {
		res := egLoad(t, egGatewaySrc+"  mergeType: StrategicMerge\n", model.Version{Major: 1, Minor: 3})
		p := res.Proxies[0]
		check(t, "attempts", p.Routes()[0].MaxAttempts, 1, "", model.Pos{}, false)
		want := []model.Diagnostic{{Code: CodeIgnored, Severity: model.Warning, Pos: eg(24, 3),
			Message: "mergeType is ignored: Envoy Gateway 1.3 has no such field (it exists since 1.4.0), so this policy replaces the Gateway's BackendTrafficPolicy for the routes it targets"}}
		if !reflect.DeepEqual(res.Diagnostics, want) || len(p.Dropped) != 2 || p.Dropped[0].Value != "BackendTrafficPolicy orders targets HTTPRoute orders and Envoy Gateway 1.3 ignores its mergeType, "+
			"so Envoy Gateway builds the route from it in place of the Gateway's BackendTrafficPolicy gw: the gateway policy's retry policy does not apply to this route" {
			t.Errorf("diagnostics %v, dropped %v", res.Diagnostics, p.Dropped)
		}
	})
	t.Run("bad mergeType", func(t *testing.T) {
		res := egLoad(t, egGatewaySrc+"  mergeType: Merge\n", v15)
		want := []model.Diagnostic{{Code: CodeInvalid, Severity: model.Error, Pos: eg(24, 14),
			Message: `mergeType "Merge" is not StrategicMerge or JSONMerge: Envoy Gateway refuses the policy`}}
		if !reflect.DeepEqual(res.Diagnostics, want) {
			t.Errorf("diagnostics %v", res.Diagnostics)
		}
	})
	t.Run("route timeout wins", func(t *testing.T) {
		// The rule's own timeout wins over any policy's: only the retry
		// is lost.
		src := egGatewaySrc[:len("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: orders}\nspec:\n  parentRefs: [{name: public, sectionName: https}]\n  rules:\n  - backendRefs: [{name: orders, port: 8080}]\n")] +
			"    timeouts: {request: 30s}\n" + egGatewaySrc[len("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: orders}\nspec:\n  parentRefs: [{name: public, sectionName: https}]\n  rules:\n  - backendRefs: [{name: orders, port: 8080}]\n"):]
		res := egLoad(t, src, v15)
		p := res.Proxies[0]
		check(t, "budget", p.Routes()[0].Budget, 30*time.Second, "timeouts.request", eg(8, 25), false)
		if len(p.Dropped) != 1 || p.Dropped[0].Name() != "retry" {
			t.Errorf("dropped %v", p.Dropped)
		}
	})
}

const egClientSrc = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: api}
spec:
  parentRefs: [{name: public, sectionName: https}]
  rules:
  - backendRefs: [{name: api, port: 8080}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web}
spec:
  parentRefs: [{name: public}]
  rules:
  - backendRefs: [{name: web, port: 8080}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: all}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: public}]
  timeout:
    http: {requestReceivedTimeout: 10s, idleTimeout: 30s}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: https}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: public, sectionName: https}]
  timeout:
    http: {idleTimeout: 90s}
    tcp: {idleTimeout: 5s}
`

func TestEnvoyGatewayClientTrafficPolicy(t *testing.T) {
	res := egLoad(t, egClientSrc, model.Version{Major: 1, Minor: 5})
	if len(res.Diagnostics) != 0 || len(res.Proxies) != 1 || !reflect.DeepEqual(res.Read, map[string]int{"HTTPRoute": 2, "ClientTrafficPolicy": 2}) {
		t.Fatalf("diagnostics %v, proxies %v, read %v", res.Diagnostics, res.Proxies, res.Read)
	}
	ls := res.Proxies[0].Listeners
	// The listener's own policy wins over the Gateway's, field and all:
	// no request timeout.
	check(t, "api idle", ls[0].IdleTimeout, 90*time.Second, "timeout.http.idleTimeout", eg(31, 25), false)
	if ls[0].RequestTimeout.Valid() {
		t.Errorf("api request timeout %v", ls[0].RequestTimeout)
	}
	check(t, "web idle", ls[1].IdleTimeout, 30*time.Second, "timeout.http.idleTimeout", eg(23, 54), false)
	check(t, "web request", ls[1].RequestTimeout, 10*time.Second, "timeout.http.requestReceivedTimeout", eg(23, 36), false)

	// 1.0 has no http.idleTimeout: Envoy's 1h applies.
	res = egLoad(t, egClientSrc, model.Version{Major: 1})
	want := []model.Diagnostic{
		{Code: CodeIgnored, Severity: model.Warning, Pos: eg(31, 12), Message: "timeout.http.idleTimeout is ignored: Envoy Gateway 1.0 has no such field (it exists since 1.1.0), so Envoy's 1h idle timeout applies"},
		{Code: CodeIgnored, Severity: model.Warning, Pos: eg(23, 41), Message: "timeout.http.idleTimeout is ignored: Envoy Gateway 1.0 has no such field (it exists since 1.1.0), so Envoy's 1h idle timeout applies"},
	}
	if !reflect.DeepEqual(res.Diagnostics, want) {
		t.Errorf("diagnostics %v", res.Diagnostics)
	}
	check(t, "web idle 1.0", res.Proxies[0].Listeners[1].IdleTimeout, time.Hour, "timeout.http.idleTimeout", eg(9, 1), true)

	// Without the envoy-gateway target the policies are left out.
	res = LoadBytes("eg.yaml", []byte(egClientSrc), Options{})
	if res.Skipped["gateway.envoyproxy.io/v1alpha1 ClientTrafficPolicy"] != 2 || res.Read["ClientTrafficPolicy"] != 0 {
		t.Errorf("skipped %v, read %v", res.Skipped, res.Read)
	}
}
