// Package lint is proxylint's pipeline in one call: the loaders turn the
// paths into the model, the request paths are linked through the declared
// hops, the rules run, and the steps after them (scope, suppressions,
// severities, order) leave the findings a report shows.
//
// The command line and the language server share it, and so can any other
// front end. It reads files through package load, whose Options.Overlay
// puts contents in place of the disk's (an editor's unsaved buffers, or
// files that exist only in memory).
package lint

import (
	"github.com/proxylint/proxylint/chain"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// Options configure a run.
type Options struct {
	Load  load.Options
	Rules *rules.Options
	// Chain holds the hops declared around the configurations (client,
	// balancers, backend); nil declares none.
	Chain *model.Chain
	// MaxPaths bounds the request paths followed from one entry route
	// (0: the default).
	MaxPaths int
	// Checking, when set, is called once the model is built and before
	// the rules run, and what it returns after them.
	Checking func(m *model.Model) (done func())
}

// Result is what a run found.
type Result struct {
	// Model is what the loaders read, the files' sources among it.
	Model *model.Model
	// Findings are sorted, with the suppressed ones marked; no baseline
	// has been applied.
	Findings []rules.Finding
}

// Run lints the configurations under paths.
func Run(paths []string, opts Options) Result {
	m, scope := load.LoadScoped(paths, opts.Load)
	chain.AnalyzeModel(m, opts.Chain, opts.MaxPaths)
	if opts.Checking != nil {
		defer opts.Checking(m)()
	}
	steps := rules.Steps{}
	if scope != nil {
		steps.InScope = scope.Contains
	}
	return Result{Model: m, Findings: rules.Process(m, opts.Rules, rules.Check(m, opts.Rules), steps)}
}
