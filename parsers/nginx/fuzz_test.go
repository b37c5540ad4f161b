package nginx

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds are inputs that exercise every corner of the reader.
var fuzzSeeds = []string{
	"",
	"events {}\nhttp {\n    server {\n        listen 80;\n        location / { proxy_pass http://b; }\n    }\n}\n",
	"user www-data;\nworker_processes auto;\nevents { worker_connections 768; }\nhttp { include mime.types; access_log off; }\n",
	"upstream b {\n    server 10.0.0.1:80 weight=5 max_fails=3;\n    keepalive 16;\n}\n",
	"map $http_upgrade $connection_upgrade {\n    default upgrade;\n    ''      close;\n}\n",
	"types {\n    text/html html htm;\n    image/svg+xml svg svgz;\n}\n",
	"geo $geo {\n    ranges;\n    default 0;\n    127.0.0.1-127.0.0.1 2;\n}\n",
	"charset_map koi8-r utf-8 {\n    80 E282AC;\n}\n",
	"\"events\" { worker_connections 1024; }\n'root' /x;\n",
	"add_header X \"a\\\"b\\'c\\\\d\\te\\rf\\ng\\x\";\n",
	"add_header X 'single \\' quoted' \"\" '';\n",
	"log_format main a\\ b;\nlocation /\\{\\;\\} { return 204; }\n",
	"set $a ${b}c;\nreturn 200 \"${x}\";\n",
	"if ($host = \"a\") { return 204; }\nif ($a ~ \"x\")y {}\n",
	"gzip_types text/plain # a comment\n    text/css;\n#end",
	"return 200 `hello;\n",
	"add_header X-A \"a\\\\\";\nadd_header X-B b;\n",
	"a \"b\"c;", "a;;", "{", "}", "a b }", "a \"b", "a b", "http {\n    server {}\n",
	"events {}\n}\nhttp { server { listen 80; } }\n",
	"server {\n    listen 80;\n    { return 204; }\n}\n",
	"location /x;\nlisten 80 { }\n",
	"types { a { } }", "map $a $b { a { } }",
	"init_by_lua_block {\n    local x = {}\n    local t = { #x }\n}\n",
	"init_by_lua_block {\n    print(\"{\", '}', \"\\\"{\")\n    -- }\n    --[[ } ]] --[==[ ]] } ]==]\n    s = [[ } ]] .. [=[ { ]=]\n}\n",
	"\"content_by_lua_block\" {\n    f({a=\"b\"})\n}\n",
	"set_by_lua_block $res { return #t }\n",
	"content_by_lua_block {\n    s = \"{\n    }\n",
	"content_by_lua_block { --[==[ x ]=] }",
	"content_by_lua_block;",
	"a \xff\xfe\x80 'é' \"ü\";\r\nb\r\n c;\r\n",
	"a\x00b;",
	"a " + strings.Repeat("x", 4095) + ";",
	"a " + strings.Repeat("x", 4095) + " ;",
	"a \"" + strings.Repeat("x", 4094) + "\" ;",
	"#" + strings.Repeat("x", 4096) + "\na;",
	"content_by_lua_block {\n    --[[" + strings.Repeat("x", 4000) + "]]\n}\n",
	strings.Repeat("a {\n", 600) + strings.Repeat("}\n", 600),
}

// FuzzParse checks the reader's invariants on any input: it never panics
// and always returns; an error points inside the input; and printing the
// tree and reading it back gives the same tree.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := ParseFile("fuzz.conf", src)
		lines := bytes.Split(src, []byte("\n"))
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			checkPos(t, lines, e.Pos.File, int(e.Pos.Line), int(e.Pos.Col), "error "+e.Msg)
			return
		}
		walkTree(file.Directives, func(d *Directive) {
			checkPos(t, lines, d.Pos.File, int(d.Pos.Line), int(d.Pos.Col), "directive "+d.Name)
			for i, a := range d.Args {
				p := d.ArgPos(i)
				checkPos(t, lines, p.File, int(p.Line), int(p.Col), "argument "+a.Value)
			}
		})
		for _, c := range file.Comments {
			checkPos(t, lines, c.Pos.File, int(c.Pos.Line), int(c.Pos.Col), "comment")
		}
		// Lua code is read through nginx's buffer, so how a long block
		// reads depends on where it starts: it may not survive moving.
		long := false
		walkTree(file.Directives, func(d *Directive) {
			long = long || d.Lua() != nil && len(*d.Lua()) >= maxToken/2-64 || len(d.Name) > maxToken-64
		})
		if long {
			return
		}
		printed := printTree(src, file.Directives)
		again, err := ParseFile("fuzz.conf", printed)
		if err != nil {
			t.Fatalf("the printed tree does not parse: %v\ninput:\n%q\nprinted:\n%q", err, src, printed)
		}
		if got, want := shape(again.Directives), shape(file.Directives); got != want {
			t.Fatalf("the printed tree reads differently\ninput:\n%q\nprinted:\n%q\nfirst:\n%s\nagain:\n%s", src, printed, want, got)
		}
	})
}

