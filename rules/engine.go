package rules

import (
	"fmt"
	"regexp"
	"runtime"
	"sort"

	"github.com/proxylint/proxylint/internal/workers"
	"github.com/proxylint/proxylint/model"
)

// Finding is one problem a rule found.
type Finding struct {
	Rule     string
	Severity model.Severity
	// Message names the values involved and their consequence. Its first
	// sentence stands alone (GitHub shows only that).
	Message string
	Pos     model.Pos
	// End is where the flagged text ends, when known: the position just
	// past its last character, as SARIF's endColumn counts.
	End model.Pos
	// Related points at the other places involved: the line a value is
	// inherited from, the other hop.
	Related []Related
	// Fix says how to repair the configuration: advice, or edits that
	// --fix applies when they are safe, and with --unsafe-fixes when they
	// are not (fix.go). Applied together, the edits of one fix leave a
	// configuration the proxy accepts.
	Fix Fix
	// Suppression is set when an inline comment suppresses the finding.
	Suppression *Suppression
	// Fatal marks a file that could not be loaded completely: the finding
	// cannot be suppressed, demoted, hidden by a baseline or left out of
	// scope, and the run exits 2.
	Fatal bool
	// Unread marks a finding that says part of a configuration was not
	// read (a Fatal one, or an include not followed): what was not read
	// was not linted, so it is never suppressed, hidden by a baseline,
	// demoted, turned off or left out of scope.
	Unread bool
	// Fingerprint identifies the finding across runs (set by the
	// pipeline's fingerprint step; see report.Fingerprints).
	Fingerprint string
}

// Related is a secondary position of a finding.
type Related struct {
	Pos     model.Pos
	Message string
}

// Suppression records the comment that suppressed a finding.
type Suppression struct {
	Pos    model.Pos
	Reason string
}

// Options configure a run of the engine.
type Options struct {
	// Enable turns on rules that are off by default; Disable turns rules
	// off. The caller resolves conflicts (flags beat the configuration
	// file); Disable wins here.
	Enable  map[string]bool
	Disable map[string]bool
	// Severity overrides rules' default severities.
	Severity map[string]model.Severity
	// WritePaths are the patterns that mark a location as one that
	// writes (orders, payments, uploads); nil means DefaultWritePaths.
	WritePaths []*regexp.Regexp
	// NoInlineIgnores disregards "# proxylint:ignore" comments (for
	// audits). RequireReason makes a suppression without a reason an
	// error.
	NoInlineIgnores bool
	RequireReason   bool
	// Hops are the hops declared around the configurations (client,
	// balancers, backend), outermost first; MaxPaths bounds the request
	// paths followed from one entry route (0: chain.DefaultMaxPaths).
	// The path analysis reads them (RequestPaths).
	Hops     []*model.Hop
	MaxPaths int
}

// DefaultWritePaths recognises locations whose requests change state.
var DefaultWritePaths = []string{
	`(?i)/(orders?|pay|payments?|checkout|submit|upload|write|transfers?|charges?|purchase|billing)(/|$|\?|\.)`,
}

// Pass is what a rule's Check receives: the model and a way to report.
type Pass struct {
	Rule    *Rule
	Model   *model.Model
	Options *Options
	report  func(Finding)
	// sources is the run's index of the model's sources, shared by
	// the passes of one Check.
	sources *sourceIndex
	// results holds the analyses of the run (Requires).
	results map[*Analysis]any

	defaultWritePaths []*regexp.Regexp
}

// Report records a finding of the running rule; Rule and Severity default
// to the rule's own.
func (p *Pass) Report(f Finding) {
	if f.Rule == "" {
		f.Rule = p.Rule.ID
	}
	if f.Severity == 0 {
		f.Severity = p.Rule.Severity
	}
	f.Fix = inGenerated(p, f)
	p.report(f)
}

