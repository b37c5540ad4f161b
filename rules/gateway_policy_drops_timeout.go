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
// proxy's Dropped settings, with why and the policy that causes it: the
// finding points at the lost timeout, its related location at the policy.
func checkGatewayPolicyDropsTimeout(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		for _, d := range p.Dropped {
			if d.Replaced || !strings.HasPrefix(d.Name(), "timeouts.") {
				continue
			}
			pass.Report(Finding{
				Pos:     d.Pos(),
				Message: d.Value + ".",
				Related: relatedDrop(d),
				Fix:     Advice("upgrade Envoy Gateway to 1.1.3 or later, where the route's timeouts survive a policy attached to it"),
			})
		}
	}
}

// relatedDrop points at the other place a drop involves.
func relatedDrop(d model.Drop) []Related {
	if !d.By.IsValid() || d.By == d.Pos() {
		return nil
	}
	return []Related{{Pos: d.By, Message: d.ByText}}
}
