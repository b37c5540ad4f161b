package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fatih/color"

	"github.com/proxylint/proxylint/chain"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/report"
	"github.com/proxylint/proxylint/rules"
)

const chainUsage = `Usage: proxylint chain [flags] PATH...

Shows the path each request takes, hop by hop: the declared client and load
balancers (--client-timeout, --behind), the linted proxies linked by address
(an upstream server that another linted configuration listens on), and the
declared backend (--backend). For every hop: how long it waits for the next
one, how many times it may send a request on, how long it keeps idle
connections from the hop in front, and how long it pools idle connections to
the next hop. Values in brackets are the proxy's defaults; a "!" marks a value
a finding is about, and the findings follow each path.

Flags are those of a lint run (see proxylint --help); --format is text or
json. The exit code is 0, or 2 when a file could not be loaded; with
--fail-on LEVEL (error, warning or note), 1 when a finding the paths show
is at or above LEVEL (--exit-zero makes it 0 again). Without --fail-on on
the command line the chain is a view and findings do not fail it, whatever
fail-on .proxylint.yaml sets for lint runs.
`

// chainReport is what a chain report shows: the paths, and the findings
// and sources they quote.
type chainReport struct {
	in    *report.Input
	views []chain.Path
}

// chainFormats are the formats of proxylint chain.
var chainFormats = report.Formats[chainReport]{
	{Name: "text", Color: true, Write: func(w io.Writer, r chainReport, color bool) error { return chainText(w, r.in, r.views, color) }},
	{Name: "json", Write: func(w io.Writer, r chainReport, _ bool) error { return chainJSON(w, r.in, r.views) }},
}

func cmdChain(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) (code int) {
	f, paths, err := parseLintFlags(args)
	if err != nil {
		fmt.Fprintf(stderr, "proxylint chain: %v\nRun \"proxylint chain --help\" for usage.\n", strings.TrimPrefix(err.Error(), "usage: "))
		return exitError
	}
	if f.help {
		fmt.Fprint(stdout, chainUsage)
		return exitClean
	}
	for _, o := range f.outputs {
		if _, ok := chainFormats.Lookup(o.format); !ok {
			fmt.Fprintf(stderr, "proxylint chain: --format %q: want %s\n", o.format, strings.Join(chainFormats.Names(), " or "))
			return exitError
		}
	}
	f.stdin = stdin
	prof, err := startProfiles(f.prof, paths)
	if err != nil {
		fmt.Fprintf(stderr, "proxylint chain: %v\n", err)
		return exitError
	}
	defer prof.stop(stdout, stderr, &code)
	s, run, ok := analyze(f, paths, stderr)
	if !ok {
		return exitError
	}
	mdl, findings := run.model, run.findings
	prof.read(inputs(paths, mdl.Files, s))
	views := chain.Describe(mdl, run.chain)
	wd, _ := os.Getwd()
	in := &report.Input{Findings: findings, Files: mdl.Files, Dir: wd}
	if err := writeReports(chainFormats, f, chainReport{in, views}, inputs(paths, mdl.Files, s), stdout, stderr, getenv); err != nil {
		fmt.Fprintf(stderr, "proxylint chain: %v\n", err)
		return exitError
	}
	for _, d := range run.diagnostics {
		if d.Fatal {
			fmt.Fprintf(stderr, "proxylint chain: %s\n", report.Escape(d.Error()))
			return exitError
		}
	}
	if f.given["fail-on"] {
		threshold, _ := model.ParseSeverity(f.failOn)
		at := indexFindings(findings)
		for _, v := range views {
			if exitCode(at.pathFindings(v), func(string) model.Severity { return threshold }) == exitFindings {
				return f.findingsExit()
			}
		}
	}
	return exitClean
}

// findingsAt holds the unsuppressed findings of a run by position, in
// their order, so that the findings of each path are found without
// reading every finding again.
type findingsAt struct {
	at map[model.Pos][]int
	fs []rules.Finding
}

func indexFindings(findings []rules.Finding) *findingsAt {
	x := &findingsAt{at: map[model.Pos][]int{}, fs: findings}
	for i, f := range findings {
		if f.Suppression == nil {
			x.at[f.Pos] = append(x.at[f.Pos], i)
		}
	}
	return x
}

