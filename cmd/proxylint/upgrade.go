package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/fatih/color"

	"github.com/proxylint/proxylint/cmd/proxylint/internal/config"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/nginx"
	"github.com/proxylint/proxylint/releases"
	"github.com/proxylint/proxylint/report"
	"github.com/proxylint/proxylint/rules"
	"github.com/proxylint/proxylint/upgrade"
)

const upgradeUsage = `Usage: proxylint upgrade --from RELEASE --to RELEASE [flags] PATH...
       proxylint --target RELEASE --upgrade-to RELEASE [flags] PATH...

Says what changes for these configurations when the proxy is upgraded from
the release run now to another: the behaviour that changes under them (a
default of the newer release, a directive it refuses, adds or deprecates),
each change where it touches the configuration, with where the change is
recorded (nginx's CHANGES, Envoy's changelog, Istio's release notes, the
source at the release tags); and the findings that appear and disappear,
the configurations linted for both releases and compared by rule, position
and meaning. Only what proxylint models is compared: read the release
notes between the two releases for the rest.

  --from RELEASE    the release run now, e.g. nginx:1.28, envoy:1.31,
                    istio:1.23 (--target says the same; without either,
                    the target of .proxylint.yaml)
  --to RELEASE      the release to upgrade to, e.g. nginx:1.30,
                    nginx:newest; --upgrade-to is the same flag
  Both repeat, one pair per product: --from nginx:1.28 --to nginx:1.30
  --from envoy:1.31 --to envoy:1.33. Going to an older release says what
  the downgrade undoes.

Other flags are those of a lint run (see proxylint --help): --format text
or json (docs/json-format.md), --output, --fail-on, --enable, --disable,
--config, --kind, --include-root, --exclude, --client-timeout, --behind,
--backend. --fix, --diff and baselines do not apply.

Exit codes:
  0  no finding at or above --fail-on appears with the upgrade (behaviour
     that changes is reported, and does not fail the run)
  1  a finding at or above --fail-on appears: a problem the upgrade
     brings, or a configuration the newer release refuses
  2  could not compare: bad usage, or a file neither release can read

Examples:
  proxylint upgrade --from nginx:1.28 --to nginx:1.30 /etc/nginx/nginx.conf
  proxylint --target nginx:1.24 --upgrade-to nginx:newest --format json .
  proxylint upgrade --from istio:1.23 --to istio:1.24 k8s/
`

// upgradeFlagNames are the flags of proxylint upgrade beyond a lint run's.
var upgradeFlagNames = map[string]string{"from": "from", "to": "to", "upgrade-to": "to"}

// upgradeFlags takes --from, --to and --upgrade-to ("--to V", "--to=V",
// one dash or two) out of args before "--", and returns the rest.
func upgradeFlags(args []string) (rest, from, to []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		kind, ok := upgradeFlagNames[name]
		if !ok || !strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, nil, nil, fmt.Errorf("flag needs an argument: -%s", name)
			}
			i++
			value = args[i]
		}
		for _, v := range strings.Split(value, ",") {
			if v = strings.TrimSpace(v); v == "" {
				continue
			}
			if kind == "from" {
				from = append(from, v)
			} else {
				to = append(to, v)
			}
		}
	}
	return rest, from, to, nil
}

// wantsUpgrade reports whether a lint command line asks for the upgrade
// report (--upgrade-to).
func wantsUpgrade(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "upgrade-to" {
			return true
		}
	}
	return false
}

// upgradeFamily is the product family a target's releases belong to.
func upgradeFamily(p model.Product) model.Product {
	if p == model.Angie {
		return model.Nginx
	}
	return p
}

// upgradePlan is what the two runs are for: the pairs, and the --target
// values of each run.
type upgradePlan struct {
	pairs       []upgrade.Pair
	fromTargets []string
	toTargets   []string
}

