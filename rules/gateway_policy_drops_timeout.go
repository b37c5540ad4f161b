package rules

import (
	"strings"

	"github.com/proxylint/proxylint/model"
)

// GatewayPolicyDropsTimeout flags an HTTPRoute timeout that a policy
// attached to the route makes the gateway lose, so that another timeout
// applies than the one written.
var GatewayPolicyDropsTimeout = &Rule{
	ID:       "gateway-policy-drops-timeout",
	Summary:  "a policy attached to a route makes the gateway lose the route's timeout",
	Severity: model.Error,
	Tags:     []string{"kubernetes", "timeouts", "correctness"},
	Products: []model.Product{model.EnvoyGateway},
	Check:    checkGatewayPolicyDropsTimeout,
}

// The loader records a route timeout that the gateway drops among the
// proxy's Dropped settings, with why.
func checkGatewayPolicyDropsTimeout(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		for _, inv := range p.Dropped {
			if !strings.HasPrefix(inv.Name, "timeouts.") {
				continue
			}
			pass.Report(Finding{
				Pos:     inv.Pos,
				Message: inv.Value + ".",
				Fix:     "upgrade Envoy Gateway to 1.1.3 or later, where the route's timeouts survive a policy attached to it",
			})
		}
	}
}
