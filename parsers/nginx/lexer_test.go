package nginx

import (
	"reflect"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
)

func TestLexWordsAndPositions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"simple", "listen 80;\n", []string{`; 1:1:"listen" 1:8:"80"`}},
		{"block and end", "http {\n}\n", []string{`{ 1:1:"http"`, `}`}},
		{"spaces, tabs and CR", " \t listen\t\r 80 ;", []string{`; 1:4:"listen" 1:13:"80"`}},
		{"tab counts as one column", "\tlisten\t80;", []string{`; 1:2:"listen" 1:9:"80"`}},
		{"columns count code points", "add_header X-É \"é\" ü;", []string{`; 1:1:"add_header" 1:12:"X-É" 1:16:"é" 1:20:"ü"`}},
		{"invalid UTF-8 counts one column a byte", "a \xff\xfe b;", []string{`; 1:1:"a" 1:3:"\xff\xfe" 1:6:"b"`}},
		{"lines", "a 1;\nb\n  2;\r\nc 3;", []string{`; 1:1:"a" 1:3:"1"`, `; 2:1:"b" 3:3:"2"`, `; 4:1:"c" 4:3:"3"`}},
		{"quoted name", `"events" {`, []string{`{ 1:1:"events"`}},
		{"single-quoted name", `'root' /x;`, []string{`; 1:1:"root" 1:8:"/x"`}},
		{"quoted word starts at its quote", `a "b c" 'd';`, []string{`; 1:1:"a" 1:3:"b c" 1:9:"d"`}},
		{"empty quoted words", `a "" '';`, []string{`; 1:1:"a" 1:3:"" 1:6:""`}},
		{"quoted word over lines", "a \"b\nc\" d;", []string{`; 1:1:"a" 1:3:"b\nc" 2:4:"d"`}},
		{"quote inside a word is ordinary", `a b"c'd;`, []string{`; 1:1:"a" 1:3:"b\"c'd"`}},
		{"quoted then block", `location "/a"{`, []string{`{ 1:1:"location" 1:10:"/a"`}},
		{"quoted then semicolon", `a "b";`, []string{`; 1:1:"a" 1:3:"b"`}},
		{"paren after a quoted word starts a word", `if ($a = "b") {`, []string{`{ 1:1:"if" 1:4:"($a" 1:8:"=" 1:10:"b" 1:13:")"`}},
		{"paren glued after quote", `if ($a = "b")x {`, []string{`{ 1:1:"if" 1:4:"($a" 1:8:"=" 1:10:"b" 1:13:")x"`}},
		{"variable braces", `set $a ${b}c;`, []string{`; 1:1:"set" 1:5:"$a" 1:8:"${b}c"`}},
		{"variable brace in quotes", `return 200 "${b}";`, []string{`; 1:1:"return" 1:8:"200" 1:12:"${b}"`}},
		{"dollar then brace in a word", `a b${c;`, []string{`; 1:1:"a" 1:3:"b${c"`}},
		{"brace after a variable name ends the word", `a $b{`, []string{`{ 1:1:"a" 1:3:"$b"`}},
		{"escaped dollar does not start a variable", `a \${`, []string{`{ 1:1:"a" 1:3:"\\$"`}},
		{"braces and hash inside words", `a b}c#d;`, []string{`; 1:1:"a" 1:3:"b}c#d"`}},
		{"escaped separators", `location /\{\;\}\ #\ a {`, []string{`{ 1:1:"location" 1:10:"/\\{\\;\\}\\ #\\ a"`}},
		{"escaped quote starts a word", `a \"b;`, []string{`; 1:1:"a" 1:3:"\"b"`}},
		{"backslash escapes a newline", "a b\\\nc;", []string{`; 1:1:"a" 1:3:"b\\\nc"`}},
		{"comment between words", "a b # c d;\n e;", []string{`; 1:1:"a" 1:3:"b" 2:2:"e"`}},
		{"comment right after a semicolon", "a;#b\nc;", []string{`; 1:1:"a"`, `; 2:1:"c"`}},
		{"comment right after a quote", "a \"b\"#c\n;", nil},
		{"semicolon right after a quote", "a 'b';c;", []string{`; 1:1:"a" 1:3:"b"`, `; 1:7:"c"`}},
		{"no final newline", "a", nil},
		{"empty", "", []string{}},
		{"only comments", "# a\n# b", []string{}},
	}
	for _, tt := range tests {
		got, _, err := lexAll(tt.src)
		if tt.want == nil {
			if err == nil {
				t.Errorf("%s: %q lexed as %q, want an error", tt.name, tt.src, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %q: %v", tt.name, tt.src, err)
			continue
		}
		if len(got) == 0 && len(tt.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q\n got %q\nwant %q", tt.name, tt.src, got, tt.want)
		}
	}
}

// TestUnescape checks that values are unescaped exactly as nginx does:
// \" \' \\ lose the backslash, \t \r \n become control characters, and
// every other backslash stays, quoted or not.
func TestUnescape(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, raw, want string }{
		{`a\"b`, `a\"b`, `a"b`},
		{`"a\"b"`, `"a\"b"`, `a"b`},
		{`'a\'b'`, `'a\'b'`, `a'b`},
		{`"a\'b"`, `"a\'b"`, `a'b`},
		{`'a\"b'`, `'a\"b'`, `a"b`},
		{`"a\\"`, `"a\\"`, `a\`},
		{`a\\b`, `a\\b`, `a\b`},
		{`"\t\r\n"`, `"\t\r\n"`, "\t\r\n"},
		{`a\tb`, `a\tb`, "a\tb"},
		{`"\x\$\{\;\ \0\u00e9"`, `"\x\$\{\;\ \0\u00e9"`, `\x\$\{\;\ \0\u00e9`},
		{`a\ b`, `a\ b`, `a\ b`},
		{`"\\\""`, `"\\\""`, `\"`},
		{`"\\t"`, `"\\t"`, `\t`},
		{"'\\\nx'", "'\\\nx'", "\\\nx"},
	}
	for _, tt := range tests {
		text := []byte("a " + tt.src + ";")
		f, err := parseString(string(text))
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		arg := f.Directives[0].Args[0]
		if raw := argRaw(text, arg); arg.Value != tt.want || raw != tt.raw {
			t.Errorf("%s: value %q raw %q, want value %q raw %q", tt.src, arg.Value, raw, tt.want, tt.raw)
		}
		wantQuote := byte(0)
		if tt.src[0] == '"' || tt.src[0] == '\'' {
			wantQuote = tt.src[0]
		}
		if q := argQuote(text, arg); q != wantQuote {
			t.Errorf("%s: quote %q, want %q", tt.src, q, wantQuote)
		}
	}
}

func TestComments(t *testing.T) {
	t.Parallel()
	src := "# first\nhttp { # after brace\r\n\tlisten 80; #glued\n  gzip_types a # between\n b;\n}\n#" + "é" + " last"
	f, err := parseString(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []model.Comment{
		{Pos: model.Pos{File: "test.conf", Line: 1, Col: 1}, Text: " first"},
		{Pos: model.Pos{File: "test.conf", Line: 2, Col: 8}, Text: " after brace"},
		{Pos: model.Pos{File: "test.conf", Line: 3, Col: 13}, Text: "glued"},
		{Pos: model.Pos{File: "test.conf", Line: 4, Col: 16}, Text: " between"},
		{Pos: model.Pos{File: "test.conf", Line: 7, Col: 1}, Text: "é last"},
	}
	if !reflect.DeepEqual(f.Comments, want) {
		t.Errorf("comments\n got %+v\nwant %+v", f.Comments, want)
	}
	gz := f.Directives[0].Block[1]
	if got := strings.Join(gz.ArgValues(), ","); got != "a,b" {
		t.Errorf("gzip_types args %q, want a,b", got)
	}
}

func TestLexErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, want string
	}{
		{"glued quoted word", `a "b"c;`, `1:6 unexpected "c" after a quoted string`},
		{"glued quoted words", `a "b""c";`, `1:6 unexpected "\"" after a quoted string`},
		{"control character after a quote", "a \"b\"\x01;", `1:6 unexpected "\\x01" after a quoted string`},
		{"double semicolon", "a;;", `1:3 unexpected ";"`},
		{"leading semicolon", "\n  ;", `2:3 unexpected ";"`},
		{"stray open brace", "{", `1:1 unexpected "{"`},
		{"close brace after words", "a b }", `1:5 unexpected "}": the directive "a" is not terminated by ";"`},
		{"end of file in a directive", "a b", `1:4 unexpected end of file, expecting ";" or "}"`},
		{"end of file after a newline", "a b\n", `2:1 unexpected end of file, expecting ";" or "}"`},
		{"unclosed double quote", "a \"b;\n", `2:1 unexpected end of file, expecting ";" or "}": the quoted string opened at test.conf:1:3 is not closed`},
		{"unclosed single quote", "é 'b", `1:5 unexpected end of file, expecting ";" or "}": the quoted string opened at test.conf:1:3 is not closed`},
		{"trailing backslash", "a b\\", `1:5 unexpected end of file`},
		{"NUL byte", "a\x00b;", `1:2 NUL byte in the configuration: the file is binary or damaged`},
		{"NUL byte in a comment", "a;\n# \x00", `2:3 NUL byte`},
		{"NUL byte in quotes", "a '\x00';", `1:4 NUL byte`},
		{"too long word", "a " + strings.Repeat("x", 4096) + ";", `1:3 too long parameter "xxxxxxxxxx"...: nginx reads at most 4096 bytes of a parameter`},
		{"too long quoted word", "a\n\"" + strings.Repeat("x", 5000), `2:1 too long parameter, probably missing the closing " quote`},
		{"too long comment", "#" + strings.Repeat("x", 4096), `1:1 too long comment`},
	}
	for _, tt := range tests {
		_, _, err := lexAll(tt.src)
		if err == nil {
			t.Errorf("%s: %q: no error, want %s", tt.name, tt.src, tt.want)
			continue
		}
		got := posString(err.Pos) + " " + err.Msg
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: %q\n got %s\nwant %s", tt.name, tt.src, got, tt.want)
		}
		if err.Pos.File != "test.conf" {
			t.Errorf("%s: error without its file: %+v", tt.name, err.Pos)
		}
		if !strings.HasPrefix(err.Error(), "test.conf:"+posString(err.Pos)+": ") {
			t.Errorf("%s: Error() = %q does not start with file:line:col", tt.name, err.Error())
		}
	}
}

// TestPositionsInAnyOrder checks the position cache: converting offsets out
// of order gives the same positions as converting them in order.
func TestPositionsInAnyOrder(t *testing.T) {
	t.Parallel()
	src := "aé\tb\n\nxy\r\nzzz é\n"
	lx := newLexer("f", []byte(src))
	want := make([]model.Pos, len(src)+1)
	for off := range want {
		want[off] = newLexer("f", []byte(src)).pos(off)
	}
	for _, order := range [][]int{{0, 3, 2, 9, 1, 18, 5, 4, 6, 7}, {18, 17, 16, 0}, {5, 5, 4, 6, 6}} {
		for _, off := range order {
			if got := lx.pos(off); got != want[off] {
				t.Errorf("pos(%d) = %v, want %v", off, got, want[off])
			}
		}
	}
	checks := map[int]string{0: "1:1", 1: "1:2", 3: "1:3", 4: "1:4", 5: "1:5", 6: "2:1", 7: "3:1", 9: "3:3", 10: "3:4", 11: "4:1", 15: "4:5", 17: "4:6", 18: "5:1"}
	for off, w := range checks {
		if got := posString(want[off]); got != w {
			t.Errorf("offset %d at %s, want %s", off, got, w)
		}
	}
}
