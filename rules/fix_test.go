package rules_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/proxylint/proxylint/internal/nginxtest"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// TestApplyEdits: insertions at one place keep their order and come
// before a replacement that starts there.
func TestApplyEdits(t *testing.T) {
	src := []byte("a b c;\n")
	out, err := rules.ApplyEdits(src, []rules.Edit{
		{Start: 2, End: 3, New: "B"},
		{Start: 2, End: 2, New: "1"},
		{Start: 2, End: 2, New: "2"},
		{Start: 7, End: 7, New: "d;\n"},
	})
	if err != nil || string(out) != "a 12B c;\nd;\n" {
		t.Fatalf("got %q, %v", out, err)
	}
	if _, err := rules.ApplyEdits(src, []rules.Edit{{Start: 0, End: 3}, {Start: 2, End: 4}}); err == nil {
		t.Fatal("overlapping edits applied")
	}
}

// TestSelectFixesSkipsOverlap: a finding whose edit overlaps one taken
// is left out whole; an equal edit is taken once; a finding that
// overlaps only one left out is taken.
func TestSelectFixesSkipsOverlap(t *testing.T) {
	e1 := rules.Edit{File: "f", Start: 0, End: 3, New: "x"}
	safe := func(es ...rules.Edit) rules.Finding { return rules.Finding{Fix: rules.SafeFix("fix", es)} }
	set := rules.SelectFixes([]rules.Finding{
		safe(e1),
		safe(e1, rules.Edit{File: "f", Start: 9, End: 9, New: "y\n"}),
		safe(rules.Edit{File: "f", Start: 2, End: 5, New: "z"}, rules.Edit{File: "g", Start: 0, End: 0, New: "w\n"}),
		safe(rules.Edit{File: "f", Start: 4, End: 6, New: "v"}),
		safe(rules.Edit{File: "f", Start: 9, End: 9, New: "y\nmore\n"}),
		safe(rules.Edit{File: "f", Start: 9, End: 9, New: "u\n"}),
	}, rules.Safe)
	if set.Applied != 4 || set.Skipped != 2 || len(set.Edits["f"]) != 4 || len(set.Edits["g"]) != 0 {
		t.Fatalf("got %+v", set)
	}
}

// TestSelectFixesByApplicability: --fix takes the safe fixes and counts
// the unsafe ones it leaves; --unsafe-fixes takes both; advice and
// suppressed findings are never taken.
func TestSelectFixesByApplicability(t *testing.T) {
	e := func(at int) []rules.Edit { return []rules.Edit{{File: "f", Start: at, End: at + 1, New: "x"}} }
	fs := []rules.Finding{
		{Fix: rules.SafeFix("safe", e(0))},
		{Fix: rules.UnsafeFix("unsafe", e(2))},
		{Fix: rules.Fix{Message: "advice with edits", Edits: e(4)}},
		{Fix: rules.SafeFix("suppressed", e(6)), Suppression: &rules.Suppression{}},
		{Fix: rules.Advice("advice")},
	}
	if set := rules.SelectFixes(fs, rules.Safe); set.Applied != 1 || set.Unsafe != 1 || len(set.Edits["f"]) != 1 {
		t.Errorf("--fix: %+v", set)
	}
	if set := rules.SelectFixes(fs, rules.Unsafe); set.Applied != 2 || set.Unsafe != 0 || len(set.Edits["f"]) != 2 {
		t.Errorf("--unsafe-fixes: %+v", set)
	}
	if f := rules.SafeFix("nothing to edit", nil); f.Message != "" || f.Or("advice").Message != "advice" {
		t.Errorf("a fix without edits: %+v", f)
	}
	if f := rules.Advice("own advice").Or("other"); f.Message != "own advice" {
		t.Errorf("advice replaced: %+v", f)
	}
}

// fixCase is a configuration copied to a scratch directory, where its
// fixes are applied.
type fixCase struct {
	kind, entry, dir string
	// together lists the files of a fixture directory linted as one
	// configuration (a "-split" directory of manifests), in place of
	// entry.
	together []string
	orig     map[string][]byte // path in the copy -> content
}

