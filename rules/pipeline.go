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
		&BaselineStep{Known: steps.Known},
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
// (suppress.go), and reports those that suppress nothing or are invalid.
type SuppressionStep struct {
	Model   *model.Model
	Options *Options
}

func (SuppressionStep) Name() string { return "suppressions" }

func (s SuppressionStep) Run(fs []Finding) []Finding {
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
// counts them in Hidden (nil Known: no baseline).
type BaselineStep struct {
	Known  func(fingerprint string) bool
	Hidden int
}

func (*BaselineStep) Name() string { return "baseline" }

func (s *BaselineStep) Run(fs []Finding) []Finding {
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
