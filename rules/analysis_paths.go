package rules

import (
	"github.com/proxylint/proxylint/chain"
	"github.com/proxylint/proxylint/model"
)

// Paths is what the path analysis found: the chain the loaded
// configurations are linked into, with the hops declared around them, and
// the entry routes with more request paths than the run's bound, as fatal
// diagnostics (their paths were analysed only in part).
type Paths struct {
	Chain       *model.Chain
	Diagnostics []model.Diagnostic
}

// RequestPaths links the loaded configurations into the paths requests
// take (package chain), between the hops Options.Hops declares, following
// at most Options.MaxPaths paths from one entry route. The engine computes
// it on every run, whatever rules are enabled: its diagnostics say what
// was not analysed, which is always reported.
var RequestPaths = &Analysis{
	Name: "request paths",
	Run: func(ap *AnalysisPass) any {
		var declared *model.Chain
		maxPaths := 0
		if o := ap.Options; o != nil {
			if len(o.Hops) > 0 {
				declared = &model.Chain{Hops: o.Hops}
			}
			maxPaths = o.MaxPaths
		}
		c, ds := chain.Analyze(ap.Model.Proxies, declared, maxPaths)
		return &Paths{Chain: c, Diagnostics: ds}
	},
}

// Chain is the request paths the run's configurations are linked into,
// with the hops declared around them (RequestPaths, which the rule must
// require).
func (p *Pass) Chain() *model.Chain { return p.ResultOf(RequestPaths).(*Paths).Chain }
