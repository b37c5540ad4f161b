package rules

import "github.com/proxylint/proxylint/parsers"

// retryTriesUnboundedEnvoy is the Envoy half of retry-tries-unbounded; the rule's Check calls it for every
// Envoy proxy in the model.
func retryTriesUnboundedEnvoy(pass *Pass, p *parsers.Proxy) {
	_, _ = pass, p
}
