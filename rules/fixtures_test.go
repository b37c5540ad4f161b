package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// The fixtures keep their expectations in comments, as analysistest does:
//
//	proxy_pass http://127.0.0.1:8000; # want upstream-no-keepalive "no upstream block"
//
// A "want" names a rule (and optionally a regular expression its message must
// match) that must report on that line; several may follow one another. A
// "proxylint-fixture:" comment sets flags for the file (--target ...).
// A fixture in fixtures/RULE/ runs RULE and the rules its wants name, as
// analysistest runs one analyzer: no line of a fixture is there to keep
// another rule quiet. Findings (and the loaders' diagnostics) and wants
// must match exactly, both ways. The fixes of a fixture's findings, applied,
// give FILE.fixed beside each file they change (checkFixed).
// TestFindingsGolden runs every rule over every fixture and the corpus and
// compares what they find with testdata/findings/RULE.txt.

const fixturesDir = "../fixtures"

var fixtureExt = map[string]bool{".conf": true, ".yaml": true, ".yml": true, ".json": true}

func TestFixtures(t *testing.T) {
	dirs, err := os.ReadDir(fixturesDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		// examples/ holds the README's example; its expected output is
		// checked by the CLI's golden test.
		if !d.IsDir() || d.Name() == "examples" {
			continue
		}
		files, err := os.ReadDir(filepath.Join(fixturesDir, d.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			path := filepath.Join(fixturesDir, d.Name(), f.Name())
			var paths []string
			switch {
			case f.IsDir():
				// A directory is one fixture of several configurations
				// linted together (hops that link by address).
				paths = configFiles(t, path)
			case fixtureExt[filepath.Ext(f.Name())]:
				paths = []string{path}
			default:
				continue
			}
			n++
			t.Run(d.Name()+"/"+f.Name(), func(t *testing.T) {
				t.Parallel()
				checkFixture(t, d.Name(), paths...)
			})
		}
	}
	if n == 0 {
		t.Fatal("no fixtures found")
	}
}

// TestEveryRuleHasFixtures keeps each checking rule honest: a directory of
// fixtures named after it with at least one finding expected and one file
// where it must stay silent.
func TestEveryRuleHasFixtures(t *testing.T) {
	for _, r := range rules.All() {
		if r.Check == nil {
			continue
		}
		dir := filepath.Join(fixturesDir, r.ID)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Errorf("rule %s has no fixtures directory %s", r.ID, dir)
			continue
		}
		bad, good := false, false
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			var files []string
			switch {
			case e.IsDir():
				files = configFiles(t, path)
			case fixtureExt[filepath.Ext(e.Name())]:
				files = []string{path}
			}
			if len(files) == 0 {
				continue
			}
			wanted := false
			for _, f := range files {
				src, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				wanted = wanted || strings.Contains(string(src), "want "+r.ID)
			}
			if wanted {
				bad = true
			} else {
				good = true
			}
		}
		if !bad || !good {
			t.Errorf("rule %s: fixtures need a file with \"want %s\" (bad: %v) and one without (good: %v)", r.ID, r.ID, bad, good)
		}
	}
}

type want struct {
	file, rule string
	line       int
	re         *regexp.Regexp
	matched    bool
}

var wantRE = regexp.MustCompile(`([a-z0-9-]+)(?:\s+"((?:[^"\\]|\\.)*)")?`)

