package rules

import "github.com/proxylint/proxylint/parsers"

// retryTimeoutWriteEnvoy is the Envoy half of retry-timeout-write; the rule's Check calls it for every
// Envoy proxy in the model.
func retryTimeoutWriteEnvoy(pass *Pass, p *parsers.Proxy) {
	_, _ = pass, p
}
