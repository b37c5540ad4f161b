package nginx

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/proxylint/proxylint/bench/gen"
)

// The layout the parser records while it reads a file is the one the
// editor would read from the file again (buildSpans): the same
// directives, words, blocks, lines and Lua bodies, for every file of a
// generated tree, of the corpus and of the layouts below.
func TestParsedSpansAsRead(t *testing.T) {
	check := func(t *testing.T, path string, src []byte) {
		t.Helper()
		f, _, perr := parseFile(path, src, parentUnknown, 0, DefaultMaxDepth)
		want, err := buildSpans(path, src)
		if perr != nil {
			if f != nil && f.spans != nil {
				t.Errorf("%s: a layout kept for a file that does not parse (%v)", path, perr)
			}
			return
		}
		if err != nil {
			if f.spans != nil {
				t.Errorf("%s: a layout recorded where the editor finds none: %v", path, err)
			}
			return
		}
		if f.spans == nil {
			t.Errorf("%s: no layout recorded", path)
			return
		}
		if !reflect.DeepEqual(f.spans, want) {
			t.Errorf("%s: the layout recorded while parsing differs from the one read again", path)
		}
	}
	for i, src := range []string{
		"",
		"# only a comment\n",
		"http { server { listen 80; location / { proxy_pass http://a; } } }",
		"http {\r\n\tserver {\r\n\t\tlisten 80;\r\n\t}\r\n}\r\n",
		"location /é { return 200 \"→ ok\"; }\n",
		"content_by_lua_block { ngx.say(\"}\") }\nlocation / { access_by_lua_block { if x then return end } proxy_pass http://b; }\n",
		"map $a $b {\n default 1;\n 'x' 2;\n}\nif ($a) { return 403; }\n",
		"server {\n", // not closed: no layout
		"}\n",        // nothing open
	} {
		check(t, "case"+string(rune('a'+i))+".conf", []byte(src))
	}
	dir := t.TempDir()
	if _, err := (gen.NginxTree{Servers: 40}).Write(dir); err != nil {
		t.Fatal(err)
	}
	walk := func(root string) {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			check(t, p, src)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	walk(dir)
	if _, err := os.Stat(corpusDir); err == nil {
		walk(corpusDir)
	}
}

// The editor of a parsed file edits from the layout the parser recorded
// as the editor of its source alone does.
func TestFileEditorUsesTheParsedLayout(t *testing.T) {
	src := []byte("http {\n    server {\n        location / {\n            proxy_pass http://a;\n        }\n    }\n}\n")
	f, err := ParseFile("a.conf", src)
	if err != nil {
		t.Fatal(err)
	}
	if f.spans == nil {
		t.Fatal("no layout recorded")
	}
	parsed, read := f.Editor(), NewEditor("a.conf", src)
	for _, e := range []*Editor{parsed, read} {
		if _, err := e.spans(); err != nil {
			t.Fatal(err)
		}
	}
	if parsed.sp != f.spans {
		t.Error("the editor read the file again")
	}
	if !reflect.DeepEqual(parsed.sp, read.sp) || parsed.nl != read.nl || parsed.unit != read.unit {
		t.Error("the two editors see the file differently")
	}
}

// isASCII answers as a look at every byte does.
func TestIsASCIIAsByteScan(t *testing.T) {
	scan := func(b []byte) bool {
		for _, c := range b {
			if c >= 0x80 {
				return false
			}
		}
		return true
	}
	for n := range 20 {
		b := bytes.Repeat([]byte{'a'}, n)
		if !isASCII(b) {
			t.Fatalf("%q", b)
		}
		for i := range n {
			for _, c := range []byte{0x7f, 0x80, 0xff} {
				c2 := bytes.Clone(b)
				c2[i] = c
				if got, want := isASCII(c2), scan(c2); got != want {
					t.Fatalf("isASCII(%q) = %v, want %v", c2, got, want)
				}
			}
		}
	}
}
