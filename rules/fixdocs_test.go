package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// TestFixDocsSayWhichFixesAreWhich: every checking rule's doc has a
// "What --fix does" section, and it names each applicability the rule's
// fixes have on the fixtures (**Safe**, **Unsafe**, **Display-only**),
// saying why.
func TestFixDocsSayWhichFixesAreWhich(t *testing.T) {
	seen := map[string]map[rules.Applicability]bool{}
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
			var paths []string
			switch {
			case e.IsDir():
				paths = configFiles(t, path)
			case fixtureExt[filepath.Ext(e.Name())]:
				paths = []string{path}
			}
			if len(paths) == 0 {
				continue
			}
			src := ""
			for _, p := range paths {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				src += string(b) + "\n"
			}
			opts, ruleOpts := fixtureFlags(t, src)
			m := load.Load(paths, opts)
			for _, f := range rules.Run(m, ruleOpts) {
				if f.Fix.Message == "" {
					continue
				}
				if seen[f.Rule] == nil {
					seen[f.Rule] = map[rules.Applicability]bool{}
				}
				seen[f.Rule][f.Fix.Applicability] = true
			}
		}
	}
	names := map[rules.Applicability]string{rules.Safe: "**Safe**", rules.Unsafe: "**Unsafe**", rules.DisplayOnly: "**Display-only**"}
	for _, r := range rules.All() {
		if r.Check == nil {
			continue
		}
		doc := r.Doc()
		_, section, ok := strings.Cut(doc, "\n## What --fix does\n")
		if !ok {
			t.Errorf("rules/docs/%s.md has no \"## What --fix does\" section saying which of its fixes are safe, unsafe or display-only", r.ID)
			continue
		}
		section, _, _ = strings.Cut(section, "\n## ")
		for a := range seen[r.ID] {
			if !strings.Contains(section, names[a]) {
				t.Errorf("rules/docs/%s.md: the fixtures give %s fixes, which \"What --fix does\" does not name (%s)", r.ID, a, names[a])
			}
		}
		for a, name := range names {
			if strings.Contains(section, name) && !seen[r.ID][a] {
				t.Errorf("rules/docs/%s.md names %s fixes, which no fixture shows", r.ID, a)
			}
		}
	}
}
