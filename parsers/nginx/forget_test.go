package nginx

import (
	"runtime"
	"testing"
	"unsafe"
	"weak"
)

// What the builder keeps of a server block while it builds the others
// holds none of its directives once the server is built (facts.forget), so
// that BuildReleasing lets each server's tree go at once and not when the
// whole http block is built: on a configuration of 20,000 servers that is
// most of the parse trees, held beside the model.
func TestFactsLetABuiltServerGo(t *testing.T) {
	file, perr := parseString("http {\n server {\n  listen 80;\n  proxy_read_timeout 5s;\n  location / {\n   proxy_pass http://a;\n   proxy_send_timeout 5s;\n  }\n }\n}\n")
	if perr != nil {
		t.Fatal(perr)
	}
	f := newFacts(&Config{Main: file, Files: []*File{file}, Context: "main"}, false)
	srv := file.Directives[0].Block[0]
	s := newScope("server", srv, srv.Pos, nil, srv.Block)
	locs := s.children("location")
	if len(locs) != 1 {
		t.Fatalf("%d locations", len(locs))
	}
	loc := newScope("location", locs[0], locs[0].Pos, s, locs[0].Block)
	if got := len(f.passDirectives(s)); got != 1 {
		t.Fatalf("%d pass-module directives at server level, want 1", got)
	}
	if !f.levelComplete(s) || !f.levelComplete(loc) {
		t.Fatal("a block without includes is not complete")
	}
	gone := weak.Make(srv.Block[1]) // proxy_read_timeout, which the level keeps
	f.forget(s)
	file, srv, s, locs, loc = nil, nil, nil, nil, nil
	runtime.GC()
	if gone.Value() != nil {
		t.Error("the facts still hold the directives of a server they forgot")
	}
	runtime.KeepAlive(f)
	_, _, _, _ = file, srv, locs, loc
}

// The table moduleDirective reads says of every directive what its
// declarations say, and knows no directive nginx does not.
func TestModuleDirectivesAsDeclared(t *testing.T) {
	n := 0
	for _, e := range knownDirectiveList {
		wantM, want := isModuleDirective(e.name)
		gotM, got := moduleDirective(e.name)
		if gotM != wantM || got != want {
			t.Errorf("%s: moduleDirective = %q, %v; the declarations say %q, %v", e.name, gotM, got, wantM, want)
		}
		if got {
			n++
		}
	}
	if n < 100 {
		t.Errorf("only %d pass-module directives", n)
	}
	for _, name := range []string{"proxy_no_such_directive", "proxy_temp_path", "proxy_cache_path", "fastcgi_index", ""} {
		if m, ok := moduleDirective(name); ok {
			t.Errorf("%q taken for a directive of the %s module", name, m)
		}
	}
	if m, ok := moduleDirective("proxy_read_timeout"); !ok || m != "proxy" {
		t.Errorf("proxy_read_timeout: %q, %v", m, ok)
	}
}

// A parse tree holds one Directive for every statement and one Arg for
// every word of a file: 40 MB of configuration make some 1.5 million of
// the one and 3 million of the other, all held until the model is built.
// A field added to either is paid for that many times over.
func TestParseTreeNodeSizes(t *testing.T) {
	// What few directives have (a Lua body, included files) is held
	// apart.
	if n := unsafe.Sizeof(Directive{}); n > 112 {
		t.Errorf("Directive takes %d bytes, want at most 112", n)
	}
	// An argument's file is its directive's (Directive.ArgPos).
	if n := unsafe.Sizeof(Arg{}); n > 32 {
		t.Errorf("Arg takes %d bytes, want at most 32", n)
	}
}