func walkTree(dirs []*Directive, fn func(*Directive)) {
	for _, d := range dirs {
		fn(d)
		walkTree(d.Block, fn)
	}
}

// checkPos requires a position inside the input (split into lines): a
// line from 1 to the number of lines + 1, a column from 1 to the length of
// that line + 1.
func checkPos(t *testing.T, lines [][]byte, file string, line, col int, what string) {
	t.Helper()
	if file != "fuzz.conf" || line < 1 || line > len(lines)+1 || col < 1 {
		t.Fatalf("%s at %s:%d:%d, outside the input (%d lines)", what, file, line, col, len(lines))
	}
	if line <= len(lines) && col > utf8.RuneCount(lines[line-1])+1 {
		t.Fatalf("%s at %d:%d, past the end of line %d (%d columns)", what, line, col, line, utf8.RuneCount(lines[line-1]))
	}
}

// shape renders a tree without positions: names, values, nesting, Lua.
func shape(dirs []*Directive) string {
	var b strings.Builder
	var walk func([]*Directive, string)
	walk = func(dirs []*Directive, indent string) {
		for _, d := range dirs {
			b.WriteString(indent + quoteValue(d.Name))
			for _, a := range d.Args {
				b.WriteString(" " + quoteValue(a.Value))
			}
			switch {
			case d.Lua() != nil:
				b.WriteString(" lua " + quoteValue(*d.Lua()) + "\n")
			case d.Block != nil:
				b.WriteString(" {\n")
				walk(d.Block, indent+"  ")
				b.WriteString(indent + "}\n")
			default:
				b.WriteString(";\n")
			}
		}
	}
	walk(dirs, "")
	return b.String()
}

// printTree writes a tree as configuration text that reads back as the
// same tree: each value as a bare word when that is safe, else in double
// quotes; Lua code as it was.
func printTree(src []byte, dirs []*Directive) []byte {
	var b bytes.Buffer
	var walk func([]*Directive, string)
	walk = func(dirs []*Directive, indent string) {
		for _, d := range dirs {
			b.WriteString(indent)
			b.WriteString(printWord(d.Name))
			for _, a := range d.Args {
				b.WriteByte(' ')
				b.WriteString(printArg(src, a))
			}
			switch {
			case d.Lua() != nil:
				// The last word must end right before "{", as it did:
				// a separator would count against the 4096 bytes.
				b.WriteString("{" + *d.Lua() + "}\n")
			case d.Block != nil:
				b.WriteString("{\n")
				walk(d.Block, indent+"  ")
				b.WriteString(indent + "}\n")
			default:
				b.WriteString(";\n")
			}
		}
	}
	walk(dirs, "")
	return b.Bytes()
}

// printArg prints an argument. A word near nginx's 4096-byte limit is
// printed as it was written: quoting it could push it over.
func printArg(src []byte, a Arg) string {
	if a.Len > maxToken-64 {
		return argRaw(src, a)
	}
	return printWord(a.Value)
}

func printWord(v string) string {
	if v != "" && strings.IndexFunc(v, func(r rune) bool { return !bareSafe(r) }) < 0 {
		return v
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

func bareSafe(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r >= utf8.RuneSelf:
		return true
	}
	return strings.ContainsRune("_./:=@,+*~^!%&|<>()[]?-", r)
}

func quoteValue(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