func planUpgrade(f *lintFlags, froms, tos []string, configTargets []model.Target) (*upgradePlan, error) {
	if len(tos) == 0 {
		return nil, fmt.Errorf("name the release to upgrade to, as in --to nginx:1.30")
	}
	parse := func(flag, v string) (model.Target, error) {
		t, err := model.ParseTarget(v)
		if err != nil {
			return t, fmt.Errorf("%s: %w", flag, err)
		}
		return t, nil
	}
	plan := &upgradePlan{}
	type named struct {
		t    model.Target
		name string
	}
	from := map[model.Product]named{}
	for _, v := range froms {
		t, err := parse("--from", v)
		if err != nil {
			return nil, err
		}
		if _, dup := from[upgradeFamily(t.Product)]; dup {
			return nil, fmt.Errorf("--from %s: a second release for %s configurations", v, upgradeFamily(t.Product))
		}
		from[upgradeFamily(t.Product)] = named{t, v}
	}
	var others []string
	for _, v := range f.targets {
		t, err := parse("--target", v)
		if err != nil {
			return nil, err
		}
		fam := upgradeFamily(t.Product)
		if _, ok := from[fam]; ok {
			if contains(froms, v) {
				continue
			}
			return nil, fmt.Errorf("--target %s and --from both name the release of %s configurations run now; give one", v, fam)
		}
		from[fam] = named{t, v}
	}
	to := map[model.Product]bool{}
	for _, v := range tos {
		t, err := parse("--to", v)
		if err != nil {
			return nil, err
		}
		fam := upgradeFamily(t.Product)
		if to[fam] {
			return nil, fmt.Errorf("--to %s: a second release for %s configurations", v, fam)
		}
		to[fam] = true
		if t.IsRange() {
			return nil, fmt.Errorf("--to %s: name the release to upgrade to, as in %s:1.30, or %s:newest", v, t.Product, t.Product)
		}
		cur, ok := from[fam]
		if !ok {
			for _, c := range configTargets {
				if upgradeFamily(c.Product) == fam {
					cur, ok = named{c, configTargetName(c)}, true
				}
			}
		}
		if !ok {
			return nil, fmt.Errorf("--to %s: name the release run now with --from, as in --from %s:1.28", v, fam)
		}
		if cur.t.Version.IsZero() {
			return nil, fmt.Errorf("--from %s: name the one release run now, as in %s:1.28 (a range, or the newest, is no release to upgrade from)", cur.name, cur.t.Product)
		}
		plan.pairs = append(plan.pairs, upgrade.Pair{From: cur.t, To: t})
		plan.fromTargets = append(plan.fromTargets, cur.name)
		plan.toTargets = append(plan.toTargets, v)
	}
	for fam, n := range from {
		if !to[fam] {
			if contains(froms, n.name) {
				return nil, fmt.Errorf("--from %s: name the release to upgrade %s to with --to", n.name, fam)
			}
			others = append(others, n.name)
		}
	}
	plan.fromTargets = append(plan.fromTargets, others...)
	plan.toTargets = append(plan.toTargets, others...)
	return plan, nil
}

// configTargetName writes a target of .proxylint.yaml as --target reads
// it.
func configTargetName(t model.Target) string {
	if t.Version.IsZero() {
		return string(t.Product)
	}
	return string(t.Product) + ":" + t.Version.String()
}

// upgradeReport is what the upgrade formats write.
type upgradeReport struct {
	rep     *upgrade.Report
	in      *report.Input
	version string
}

var upgradeFormats = report.Formats[upgradeReport]{
	{Name: "text", Color: true, Write: upgradeText},
	{Name: "json", Write: func(w io.Writer, r upgradeReport, _ bool) error { return upgradeJSON(w, r) }},
}

