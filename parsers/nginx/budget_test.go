package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// amplifier writes n files in which each includes the next four times:
// f0 reaches f(n-1) 4^(n-1) times, from a few hundred bytes.
func amplifier(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		var src string
		if i < n-1 {
			inc := fmt.Sprintf("include f%d.conf;\n", i+1)
			src = strings.Repeat(inc, 4)
		} else {
			src = "# the last one\n"
		}
		if i == 0 {
			src = "events {}\nhttp {\n" + src + "}\n"
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.conf", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "f0.conf")
}

func TestIncludeExpansionBudget(t *testing.T) {
	main := amplifier(t, 13)
	dir := filepath.Dir(main)
	cfg := loadWithin(t, main, Options{})
	// The 10001st inclusion, in the depth-first order nginx reads in.
	expectDiagnostics(t, dir, cfg,
		"error f11.conf:3:9 more than 10000 files included (each inclusion counted); the configuration was not read further (raise the limit with --max-includes)")
	if !cfg.Syntax {
		t.Error("a configuration over the budget must not be linted")
	}

	cfg = loadWithin(t, main, Options{MaxIncludes: 20})
	expectDiagnostics(t, dir, cfg,
		// f0 to f12 down the first includes (12), the other three of
		// f11 (15), the second of f10 and four of f12 again (20), the
		// third of f10.
		"error f10.conf:3:9 more than 20 files included")

	// Within the budget nothing changes: 4+16+64 inclusions.
	small := amplifier(t, 4)
	cfg = loadWithin(t, small, Options{MaxIncludes: 84})
	expectDiagnostics(t, filepath.Dir(small), cfg)
	if got := len(cfg.Files); got != 85 {
		t.Errorf("files read: %d, want 85", got)
	}
	cfg = loadWithin(t, small, Options{MaxIncludes: 83})
	expectDiagnostics(t, filepath.Dir(small), cfg, "error f2.conf:4:9 more than 83 files included")
}

func TestIncludeBytesBudget(t *testing.T) {
	main := amplifier(t, 5)
	dir := filepath.Dir(main)
	// f1 to f3 hold 68 bytes, f4 15: 4*68 + 16*68 + 64*68 + 256*15 =
	// 9552 bytes through includes, the last one the fourth of the last f3.
	cfg := loadWithin(t, main, Options{MaxIncludeBytes: 9552})
	expectDiagnostics(t, dir, cfg)
	cfg = loadWithin(t, main, Options{MaxIncludeBytes: 9551})
	expectDiagnostics(t, dir, cfg, "error f3.conf:4:9 includes expand to more than 9551 bytes")
}

// BenchmarkIncludeAmplification measures the loader on files that include
// one another exponentially often, up to the budget.
func BenchmarkIncludeAmplification(b *testing.B) {
	main := amplifier(b, 11)
	for b.Loop() {
		Load(main, Options{})
	}
}

// A glob over a directory that exists but cannot be listed is an error,
// not a pattern that matches nothing. As root every directory can be
// read, so the directory here cannot be listed for another reason: it is
// a link loop. (A path longer than PATH_MAX cannot be written in an
// include: nginx reads at most 4096 bytes of a parameter.)
func TestIncludeGlobOverUnlistableDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("loop-b", filepath.Join(dir, "loop-a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop-a", filepath.Join(dir, "loop-b")); err != nil {
		t.Fatal(err)
	}
	src := "events {}\nhttp {\n    include loop-a/*.conf;\n    include missing/*.conf;\n}\n"
	main := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := loadWithin(t, main, Options{Roots: []string{"/"}})
	expectDiagnostics(t, dir, cfg,
		"error nginx.conf:3:13 include \"loop-a/*.conf\": cannot list directory "+filepath.Join(dir, "loop-a")+": too many levels of symbolic links")
}