// pathFindings are the unsuppressed findings about a path: those at one of
// its steps' values or routes, in the run's order.
func (x *findingsAt) pathFindings(p chain.Path) []rules.Finding {
	var idx []int
	// A path's positions are few: a list finds those seen.
	var seen []model.Pos
	lists := 0
	for _, s := range p.Steps {
		for _, pos := range stepPositions(s) {
			if slices.Contains(seen, pos) {
				continue
			}
			seen = append(seen, pos)
			if at := x.at[pos]; len(at) > 0 {
				idx = append(idx, at...)
				lists++
			}
		}
	}
	if len(idx) == 0 {
		return nil
	}
	if lists > 1 {
		slices.Sort(idx)
	}
	out := make([]rules.Finding, 0, len(idx))
	for _, i := range idx {
		out = append(out, x.fs[i])
	}
	return out
}

func stepPositions(s chain.Step) []model.Pos {
	out := []model.Pos{s.Waits.Pos(), s.Retry.Pos(), s.Idle.Pos(), s.PoolIdle.Pos(), s.Lifetime.Pos()}
	if s.Route != nil {
		out = append(out, s.Route.Pos)
		if s.Route.Forward != nil {
			out = append(out, s.Route.Forward.Pos)
			if u := s.Route.Forward.Upstream; u != nil {
				out = append(out, u.Pos)
			}
		}
	}
	var valid []model.Pos
	for _, p := range out {
		if p.IsValid() {
			valid = append(valid, p)
		}
	}
	return valid
}