func cmdUpgrade(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "proxylint upgrade: %s\nRun \"proxylint upgrade --help\" for usage.\n", report.Escape(strings.TrimPrefix(err.Error(), "usage: ")))
		return exitError
	}
	rest, froms, tos, err := upgradeFlags(args)
	if err != nil {
		return fail(err)
	}
	f, paths, err := parseLintFlags(rest)
	if err != nil {
		return fail(err)
	}
	if f.help {
		fmt.Fprint(stdout, upgradeUsage)
		return exitClean
	}
	for _, o := range f.outputs {
		if _, ok := upgradeFormats.Lookup(o.format); !ok {
			return fail(fmt.Errorf("--format %q: want %s", o.format, strings.Join(upgradeFormats.Names(), " or ")))
		}
	}
	for _, fl := range []string{"fix", "diff", "baseline", "write-baseline"} {
		if f.given[fl] {
			return fail(fmt.Errorf("--%s does not apply to an upgrade comparison", fl))
		}
	}
	// The targets of the configuration file that governs the first path;
	// each path is then linted under its own.
	groups, err := configGroups(f, paths)
	var cfg *config.Config
	if err == nil && len(groups) > 0 {
		cfg, err = readConfig(f, groups[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "proxylint upgrade: %s\n", report.Escape(err.Error()))
		return exitError
	}
	var configTargets []model.Target
	if cfg != nil {
		configTargets = cfg.Targets
	}
	plan, err := planUpgrade(f, froms, tos, configTargets)
	if err != nil {
		return fail(err)
	}

	var data []byte
	if countStdin(paths) > 0 && stdin != nil {
		// Both runs read standard input: it is read once. What is too
		// large is left to the first run to refuse.
		var readErr error
		if data, readErr = readCapped(stdin, f.fileLimit()); readErr != nil {
			stdin, data = io.MultiReader(bytes.NewReader(data), stdin), nil
		}
	}
	run := func(targets []string, read func(*nginx.Config, model.Target)) (*settings, *model.Model, []rules.Finding, bool) {
		g := *f
		g.targets = targets
		g.nginxRead = read
		g.stdin = stdin
		if data != nil {
			g.stdin = bytes.NewReader(data)
		}
		s, l, ok := analyze(&g, paths, stderr)
		if !ok {
			return nil, nil, nil, false
		}
		return s, l.model, l.findings, true
	}
	var mu sync.Mutex
	uses := map[string][]nginx.ReleaseUse{}
	s, fromModel, fromFindings, ok := run(plan.fromTargets, func(cfg *nginx.Config, t model.Target) {
		for _, p := range plan.pairs {
			if upgradeFamily(p.From.Product) == upgradeFamily(t.Product) {
				u := cfg.ReleaseUses(p.From, p.To)
				mu.Lock()
				uses[cfg.Main.Path] = u
				mu.Unlock()
			}
		}
	})
	if !ok {
		return exitError
	}
	_, toModel, toFindings, ok := run(plan.toTargets, nil)
	if !ok {
		return exitError
	}
	rep := upgrade.Compare(upgrade.Input{
		Pairs: plan.pairs, Directives: uses,
		From: upgrade.Side{Model: fromModel, Findings: fromFindings},
		To:   upgrade.Side{Model: toModel, Findings: toFindings},
	})
	wd, _ := os.Getwd()
	files := append(append([]*model.File{}, fromModel.Files...), toModel.Files...)
	in := &report.Input{Files: files, Dir: wd}
	out := upgradeReport{rep: rep, in: in, version: strings.TrimPrefix(buildVersion(), "v")}
	if err := writeReports(upgradeFormats, f, out, inputs(paths, fromModel.Files, s), stdout, stderr, getenv); err != nil {
		fmt.Fprintf(stderr, "proxylint upgrade: %v\n", err)
		return exitError
	}
	// A file neither release can read was not compared at all.
	for _, nc := range rep.NotCompared {
		if len(nc.Refused) >= 2*len(plan.pairs) {
			for _, fd := range fromFindings {
				if fd.Fatal && fd.Pos.File == nc.File {
					fmt.Fprintf(stderr, "proxylint upgrade: %s: %s\n", report.Escape(in.RelPath(fd.Pos.File)), report.Escape(fd.Message))
				}
			}
			return exitError
		}
	}
	// A finding told at another place, in place of one that goes, is
	// not new.
	for _, fd := range rep.Appear {
		if fd.Severity >= s.failOn && fd.Replaces == nil {
			return exitFindings
		}
	}
	return exitClean
}

