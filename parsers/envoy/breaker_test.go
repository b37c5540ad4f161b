package envoy

import (
	"math"
	"testing"

	"github.com/proxylint/proxylint/model"
)

// A cluster's retry limit is the first DEFAULT-priority threshold's
// max_retries (3 unset) and max_requests (1024 unset); a retry_budget
// replaces max_retries; istiod's value on an Istio cluster names Istio.
func TestRetryLimit(t *testing.T) {
	c := collectionOf(t, "clusters.yaml", []byte(`resources:
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: plain
  connect_timeout: 1s
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: raised
  connect_timeout: 1s
  circuit_breakers:
    thresholds:
    - {priority: HIGH, max_retries: 1}
    - {max_retries: 100, max_requests: 50}
    - {max_retries: 7}
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: budget
  connect_timeout: 1s
  circuit_breakers:
    thresholds:
    - retry_budget: {budget_percent: {value: 25}}
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: outbound|80||web.default.svc.cluster.local
  connect_timeout: 1s
  circuit_breakers:
    thresholds:
    - {max_retries: 4294967295, max_requests: 4294967295}
`))
	p := build("clusters.yaml", model.Target{Product: model.Envoy}, c)
	got := map[string]*model.RetryLimit{}
	for _, u := range p.Upstreams {
		got[u.Name] = u.RetryLimit
	}
	if rl := got["plain"]; rl.MaxRetries.Value != 3 || !rl.MaxRetries.Default() || rl.MaxRequests.Value != 1024 || rl.Budget.Valid() || rl.Generator != "" {
		t.Errorf("plain: %+v", rl)
	}
	if rl := got["raised"]; rl.MaxRetries.Value != 100 || rl.MaxRetries.Default() || rl.MaxRetries.Pos().Line != 11 || rl.MaxRequests.Value != 50 {
		t.Errorf("raised: %+v, want the first DEFAULT threshold's 100 and 50 (line 11)", rl)
	}
	if rl := got["budget"]; rl.Budget.Value != "budget_percent 25, min_retry_concurrency 3 (default)" {
		t.Errorf("budget: %+v", rl)
	}
	if rl := got["outbound|80||web.default.svc.cluster.local"]; rl.MaxRetries.Value != math.MaxUint32 || rl.Generator != "Istio" {
		t.Errorf("Istio's cluster: %+v", rl)
	}
}
