package nginx

import (
	"strings"
	"testing"
)

func TestParseTree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, want string
	}{
		{
			"nesting, positions and values",
			"http {\n\tserver {\n\t\tlisten 80;\n\t\tlocation = '/a b' { return 200 \"x\\ty\"; }\n\t}\n\tinclude a.conf;\n}\n",
			`1:1 "http" {
  2:2 "server" {
    3:3 "listen" "80";
    4:3 "location" "=" "/a b" {
      4:23 "return" "200" "x\ty";
    }
  }
  6:2 "include" "a.conf";
}
`,
		},
		{
			"empty blocks",
			"events {}\nhttp { }",
			`1:1 "events" {
}
2:1 "http" {
}
`,
		},
		{
			"quoted directive names",
			"\"events\" {}\n'worker_processes' 1;",
			`1:1 "events" {
}
2:1 "worker_processes" "1";
`,
		},
		{
			"lua blocks",
			"init_by_lua_block {\n  local t = { #x } -- }\n  s = \"}\" .. '{' .. [==[ } ]==]\n}\nset_by_lua_block $res { return #t }\n\"content_by_lua_block\"{ f({a=\"b\"}) }\nhttp {}\n",
			`1:1 "init_by_lua_block" lua "\n  local t = { #x } -- }\n  s = \"}\" .. '{' .. [==[ } ]==]\n"
5:1 "set_by_lua_block" "$res" lua " return #t "
6:1 "content_by_lua_block" lua " f({a=\"b\"}) "
7:1 "http" {
}
`,
		},
		{
			"handler blocks hold values",
			"http { types { text/html html htm; } map $a $b { default 0; ~^x 1; } }",
			`1:1 "http" {
  1:8 "types" {
    1:16 "text/html" "html" "htm";
  }
  1:38 "map" "$a" "$b" {
    1:50 "default" "0";
    1:61 "~^x" "1";
  }
}
`,
		},
		{
			"upstream server is a simple directive, http server a block",
			"http { upstream u { server a:1 weight=2; } server { listen 1; } }",
			`1:1 "http" {
  1:8 "upstream" "u" {
    1:21 "server" "a:1" "weight=2";
  }
  1:44 "server" {
    1:53 "listen" "1";
  }
}
`,
		},
		{
			"unknown directives may take blocks or not",
			"match ok { status 200; body ~ \"x\"; }\nbrotli_static on;\n",
			`1:1 "match" "ok" {
  1:12 "status" "200";
  1:24 "body" "~" "x";
}
2:1 "brotli_static" "on";
`,
		},
	}
	for _, tt := range tests {
		f, err := parseString(tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := dumpTree(f.Directives); got != tt.want {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}

func TestParseBlockPositions(t *testing.T) {
	t.Parallel()
	f, err := parseString("http {\n  listen 80 ;\n}\ncontent_by_lua_block {\n x }")
	if err != nil {
		t.Fatal(err)
	}
	http, listen, lua := f.Directives[0], f.Directives[0].Block[0], f.Directives[1]
	for _, c := range []struct{ what, got, want string }{
		{"http {", posString(http.BlockPos()), "1:6"},
		{"http }", posString(http.End()), "3:1"},
		{"listen ;", posString(listen.End()), "2:13"},
		{"lua {", posString(lua.BlockPos()), "4:22"},
		{"lua body", posString(lua.LuaPos()), "4:23"},
		{"lua }", posString(lua.End()), "5:4"},
	} {
		if c.got != c.want {
			t.Errorf("%s at %s, want %s", c.what, c.got, c.want)
		}
	}
	if !http.IsBlock() || listen.IsBlock() || !lua.IsBlock() {
		t.Errorf("IsBlock: http %v listen %v lua %v", http.IsBlock(), listen.IsBlock(), lua.IsBlock())
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, src, want string }{
		{"stray close brace at the top", "events {}\n}\nhttp {}", `2:1 unexpected "}": no block is open here`},
		{"stray open brace in a block", "http {\n  { return 204; }\n}", `2:3 unexpected "{"`},
		{"unclosed block", "http {\n  server {\n", `3:1 unexpected end of file, expecting "}" to close "server" opened at line 2`},
		{"location without a block", "http { server { location /x; } }", `1:28 directive "location" has no opening "{"`},
		{"listen with a block", "http { server {\n listen 80\n { } } }", `3:2 directive "listen" (line 2) is not terminated by ";"`},
		{"events without a block", "events;", `1:7 directive "events" has no opening "{"`},
		{"types refuses blocks", "http { types { a { } } }", `1:18 unexpected "{": "types" blocks hold values, not blocks`},
		{"map refuses blocks", "http { map $a $b { a { } } }", `1:22 unexpected "{": "map" blocks hold values`},
		{"geo refuses blocks", "http { geo $a { a { } } }", `1:19 unexpected "{": "geo" blocks hold values`},
		{"split_clients refuses blocks", "http { split_clients $a $b { a { } } }", `1:32 unexpected "{"`},
		{"charset_map refuses blocks", "http { charset_map a b { a { } } }", `1:28 unexpected "{"`},
		{"lua block without its brace", "content_by_lua_block;", `1:21 directive "content_by_lua_block" has no opening "{"`},
		{"unclosed lua block", "content_by_lua_block {\n  if x then {\n", `2:13 unexpected end of file: the Lua code block opened at line 1 is not closed by "}" (the last "{" read in it is here)`},
		{"unclosed lua block, no inner brace", "content_by_lua_block { x", `1:22 unexpected end of file: the Lua code block opened here is not closed by "}"`},
		{"unclosed long string", "content_by_lua_block {\n  s = [==[ x ]=] }", `2:7 the Lua code block has no closing long bracket "]==]" for the one opened here`},
		{"NUL byte in a lua block", "content_by_lua_block { \x00 }", `1:24 NUL byte`},
		{"error after a lua block", "content_by_lua_block { }\n}", `2:1 unexpected "}": no block is open here`},
	}
	for _, tt := range tests {
		_, err := parseString(tt.src)
		if err == nil {
			t.Errorf("%s: no error, want %s", tt.name, tt.want)
			continue
		}
		if got := posString(err.Pos) + " " + err.Msg; !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestParseFileKeepsPartialTree checks that a syntax error leaves the tree
// read so far, with its comments.
func TestParseFileKeepsPartialTree(t *testing.T) {
	t.Parallel()
	f, err := ParseFile("x.conf", []byte("# c\nhttp { listen 1; }\n}\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "x.conf:3:1: unexpected \"}\"") {
		t.Fatalf("error %v, want x.conf:3:1: unexpected \"}\"", err)
	}
	if f == nil || len(f.Directives) != 1 || len(f.Comments) != 1 || f.Path != "x.conf" {
		t.Fatalf("partial file %+v", f)
	}
	if _, err := ParseFile("x.conf", []byte("http {}")); err != nil {
		t.Fatalf("valid input: %v", err)
	}
}

func TestDepthLimit(t *testing.T) {
	t.Parallel()
	deep := func(n int) string {
		return strings.Repeat("a {\n", n) + strings.Repeat("}\n", n)
	}
	if _, err := parseString(deep(DefaultMaxDepth)); err != nil {
		t.Fatalf("%d levels: %v", DefaultMaxDepth, err)
	}
	_, err := parseString(deep(DefaultMaxDepth + 1))
	if err == nil {
		t.Fatalf("%d levels accepted", DefaultMaxDepth+1)
	}
	want := "test.conf:513:1: blocks and includes nested deeper than 512 levels"
	if err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	// Lua blocks are not nested blocks of the configuration.
	if _, err := parseString(deep(DefaultMaxDepth-1) + "content_by_lua_block { {{{{ }}}} }"); err != nil {
		t.Fatalf("lua block at the limit: %v", err)
	}
}