// pairsText writes the pairs: "nginx:1.28 → nginx:1.30".
func pairsText(pairs []upgrade.Pair) string {
	var parts []string
	for _, p := range pairs {
		parts = append(parts, p.From.String()+" → "+p.To.String())
	}
	return strings.Join(parts, ", ")
}

// changeHeading says what a change is and where it comes from: "keepalive
// in upstream blocks without one: default changed in nginx 1.29.7".
func changeHeading(c upgrade.Change) string {
	rel := fmt.Sprintf("%s %s", productName(c.Product), c.Since)
	if c.Product == model.Nginx || c.Product == model.Angie {
		rel = fmt.Sprintf("%s %s", productName(c.Product), releases.Full(c.Since))
	}
	var how string
	switch c.Kind {
	case releases.Default:
		how = "default changed in " + rel
	case releases.Added:
		how = "added in " + rel
	case releases.Removed:
		how = "removed in " + rel
	case releases.Deprecated:
		how = "deprecated in " + rel
	case releases.Bug:
		how = "a bug from " + rel
		if r, ok := c.Change.For(c.Product); ok && !r.Until.IsZero() {
			how += ", fixed in " + productName(c.Product) + " " + releases.Full(r.Until)
		}
	}
	if c.Removed {
		how += "; going back to " + c.Pair.To.String() + " undoes it"
	}
	return c.Subject + ": " + how
}

func productName(p model.Product) string {
	switch p {
	case model.Nginx:
		return "nginx"
	case model.Angie:
		return "Angie"
	case model.Envoy:
		return "Envoy"
	case model.Istio:
		return "Istio"
	case model.EnvoyGateway:
		return "Envoy Gateway"
	case model.NginxIngress:
		return "NGINX Ingress Controller"
	case model.IngressNginx:
		return "ingress-nginx"
	}
	return string(p)
}

// changeGroup is the key the text report groups changes by.
func changeGroup(c upgrade.Change) string {
	id := c.Subject
	if c.Change != nil {
		id = c.Change.ID
	}
	return id + "\x00" + c.Pair.From.String() + "\x00" + fmt.Sprint(c.Removed)
}

