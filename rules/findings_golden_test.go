package rules_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// goldenDir holds, for each rule, what it finds over the fixtures and the
// shared corpus: one line per finding, with its fix.
const goldenDir = "testdata/findings"

// corpusPrefix begins the golden lines of corpus files.
const corpusPrefix = "corpus/"

// TestFindingsGolden runs every rule over every fixture (with its
// "proxylint-fixture:" flags) and over every file of the shared corpus
// (alone, as the corpus report lints them), and compares what each rule
// finds with testdata/findings/RULE.txt: a finding added, removed or
// reworded, or a fix changed, shows as a difference to review, and
// "go test ./rules -run TestFindingsGolden -update" records it. Without
// the corpus, its lines are left out of the comparison.
func TestFindingsGolden(t *testing.T) {
	got := map[string][]string{}
	add := func(root, prefix string, findings []rules.Finding) {
		for _, f := range findings {
			line := goldenLine(root, prefix, f)
			if f.Pos.File != "" && !strings.HasPrefix(line, prefix) {
				t.Errorf("%s: a finding's file is not under %s, so its golden line would hold a path of this machine", line, root)
			}
			got[f.Rule] = append(got[f.Rule], line)
		}
	}
	forEachFixture(t, func(paths []string) {
		opts, ruleOpts := fixtureFlags(t, sources(t, paths))
		m := load.Load(paths, opts)
		add(fixturesDir, "fixtures/", rules.Run(m, ruleOpts))
	})
	corpus := corpusDir
	_, err := os.Stat(corpus)
	haveCorpus := err == nil
	if haveCorpus {
		for _, kind := range []string{load.KindNginx, load.KindEnvoy} {
			err := filepath.WalkDir(filepath.Join(corpus, kind), func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".tsv") {
					return err
				}
				target := model.DefaultTarget(model.Nginx)
				if kind == load.KindEnvoy {
					target = model.Target{Product: model.Envoy}
				}
				m := load.Load([]string{p}, load.Options{Kind: kind, Targets: []model.Target{target}, IncludeRoots: []string{filepath.Dir(p)}})
				add(corpus, corpusPrefix, rules.Run(m, &rules.Options{}))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	} else if *update {
		t.Fatalf("the shared corpus %s is absent: -update would drop its findings from the goldens", corpus)
	} else {
		t.Logf("the shared corpus %s is absent: its findings are not compared", corpus)
	}

	if *update {
		if err := os.RemoveAll(goldenDir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for rule, lines := range got {
			sort.Strings(lines)
			if err := os.WriteFile(filepath.Join(goldenDir, rule+".txt"), []byte(strings.Join(lines, "")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for _, e := range entries {
		rule, ok := strings.CutSuffix(e.Name(), ".txt")
		if !ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join(goldenDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		want[rule] = nil
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if l != "" && (haveCorpus || !strings.HasPrefix(l, corpusPrefix)) {
				want[rule] = append(want[rule], l)
			}
		}
	}
	if len(want) == 0 {
		t.Fatalf("no goldens in %s", goldenDir)
	}
	for rule := range got {
		if _, ok := want[rule]; !ok {
			want[rule] = nil
		}
	}
	for rule, w := range want {
		g := got[rule]
		sort.Strings(g)
		if added, removed := difference(g, w), difference(w, g); len(added)+len(removed) > 0 {
			t.Errorf("%s finds other than %s/%s.txt (review, then -update records it):\n%s%s", rule, goldenDir, rule, prefixed("+ ", added), prefixed("- ", removed))
		}
	}
}

// goldenLine writes a finding as the golden has it: where (relative to
// the root, after prefix), the severity and the message, then its fix.
func goldenLine(root, prefix string, f rules.Finding) string {
	pos := f.Pos
	// A file the loader found itself (an includer, say) may be named by
	// its absolute path, so both are made absolute before the root is cut
	// off: the golden then holds no path of the machine that wrote it.
	// Links are resolved too: a corpus reached through a link has its
	// includers named by their real paths.
	absRoot, errRoot := realOrAbs(root)
	absFile, errFile := realOrAbs(pos.File)
	if rel, err := filepath.Rel(absRoot, absFile); err == nil && errRoot == nil && errFile == nil && pos.File != "" && !strings.HasPrefix(rel, "..") {
		pos.File = prefix + filepath.ToSlash(rel)
	}
	line := fmt.Sprintf("%s: %s: %s", pos, f.Severity, f.Message)
	if f.Fix.Message != "" {
		line += fmt.Sprintf(" | fix (%s): %s", f.Fix.Applicability, f.Fix.Message)
	}
	return strings.ReplaceAll(line, "\n", " ") + "\n"
}

// realOrAbs is p made absolute, with its links resolved where it exists.
func realOrAbs(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}

// forEachFixture calls fn with the files of each fixture: a file of
// fixtures/RULE/, or a directory of configurations linted together.
func forEachFixture(t *testing.T, fn func(paths []string)) {
	dirs, err := os.ReadDir(fixturesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(fixturesDir, d.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			path := filepath.Join(fixturesDir, d.Name(), e.Name())
			switch {
			case e.IsDir():
				if paths := configFiles(t, path); len(paths) > 0 {
					fn(paths)
				}
			case fixtureExt[filepath.Ext(e.Name())]:
				fn([]string{path})
			}
		}
	}
}

// sources returns the text of the files, one after another.
func sources(t *testing.T, paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(src)
		b.WriteByte('\n')
	}
	return b.String()
}

// difference lists the lines of a (sorted) that b lacks, as many times as
// a has them more.
func difference(a, b []string) []string {
	n := map[string]int{}
	for _, l := range b {
		n[l]++
	}
	var out []string
	for _, l := range a {
		if n[l] > 0 {
			n[l]--
			continue
		}
		out = append(out, l)
	}
	return out
}

func prefixed(p string, lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(p + l)
	}
	return b.String()
}