// configFiles lists the configuration files directly in dir.
func configFiles(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && fixtureExt[filepath.Ext(e.Name())] {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

func checkFixture(t *testing.T, rule string, paths ...string) {
	var header strings.Builder
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		header.Write(src)
		header.WriteByte('\n')
	}
	opts, ruleOpts := fixtureFlags(t, header.String())
	m := load.Load(paths, opts)
	wants := fixtureWants(t, m)
	run := map[string]bool{rule: true}
	for _, w := range wants {
		run[w.rule] = true
	}
	ruleOpts.Disable = map[string]bool{}
	for _, r := range rules.All() {
		if !run[r.ID] {
			ruleOpts.Disable[r.ID] = true
		}
	}
	findings := rules.Run(m, ruleOpts)
	matchWants(t, findings, wants)
	checkFixed(t, m, findings, paths)
}

// fixtureWants reads the want comments of the loaded files.
func fixtureWants(t *testing.T, m *model.Model) []*want {
	var wants []*want
	for _, f := range m.Files {
		for _, c := range f.Comments {
			text := strings.TrimSpace(c.Text)
			rest, ok := strings.CutPrefix(text, "want ")
			if !ok {
				continue
			}
			for _, mm := range wantRE.FindAllStringSubmatch(rest, -1) {
				w := &want{file: f.Path, rule: mm[1], line: int(c.Pos.Line)}
				if mm[2] != "" {
					w.re = regexp.MustCompile(strings.ReplaceAll(mm[2], `\"`, `"`))
				}
				if _, ok := rules.Lookup(w.rule); !ok {
					t.Errorf("%s:%d: want names unknown rule %q", f.Path, c.Pos.Line, w.rule)
				}
				wants = append(wants, w)
			}
		}
	}
	return wants
}

// matchWants checks that findings and wants match exactly, both ways.
func matchWants(t *testing.T, findings []rules.Finding, wants []*want) {
	var unexpected []string
	for _, f := range findings {
		found := false
		for _, w := range wants {
			if w.matched || w.file != f.Pos.File || w.line != int(f.Pos.Line) || w.rule != f.Rule {
				continue
			}
			if w.re != nil && !w.re.MatchString(f.Message) {
				continue
			}
			w.matched, found = true, true
			break
		}
		if !found {
			unexpected = append(unexpected, fmt.Sprintf("%s: %s: %s [%s]", f.Pos, f.Severity, f.Message, f.Rule))
		}
	}
	sort.Strings(unexpected)
	for _, u := range unexpected {
		t.Errorf("unexpected finding: %s", u)
	}
	for _, w := range wants {
		if !w.matched {
			msg := ""
			if w.re != nil {
				msg = fmt.Sprintf(" matching %q", w.re)
			}
			t.Errorf("%s:%d: missing finding of %s%s", w.file, w.line, w.rule, msg)
			for _, f := range findings {
				if f.Pos.File == w.file && int(f.Pos.Line) == w.line {
					t.Logf("  on that line: %s [%s]", f.Message, f.Rule)
				}
			}
		}
	}
}

// fixtureFlags reads a "# proxylint-fixture: --flag value ..." header: the
// target, the kind, and the hops declared in front (client first, then the
// balancers in the order given, as the command line builds them).
func fixtureFlags(t *testing.T, src string) (load.Options, *rules.Options) {
	opts := load.Options{}
	ro := &rules.Options{}
	var client, backend *model.Hop
	var balancers []*model.Hop
	for _, line := range strings.Split(src, "\n") {
		_, rest, ok := strings.Cut(line, "# proxylint-fixture:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		for i := 0; i+1 < len(fields); i += 2 {
			name, val := fields[i], fields[i+1]
			switch name {
			case "--target":
				tg, err := model.ParseTarget(val)
				if err != nil {
					t.Fatal(err)
				}
				opts.Targets = []model.Target{tg}
			case "--kind":
				opts.Kind = val
			case "--client-timeout":
				d, err := model.ParseDuration(val)
				if err != nil {
					t.Fatal(err)
				}
				client = model.ClientHop(d, "--client-timeout "+val, model.Pos{})
			case "--backend":
				h, err := model.BackendHop(val, "--backend", model.Pos{})
				if err != nil {
					t.Fatal(err)
				}
				backend = h
			case "--behind":
				h, err := model.BalancerHop(val, "--behind", model.Pos{})
				if err != nil {
					t.Fatal(err)
				}
				balancers = append(balancers, h)
			default:
				t.Fatalf("unknown fixture flag %s", name)
			}
		}
	}
	if client != nil {
		ro.Hops = append(ro.Hops, client)
	}
	ro.Hops = append(ro.Hops, balancers...)
	if backend != nil {
		ro.Hops = append(ro.Hops, backend)
	}
	return opts, ro
}

// corpusDir holds real configurations from public projects, outside the
// repository.
const corpusDir = "../../shared/corpus"
