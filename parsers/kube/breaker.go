package kube

import (
	"fmt"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// istioUnlimited is what istiod writes into every cluster's circuit
// breaker for max_retries, max_requests, max_connections and
// max_pending_requests unless a DestinationRule's connectionPool sets
// them (pilot/pkg/networking/core/cluster_traffic_policy.go,
// getDefaultCircuitBreakerThresholds, 1.24.0:394 to 1.30.0:445;
// applyConnectionPool reads http.maxRetries only when it is above 0:
// "FIXME: zero is a valid value if explicitly set, otherwise we want to
// use the default").
const istioUnlimited = math.MaxUint32

// retryLimit reads, from the DestinationRule dr (nil when none names
// the host), what bounds the retries in flight to the cluster Istio
// makes for a destination: connectionPool.http.maxRetries and
// http2MaxRequests, and trafficPolicy.retryBudget (Istio 1.27.0 and
// newer, applyRetryBudget: 20% and a floor of 3 by default), which
// replaces max_retries in Envoy.
func (l *loader) retryLimit(u *model.Upstream, dr *object, policy, drPolicy *yaml.Node, block model.Pos) {
	// The defaults point where maxRetries would be written: the
	// connectionPool's http block, the connectionPool, else the rule.
	pool := get(policy, "connectionPool")
	httpKey, httpPool := getKV(pool, "http")
	at := block
	if k, _ := getKV(policy, "connectionPool"); k != nil {
		at = dr.pos(k)
	}
	if httpKey != nil {
		at = dr.pos(httpKey)
	}
	rl := &model.RetryLimit{
		MaxRetries:  model.Default(int64(istioUnlimited), "connectionPool.http.maxRetries", at),
		MaxRequests: model.Default(int64(istioUnlimited), "connectionPool.http.http2MaxRequests", at),
		Generator:   "Istio",
	}
	rl.MaxRetries = rl.MaxRetries.WithNote("what istiod writes on every cluster unless a DestinationRule sets connectionPool.http.maxRetries above 0 (pilot/pkg/networking/core/cluster_traffic_policy.go, getDefaultCircuitBreakerThresholds)")
	if n := get(httpPool, "maxRetries"); n != nil {
		if v, err := strconv.ParseInt(scalar(n), 10, 64); err == nil && v > 0 {
			rl.MaxRetries = model.Set(v, "connectionPool.http.maxRetries", "destination_rule", dr.pos(n))
			rl.Generator = ""
		}
	}
	if n := get(httpPool, "http2MaxRequests"); n != nil {
		if v, err := strconv.ParseInt(scalar(n), 10, 64); err == nil && v > 0 {
			rl.MaxRequests = model.Set(v, "connectionPool.http.http2MaxRequests", "destination_rule", dr.pos(n))
		}
	}
	rb := get(policy, "retryBudget")
	if rb == nil {
		rb = get(drPolicy, "retryBudget")
	}
	if rb != nil && releases.IstioRetryBudget.In(l.target) {
		pct := "percent 20 (default)"
		if p := scalar(get(get(rb, "percent"), "value")); p != "" {
			pct = "percent " + p
		}
		floor := "minRetryConcurrency 3 (default)"
		if m := scalar(get(rb, "minRetryConcurrency")); m != "" {
			floor = "minRetryConcurrency " + m
		}
		rl.Budget = model.Set(fmt.Sprintf("%s, %s", pct, floor), "trafficPolicy.retryBudget", "destination_rule", dr.pos(rb))
	}
	u.RetryLimit = rl
}
