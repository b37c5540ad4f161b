package rules

import "github.com/proxylint/proxylint/model"

// The steps after the rules, in the order Process runs them:
//
//	scope → suppressions → severity → sort → fingerprint → baseline
//
// Each step leaves Unread findings as they are: what could not be read is
// reported whatever the scope, the comments, the configuration or the
// baseline say.

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
}

// Process runs the steps on the findings of Check and returns what remains,
// sorted.
func Process(m *model.Model, opts *Options, fs []Finding, steps Steps) []Finding {
	out, _ := ProcessCounted(m, opts, fs, steps)
	return out
}

// ProcessCounted is Process that also says how many findings the baseline
// left out.
func ProcessCounted(m *model.Model, opts *Options, fs []Finding, steps Steps) ([]Finding, int) {
	if opts == nil {
		opts = &Options{}
	}
	fs = inScope(fs, steps.InScope)
	fs = applySuppressions(m, opts, fs)
	fs = applySeverity(fs, opts.Severity)
	// A baseline identifies findings by their order among equal ones, so
	// it sees them in the order reports list them.
	fs = Sort(fs)
	if steps.Fingerprint != nil {
		for i, fp := range steps.Fingerprint(fs) {
			fs[i].Fingerprint = fp
		}
	}
	fs, known := HideKnown(fs, steps.Known)
	return fs, known
}

func inScope(fs []Finding, keep func(string) bool) []Finding {
	if keep == nil {
		return fs
	}
	out := fs[:0]
	for _, f := range fs {
		if f.Unread || keep(f.Pos.File) {
			out = append(out, f)
		}
	}
	return out
}

// applySeverity sets the severities the configuration asks for; one that
// says something was not read is raised, never lowered.
func applySeverity(fs []Finding, severity map[string]model.Severity) []Finding {
	if len(severity) == 0 {
		return fs
	}
	// The configuration may name a rule by an alias.
	byID := make(map[string]model.Severity, len(severity))
	for id, s := range severity {
		byID[Canonical(id)] = s
	}
	severity = byID
	for i := range fs {
		if s, ok := severity[fs[i].Rule]; ok && (!fs[i].Unread || s > fs[i].Severity) {
			fs[i].Severity = s
		}
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
