// Package playground lints configurations held in memory, for the page in
// the browser that playground/wasm builds: files in, findings out, each
// with its position, related places, fix and edits, in plain values that
// encode as JSON.
//
// Nothing is read from a disk or a network: the files are an overlay that
// is every file there is (load.Options.OverlayOnly), placed at absolute
// paths below "/", so that "conf.d/app.conf" and an include of
// /etc/nginx/conf.d/*.conf find the files given as those names.
package playground

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/proxylint/proxylint/lint"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// File is one file of a request: its name, relative to the linted tree or
// absolute, and its text.
type File struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Request is what to lint.
type Request struct {
	Files []File `json:"files"`
	// Kind reads every file as "nginx", "envoy" or "kubernetes"; empty
	// tells each file's kind from its structure.
	Kind string `json:"kind,omitempty"`
	// Targets are the releases the configurations are for, as --target
	// names them ("nginx:1.28", "envoy:1.31"); none means proxylint's
	// defaults.
	Targets []string `json:"targets,omitempty"`
}

// Response is what a run found.
type Response struct {
	// Error says why the request could not be linted at all (an unknown
	// target, no files); Findings is then empty.
	Error    string    `json:"error,omitempty"`
	Findings []Finding `json:"findings"`
	// LintedFor names the release each product was linted for.
	LintedFor []string `json:"linted_for,omitempty"`
}

// Finding is one finding of a rule, its positions in the names of the
// request's files. Lines and columns count as proxylint's reports do
// (from 1, columns in Unicode code points).
type Finding struct {
	Rule      string    `json:"rule"`
	Severity  string    `json:"severity"`
	Message   string    `json:"message"`
	File      string    `json:"file"`
	Line      int       `json:"line"`
	Column    int       `json:"column"`
	EndLine   int       `json:"end_line,omitempty"`
	EndColumn int       `json:"end_column,omitempty"`
	Related   []Related `json:"related,omitempty"`
	// Fix says how to repair the configuration; Edits make the repair
	// when a mechanical one is safe, all of them together.
	Fix   string `json:"fix,omitempty"`
	Edits []Edit `json:"fix_edits,omitempty"`
	// Applicability is the fix's: "safe" (what --fix applies), "unsafe"
	// (applied only with --unsafe-fixes: it may undo what the author chose
	// on purpose) or "display-only" (advice, no edits).
	Applicability string `json:"fix_applicability,omitempty"`
	// Suppressed is the reason of the comment that suppresses the
	// finding ("" when none is given), nil when none does.
	Suppressed *string `json:"suppressed,omitempty"`
	// Fatal marks a file that could not be read completely.
	Fatal bool `json:"fatal,omitempty"`
}

// Related is another place a finding involves.
type Related struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

