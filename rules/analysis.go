package rules

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/proxylint/proxylint/model"
)

// An Analysis computes a fact of the model that several rules, or several
// findings of one rule, need: which routes write, say. As a go/analysis
// Analyzer names what it Requires, a rule names its analyses in
// Rule.Requires; the engine runs each analysis the enabled rules require
// once per run, before the rules, over the whole model, and a rule reads
// the result with Pass.ResultOf. An analysis reads the model and never
// changes it.
type Analysis struct {
	// Name names the analysis in messages.
	Name string
	// Run computes the fact.
	Run func(*AnalysisPass) any
}

// AnalysisPass is what an analysis reads: the model and the options of
// the run.
type AnalysisPass struct {
	Model   *model.Model
	Options *Options
}

// WritePaths returns the compiled write-location patterns in effect.
func (a *AnalysisPass) WritePaths() []*regexp.Regexp {
	if a.Options != nil && a.Options.WritePaths != nil {
		return a.Options.WritePaths
	}
	return defaultWritePaths()
}

// defaultWritePaths compiles DefaultWritePaths.
func defaultWritePaths() []*regexp.Regexp {
	out := make([]*regexp.Regexp, 0, len(DefaultWritePaths))
	for _, pat := range DefaultWritePaths {
		out = append(out, regexp.MustCompile(pat))
	}
	return out
}

// engineAnalyses are computed on every run, whatever the rules require:
// what they find is reported as the loaders' diagnostics are.
var engineAnalyses = []*Analysis{RequestPaths}

// runAnalyses computes, once each, the analyses of every run and those the
// rules require.
func runAnalyses(m *model.Model, opts *Options, rs []*Rule) map[*Analysis]any {
	order := append([]*Analysis{}, engineAnalyses...)
	for _, r := range rs {
		for _, a := range r.Requires {
			if !slices.Contains(order, a) {
				order = append(order, a)
			}
		}
	}
	ap := &AnalysisPass{Model: m, Options: opts}
	results := make(map[*Analysis]any, len(order))
	for _, a := range order {
		results[a] = a.Run(ap)
	}
	return results
}

// ResultOf returns the result of an analysis the running rule requires.
// Asking for one it does not name in Requires is a programming error.
func (p *Pass) ResultOf(a *Analysis) any {
	if p.Rule != nil && !slices.Contains(p.Rule.Requires, a) {
		panic(fmt.Sprintf("rule %s asks for analysis %s, which it does not require", p.Rule.ID, a.Name))
	}
	if v, ok := p.results[a]; ok {
		return v
	}
	// A pass made outside Check (a test's): computed for it alone.
	return a.Run(&AnalysisPass{Model: p.Model, Options: p.Options})
}
