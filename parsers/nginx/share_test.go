package nginx

import (
	"os"
	"path/filepath"
	"testing"
)

// A snippet included in many blocks of the same kind is parsed once: the
// inclusions share its directives, while each stays a file of its own in
// Config.Files, with the same tree a fresh parse gives. Read in another
// kind of block, or including files itself, a snippet is parsed again.
func TestIncludedSnippetParsedOnce(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("params.conf", "proxy_read_timeout 5s;\nproxy_set_header Host $host;\n")
	write("outer.conf", "include params.conf;\n")
	write("nginx.conf", `events {}
http {
    server {
        include params.conf;
        location /a { include params.conf; proxy_pass http://127.0.0.1:1; }
        location /b { include params.conf; proxy_pass http://127.0.0.1:2; }
        location /c { include outer.conf; }
        location /d { include outer.conf; }
    }
}
`)
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{Prefix: dir, Roots: []string{dir}})
	if len(cfg.Diagnostics) > 0 {
		t.Fatalf("diagnostics: %v", cfg.Diagnostics)
	}
	var params, outer []*File
	for _, f := range cfg.Files {
		switch filepath.Base(f.Path) {
		case "params.conf":
			params = append(params, f)
		case "outer.conf":
			outer = append(outer, f)
		}
	}
	// server, /a, /b, and through outer.conf /c and /d.
	if len(params) != 5 || len(outer) != 2 {
		t.Fatalf("got %d params.conf and %d outer.conf files, want 5 and 2", len(params), len(outer))
	}
	want := dumpTree(params[0].Directives)
	fresh, _, perr := parseFile(params[0].Path, params[0].Source, "location", 3, DefaultMaxDepth)
	if perr != nil {
		t.Fatal(perr)
	}
	if got := dumpTree(fresh.Directives); got != want {
		t.Fatalf("a fresh parse differs:\n%s\nwant\n%s", got, want)
	}
	for i, f := range params {
		if got := dumpTree(f.Directives); got != want {
			t.Errorf("inclusion %d: tree\n%s\nwant\n%s", i, got, want)
		}
		if i > 0 && f == params[i-1] {
			t.Errorf("inclusion %d is the same *File as the one before", i)
		}
	}
	same := func(a, b *File) bool { return a.Directives[0] == b.Directives[0] }
	// In the server block and in a location: parsed apart.
	if same(params[0], params[1]) {
		t.Error("the server's and a location's inclusion share their directives")
	}
	// Both locations: shared.
	if !same(params[1], params[2]) {
		t.Error("two locations' inclusions were parsed twice")
	}
	// outer.conf includes a file: each inclusion is its own parse, and
	// the file it includes, one level deeper, is shared.
	if same(outer[0], outer[1]) {
		t.Error("a file that includes another shares its directives")
	}
	if !same(params[3], params[4]) {
		t.Error("the files outer.conf includes were parsed twice")
	}
}
