package nginx

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

// loadWithin loads path and fails the test if that takes more than a few
// seconds (a FIFO read would block for ever).
func loadWithin(t *testing.T, path string, opts Options) *Config {
	t.Helper()
	done := make(chan *Config, 1)
	go func() { done <- Load(path, opts) }()
	select {
	case cfg := <-done:
		return cfg
	case <-time.After(timeLimit(watchdog)):
		t.Fatalf("Load(%s) did not return within %v", path, timeLimit(watchdog))
		return nil
	}
}

// diagLines renders diagnostics as "severity file:line:col message", the
// file relative to dir.
func diagLines(dir string, ds []model.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		rel, err := filepath.Rel(dir, d.Pos.File)
		if err != nil || d.Pos.File == "" {
			rel = d.Pos.File
		}
		p := d.Pos
		p.File = rel
		out = append(out, d.Severity.String()+" "+p.String()+" "+d.Message)
	}
	return out
}

func includedNames(cfg *Config) []string {
	var out []string
	for _, f := range cfg.Files[1:] {
		out = append(out, filepath.Base(f.Path))
	}
	return out
}

func expectDiagnostics(t *testing.T, dir string, cfg *Config, want ...string) {
	t.Helper()
	got := diagLines(dir, cfg.Diagnostics)
	if len(got) != len(want) {
		t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("diagnostic %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

func TestLoadRelativeToMainDirectory(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"nginx.conf":      "events {}\nhttp {\n    include sub/a.conf;\n}\n",
		"sub/a.conf":      "server { include b.conf; }\n",
		"b.conf":          "listen 1;\n",
		"sub/b.conf":      "this file must not be read;\n",
		"sub/unused.conf": "}",
	})
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
	expectDiagnostics(t, dir, cfg)
	if got := strings.Join(includedNames(cfg), ","); got != "a.conf,b.conf" {
		t.Fatalf("read %s, want a.conf,b.conf", got)
	}
	if cfg.Files[2].Path != filepath.Join(dir, "b.conf") {
		t.Errorf("b.conf read from %s, want the main file's directory", cfg.Files[2].Path)
	}
	want := `1:1 "events" {
}
2:1 "http" {
  3:5 "include" "sub/a.conf";
    < a.conf
      1:1 "server" {
        1:10 "include" "b.conf";
          < b.conf
            1:1 "listen" "1";
      }
}
`
	if got := dumpTree(cfg.Main.Directives); got != want {
		t.Errorf("tree:\n%s\nwant:\n%s", got, want)
	}
	if cfg.Context != "main" || cfg.Fragment() {
		t.Errorf("context %q", cfg.Context)
	}
}

func TestLoadPrefixOption(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"conf/nginx.conf": "events {}\nhttp { include x.conf; }\n",
		"etc/x.conf":      "server_tokens off;\n",
	})
	cfg := Load(filepath.Join(dir, "conf/nginx.conf"), Options{Prefix: filepath.Join(dir, "etc"), Roots: []string{dir}})
	expectDiagnostics(t, dir, cfg)
	if got := strings.Join(includedNames(cfg), ","); got != "x.conf" {
		t.Fatalf("read %q", got)
	}
}

