package envoy

import (
	"fmt"
	"math"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// Envoy's circuit breaker defaults for a cluster's default priority
// (source/common/upstream/upstream_impl.cc, ClusterInfoImpl's
// ResourceManagers::load: "uint64_t max_requests = 1024;", "uint64_t
// max_retries = 3;"; data-plane-api
// envoy/config/cluster/v3/circuit_breaker.proto:71-72, "If not specified,
// the default is 3").
const (
	defaultMaxRetries  = 3
	defaultMaxRequests = 1024
)

// retryLimit reads what bounds the retries in flight to a cluster: the
// first threshold of the DEFAULT priority (Envoy takes the first whose
// priority matches, std::find_if), where routes send their requests
// unless they set a priority. A retry_budget there replaces max_retries
// (resource_manager_impl.h, RetryBudgetImpl::canCreate: the budget is used
// whenever one is configured).
func (b *builder) retryLimit(cl msg, n *node) *model.RetryLimit {
	const field = "circuit_breakers.thresholds"
	rl := &model.RetryLimit{
		MaxRetries:  model.Default(int64(defaultMaxRetries), field+".max_retries", b.pos(n)),
		MaxRequests: model.Default(int64(defaultMaxRequests), field+".max_requests", b.pos(n)),
	}
	thNodes := n.get("circuit_breakers").get("thresholds")
	for i, th := range cl.sub("circuit_breakers").list("thresholds") {
		if p := th.enum("priority"); p != "DEFAULT" && p != "" {
			continue
		}
		tn := thNodes.item(i)
		if v, ok := th.wrapped("max_retries"); ok {
			key, _ := tn.field("max_retries")
			rl.MaxRetries = model.Set(int64(v.Uint()), field+".max_retries", "cluster", b.pos(orNode(key, tn)))
		}
		if v, ok := th.wrapped("max_requests"); ok {
			key, _ := tn.field("max_requests")
			rl.MaxRequests = model.Set(int64(v.Uint()), field+".max_requests", "cluster", b.pos(orNode(key, tn)))
		}
		if th.has("retry_budget") {
			rb := th.sub("retry_budget")
			key, _ := tn.field("retry_budget")
			desc := "budget_percent 20 (default)"
			if p := rb.sub("budget_percent"); p.ok() {
				desc = fmt.Sprintf("budget_percent %g", p.m.Get(p.fd("value")).Float())
			}
			mrc := "min_retry_concurrency 3 (default)"
			if v, ok := rb.wrapped("min_retry_concurrency"); ok {
				mrc = fmt.Sprintf("min_retry_concurrency %d", v.Uint())
			}
			rl.Budget = model.Set(desc+", "+mrc, field+".retry_budget", "cluster", b.pos(orNode(key, tn)))
		}
		break
	}
	if rl.MaxRetries.Value == math.MaxUint32 && istioCluster(cl, n) {
		// What istiod writes on every cluster unless a DestinationRule
		// sets maxRetries (pilot/pkg/networking/core/cluster_traffic_policy.go,
		// getDefaultCircuitBreakerThresholds).
		rl.Generator = "Istio"
	}
	return rl
}

// istioCluster reports whether istiod made the cluster: its metadata
// carries Istio's filter metadata, or its name is one of istiod's
// ("outbound|9080||reviews.default.svc.cluster.local",
// "inbound|8080||").
func istioCluster(cl msg, n *node) bool {
	if n.get("metadata").get("filter_metadata").get("istio") != nil {
		return true
	}
	name := cl.str("name")
	return strings.HasPrefix(name, "outbound|") || strings.HasPrefix(name, "inbound|")
}
