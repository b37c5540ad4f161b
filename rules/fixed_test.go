package rules_test

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// update rewrites the goldens instead of comparing with them:
// fixtures/RULE/*.fixed and testdata/findings/RULE.txt.
var update = flag.Bool("update", false, "rewrite the goldens (fixtures/RULE/*.fixed, testdata/findings/*.txt) from what the rules give")

// fixedSuffix names the golden of a fixture file with every fix of its
// findings applied, beside it, as analysistest's RunWithSuggestedFixes
// keeps a.go.golden beside a.go.
const fixedSuffix = ".fixed"

// checkFixed applies the fixes of a fixture's findings, safe and unsafe
// (--fix --unsafe-fixes), and compares each file of the fixture with its
// golden, both ways: a file the fixes change has FILE.fixed, equal to the
// result, and a file they leave alone has none.
func checkFixed(t *testing.T, m *model.Model, findings []rules.Finding, paths []string) {
	t.Helper()
	set := rules.SelectFixes(findings, rules.Unsafe)
	inFixture := map[string]bool{}
	for _, p := range paths {
		inFixture[p] = true
	}
	for file := range set.Edits {
		if !inFixture[file] {
			t.Errorf("a fix edits %s, which is not a file of the fixture", file)
		}
	}
	for _, p := range paths {
		golden := p + fixedSuffix
		var fixed []byte
		if edits := set.Edits[p]; len(edits) > 0 {
			f := fileOf(m, p)
			if f == nil {
				t.Errorf("%s: the fixes edit a file the run did not read", p)
				continue
			}
			out, err := rules.ApplyEdits(f.Source, edits)
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			fixed = out
		}
		if *update {
			if fixed != nil {
				if err := os.WriteFile(golden, fixed, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Remove(golden); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			t.Fatal(err)
		case fixed == nil && err == nil:
			t.Errorf("%s exists, but no fix changes %s (go test ./rules -run TestFixtures -update removes it)", golden, p)
		case fixed != nil && err != nil:
			t.Errorf("the fixes change %s, and there is no %s (go test ./rules -run TestFixtures -update writes it); they give:\n%s", p, golden, fixed)
		case fixed != nil && !bytes.Equal(want, fixed):
			t.Errorf("%s with its fixes applied is not %s (-update rewrites it):\n%s", p, golden, lineDiff(string(want), string(fixed)))
		}
	}
}

// fileOf returns the file of the model read from path.
func fileOf(m *model.Model, path string) *model.File {
	for _, f := range m.Files {
		if f.Path == path {
			return f
		}
	}
	return nil
}

// lineDiff shows the lines of want and got that differ, from the first
// one that does.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	for j := i; j < len(w) && j < i+5; j++ {
		b.WriteString("- " + w[j] + "\n")
	}
	for j := i; j < len(g) && j < i+5; j++ {
		b.WriteString("+ " + g[j] + "\n")
	}
	return b.String()
}

// TestFixedGoldensHaveSources: every FILE.fixed is beside a fixture file
// FILE, so that a golden cannot outlive the fixture it was made from.
func TestFixedGoldensHaveSources(t *testing.T) {
	n := 0
	err := filepath.WalkDir(fixturesDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, fixedSuffix) {
			return err
		}
		n++
		src := strings.TrimSuffix(p, fixedSuffix)
		if _, err := os.Stat(src); err != nil || !fixtureExt[filepath.Ext(src)] {
			t.Errorf("%s has no fixture %s beside it", p, src)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no fixture has a .fixed golden")
	}
}
