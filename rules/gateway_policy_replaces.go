package rules

import (
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// GatewayPolicyReplaces flags a policy attached to a route that replaces,
// rather than merges with, the policy attached to the route's Gateway, so
// that a retry policy or request timeout set only at the Gateway does not
// apply to the route.
var GatewayPolicyReplaces = &Rule{
	ID:       "gateway-policy-replaces",
	Summary:  "a route's policy replaces its Gateway's, dropping a retry or timeout set only at the Gateway",
	Severity: model.Warning,
	Tags:     []string{"kubernetes", "timeouts", "retries", "correctness"},
	Products: []model.Product{model.EnvoyGateway},
	Check:    checkGatewayPolicyReplaces,
}

// The loader records each gateway policy setting a route policy drops
// among the proxy's Dropped settings (Replaced): the finding points at the
// route policy's reference to the route, its related location at the
// gateway policy's setting that is lost.
func checkGatewayPolicyReplaces(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		for _, d := range p.Dropped {
			if !d.Replaced {
				continue
			}
			fix := "add mergeType: StrategicMerge to the route's policy, so that it is merged onto the Gateway's, or repeat " + d.Name() + " in it"
			if !releases.GatewayMergeType.In(p.Target) {
				fix = "repeat " + d.Name() + " in the route's policy (or upgrade Envoy Gateway to 1.4.0 or later and add mergeType: StrategicMerge to it)"
			}
			pass.Report(Finding{
				Pos:     d.Pos(),
				Message: d.Value + ".",
				Related: relatedDrop(d),
				Fix:     Advice(fix),
			})
		}
	}
}
