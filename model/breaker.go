package model

// RetryLimit is what bounds the retries in flight to an Envoy cluster at
// once: the circuit breaker's max_retries for the default priority
// (Envoy's default is 3), or a retry budget, which replaces it
// (source/common/upstream/resource_manager_impl.h, RetryBudgetImpl). Envoy
// loaders set it on clusters; nil where it does not apply.
type RetryLimit struct {
	// MaxRetries is circuit_breakers.thresholds[].max_retries (3 by
	// default); MaxRequests the max_requests beside it (1024 by default).
	MaxRetries  Setting[int64]
	MaxRequests Setting[int64]
	// Budget is set when a retry_budget bounds retries instead; Value
	// describes it ("budget_percent 20, min_retry_concurrency 3").
	Budget Setting[string]
	// Generator names the control plane that writes MaxRetries on every
	// cluster it makes ("Istio"), when the value is its default rather
	// than one the input chose for this cluster; GeneratorPos is the
	// setting of the input that decides it for all of them, when the
	// input holds one.
	Generator    string
	GeneratorPos Pos
}