func chainText(w io.Writer, in *report.Input, views []chain.Path, useColor bool) error {
	bw := bufio.NewWriter(w)
	warn, dim, bold := color.New(color.FgYellow, color.Bold), color.New(color.Faint), color.New(color.Bold)
	for _, c := range []*color.Color{warn, dim, bold} {
		if useColor {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	if len(views) == 0 {
		fmt.Fprintln(bw, "No proxied route: nothing passes requests on.")
		return bw.Flush()
	}
	at := indexFindings(in.Findings)
	// One table writer, set anew for each path's table.
	var tb strings.Builder
	tw := new(tabwriter.Writer)
	for i, v := range views {
		fs := at.pathFindings(v)
		flagged := map[model.Pos]bool{}
		for _, f := range fs {
			flagged[f.Pos] = true
		}
		if i > 0 {
			fmt.Fprintln(bw)
		}
		fmt.Fprintln(bw, bold.Sprintf("Path %d of %d: %s", i+1, len(views), entryName(in, v)))
		// tabwriter aligns on bytes, so colour is applied after
		// alignment to the marks only.
		tb.Reset()
		tw.Init(&tb, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  HOP\tWAITS\tTRIES\tKEEPS IDLE FROM FRONT\tPOOLS IDLE TO NEXT\tPOOL LIFETIME")
		for _, s := range v.Steps {
			// Defaults point at their block, which several of them share:
			// mark a default only when it alone is there.
			shared := map[model.Pos]int{}
			for _, d := range []model.Setting[time.Duration]{s.Waits, s.Idle, s.PoolIdle, s.Lifetime} {
				if d.Valid() {
					shared[d.Pos()]++
				}
			}
			if s.Retry.Valid() {
				shared[s.Retry.Pos()]++
			}
			marked := func(pos model.Pos, isDefault bool) bool {
				return flagged[pos] && (!isDefault || shared[pos] == 1)
			}
			mark := func(d model.Setting[time.Duration]) string {
				return cell(d, marked(d.Pos(), d.Default()))
			}
			tries := "-"
			if s.Kind == model.HopProxy {
				tries = strconv.Itoa(s.Attempts)
				if marked(s.Retry.Pos(), s.Retry.Default()) {
					tries += " !"
				}
			}
			// Names come from the files read: escaped, they hold no
			// tab, line break or terminal sequence.
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", report.Escape(s.Name),
				mark(s.Waits), tries, mark(s.Idle), mark(s.PoolIdle), mark(s.Lifetime))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		table := tb.String()
		if useColor {
			table = strings.ReplaceAll(table, " !", " "+warn.Sprint("!"))
		}
		fmt.Fprint(bw, table)
		for _, s := range v.Steps {
			if s.Note != "" {
				fmt.Fprintf(bw, "  note: %s %s\n", report.Escape(s.Name), report.Escape(s.Note))
			}
		}
		for _, f := range fs {
			fmt.Fprintf(bw, "  %s %s: %s [%s]\n", warn.Sprint("!"), report.Escape(in.RelPath(f.Pos.File))+":"+strconv.Itoa(int(f.Pos.Line)), report.Escape(firstSentence(f.Message)), report.Escape(f.Rule))
		}
	}
	return bw.Flush()
}

func entryName(in *report.Input, v chain.Path) string {
	for _, s := range v.Steps {
		if s.Route != nil {
			return fmt.Sprintf("%s:%d %s", report.Escape(in.RelPath(s.Route.Pos.File)), s.Route.Pos.Line, report.Escape(s.Route.Name))
		}
	}
	return "?"
}

// cell renders a duration setting: "60s", "[60s]" for a default, "-" when
// the hop has no such value, and " !" when a finding is about it.
func cell(s model.Setting[time.Duration], flagged bool) string {
	if !s.Valid() {
		return "-"
	}
	v := durString(s.Value)
	if s.Default() {
		v = "[" + v + "]"
	}
	if flagged {
		v += " !"
	}
	return v
}

func durString(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return model.DurationText(d)
}

func firstSentence(msg string) string {
	if i := strings.Index(msg, ": "); i > 0 && i < 160 {
		return msg[:i]
	}
	if len(msg) > 160 {
		return msg[:157] + "..."
	}
	return msg
}

// The JSON document of "proxylint chain --format json".
type chainDoc struct {
	Version int         `json:"version"`
	Paths   []chainPath `json:"paths"`
}

type chainPath struct {
	Steps    []chainStep    `json:"steps"`
	Findings []chainFinding `json:"findings"`
}

type chainStep struct {
	Kind     string        `json:"kind"`
	Name     string        `json:"name"`
	File     string        `json:"file,omitempty"`
	Line     int           `json:"line,omitempty"`
	Waits    *chainSetting `json:"waits,omitempty"`
	Attempts int           `json:"attempts"`
	Idle     *chainSetting `json:"idle,omitempty"`
	PoolIdle *chainSetting `json:"pool_idle,omitempty"`
	Lifetime *chainSetting `json:"pool_lifetime,omitempty"`
	Note     string        `json:"note,omitempty"`
}

type chainSetting struct {
	Seconds float64 `json:"seconds"`
	Setting string  `json:"setting"`
	Default bool    `json:"default"`
	File    string  `json:"file,omitempty"`
	Line    int     `json:"line,omitempty"`
}

type chainFinding struct {
	Rule    string `json:"rule"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

func chainJSON(w io.Writer, in *report.Input, views []chain.Path) error {
	doc := chainDoc{Version: 1, Paths: []chainPath{}}
	setting := func(s model.Setting[time.Duration]) *chainSetting {
		if !s.Valid() {
			return nil
		}
		return &chainSetting{Seconds: s.Value.Seconds(), Setting: s.Name(), Default: s.Default(), File: in.RelPath(s.Pos().File), Line: int(s.Pos().Line)}
	}
	at := indexFindings(in.Findings)
	for _, v := range views {
		p := chainPath{Steps: []chainStep{}, Findings: []chainFinding{}}
		for _, s := range v.Steps {
			cs := chainStep{Kind: string(s.Kind), Name: s.Name, Attempts: s.Attempts,
				Waits: setting(s.Waits), Idle: setting(s.Idle), PoolIdle: setting(s.PoolIdle), Lifetime: setting(s.Lifetime)}
			switch {
			case s.Route != nil:
				cs.File, cs.Line = in.RelPath(s.Route.Pos.File), int(s.Route.Pos.Line)
			case s.Pos.IsValid():
				cs.File, cs.Line = in.RelPath(s.Pos.File), int(s.Pos.Line)
			}
			cs.Note = s.Note
			p.Steps = append(p.Steps, cs)
		}
		for _, f := range at.pathFindings(v) {
			p.Findings = append(p.Findings, chainFinding{Rule: f.Rule, File: in.RelPath(f.Pos.File), Line: int(f.Pos.Line), Message: f.Message})
		}
		doc.Paths = append(doc.Paths, p)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