func TestLoadGlobs(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"nginx.conf": "events {}\nhttp {\n" +
			"    include conf.d/*.conf;\n" +
			"    include */x.conf;\n" +
			"    include none/*.conf;\n" +
			"    include opt[.]conf;\n" +
			"    include neg/[!.]*;\n" +
			"    include lit/a[b;\n" +
			"}\n",
		"conf.d/b.conf":       "# b\n",
		"conf.d/a.conf":       "# a\n",
		"conf.d/A.conf":       "# A\n",
		"conf.d/.hidden.conf": "}",
		"conf.d/c.conf~":      "}",
		"a/x.conf":            "# a/x\n",
		"a-b/x.conf":          "# a-b/x\n",
		".dot/x.conf":         "}",
		"neg/n1":              "# n1\n",
		"neg/.n2":             "}",
		"lit/a[b":             "# literal\n",
	})
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
	expectDiagnostics(t, dir, cfg)
	var got []string
	for _, f := range cfg.Files[1:] {
		rel, _ := filepath.Rel(dir, f.Path)
		got = append(got, rel)
	}
	// Byte order of the whole path, as glob(3) sorts: "A" < "a", and
	// "a-b/x.conf" < "a/x.conf" since '-' < '/'. Wildcards never match a
	// leading dot. No match is fine.
	want := "conf.d/A.conf conf.d/a.conf conf.d/b.conf a-b/x.conf a/x.conf neg/n1 lit/a[b"
	if strings.Join(got, " ") != want {
		t.Errorf("read\n %s\nwant\n %s", strings.Join(got, " "), want)
	}
}

func TestLoadExplicitDotGlob(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"nginx.conf":     "events {}\nhttp { include conf.d/.*.conf; }\n",
		"conf.d/.h.conf": "# hidden but named\n",
		"conf.d/v.conf":  "}",
	})
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
	expectDiagnostics(t, dir, cfg)
	if got := strings.Join(includedNames(cfg), ","); got != ".h.conf" {
		t.Errorf("read %q", got)
	}
}

func TestLoadIncludeErrors(t *testing.T) {
	t.Parallel()
	t.Run("missing", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, map[string]string{"nginx.conf": "events {}\nhttp {\n    include   missing.conf;\n}\n"})
		cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
		expectDiagnostics(t, dir, cfg, `error nginx.conf:3:15 include "missing.conf": `+filepath.Join(dir, "missing.conf")+" does not exist")
		if !cfg.Diagnostics[0].Fatal || cfg.Syntax {
			t.Errorf("fatal %v syntax %v, want a fatal include error", cfg.Diagnostics[0].Fatal, cfg.Syntax)
		}
	})
	t.Run("missing in a fragment", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, map[string]string{"site.conf": "server {\n    include snippets/x.conf;\n}\n"})
		cfg := Load(filepath.Join(dir, "site.conf"), Options{})
		expectDiagnostics(t, dir, cfg, `warning site.conf:2:13 include "snippets/x.conf" was not found next to this fragment`)
	})
	t.Run("fragment include found above", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, map[string]string{
			"sites/site.conf":    "server {\n    include snippets/x.conf;\n}\n",
			"snippets/x.conf":    "listen 1;\n",
			"sites/unrelated.xx": "",
		})
		cfg := Load(filepath.Join(dir, "sites/site.conf"), Options{Roots: []string{dir}})
		expectDiagnostics(t, dir, cfg)
		if got := strings.Join(includedNames(cfg), ","); got != "x.conf" {
			t.Errorf("read %q", got)
		}
	})
	t.Run("directory", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, map[string]string{"nginx.conf": "events {}\nhttp { include d; }\n", "d/x.conf": ""})
		cfg := loadWithin(t, filepath.Join(dir, "nginx.conf"), Options{})
		expectDiagnostics(t, dir, cfg, `error nginx.conf:2:16 include "d": `+filepath.Join(dir, "d")+": is a directory")
	})
	t.Run("directory by glob", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, map[string]string{"nginx.conf": "events {}\nhttp { include conf.d/*; }\n", "conf.d/sub/x.conf": ""})
		cfg := loadWithin(t, filepath.Join(dir, "nginx.conf"), Options{})
		expectDiagnostics(t, dir, cfg, `error nginx.conf:2:16 include "conf.d/*": `+filepath.Join(dir, "conf.d/sub")+": is a directory")
	})
	t.Run("FIFO", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, map[string]string{"nginx.conf": "events {}\nhttp { include fifo.conf; }\n"})
		if err := syscall.Mkfifo(filepath.Join(dir, "fifo.conf"), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		cfg := loadWithin(t, filepath.Join(dir, "nginx.conf"), Options{})
		expectDiagnostics(t, dir, cfg, `error nginx.conf:2:16 include "fifo.conf": `+filepath.Join(dir, "fifo.conf")+": not a regular file (named pipe)")
	})
	t.Run("FIFO as the main file", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		p := filepath.Join(dir, "nginx.conf")
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		cfg := loadWithin(t, p, Options{})
		expectDiagnostics(t, dir, cfg, "error nginx.conf cannot read "+p+": not a regular file (named pipe)")
		if cfg.Main != nil {
			t.Errorf("a FIFO was read")
		}
	})
	t.Run("FIFO read directly", func(t *testing.T) {
		t.Parallel()
		p := filepath.Join(t.TempDir(), "f")
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() { _, err := readRegular(p, DefaultMaxFileSize); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("readRegular(FIFO) = %v", err)
			}
		case <-time.After(timeLimit(watchdog)):
			t.Fatal("readRegular blocked on a FIFO")
		}
	})
	t.Run("missing main file", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		p := filepath.Join(dir, "nginx.conf")
		cfg := Load(p, Options{})
		expectDiagnostics(t, dir, cfg, "error nginx.conf cannot read "+p+": no such file or directory")
		if !cfg.Diagnostics[0].Fatal || cfg.Diagnostics[0].Code != CodeLoad {
			t.Errorf("%+v", cfg.Diagnostics[0])
		}
	})
	t.Run("wrong number of arguments", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, map[string]string{"nginx.conf": "events {}\ninclude a b\n  ;\n"})
		cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
		expectDiagnostics(t, dir, cfg, `error nginx.conf:3:3 invalid number of arguments in "include" directive (2, want 1)`)
	})
}

