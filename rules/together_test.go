package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// TestMoreFilesNeverHideAFinding lints every fixture and corpus file alone,
// with its whole directory, and with the next file of its directory, and
// checks that each finding of the file alone (rule, file, line) is still
// reported when the file is linted together with others: what a file
// says does not depend on what else a run reads. A file that another file
// of the run includes is linted through that file, in its context, by
// design (a fragment's conditional notes are then answered, and the note
// that names the configuration it was linted through is no longer
// needed), so the check applies where the file is still an entry. Envoy
// files joined into one deployment are entries all; Kubernetes manifests
// joined into one deployment are not. A note that something the run did
// not read is missing (envoy-unresolved) is answered when the others hold
// it, by design too.
func TestMoreFilesNeverHideAFinding(t *testing.T) {
	groups := map[string][]string{} // directory -> config files, with the kind to read them as
	kinds := map[string]string{}
	add := func(root, kind string, keep func(string) bool) {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !keep(p) {
				return err
			}
			dir := filepath.Dir(p)
			groups[dir] = append(groups[dir], p)
			kinds[dir] = kind
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add(fixturesDir, "", func(p string) bool { return fixtureExt[filepath.Ext(p)] })
	corpus := corpusDir
	if _, err := os.Stat(corpus); err != nil {
		corpus = "/work/shared/corpus"
	}
	if _, err := os.Stat(corpus); err == nil {
		for _, kind := range []string{"nginx", "envoy"} {
			add(filepath.Join(corpus, kind), kind, func(p string) bool {
				switch filepath.Ext(p) {
				case ".md", ".tsv", ".txt":
					return false
				}
				return true
			})
		}
	} else {
		t.Logf("the shared corpus %s is absent: fixtures only", corpus)
	}
	dirs := make([]string, 0, len(groups))
	for d, files := range groups {
		if len(files) > 1 {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	if len(dirs) == 0 {
		t.Fatal("no directory with several configuration files")
	}
	var checked atomic.Int64
	t.Cleanup(func() {
		// Every file counts once for its directory and once for its pair
		// when it stays an entry; most do.
		t.Logf("%d comparisons of a file's findings alone and with others", checked.Load())
		if checked.Load() == 0 {
			t.Error("no file stayed an entry when linted with others: the check compared nothing")
		}
	})
	for _, dir := range dirs {
		files, kind := groups[dir], kinds[dir]
		sort.Strings(files)
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			together, togetherEntries := lintKeys(t, kind, files...)
			for i, f := range files {
				alone, _ := lintKeys(t, kind, f)
				next := files[(i+1)%len(files)]
				pair, pairEntries := lintKeys(t, kind, f, next)
				if togetherEntries[f] {
					checked.Add(1)
				}
				if pairEntries[f] {
					checked.Add(1)
				}
				for k := range alone {
					if strings.HasPrefix(k, rules.EnvoyUnresolved.ID+" ") {
						continue
					}
					if togetherEntries[f] && !together[k] {
						t.Errorf("%s: linted alone, %s; not when linted with its directory", f, k)
					}
					if pairEntries[f] && !pair[k] {
						t.Errorf("%s: linted alone, %s; not when linted with %s", f, k, next)
					}
				}
			}
		})
	}
}

// lintKeys lints paths as the command line does with --no-config and
// returns its findings as "rule file:line", and the files the run's
// configurations were loaded from.
func lintKeys(t *testing.T, kind string, paths ...string) (keys, entries map[string]bool) {
	t.Helper()
	m, scope := load.LoadScoped(paths, load.Options{Kind: kind})
	opts := &rules.Options{}
	steps := rules.Steps{}
	if scope != nil {
		steps.InScope = scope.Contains
	}
	keys, entries = map[string]bool{}, map[string]bool{}
	for _, f := range rules.Process(m, opts, rules.Check(m, opts), steps) {
		keys[fmt.Sprintf("%s %s:%d", f.Rule, strings.TrimPrefix(f.Pos.File, "./"), f.Pos.Line)] = true
	}
	for _, p := range m.Proxies {
		switch {
		case p.Product.Kubernetes() && len(p.Sources) > 1:
			// Kubernetes manifests linted together are one deployment,
			// by design, as an include is linted in its includer's
			// context: a resource of one changes what a route of
			// another does (the Gateway's policy, the mesh's retry
			// policy).
		case len(p.Sources) > 1:
			for _, f := range p.Sources {
				entries[f] = true
			}
		default:
			entries[p.Entry] = true
		}
	}
	return keys, entries
}
