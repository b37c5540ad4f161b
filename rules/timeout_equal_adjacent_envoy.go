package rules

import "github.com/proxylint/proxylint/parsers"

// timeoutEqualAdjacentEnvoy is the Envoy half of timeout-equal-adjacent; the rule's Check calls it for every
// Envoy proxy in the model.
func timeoutEqualAdjacentEnvoy(pass *Pass, p *parsers.Proxy) {
	_, _ = pass, p
}
