package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// TestSplitManifests holds the fixtures of Kubernetes manifests split per
// resource (a directory NAME-split/ of one file per resource or two, as
// GitOps repositories and `helm template --output-dir` lay them out) to
// the findings of the same documents in one file: linted as a directory,
// named together (a pre-commit hook's file list) or as one file, a run
// gives the same findings, each once, at the same resource lines, with
// the same related locations. The one file is the directory's files in
// name order, as kubectl apply -f DIR applies them, separated by "---".
func TestSplitManifests(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "*", "*-split"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no split manifest fixtures")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			files := configFiles(t, dir)
			if len(files) < 2 {
				t.Fatalf("%s holds %d files, want a resource split over several", dir, len(files))
			}
			sort.Strings(files)
			one, at := joinManifests(t, files)
			src, err := os.ReadFile(one)
			if err != nil {
				t.Fatal(err)
			}
			opts, ruleOpts := fixtureFlags(t, string(src))
			lint := func(paths ...string) []string {
				m := load.Load(paths, opts)
				var out []string
				for _, f := range rules.Run(m, ruleOpts) {
					out = append(out, findingText(f, at))
				}
				return out
			}
			want := lint(one)
			if len(want) == 0 {
				t.Fatalf("%s gives no finding: a split fixture shows a finding across files", one)
			}
			if got := lint(dir); !reflect.DeepEqual(got, want) {
				t.Errorf("linted as a directory:\n  %s\nwant (one file):\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
			if got := lint(files...); !reflect.DeepEqual(got, want) {
				t.Errorf("named together:\n  %s\nwant (one file):\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

// joinManifests writes the files, in order, into one manifest with "---"
// between them, and returns its path and where each file's lines start
// in it: a position in a file is at[file] lines further down in the one.
func joinManifests(t *testing.T, files []string) (string, map[string]int) {
	var b strings.Builder
	at := map[string]int{}
	line := 0
	for i, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			b.WriteString("---\n")
			line++
		}
		at[f] = line
		s := string(src)
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		b.WriteString(s)
		line += strings.Count(s, "\n")
	}
	one := filepath.Join(t.TempDir(), "one.yaml")
	if err := os.WriteFile(one, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	at[one] = 0
	return one, at
}

// findingText is a finding with its positions in the one file.
func findingText(f rules.Finding, at map[string]int) string {
	pos := func(p model.Pos) string {
		if !p.IsValid() || p.Line == 0 {
			return "-"
		}
		off, ok := at[p.File]
		if !ok {
			return p.String()
		}
		return fmt.Sprintf("%d:%d", int(p.Line)+off, p.Col)
	}
	s := fmt.Sprintf("%s %s %s %s", pos(f.Pos), f.Rule, f.Severity, f.Message)
	for _, r := range f.Related {
		s += fmt.Sprintf(" | %s %s", pos(r.Pos), r.Message)
	}
	if f.Fix.Message != "" {
		s += " | fix: " + f.Fix.Message
	}
	return s
}
