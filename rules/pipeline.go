package rules

import "github.com/proxylint/proxylint/model"

// The steps after the rules are listed once, in Pipeline, as
// golangci-lint's runner lists its processors:
//
//	scope → suppressions → severity → sort → fingerprint → baseline → fixes
//
// Each is a small type with its own test (pipeline_test.go). Each step
// leaves Unread findings as they are: what could not be read is reported
// whatever the scope, the comments, the configuration or the baseline
// say.
//
// A step with nothing configured passes the findings on unchanged, so one
// list serves every front end. The command line runs it in two halves, as
// a run may lint files under several configuration files: each
// configuration's engine run (package lint) runs the steps with its own
// model and options (scope, suppressions, severity, sort: fingerprint,
// baseline and fixes have nothing set), and the findings of the whole
// run, joined, go through the list again with the run's fingerprints,
// baseline and fix threshold and no model (the steps up to sort, which
// need one, then have nothing to do, and sorting sorted findings changes
// nothing).

// A Step is one stage after the rules: it takes the findings the stage
// before it left and returns what remains.
type Step interface {
	// Name names the step in the list above.
	Name() string
	Run(fs []Finding) []Finding
}

// Steps configure the steps that depend on the run.
type Steps struct {
	// InScope keeps the findings about the files the run is about (nil:
	// every file).
	InScope func(file string) bool
	// Fingerprint identifies each of the findings, in order (nil: none).
	Fingerprint func(fs []Finding) []string
	// Known reports whether a baseline records a fingerprint; those
	// findings are left out (nil: no baseline).
	Known func(fingerprint string) bool
	// Record, when set, records the fingerprinted findings as the
	// baseline (--write-baseline) and returns what the baseline written
	// knows, which is applied at once in place of Known: the run reports
	// what a later run with it would. An error stops the pipeline.
	Record func(fs []Finding) (known func(fingerprint string) bool, err error)
	// Fixes is the threshold at which the fixes of the remaining
	// findings are selected (Safe for --fix, Unsafe with
	// --unsafe-fixes); nil selects none.
	Fixes *Applicability
}

// Outcome is what the pipeline leaves: the findings to report, how many
// the baseline left out, and the fixes that apply together.
type Outcome struct {
	Findings []Finding
	Known    int
	Fixes    FixSet
	// Err is the error that stopped the pipeline (a baseline that
	// could not be recorded); the findings are then those the failed
	// step was given.
	Err error
}

// Pipeline lists the steps after the rules, in the order they run, with
// what they need of the run. The steps that count or select (the
// baseline, the fixes) are returned as the types Process reads back.
func Pipeline(m *model.Model, opts *Options, steps Steps) []Step {
	if opts == nil {
		opts = &Options{}
	}
	return []Step{
		ScopeStep{Keep: steps.InScope},
		SuppressionStep{Model: m, Options: opts},
		SeverityStep{Severity: opts.Severity},
		SortStep{},
		FingerprintStep{Of: steps.Fingerprint},
		&BaselineStep{Known: steps.Known, Record: steps.Record},
		&FixStep{Min: steps.Fixes},
	}
}

// RunPipeline runs the steps of Pipeline, in order, on the findings of
// Check.
func RunPipeline(m *model.Model, opts *Options, fs []Finding, steps Steps) Outcome {
	var out Outcome
	for _, s := range Pipeline(m, opts, steps) {
		fs = s.Run(fs)
		switch s := s.(type) {
		case *BaselineStep:
			if s.Err != nil {
				out.Findings, out.Err = fs, s.Err
				return out
			}
			out.Known = s.Hidden
		case *FixStep:
			out.Fixes = s.Set
		}
	}
	out.Findings = fs
	return out
}

// Process runs the steps on the findings of Check and returns what remains,
// sorted.
func Process(m *model.Model, opts *Options, fs []Finding, steps Steps) []Finding {
	return RunPipeline(m, opts, fs, steps).Findings
}

// ProcessCounted is Process that also says how many findings the baseline
// left out.
func ProcessCounted(m *model.Model, opts *Options, fs []Finding, steps Steps) ([]Finding, int) {
	o := RunPipeline(m, opts, fs, steps)
	return o.Findings, o.Known
}

