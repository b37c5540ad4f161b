// Package lint is proxylint's pipeline in one call: the loaders turn the
// paths into the model; the rule engine computes its analyses (the
// request paths through the declared hops among them) and runs the rules;
// the steps after them (scope, suppressions, severities, order) leave the
// findings a report shows. Nothing writes into the model after the
// loaders.
//
// The command line and the language server share it, and so can any other
// front end. It reads files through package load, whose Options.Overlay
// puts contents in place of the disk's (an editor's unsaved buffers, or
// files that exist only in memory).
package lint

import (
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// Options configure a run.
type Options struct {
	Load load.Options
	// Rules configure the engine: the rules, and the hops declared
	// around the configurations with the bound on the request paths
	// followed (Hops, MaxPaths).
	Rules *rules.Options
	// Checking, when set, is called once the model is built and before
	// the rules run, and what it returns after them.
	Checking func(m *model.Model) (done func())
}

// Result is what a run found.
type Result struct {
	// Model is what the loaders read, the files' sources among it.
	Model *model.Model
	// Chain is the request paths the configurations are linked into,
	// with the declared hops (the engine's analysis).
	Chain *model.Chain
	// Diagnostics are the loaders' and the analyses': what could not
	// be read or analysed.
	Diagnostics []model.Diagnostic
	// Findings are sorted, with the suppressed ones marked; no baseline
	// has been applied.
	Findings []rules.Finding
}

// Run lints the configurations under paths.
func Run(paths []string, opts Options) Result {
	m, scope := load.LoadScoped(paths, opts.Load)
	if opts.Checking != nil {
		defer opts.Checking(m)()
	}
	steps := rules.Steps{}
	if scope != nil {
		steps.InScope = scope.Contains
	}
	checked := rules.CheckModel(m, opts.Rules)
	return Result{
		Model: m, Chain: checked.Paths.Chain, Diagnostics: checked.Diagnostics(m),
		Findings: rules.Process(m, opts.Rules, checked.Findings, steps),
	}
}