// Edit replaces part of a file's text. From and To count UTF-16 code
// units, as a browser's strings do: text.slice(0, From) + Text +
// text.slice(To) is the file after the edit. Line and Column say where it
// starts, as findings count.
type Edit struct {
	File   string `json:"file"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Text   string `json:"text"`
}

// root is the directory the request's relative names are placed in.
const root = "/"

// Lint lints the request's files together, as proxylint lints the files
// named on one command line: an nginx fragment included by another file
// is linted through it, Envoy files and nginx files that proxy to one
// another are linked into one request path, Kubernetes manifests are
// joined into one deployment.
func Lint(req Request) Response {
	if len(req.Files) == 0 {
		return Response{Error: "no files to lint", Findings: []Finding{}}
	}
	switch req.Kind {
	case "", load.KindNginx, load.KindEnvoy, load.KindKube:
	default:
		return Response{Error: fmt.Sprintf("unknown kind %q (want nginx, envoy or kubernetes)", req.Kind), Findings: []Finding{}}
	}
	var targets []model.Target
	for _, s := range req.Targets {
		if s == "" {
			continue
		}
		t, err := model.ParseTarget(s)
		if err != nil {
			return Response{Error: err.Error(), Findings: []Finding{}}
		}
		targets = append(targets, t)
	}

	overlay := map[string][]byte{}
	names := map[string]string{} // absolute path → name as given
	var paths []string
	for _, f := range req.Files {
		p := path.Join(root, f.Name)
		if f.Name == "" || strings.HasSuffix(f.Name, "/") {
			return Response{Error: fmt.Sprintf("a file needs a name (%q)", f.Name), Findings: []Finding{}}
		}
		if _, dup := overlay[p]; dup {
			return Response{Error: fmt.Sprintf("two files are named %s", f.Name), Findings: []Finding{}}
		}
		overlay[p] = []byte(f.Text)
		names[p] = f.Name
		paths = append(paths, p)
	}

	opts := load.Options{Kind: req.Kind, Targets: targets, Overlay: overlay, OverlayOnly: true}
	// The command line's and the language server's engine.
	run := lint.Run(paths, lint.Options{Load: opts, Rules: &rules.Options{}})
	m, found := run.Model, run.Findings

	shown := func(p string) string {
		if n, ok := names[p]; ok {
			return n
		}
		return p
	}
	res := Response{Findings: make([]Finding, 0, len(found)), LintedFor: lintedFor(m)}
	for _, f := range found {
		res.Findings = append(res.Findings, finding(f, overlay, shown))
	}
	return res
}

// finding turns one of the engine's findings into the playground's.
func finding(f rules.Finding, sources map[string][]byte, shown func(string) string) Finding {
	out := Finding{
		Rule: f.Rule, Severity: f.Severity.String(), Message: f.Message,
		File: shown(f.Pos.File), Line: int(f.Pos.Line), Column: int(f.Pos.Col),
		Fix: f.Fix.Message, Fatal: f.Fatal,
	}
	if f.Fix.Message != "" {
		out.Applicability = f.Fix.Applicability.String()
	}
	if f.End.IsValid() {
		out.EndLine, out.EndColumn = int(f.End.Line), int(f.End.Col)
	}
	for _, r := range f.Related {
		out.Related = append(out.Related, Related{File: shown(r.Pos.File), Line: int(r.Pos.Line), Column: int(r.Pos.Col), Message: r.Message})
	}
	if f.Suppression != nil {
		reason := f.Suppression.Reason
		out.Suppressed = &reason
	}
	for _, e := range f.Fix.Edits {
		src, ok := sources[e.File]
		if !ok || e.Start < 0 || e.End < e.Start || e.End > len(src) {
			// An edit of a file the request does not hold cannot be
			// made in the page: the fix is described, not offered.
			out.Edits = nil
			break
		}
		line, col := lineCol(src, e.Start)
		out.Edits = append(out.Edits, Edit{
			File: shown(e.File), From: utf16Len(src[:e.Start]), To: utf16Len(src[:e.End]),
			Line: line, Column: col, Text: e.New,
		})
	}
	return out
}

// lintedFor names the target of each product linted, once.
func lintedFor(m *model.Model) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range m.Proxies {
		s := p.Target.String()
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// utf16Len is how many UTF-16 code units the text of b takes in a
// browser; an invalid byte is decoded as U+FFFD, one unit.
func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		b = b[size:]
	}
	return n
}

// lineCol is the line and column of byte offset off in src, counted as
// model.Pos counts them.
func lineCol(src []byte, off int) (line, col int) {
	line, start := 1, 0
	for i := 0; i < off; i++ {
		if src[i] == '\n' {
			line, start = line+1, i+1
		}
	}
	return line, utf8.RuneCount(src[start:off]) + 1
}

// warmEnvoy is the smallest Envoy configuration Warm lints.
const warmEnvoy = `static_resources:
  clusters:
  - name: warm
    connect_timeout: 1s
    load_assignment:
      cluster_name: warm
      endpoints:
      - lb_endpoints:
        - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8080}}}
`

// Warm builds what the first lint of an Envoy file builds, Envoy's schema
// above all, which takes seconds in a browser, so that a page can have it
// done before anyone waits for it.
func Warm() {
	Lint(Request{Files: []File{{Name: "envoy.yaml", Text: warmEnvoy}}})
}