func TestLoadIncludeCycle(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"nginx.conf": "events {}\nhttp { include a.conf; }\n",
		"a.conf":     "server_tokens off;\ninclude b.conf;\n",
		"b.conf":     "\n  include a.conf;\n",
	})
	cfg := loadWithin(t, filepath.Join(dir, "nginx.conf"), Options{})
	expectDiagnostics(t, dir, cfg, `error b.conf:2:11 include cycle: a.conf -> b.conf -> a.conf`)

	dir = writeFiles(t, map[string]string{"nginx.conf": "events {}\nhttp { include *.conf; }\n"})
	cfg = loadWithin(t, filepath.Join(dir, "nginx.conf"), Options{})
	expectDiagnostics(t, dir, cfg, `error nginx.conf:2:16 include cycle: nginx.conf -> nginx.conf`)
}

// TestLoadIncludeTwice checks that a file may be included more than once
// when that is no cycle.
func TestLoadIncludeTwice(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"nginx.conf": "events {}\nhttp { server { include p.conf; } server { include p.conf; } }\n",
		"p.conf":     "listen 1;\n",
	})
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
	expectDiagnostics(t, dir, cfg)
	if got := strings.Join(includedNames(cfg), ","); got != "p.conf,p.conf" {
		t.Errorf("read %q", got)
	}
}