// TestFixesWork applies every fix offered on every fixture and every file
// of the shared corpus, one finding at a time and then all together (as
// --fix applies them, and as --fix --unsafe-fixes does), and checks the
// result: nginx -t accepts it when it accepted the input, a second lint
// no longer reports the finding and reports nothing new, an Envoy
// configuration or a Kubernetes manifest loads without an envoy-invalid,
// envoy-syntax, kube-invalid or kube-syntax diagnostic it did not have,
// and no line is changed that neither the finding (its position, its
// related positions) nor the fix's edits name.
func TestFixesWork(t *testing.T) {
	t.Parallel()
	roots := []string{fixturesDir}
	corpus := corpusDir
	if _, err := os.Stat(corpus); err == nil {
		roots = append(roots, corpus)
	} else {
		t.Logf("the shared corpus %s is absent: fixtures only", corpus)
	}
	// Each configuration is checked in a subtest of its own, side by
	// side: most of the time is spent copying files and waiting for
	// nginx -t.
	var mu sync.Mutex
	offered := map[string]int{}
	t.Run("configurations", func(t *testing.T) {
		for _, root := range roots {
			err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.IsDir() && root == fixturesDir && strings.HasSuffix(p, "-split") {
					// Manifests that configure a proxy only together.
					t.Run(p, func(t *testing.T) {
						t.Parallel()
						counts := checkFixes(t, "", p)
						mu.Lock()
						defer mu.Unlock()
						for rule, n := range counts {
							offered[rule] += n
						}
					})
					return nil
				}
				if err != nil || d.IsDir() {
					return err
				}
				ext := filepath.Ext(p)
				kind, dir := load.KindNginx, load.KindNginx
				if ext == ".yaml" || ext == ".yml" || ext == ".json" {
					// Envoy or Kubernetes, told apart as the program
					// tells them.
					kind, dir = "", load.KindEnvoy
				}
				if ext == ".md" || ext == ".tsv" || ext == ".txt" || ext == fixedSuffix || root == corpus && !strings.Contains(p, "/"+dir+"/") {
					return nil
				}
				t.Run(strings.TrimPrefix(p, "../../"), func(t *testing.T) {
					t.Parallel()
					counts := checkFixes(t, kind, p)
					mu.Lock()
					defer mu.Unlock()
					for rule, n := range counts {
						offered[rule] += n
					}
				})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Logf("%d configurations with fixes that nginx -t accepts, checked again after each fix", nginxChecked.Load())
	for rule, n := range offered {
		t.Logf("%-30s %d fixes", rule, n)
	}
	for _, id := range []string{"upstream-no-keepalive", "log-format-blind", "envoy-h1-unsafe-drain", "retry-timeout-write", "retry-tries-unbounded", "directive-no-effect", "set-header-drops-inherited", "upstream-dns-stale"} {
		if offered[id] == 0 {
			t.Errorf("no fix of %s was offered on the fixtures", id)
		}
	}
	if manifestFixes.Load() == 0 {
		t.Error("no fix of a Kubernetes manifest was checked")
	}
}

// copyCase copies the directory of a configuration file to a scratch
// directory.
func copyCase(t *testing.T, kind, path string) *fixCase {
	dir := t.TempDir()
	src := filepath.Dir(path)
	c := &fixCase{kind: kind, dir: dir, entry: filepath.Join(dir, filepath.Base(path)), orig: map[string][]byte{}}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		src = path
		for _, f := range configFiles(t, path) {
			c.together = append(c.together, filepath.Join(dir, filepath.Base(f)))
		}
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := copyTree(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name()), c.orig); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func copyTree(from, to string, orig map[string][]byte) error {
	fi, err := os.Lstat(from)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil // links are not part of the copied configuration
	}
	if fi.IsDir() {
		if err := os.MkdirAll(to, 0o755); err != nil {
			return err
		}
		entries, err := os.ReadDir(from)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := copyTree(filepath.Join(from, e.Name()), filepath.Join(to, e.Name()), orig); err != nil {
				return err
			}
		}
		return nil
	}
	if !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return nil
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	orig[to] = b
	return os.WriteFile(to, b, 0o644)
}

func (c *fixCase) restore(t *testing.T) {
	for p, b := range c.orig {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (c *fixCase) lint() (*model.Model, []rules.Finding) {
	paths := []string{c.entry}
	if c.together != nil {
		paths = c.together
	}
	m := load.Load(paths, load.Options{Kind: c.kind, Targets: []model.Target{{Product: model.Nginx}}, IncludeRoots: []string{c.dir}})
	return m, rules.Run(m, &rules.Options{})
}

// apply writes the edits of the set into the copy, and returns a function
// that maps a position before the edits to one after them.
func (c *fixCase) apply(t *testing.T, m *model.Model, set rules.FixSet) func(model.Pos) model.Pos {
	shifted := map[string]*model.File{}
	for path, edits := range set.Edits {
		var f *model.File
		for _, mf := range m.Files {
			if mf.Path == path {
				f = mf
			}
		}
		out, err := rules.ApplyEdits(f.Source, edits)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		shifted[path] = f
	}
	return func(p model.Pos) model.Pos {
		f := shifted[p.File]
		if f == nil {
			return p
		}
		off := f.Offset(p)
		delta := 0
		for _, e := range set.Edits[p.File] {
			if e.End <= off {
				delta += len(e.New) - (e.End - e.Start)
			}
		}
		nf := &model.File{Path: p.File}
		nf.Source, _ = os.ReadFile(p.File)
		return nf.PosAt(off + delta)
	}
}

// nginxChecked counts the configurations with fixes that nginx -t
// accepts; manifestFixes the fixes checked on Kubernetes manifests.
var nginxChecked, manifestFixes atomic.Int64

// invalidCodes are the diagnostics a fixed Envoy configuration or
// Kubernetes manifest must not gain: the proxy or the API server would
// refuse it.
var invalidCodes = map[model.Code]bool{"envoy-invalid": true, "envoy-syntax": true, "kube-invalid": true, "kube-syntax": true}

type key struct {
	rule string
	pos  model.Pos
}

// checkFixes checks the fixes offered on one configuration and counts
// them by rule.
func checkFixes(t *testing.T, kind, path string) map[string]int {
	offered := map[string]int{}
	c := copyCase(t, kind, path)
	m, findings := c.lint()
	var fixable []rules.Finding
	for _, f := range findings {
		if len(f.Fix.Edits) > 0 {
			fixable = append(fixable, f)
		}
	}
	if len(fixable) == 0 {
		return offered
	}
	before := c.accepts(t, m)
	if before && kind == load.KindNginx {
		nginxChecked.Add(1)
	}
	manifest := len(m.Proxies) > 0 && m.Proxies[0].Product.Kubernetes()
	name := strings.TrimPrefix(path, "../../")
	check := func(what string, fixed []rules.Finding, min rules.Applicability) {
		var applied []rules.Finding
		for _, f := range fixed {
			if f.Fix.Applies(min) {
				applied = append(applied, f)
			}
		}
		if len(applied) == 0 {
			return
		}
		if manifest {
			manifestFixes.Add(1)
		}
		set := rules.SelectFixes(applied, min)
		move := c.apply(t, m, set)
		defer c.restore(t)
		m2, again := c.lint()
		if before && !c.accepts(t, m2) {
			t.Errorf("%s: %s: nginx -t refuses the result", name, what)
			c.dump(t, set)
		}
		if kind != load.KindNginx {
			known := map[model.Code]int{}
			for _, d := range m.Diagnostics {
				known[d.Code]++
			}
			now := map[model.Code]int{}
			for _, d := range m2.Diagnostics {
				now[d.Code]++
				if d.Fatal || known[d.Code] == 0 || invalidCodes[d.Code] && now[d.Code] > known[d.Code] {
					t.Errorf("%s: %s: the result does not load: [%s] %s", name, what, d.Code, d.Message)
					c.dump(t, set)
				}
			}
		}
		checkUntouched(t, name+": "+what, m, applied, set)
		fixed = applied
		was := map[key]bool{}
		for _, f := range findings {
			was[key{f.Rule, move(f.Pos)}] = true
		}
		gone := map[key]bool{}
		for _, f := range fixed {
			gone[key{f.Rule, move(f.Pos)}] = true
		}
		for _, f := range again {
			k := key{f.Rule, f.Pos}
			switch {
			case gone[k] && set.Skipped == 0:
				t.Errorf("%s: %s: still reported after its fix: %s: %s", name, what, f.Pos, f.Message)
			case !was[k]:
				t.Errorf("%s: %s: new after the fix: %s: [%s] %s", name, what, f.Pos, f.Rule, f.Message)
			}
		}
	}
	for _, f := range fixable {
		offered[f.Rule]++
		check(fmt.Sprintf("fix of %s at %s", f.Rule, f.Pos), []rules.Finding{f}, rules.Unsafe)
	}
	check("all fixes (--fix)", fixable, rules.Safe)
	check("all fixes (--fix --unsafe-fixes)", fixable, rules.Unsafe)
	return offered
}

// checkUntouched: the edits of the set change only lines that a finding
// whose fix is applied names (its line, its related lines) or that the
// fix's own edits replace; an insertion between lines changes none. A
// line an edit rewrites in part (an argument, a value) must be named by
// the finding, so that a fix never rewrites a line the report does not
// point at.
func checkUntouched(t *testing.T, what string, m *model.Model, applied []rules.Finding, set rules.FixSet) {
	t.Helper()
	named := map[string]map[int32]bool{}
	name := func(p model.Pos) {
		if named[p.File] == nil {
			named[p.File] = map[int32]bool{}
		}
		named[p.File][p.Line] = true
		// An nginx directive written over several lines is named by its
		// first: its lines run to the ";" or "{" that ends it.
		if f := fileOf(m, p.File); f != nil {
			if _, conf := f.Conf(); conf && p.IsValid() {
				off, line := f.Offset(p), p.Line
				for i := off; i < len(f.Source) && f.Source[i] != ';' && f.Source[i] != '{' && f.Source[i] != '}'; i++ {
					if f.Source[i] == '\n' {
						line++
						named[p.File][line] = true
					}
				}
			}
		}
	}
	for _, f := range applied {
		name(f.Pos)
		for _, r := range f.Related {
			name(r.Pos)
		}
	}
	for path, edits := range set.Edits {
		f := fileOf(m, path)
		if f == nil {
			t.Errorf("%s: an edit of %s, which the run did not read", what, path)
			continue
		}
		for _, e := range edits {
			if e.Start == e.End && (e.Start == 0 || f.Source[e.Start-1] == '\n') {
				continue // a line inserted between lines
			}
			// The lines whose bytes the edit replaces or splits; an edit
			// that ends a line's text keeps the next line.
			first := f.PosAt(e.Start).Line
			end := e.End
			if end > e.Start && f.Source[end-1] == '\n' {
				end--
			}
			last := f.PosAt(end).Line
			for l := first; l <= last; l++ {
				if !named[path][l] && !wholeLines(f.Source, e) {
					t.Errorf("%s: an edit changes %s:%d, a line no finding names: %q", what, path, l, e.New)
				}
			}
		}
	}
}

// wholeLines reports whether an edit replaces whole lines (a field or a
// directive removed with its line, a block's lines rewritten): the lines
// it names are its own.
func wholeLines(src []byte, e rules.Edit) bool {
	return (e.Start == 0 || src[e.Start-1] == '\n') && e.End > e.Start && src[e.End-1] == '\n'
}

func (c *fixCase) dump(t *testing.T, set rules.FixSet) {
	for p := range set.Edits {
		b, _ := os.ReadFile(p)
		t.Logf("%s:\n%s", p, b)
	}
}

// accepts runs nginx -t on the copy (in its context, with the modules its
// text names); Envoy configurations are accepted when they load.
func (c *fixCase) accepts(t *testing.T, m *model.Model) bool {
	if c.kind == load.KindEnvoy {
		return len(m.Diagnostics) == 0
	}
	if len(m.Proxies) == 0 {
		return false
	}
	var modules []string
	for word, mods := range map[string][]string{"lua": nginxtest.LuaModules, "stream": {nginxtest.StreamModule}} {
		for _, f := range m.Files {
			if bytes.Contains(f.Source, []byte(word)) {
				modules = append(modules, mods...)
				break
			}
		}
	}
	opts := []nginxtest.Option{nginxtest.WithModules(modules...), nginxtest.Isolated()}
	include := "include " + c.entry + ";\n"
	var conf string
	switch m.Proxies[0].Context {
	case "main":
		if bytes.Contains(c.orig[c.entry], []byte("pid ")) {
			opts = append(opts, nginxtest.OmitPIDFlag())
		}
		conf = include
		if !bytes.Contains(c.orig[c.entry], []byte("events")) {
			conf += "events {}\n"
		}
	case "http":
		conf = "events {}\nhttp {\n" + include + "}\n"
	case "server":
		conf = "events {}\nhttp {\nserver {\n" + include + "}\n}\n"
	case "location":
		conf = "events {}\nhttp {\nserver {\nlocation / {\n" + include + "}\n}\n}\n"
	default:
		return false
	}
	wrapper := filepath.Join(c.dir, ".proxylint-wrapper")
	if err := os.WriteFile(wrapper, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return nginxtest.CheckFile(t, wrapper, opts...).OK
}