// Reportf reports a finding at pos with a formatted message.
func (p *Pass) Reportf(pos model.Pos, format string, args ...any) {
	p.Report(Finding{Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// WritePaths returns the compiled write-location patterns in effect,
// compiling the defaults on first use in this run.
func (p *Pass) WritePaths() []*regexp.Regexp {
	if p.Options != nil && p.Options.WritePaths != nil {
		return p.Options.WritePaths
	}
	if p.defaultWritePaths == nil {
		p.defaultWritePaths = defaultWritePaths()
	}
	return p.defaultWritePaths
}

// Enabled reports whether rule r runs under these options.
func (o *Options) Enabled(r *Rule) bool {
	if o == nil {
		return !r.Off
	}
	if o.named(o.Disable, r) {
		return false
	}
	return !r.Off || o.named(o.Enable, r)
}

// named reports whether set holds the rule's ID or one of its aliases: a
// caller may fill Enable and Disable with either.
func (o *Options) named(set map[string]bool, r *Rule) bool {
	if set[r.ID] {
		return true
	}
	for _, a := range r.Aliases {
		if set[a] {
			return true
		}
	}
	return false
}

// Run checks the model and runs the steps after the rules with no scope and
// no baseline: what a library user or a test wants.
func Run(m *model.Model, opts *Options) []Finding {
	return Process(m, opts, Check(m, opts), Steps{})
}

// Checked is what the engine computed of a model: the findings of the
// rules and of the loaders' diagnostics, and the analyses every run makes
// (the request paths), which reports show beside the findings.
type Checked struct {
	Findings []Finding
	Paths    *Paths
}

// Diagnostics are the loaders' diagnostics and the analyses': everything
// that says what could not be read or analysed.
func (c Checked) Diagnostics(m *model.Model) []model.Diagnostic {
	if c.Paths == nil || len(c.Paths.Diagnostics) == 0 {
		return m.Diagnostics
	}
	return append(append([]model.Diagnostic{}, m.Diagnostics...), c.Paths.Diagnostics...)
}

// Check turns the loaders' diagnostics into findings (a fatal diagnostic
// into a Fatal finding) and runs every enabled rule over the model.
func Check(m *model.Model, opts *Options) []Finding {
	return CheckModel(m, opts).Findings
}

// CheckModel runs the analyses (those every run makes, and those the
// enabled rules require), turns the loaders' and the analyses'
// diagnostics into findings and runs every enabled rule over the model,
// which nothing changes.
func CheckModel(m *model.Model, opts *Options) Checked {
	if opts == nil {
		opts = &Options{}
	}
	sources := newSourceIndex(m.Files)
	var enabled []*Rule
	for _, r := range All() {
		if r.Check != nil && opts.Enabled(r) {
			enabled = append(enabled, r)
		}
	}
	results := runAnalyses(m, opts, enabled)
	paths := results[RequestPaths].(*Paths)
	var out findingBatches
	for _, d := range append(m.Diagnostics[:len(m.Diagnostics):len(m.Diagnostics)], paths.Diagnostics...) {
		// What was not read is always reported (Unread): the reason
		// must be on screen.
		if r, ok := Lookup(string(d.Code)); ok && !Unread(d) && !opts.Enabled(r) {
			continue
		}
		out.add(Finding{Rule: string(d.Code), Severity: d.Severity, Message: d.Message, Pos: d.Pos, Fatal: d.Fatal, Unread: Unread(d)})
	}
	// The rules read the model and the analyses and nothing else, so
	// they run side by side on the available cores; each collects its
	// own findings, handed over in the order of the list, so the result
	// is the same as one after the other.
	found := make([]findingBatches, len(enabled))
	run := func(i int) {
		r, batch := enabled[i], &found[i]
		r.Check(&Pass{Rule: r, Model: forRule(m, r), Options: opts, sources: sources, results: results, report: func(f Finding) {
			f.Fatal, f.Unread = false, false // only loaders can say a file was not read
			batch.add(f)
		}})
	}
	k := runtime.GOMAXPROCS(0)
	if routeCount(m) < sideBySideRoutes {
		// A small model: the rules take less time than starting the
		// goroutines and threads to run them side by side.
		k = 1
	}
	workers.Each(len(enabled), k, run)
	for i := range found {
		out.addAll(&found[i])
	}
	return Checked{Findings: out.all(), Paths: paths}
}

// sideBySideRoutes is the number of routes from which the rules run side
// by side.
const sideBySideRoutes = 256

// routeCount counts the routes of a model.
func routeCount(m *model.Model) int {
	n := 0
	for _, p := range m.Proxies {
		for _, l := range p.Listeners {
			n += len(l.Routes)
		}
	}
	return n
}

// forRule is the model a rule checks: only the proxies of the products it
// applies to. The request path (Chain) stays whole, since a hop of another
// proxy is still a hop.
func forRule(m *model.Model, r *Rule) *model.Model {
	if r.Products == nil {
		return m
	}
	v := *m
	v.Proxies = nil
	for _, p := range m.Proxies {
		if r.AppliesTo(p.Product) {
			v.Proxies = append(v.Proxies, p)
		}
	}
	return &v
}

// Sort orders findings deterministically and drops exact duplicates (the
// same rule, position and message: one directive inherited by many
// routes).
func Sort(fs []Finding) []Finding {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Pos != b.Pos {
			return a.Pos.Before(b.Pos)
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
	out := fs[:0]
	for _, f := range fs {
		if n := len(out); n > 0 && f.Pos == out[n-1].Pos && f.Rule == out[n-1].Rule && f.Message == out[n-1].Message {
			continue
		}
		out = append(out, f)
	}
	return out
}