func TestLoadOutsideRoots(t *testing.T) {
	t.Parallel()
	outside := writeFiles(t, map[string]string{"secret.conf": "}", "x/y.conf": "}"})
	dir := writeFiles(t, map[string]string{
		"nginx.conf": "events {}\nhttp {\n" +
			"    include " + filepath.Join(outside, "secret.conf") + ";\n" +
			"    include link.conf;\n" +
			"    include linkdir/*.conf;\n" +
			"    include ../" + filepath.Base(outside) + "/secret.conf;\n" +
			"}\n",
	})
	if err := os.Symlink(filepath.Join(outside, "secret.conf"), filepath.Join(dir, "link.conf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "x"), filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
	real, _ := filepath.EvalSymlinks(filepath.Join(outside, "secret.conf"))
	realY, _ := filepath.EvalSymlinks(filepath.Join(outside, "x/y.conf"))
	expectDiagnostics(t, dir, cfg,
		`note nginx.conf:3:13 include "`+filepath.Join(outside, "secret.conf")+`": `+filepath.Join(outside, "secret.conf")+" is outside the linted tree and was not read",
		`note nginx.conf:4:13 include "link.conf": `+filepath.Join(dir, "link.conf")+" (a symbolic link to "+real+") is outside the linted tree and was not read",
		`note nginx.conf:5:13 include "linkdir/*.conf": `+filepath.Join(dir, "linkdir/y.conf")+" (a symbolic link to "+realY+") is outside",
		`note nginx.conf:6:13 include "../`+filepath.Base(outside)+`/secret.conf": `,
	)
	if len(cfg.Files) != 1 {
		t.Errorf("read %d files, want only the main one", len(cfg.Files))
	}
	// Widening the roots lets the loader read them.
	cfg = Load(filepath.Join(dir, "nginx.conf"), Options{Roots: []string{dir, outside}})
	if len(cfg.Files) < 2 {
		t.Errorf("with the outside root: read %d files", len(cfg.Files))
	}
}

// TestLoadSymlinkInside checks that a symbolic link within the roots is
// followed, and that a cycle through a link is found by the real path.
func TestLoadSymlinkInside(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"nginx.conf":  "events {}\nhttp { include l.conf; }\n",
		"target.conf": "include back.conf;\n",
	})
	for link, target := range map[string]string{"l.conf": "target.conf", "back.conf": "l.conf"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := loadWithin(t, filepath.Join(dir, "nginx.conf"), Options{})
	// Files are named by the path that reached them, cycles found by the
	// real path.
	expectDiagnostics(t, dir, cfg, `error l.conf:1:9 include cycle: target.conf -> target.conf`)
}

func TestLoadErrorsInIncludedFiles(t *testing.T) {
	t.Parallel()
	t.Run("syntax error in an included file", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, map[string]string{
			"nginx.conf": "events {}\nhttp { include a.conf; }\n",
			"a.conf":     "server {\n  listen 80\n}\n",
		})
		cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
		expectDiagnostics(t, dir, cfg, `error a.conf:3:1 unexpected "}": the directive "listen" is not terminated by ";"`)
		if !cfg.Syntax {
			t.Error("Syntax not set")
		}
	})
	t.Run("the first error in nginx's reading order", func(t *testing.T) {
		t.Parallel()
		// nginx reads a.conf where it is included, before the rest of
		// nginx.conf, so a.conf's error comes first.
		dir := writeFiles(t, map[string]string{
			"nginx.conf": "events {}\nhttp { include a.conf; }\n}\n",
			"a.conf":     "{",
		})
		cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
		expectDiagnostics(t, dir, cfg, `error a.conf:1:1 unexpected "{"`)
	})
	t.Run("an include after the error is not read", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, map[string]string{
			"nginx.conf": "events {}\n}\nhttp { include a.conf; }\n",
			"a.conf":     "{",
		})
		cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
		expectDiagnostics(t, dir, cfg, `error nginx.conf:2:1 unexpected "}": no block is open here`)
	})
	t.Run("included file keeps its context", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, map[string]string{
			"nginx.conf": "events {}\nhttp { types { include t.conf; } }\n",
			"t.conf":     "text/html html;\nx { }\n",
		})
		cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
		expectDiagnostics(t, dir, cfg, `error t.conf:2:3 unexpected "{": "types" blocks hold values`)
	})
	t.Run("a block cannot end in another file", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, map[string]string{
			"nginx.conf": "events {}\nhttp { include a.conf;\n",
			"a.conf":     "}\n",
		})
		cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
		expectDiagnostics(t, dir, cfg, `error a.conf:1:1 unexpected "}": no block is open here`)
	})
}