func upgradeText(w io.Writer, r upgradeReport, useColor bool) error {
	bw := bufio.NewWriter(w)
	bold, dim := color.New(color.Bold), color.New(color.Faint)
	for _, c := range []*color.Color{bold, dim} {
		if useColor {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	rep, in := r.rep, r.in
	esc := report.Escape
	pos := func(p model.Pos) string {
		q := p
		q.File = in.RelPath(p.File)
		return esc(q.String())
	}
	fmt.Fprintf(bw, "%s\n", bold.Sprint("Upgrade ", pairsText(rep.Pairs)))
	if rep.Empty() {
		fmt.Fprintln(bw, "\nNothing changes for these configurations that proxylint models.")
	}
	if len(rep.Changes) > 0 {
		fmt.Fprintf(bw, "\n%s\n", bold.Sprint("Behaviour that changes"))
		last := ""
		for _, c := range rep.Changes {
			if g := changeGroup(c); g != last {
				last = g
				fmt.Fprintf(bw, "\n  %s\n", bold.Sprint(esc(changeHeading(c))))
				fmt.Fprintf(bw, "    before: %s\n", esc(c.Before))
				fmt.Fprintf(bw, "    after:  %s\n", esc(c.After))
				if c.Keep != "" {
					fmt.Fprintf(bw, "    to keep the old behaviour: %s\n", esc(c.Keep))
				}
				if c.Instead != "" {
					fmt.Fprintf(bw, "    write instead: %s\n", esc(c.Instead))
				}
				fmt.Fprintf(bw, "    %s\n", dim.Sprint("source: ", esc(c.Source)))
			}
			fmt.Fprintf(bw, "    %s: %s\n", pos(c.Pos), esc(c.What))
			if c.Note != "" {
				fmt.Fprintf(bw, "      but: %s\n", esc(c.Note))
			}
		}
	}
	findings := func(title string, fs []upgrade.Finding, replaces string) {
		if len(fs) == 0 {
			return
		}
		fmt.Fprintf(bw, "\n%s\n\n", bold.Sprint(title))
		for _, f := range fs {
			fmt.Fprintf(bw, "  %s: %s: %s [%s]\n", pos(f.Pos), f.Severity, esc(f.Message), f.Rule)
			if len(f.With) > 0 {
				fmt.Fprintf(bw, "    %s\n", dim.Sprint("with: ", strings.Join(f.With, ", ")))
			}
			if f.Replaces != nil {
				fmt.Fprintf(bw, "    %s\n", dim.Sprint(replaces, pos(f.Replaces.Pos)))
			}
		}
	}
	to, from := pairSide(rep.Pairs, true), pairSide(rep.Pairs, false)
	findings("Findings that appear on "+to, rep.Appear, "in place of the finding at ")
	findings("Findings that disappear on "+to+" (they hold on "+from+")", rep.Disappear, "told on "+to+" at ")
	if len(rep.NotCompared) > 0 {
		fmt.Fprintf(bw, "\n%s\n\n", bold.Sprint("Not compared"))
		for _, nc := range rep.NotCompared {
			var names []string
			for _, t := range nc.Refused {
				names = append(names, t.String())
			}
			where := "its errors are among the findings that appear"
			if len(nc.Refused) > 0 && nc.Refused[0] == rep.Pairs[0].From {
				where = "its errors are among the findings that disappear"
			}
			if len(nc.Refused) >= 2*len(rep.Pairs) {
				where = "neither release reads it"
			}
			fmt.Fprintf(bw, "  %s: %s cannot read it (%s); its other findings were not compared\n",
				esc(in.RelPath(nc.File)), strings.Join(names, " and "), where)
		}
	}
	fmt.Fprintf(bw, "\n%d %s, %d %s, %d %s\n",
		len(rep.Changes), plural(len(rep.Changes), "change in behaviour", "changes in behaviour"),
		len(rep.Appear), plural(len(rep.Appear), "finding appears", "findings appear"),
		len(rep.Disappear), plural(len(rep.Disappear), "finding disappears", "findings disappear"))
	return bw.Flush()
}

// pairSide names the releases of one side: "nginx:1.30".
func pairSide(pairs []upgrade.Pair, to bool) string {
	var out []string
	for _, p := range pairs {
		if to {
			out = append(out, p.To.String())
		} else {
			out = append(out, p.From.String())
		}
	}
	return strings.Join(out, ", ")
}

type upgradeJSONDoc struct {
	Version     int                     `json:"version"`
	Tool        upgradeJSONTool         `json:"tool"`
	From        []string                `json:"from"`
	To          []string                `json:"to"`
	Changes     []upgradeJSONChange     `json:"changes"`
	Appear      []upgradeJSONFinding    `json:"appear"`
	Disappear   []upgradeJSONFinding    `json:"disappear"`
	NotCompared []upgradeJSONNotCompare `json:"not_compared"`
	Summary     upgradeJSONSummary      `json:"summary"`
}

type upgradeJSONTool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type upgradeJSONPlace struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

type upgradeJSONChange struct {
	Change    string             `json:"change,omitempty"`
	Kind      string             `json:"kind"`
	Subject   string             `json:"subject"`
	Product   string             `json:"product"`
	Since     string             `json:"since,omitempty"`
	Until     string             `json:"until,omitempty"`
	Direction string             `json:"direction"`
	From      string             `json:"from"`
	To        string             `json:"to"`
	File      string             `json:"file"`
	Line      int                `json:"line"`
	Column    int                `json:"column"`
	What      string             `json:"what"`
	Note      string             `json:"note,omitempty"`
	Before    string             `json:"before"`
	After     string             `json:"after"`
	Keep      string             `json:"keep,omitempty"`
	Instead   string             `json:"instead,omitempty"`
	Source    string             `json:"source"`
	Related   []upgradeJSONPlace `json:"related,omitempty"`
}

type upgradeJSONFinding struct {
	Rule     string             `json:"rule"`
	Severity string             `json:"severity"`
	Message  string             `json:"message"`
	File     string             `json:"file"`
	Line     int                `json:"line"`
	Column   int                `json:"column"`
	Related  []upgradeJSONPlace `json:"related,omitempty"`
	Fix      string             `json:"fix,omitempty"`
	With     []string           `json:"with,omitempty"`
	Replaces *upgradeJSONPlace  `json:"replaces,omitempty"`
}

type upgradeJSONNotCompare struct {
	File      string   `json:"file"`
	RefusedBy []string `json:"refused_by"`
}

type upgradeJSONSummary struct {
	Changes   int `json:"changes"`
	Appear    int `json:"appear"`
	Disappear int `json:"disappear"`
}

func upgradeJSON(w io.Writer, r upgradeReport) error {
	rep, in := r.rep, r.in
	place := func(p model.Pos, msg string) upgradeJSONPlace {
		out := upgradeJSONPlace{Message: msg}
		if p.IsValid() {
			out.File, out.Line, out.Column = in.RelPath(p.File), int(p.Line), int(p.Col)
		}
		return out
	}
	doc := upgradeJSONDoc{Version: 1, Tool: upgradeJSONTool{"proxylint", r.version},
		From: []string{}, To: []string{}, Changes: []upgradeJSONChange{}, Appear: []upgradeJSONFinding{},
		Disappear: []upgradeJSONFinding{}, NotCompared: []upgradeJSONNotCompare{},
		Summary: upgradeJSONSummary{len(rep.Changes), len(rep.Appear), len(rep.Disappear)}}
	for _, p := range rep.Pairs {
		doc.From = append(doc.From, p.From.String())
		doc.To = append(doc.To, p.To.String())
	}
	for _, c := range rep.Changes {
		jc := upgradeJSONChange{
			Kind: string(c.Kind), Subject: c.Subject, Product: string(c.Product), Direction: "upgrade",
			From: c.Pair.From.String(), To: c.Pair.To.String(),
			File: in.RelPath(c.Pos.File), Line: int(c.Pos.Line), Column: int(c.Pos.Col),
			What: c.What, Note: c.Note, Before: c.Before, After: c.After, Keep: c.Keep, Instead: c.Instead, Source: c.Source,
		}
		if !c.Since.IsZero() {
			jc.Since = releases.Full(c.Since)
		}
		if c.Change != nil {
			jc.Change = c.Change.ID
			if r, ok := c.Change.For(c.Product); ok && !r.Until.IsZero() {
				jc.Until = releases.Full(r.Until)
			}
		}
		if c.Removed {
			jc.Direction = "downgrade"
		}
		for _, rel := range c.Related {
			jc.Related = append(jc.Related, place(rel.Pos, rel.Message))
		}
		doc.Changes = append(doc.Changes, jc)
	}
	finding := func(f upgrade.Finding) upgradeJSONFinding {
		jf := upgradeJSONFinding{Rule: f.Rule, Severity: f.Severity.String(), Message: f.Message,
			File: in.RelPath(f.Pos.File), Line: int(f.Pos.Line), Column: int(f.Pos.Col), Fix: f.Fix.Message, With: f.With}
		for _, rel := range f.Related {
			jf.Related = append(jf.Related, place(rel.Pos, rel.Message))
		}
		if f.Replaces != nil {
			p := place(f.Replaces.Pos, f.Replaces.Message)
			jf.Replaces = &p
		}
		return jf
	}
	for _, f := range rep.Appear {
		doc.Appear = append(doc.Appear, finding(f))
	}
	for _, f := range rep.Disappear {
		doc.Disappear = append(doc.Disappear, finding(f))
	}
	for _, nc := range rep.NotCompared {
		jn := upgradeJSONNotCompare{File: in.RelPath(nc.File), RefusedBy: []string{}}
		for _, t := range nc.Refused {
			jn.RefusedBy = append(jn.RefusedBy, t.String())
		}
		doc.NotCompared = append(doc.NotCompared, jn)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