// ScopeStep keeps the findings about the files the run is about: a
// fragment linted through the configuration that includes it reports on
// the fragment, not on the rest (nil Keep: every file).
type ScopeStep struct{ Keep func(file string) bool }

func (ScopeStep) Name() string { return "scope" }

func (s ScopeStep) Run(fs []Finding) []Finding {
	if s.Keep == nil {
		return fs
	}
	out := fs[:0]
	for _, f := range fs {
		if f.Unread || s.Keep(f.Pos.File) {
			out = append(out, f)
		}
	}
	return out
}

// SuppressionStep applies the "proxylint:ignore" comments of the files
// (suppress.go), and reports those that suppress nothing or are invalid
// (nil Model: no files, nothing to apply).
type SuppressionStep struct {
	Model   *model.Model
	Options *Options
}

func (SuppressionStep) Name() string { return "suppressions" }

func (s SuppressionStep) Run(fs []Finding) []Finding {
	if s.Model == nil {
		return fs
	}
	return applySuppressions(s.Model, s.Options, fs)
}

// SeverityStep sets the severities the configuration asks for; one that
// says something was not read is raised, never lowered.
type SeverityStep struct{ Severity map[string]model.Severity }

func (SeverityStep) Name() string { return "severity" }

func (s SeverityStep) Run(fs []Finding) []Finding {
	if len(s.Severity) == 0 {
		return fs
	}
	// The configuration may name a rule by an alias.
	byID := make(map[string]model.Severity, len(s.Severity))
	for id, sev := range s.Severity {
		byID[Canonical(id)] = sev
	}
	s.Severity = byID
	for i := range fs {
		if sev, ok := s.Severity[fs[i].Rule]; ok && (!fs[i].Unread || sev > fs[i].Severity) {
			fs[i].Severity = sev
		}
	}
	return fs
}

// SortStep orders the findings as reports list them and drops exact
// duplicates (Sort). A baseline identifies findings by their order among
// equal ones, so it must see them in that order.
type SortStep struct{}

func (SortStep) Name() string { return "sort" }

func (SortStep) Run(fs []Finding) []Finding { return Sort(fs) }

// FingerprintStep gives each finding its stable identity (nil Of: none).
type FingerprintStep struct{ Of func(fs []Finding) []string }

func (FingerprintStep) Name() string { return "fingerprint" }

func (s FingerprintStep) Run(fs []Finding) []Finding {
	if s.Of == nil {
		return fs
	}
	for i, fp := range s.Of(fs) {
		fs[i].Fingerprint = fp
	}
	return fs
}

// BaselineStep leaves out the findings a baseline knows (HideKnown) and
// counts them in Hidden (nil Known: no baseline). With Record it first
// records the findings as the baseline, and applies the one recorded; an
// error of Record is left in Err, and the findings pass unchanged.
type BaselineStep struct {
	Known  func(fingerprint string) bool
	Record func(fs []Finding) (func(fingerprint string) bool, error)
	Hidden int
	Err    error
}

func (*BaselineStep) Name() string { return "baseline" }

func (s *BaselineStep) Run(fs []Finding) []Finding {
	if s.Record != nil {
		known, err := s.Record(fs)
		if err != nil {
			s.Err = err
			return fs
		}
		s.Known = known
	}
	fs, s.Hidden = HideKnown(fs, s.Known)
	return fs
}

// FixStep selects the fixes of the findings that remain that apply at
// the threshold Min and together (SelectFixes) into Set; the findings
// pass unchanged. A nil Min selects none.
type FixStep struct {
	Min *Applicability
	Set FixSet
}

func (*FixStep) Name() string { return "fixes" }

func (s *FixStep) Run(fs []Finding) []Finding {
	if s.Min != nil {
		s.Set = SelectFixes(fs, *s.Min)
	}
	return fs
}

// HideKnown leaves out the findings whose fingerprint the baseline knows,
// except suppressed ones (reports show them as such) and unread ones, and
// says how many it left out.
func HideKnown(fs []Finding, known func(string) bool) ([]Finding, int) {
	if known == nil {
		return fs, 0
	}
	out := fs[:0]
	n := 0
	for _, f := range fs {
		if f.Fingerprint != "" && known(f.Fingerprint) && f.Suppression == nil && !f.Unread {
			n++
			continue
		}
		out = append(out, f)
	}
	return out, n
}