func TestLoadDepthLimit(t *testing.T) {
	t.Parallel()
	files := map[string]string{"nginx.conf": "events {}\nhttp { include f0.conf; }\n"}
	for i := 0; i < 20; i++ {
		files["f"+strconv.Itoa(i)+".conf"] = "a {\ninclude f" + strconv.Itoa(i+1) + ".conf;\n}\n"
	}
	files["f20.conf"] = "b;\n"
	dir := writeFiles(t, files)
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{MaxDepth: 30})
	// The top level of fN is 2+2N levels deep (http, then an include and
	// a block a file): the block of f14 is the 31st level.
	expectDiagnostics(t, dir, cfg, `error f14.conf:1:1 blocks and includes nested deeper than 30 levels`)
	if !cfg.Syntax {
		t.Error("Syntax not set")
	}
	cfg = Load(filepath.Join(dir, "nginx.conf"), Options{})
	expectDiagnostics(t, dir, cfg)
}

func TestGoPattern(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a*.conf":    "a*.conf",
		"[!.]*":      "[^.]*",
		"[^.]*":      "[^.]*",
		"x[.]conf":   "x[.]conf",
		"a[b":        `a\[b`,
		"a[b/c]":     `a\[b/c]`,
		"[]a]":       `[\]a]`,
		"[!]a]":      `[^\]a]`,
		`a\*b`:       `a\*b`,
		"a[bc]d[ef]": "a[bc]d[ef]",
	} {
		if got := goPattern(in); got != want {
			t.Errorf("goPattern(%q) = %q, want %q", in, got, want)
		}
	}
}

// A file nginx's packages install next to nginx.conf (mime.types,
// uwsgi_params, ...) that a repository does not keep is a note, not a
// missing file that stops the run.
func TestMissingInstalledFileIsANote(t *testing.T) {
	dir := writeFiles(t, map[string]string{"nginx.conf": "events {}\nhttp {\n    include mime.types;\n    server { location / { include uwsgi_params; uwsgi_pass 127.0.0.1:9000; } }\n}\n"})
	cfg := loadWithin(t, filepath.Join(dir, "nginx.conf"), Options{})
	require.Len(t, cfg.Diagnostics, 2)
	for i, line := range []int{3, 4} {
		d := cfg.Diagnostics[i]
		assert.Equal(t, CodeInclude, d.Code)
		assert.Equal(t, model.Note, d.Severity)
		assert.False(t, d.Fatal)
		assert.Equal(t, line, int(d.Pos.Line))
		assert.Contains(t, d.Message, "is a file nginx's packages install next to nginx.conf")
	}
	assert.False(t, cfg.Syntax)
}

// Only the paths a package installs are excused: conf/mime.types or a
// fastcgi_params in another directory is a missing file, as for nginx -t;
// Debian's snippets/fastcgi-php.conf is a package file.
func TestInstalledFileIsMatchedByItsPath(t *testing.T) {
	dir := writeFiles(t, map[string]string{"nginx.conf": "events {}\nhttp {\n    include snippets/fastcgi-php.conf;\n    include conf/mime.types;\n}\n"})
	cfg := loadWithin(t, filepath.Join(dir, "nginx.conf"), Options{})
	require.Len(t, cfg.Diagnostics, 2)
	assert.Equal(t, model.Note, cfg.Diagnostics[0].Severity)
	assert.Equal(t, 3, int(cfg.Diagnostics[0].Pos.Line))
	assert.Contains(t, cfg.Diagnostics[0].Message, "is a file nginx's packages install next to nginx.conf")
	d := cfg.Diagnostics[1]
	assert.Equal(t, CodeInclude, d.Code)
	assert.Equal(t, model.Error, d.Severity)
	assert.True(t, d.Fatal)
	assert.Equal(t, 4, int(d.Pos.Line))
	assert.Equal(t, `include "conf/mime.types": `+filepath.Join(dir, "conf/mime.types")+` does not exist`, d.Message)
}
