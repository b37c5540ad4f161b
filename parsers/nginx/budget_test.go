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
	// f1 to f11 include a file each, so every inclusion of them is
	// parsed; f12 includes nothing, and its inclusions after the first
	// share that parse. The 10001st parse, in the depth-first order nginx
	// reads in, is of an f11.
	expectDiagnostics(t, dir, cfg,
		"error f10.conf:3:9 more than 10000 included files parsed (inclusions that share an earlier parse not counted); the configuration was not read further (raise the limit with --max-includes)")
	if !cfg.Syntax {
		t.Error("a configuration over the budget must not be linted")
	}

	cfg = loadWithin(t, main, Options{MaxIncludes: 20})
	expectDiagnostics(t, dir, cfg,
		// f1 to f12 down the first includes (12 parses), the other three
		// of f11 (15), f11 four times through the second of f10 (19), the
		// third of f9 and its f10 (21).
		"error f9.conf:3:9 more than 20 included files parsed")

	// Within the budget nothing changes: 4 parses of f1, 16 of f2, and
	// f3 once for its 64 inclusions.
	small := amplifier(t, 4)
	cfg = loadWithin(t, small, Options{MaxIncludes: 21})
	expectDiagnostics(t, filepath.Dir(small), cfg)
	if got := len(cfg.Files); got != 85 {
		t.Errorf("files read: %d, want 85", got)
	}
	cfg = loadWithin(t, small, Options{MaxIncludes: 20})
	expectDiagnostics(t, filepath.Dir(small), cfg, "error f1.conf:4:9 more than 20 included files parsed")
}

// A snippet included in every location of a large configuration is parsed
// once, and its inclusions do not count against --max-includes: the
// default budget reads 30,000 of them, while the bytes they pull in still
// count against --max-total-size.
func TestSharedSnippetWithinIncludeBudget(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const n = 12000
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n    server {\n        listen 8080;\n")
	for i := range n {
		fmt.Fprintf(&b, "        location /p%d { include params.conf; proxy_pass http://127.0.0.1:9000; }\n", i)
	}
	b.WriteString("    }\n}\n")
	write("nginx.conf", b.String())
	write("params.conf", "proxy_set_header Host $host;\n")
	main := filepath.Join(dir, "nginx.conf")
	cfg := loadWithin(t, main, Options{})
	expectDiagnostics(t, dir, cfg)
	if got := len(cfg.Files); got != n+1 {
		t.Errorf("files read: %d, want %d", got, n+1)
	}
	// One parse, and 100 inclusions for each parse the budget allows.
	cfg = loadWithin(t, main, Options{MaxIncludes: n / 100})
	expectDiagnostics(t, dir, cfg)
	cfg = loadWithin(t, main, Options{MaxIncludes: n/100 - 1})
	expectDiagnostics(t, dir, cfg, fmt.Sprintf("error nginx.conf:%d:36 more than %d inclusions", n-100+5, n-100))
	// 29 bytes for each inclusion.
	cfg = loadWithin(t, main, Options{MaxIncludeBytes: 29*n - 1})
	expectDiagnostics(t, dir, cfg, fmt.Sprintf("error nginx.conf:%d:36 includes expand to more than %d bytes", n+4, 29*n-1))
}

// An empty file shared by its inclusions, included through a file that is
// itself included many times, costs no parse and no bytes after its first
// inclusion, but still an inclusion: 50 inclusions of b.conf, each
// including the empty leaf 200 times, are 10,050 inclusions from 51 parses,
// and stop at 100 inclusions for each parse the budget allows.
func TestSharedEmptyFileBomb(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("nginx.conf", "events {}\nhttp {\n"+strings.Repeat("include b.conf;\n", 50)+"}\n")
	write("b.conf", strings.Repeat("include leaf.conf;\n", 200))
	write("leaf.conf", "")
	main := filepath.Join(dir, "nginx.conf")
	cfg := loadWithin(t, main, Options{MaxIncludes: 101})
	expectDiagnostics(t, dir, cfg)
	if got := len(cfg.Files); got != 10051 {
		t.Errorf("files read: %d, want 10051", got)
	}
	// 6,000 inclusions: 29 of b.conf with their 200 leaves (5,829), the
	// 30th and 170 of its leaves; the 171st is one too many.
	cfg = loadWithin(t, main, Options{MaxIncludes: 60})
	expectDiagnostics(t, dir, cfg,
		"error b.conf:171:9 more than 6000 inclusions (100 for each included file --max-includes allows to be parsed); the configuration was not read further (raise the limit with --max-includes)")
	if !cfg.Syntax {
		t.Error("a configuration over the budget must not be linted")
	}
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
