package nginx

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/proxylint/proxylint/internal/nginxtest"
	"github.com/proxylint/proxylint/model"
)

// applyEdits makes non-overlapping edits of one file, insertions at one
// place in the order given.
func applyEdits(t testing.TB, src []byte, edits []model.Edit) []byte {
	t.Helper()
	sorted := append([]model.Edit{}, edits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	var out bytes.Buffer
	at := 0
	for _, e := range sorted {
		if e.Start < at || e.End < e.Start || e.End > len(src) {
			t.Fatalf("edit %+v overlaps another or lies outside the file", e)
		}
		out.Write(src[at:e.Start])
		out.WriteString(e.New)
		at = e.End
	}
	out.Write(src[at:])
	return out.Bytes()
}

// posOf is the position of the n-th (from 1) occurrence of needle in src.
func posOf(t testing.TB, path, src, needle string, n int) model.Pos {
	t.Helper()
	off := -1
	for i := 0; i < n; i++ {
		j := strings.Index(src[off+1:], needle)
		if j < 0 {
			t.Fatalf("%q occurs fewer than %d times", needle, n)
		}
		off += j + 1
	}
	start := strings.LastIndexByte(src[:off], '\n') + 1
	return model.Pos{File: path, Line: int32(strings.Count(src[:start], "\n") + 1), Col: int32(utf8.RuneCountInString(src[start:off]) + 1)}
}

// editCase is an edit of a configuration nginx accepts, and the exact
// text it must give, which nginx must accept too.
type editCase struct {
	name string
	src  string
	edit func(e *Editor, at func(needle string, n int) model.Pos) ([]model.Edit, error)
	want string
}

var (
	timeoutDirective = model.Directive{Name: "proxy_next_upstream_timeout", Args: []string{"10s"}}
	keepalive16      = model.Directive{Name: "keepalive", Args: []string{"16"}}
	upstreamBlock    = model.Directive{Name: "upstream", Args: []string{"backend_a"}, Block: []model.Directive{
		{Name: "server", Args: []string{"127.0.0.1:9"}}, keepalive16,
	}}
	timingFormat = model.Directive{Name: "log_format", Args: []string{"timing", `'$remote_addr "$request" '`, `'rt=$request_time'`}}
)

var editCases = []editCase{
	{
		name: "a directive renamed, its arguments and comment kept",
		src: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        location /a {
            grpc_pass grpc://127.0.0.1:9;
            proxy_read_timeout "300s"; # slow calls
        }
    }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Rename(at("proxy_read_timeout", 1), "grpc_read_timeout")
		},
		want: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        location /a {
            grpc_pass grpc://127.0.0.1:9;
            grpc_read_timeout "300s"; # slow calls
        }
    }
}
`,
	},
	{
		name: "after a directive on its own line",
		src: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        location /a {
            proxy_pass http://127.0.0.1:9;
            proxy_next_upstream_tries 2;
        }
    }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Insert(at("proxy_next_upstream_tries", 1), model.After, timeoutDirective)
		},
		want: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        location /a {
            proxy_pass http://127.0.0.1:9;
            proxy_next_upstream_tries 2;
            proxy_next_upstream_timeout 10s;
        }
    }
}
`,
	},
	{
		name: "after a directive in a one-line location",
		src: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        location /a { proxy_pass http://127.0.0.1:9; proxy_next_upstream_tries 2; }
        location /b { proxy_pass http://127.0.0.1:9; }
    }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Insert(at("proxy_next_upstream_tries", 1), model.After, timeoutDirective)
		},
		want: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        location /a { proxy_pass http://127.0.0.1:9; proxy_next_upstream_tries 2; proxy_next_upstream_timeout 10s; }
        location /b { proxy_pass http://127.0.0.1:9; }
    }
}
`,
	},
	{
		name: "at the end of a one-line upstream",
		src: `events {}
http {
    upstream api { server 127.0.0.1:9; server 127.0.0.2:9; }
    server { listen 127.0.0.1:8080; location / { proxy_pass http://api; } }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Insert(at("upstream", 1), model.AtEnd, keepalive16)
		},
		want: `events {}
http {
    upstream api { server 127.0.0.1:9; server 127.0.0.2:9; keepalive 16; }
    server { listen 127.0.0.1:8080; location / { proxy_pass http://api; } }
}
`,
	},
	{
		name: "after the last server of a one-line upstream",
		src: `events {}
http {
    upstream api { server 127.0.0.1:9; server 127.0.0.2:9; }
    server { listen 127.0.0.1:8080; location / { proxy_pass http://api; } }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			// The server's address names its directive.
			return e.Insert(at("127.0.0.2:9", 1), model.After, keepalive16)
		},
		want: `events {}
http {
    upstream api { server 127.0.0.1:9; server 127.0.0.2:9; keepalive 16; }
    server { listen 127.0.0.1:8080; location / { proxy_pass http://api; } }
}
`,
	},
	{
		name: "a block before the server of a file on one line",
		src:  `events {} http { server { listen 127.0.0.1:8080; location / { proxy_pass http://127.0.0.1:9; } } }`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Insert(at("server", 1), model.Before, upstreamBlock)
		},
		want: `events {} http { upstream backend_a { server 127.0.0.1:9; keepalive 16; } server { listen 127.0.0.1:8080; location / { proxy_pass http://127.0.0.1:9; } } }`,
	},
	{
		name: "after a directive of a file on one line",
		src:  `events {} http { server { listen 127.0.0.1:8080; location / { proxy_pass http://127.0.0.1:9; proxy_next_upstream_tries 2; } } }`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Insert(at("proxy_next_upstream_tries", 1), model.After, timeoutDirective)
		},
		want: `events {} http { server { listen 127.0.0.1:8080; location / { proxy_pass http://127.0.0.1:9; proxy_next_upstream_tries 2; proxy_next_upstream_timeout 10s; } } }`,
	},
	{
		name: "a block at the end of the top level of a file on one line without a line break",
		src:  `events {} http { server { listen 127.0.0.1:8080; } }`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Insert(model.TopLevel("nginx.conf"), model.AtEnd, model.Directive{Name: "worker_rlimit_nofile", Args: []string{"1024"}})
		},
		want: `events {} http { server { listen 127.0.0.1:8080; } } worker_rlimit_nofile 1024;`,
	},
	{
		name: "CRLF line endings",
		src:  "events {}\r\nhttp {\r\n  server {\r\n    listen 127.0.0.1:8080;\r\n    location / {\r\n      proxy_pass http://127.0.0.1:9;\r\n    }\r\n  }\r\n}\r\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Insert(at("server", 1), model.Before, upstreamBlock, model.Directive{})
		},
		want: "events {}\r\nhttp {\r\n  upstream backend_a {\r\n    server 127.0.0.1:9;\r\n    keepalive 16;\r\n  }\r\n\r\n  server {\r\n    listen 127.0.0.1:8080;\r\n    location / {\r\n      proxy_pass http://127.0.0.1:9;\r\n    }\r\n  }\r\n}\r\n",
	},
	{
		name: "tabs",
		src:  "events {}\nhttp {\n\tserver {\n\t\tlisten 127.0.0.1:8080;\n\t}\n}\n",
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Insert(at("http", 1), model.AtStart, upstreamBlock)
		},
		want: "events {}\nhttp {\n\tupstream backend_a {\n\t\tserver 127.0.0.1:9;\n\t\tkeepalive 16;\n\t}\n\tserver {\n\t\tlisten 127.0.0.1:8080;\n\t}\n}\n",
	},
	{
		name: "after a directive with a comment at the end of its line",
		src: `events {}
http {
  server {
    listen 127.0.0.1:8080; # local only
    location / {
      proxy_pass http://127.0.0.1:9; # the api { not a block }
    }
  }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Insert(at("proxy_pass", 1), model.After, model.Directive{Name: "proxy_http_version", Args: []string{"1.1"}}, model.Directive{Name: "proxy_set_header", Args: []string{"Connection", `""`}})
		},
		want: `events {}
http {
  server {
    listen 127.0.0.1:8080; # local only
    location / {
      proxy_pass http://127.0.0.1:9; # the api { not a block }
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`,
	},
	{
		name: "at the start of a block whose brace has a comment",
		src: `events {}
http {
    upstream api { # pooled
        server 127.0.0.1:9;
    }
    server { listen 127.0.0.1:8080; }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Insert(at("upstream", 1), model.AtStart, model.Directive{Name: "least_conn"})
		},
		want: `events {}
http {
    upstream api { # pooled
        least_conn;
        server 127.0.0.1:9;
    }
    server { listen 127.0.0.1:8080; }
}
`,
	},
	{
		name: "at the end of a block whose last line is a comment",
		src: `events {}
http {
    upstream api {
        server 127.0.0.1:9;
        # more servers later
    }
    server { listen 127.0.0.1:8080; }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Insert(at("upstream", 1), model.AtEnd, keepalive16, model.Directive{Name: "keepalive_timeout", Args: []string{"50s"}})
		},
		want: `events {}
http {
    upstream api {
        server 127.0.0.1:9;
        # more servers later
        keepalive 16;
        keepalive_timeout 50s;
    }
    server { listen 127.0.0.1:8080; }
}
`,
	},
	{
		name: "into an empty one-line block",
		src: `events {}
http {
    server { listen 127.0.0.1:8080; location /a {} }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Insert(at("location", 1), model.AtEnd, model.Directive{Name: "return", Args: []string{"204"}})
		},
		want: `events {}
http {
    server { listen 127.0.0.1:8080; location /a { return 204; } }
}
`,
	},
	{
		name: "a format before the server that uses it, two-space indentation",
		src: `events {}
http {
  access_log logs/access.log combined;
  server {
    listen 127.0.0.1:8080;
  }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			a, err := e.Insert(at("access_log", 1), model.Before, timingFormat)
			if err != nil {
				return nil, err
			}
			b, err := e.SetArg(at("access_log", 1), 1, "timing")
			return append(a, b...), err
		},
		want: `events {}
http {
  log_format timing '$remote_addr "$request" ' 'rt=$request_time';
  access_log logs/access.log timing;
  server {
    listen 127.0.0.1:8080;
  }
}
`,
	},
	{
		name: "a format name added after the path",
		src: `events {}
http {
    server { listen 127.0.0.1:8080; access_log "logs/a b.log"; }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.InsertArg(at("access_log", 1), 1, "combined")
		},
		want: `events {}
http {
    server { listen 127.0.0.1:8080; access_log "logs/a b.log" combined; }
}
`,
	},
	{
		name: "a quoted argument removed",
		src: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        location / {
            proxy_pass http://127.0.0.1:9;
            proxy_next_upstream error "timeout" 'non_idempotent';
        }
    }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.RemoveArg(at("proxy_next_upstream", 1), 2)
		},
		want: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        location / {
            proxy_pass http://127.0.0.1:9;
            proxy_next_upstream error "timeout";
        }
    }
}
`,
	},
	{
		name: "a quoted argument replaced",
		src: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        location / { proxy_pass "http://127.0.0.1:9/x"; proxy_http_version '1.0'; }
    }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			a, err := e.SetArg(at("proxy_pass", 1), 0, "http://backend_a/x")
			if err != nil {
				return nil, err
			}
			b, err := e.SetArg(at("proxy_http_version", 1), 0, "1.1")
			if err != nil {
				return nil, err
			}
			c, err := e.Insert(at("http", 1), model.AtStart, upstreamBlock)
			return append(append(a, b...), c...), err
		},
		want: `events {}
http {
    upstream backend_a {
        server 127.0.0.1:9;
        keepalive 16;
    }
    server {
        listen 127.0.0.1:8080;
        location / { proxy_pass http://backend_a/x; proxy_http_version 1.1; }
    }
}
`,
	},
	{
		name: "a directive removed with its line",
		src: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        proxy_ignore_client_abort on;
    }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Remove(at("proxy_ignore_client_abort", 1))
		},
		want: `events {}
http {
    server {
        listen 127.0.0.1:8080;
    }
}
`,
	},
	{
		name: "a directive removed from a one-line block",
		src: `events {}
http {
    server { listen 127.0.0.1:8080; proxy_ignore_client_abort on; location / { return 204; } }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Remove(at("proxy_ignore_client_abort", 1))
		},
		want: `events {}
http {
    server { listen 127.0.0.1:8080; location / { return 204; } }
}
`,
	},
	{
		name: "a block directive removed, its comment kept",
		src: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        location /old { return 410; } # gone
    }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Remove(at("location", 1))
		},
		want: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        # gone
    }
}
`,
	},
	{
		name: "nested blocks: at the end of an if inside a location",
		src: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        location / {
            if ($request_method = POST) {
                proxy_pass http://127.0.0.1:9;
            }
            proxy_pass http://127.0.0.1:10;
        }
    }
}
`,
		edit: func(e *Editor, at func(string, int) model.Pos) ([]model.Edit, error) {
			return e.Insert(at("if", 1), model.AtEnd, model.Directive{Name: "add_header", Args: []string{"X-Retried", "no"}})
		},
		want: `events {}
http {
    server {
        listen 127.0.0.1:8080;
        location / {
            if ($request_method = POST) {
                proxy_pass http://127.0.0.1:9;
                add_header X-Retried no;
            }
            proxy_pass http://127.0.0.1:10;
        }
    }
}
`,
	},
}

// TestEditorLayouts checks the exact text of each edit, that the result
// reads back with the edit where it was meant, and that nginx accepts it.
func TestEditorLayouts(t *testing.T) {
	for _, c := range editCases {
		t.Run(c.name, func(t *testing.T) {
			got := runEditCase(t, c)
			if got != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
			if _, err := ParseFile("nginx.conf", []byte(got)); err != nil {
				t.Fatalf("the result does not parse: %v\n%s", err, got)
			}
		})
	}
}

func runEditCase(t *testing.T, c editCase) string {
	t.Helper()
	if _, err := ParseFile("nginx.conf", []byte(c.src)); err != nil {
		t.Fatalf("the case does not parse: %v", err)
	}
	e := NewEditor("nginx.conf", []byte(c.src))
	edits, err := c.edit(e, func(needle string, n int) model.Pos { return posOf(t, "nginx.conf", c.src, needle, n) })
	if err != nil {
		t.Fatal(err)
	}
	return string(applyEdits(t, []byte(c.src), edits))
}

// TestEditorLayoutsNginxAccepts: nginx -t accepts every case before and
// after its edit.
func TestEditorLayoutsNginxAccepts(t *testing.T) {
	nginxtest.Require(t)
	for _, c := range editCases {
		t.Run(c.name, func(t *testing.T) {
			for _, conf := range []string{c.src, c.want} {
				conf = strings.ReplaceAll(conf, "logs/", t.TempDir()+"/")
				if res := nginxtest.Check(t, conf); !res.OK {
					t.Fatalf("nginx -t refuses\n%s\n%s", conf, res.Stderr)
				}
			}
		})
	}
}

// TestEditorRefuses: edits that cannot be made are errors, not damage.
func TestEditorRefuses(t *testing.T) {
	src := "http { server { content_by_lua_block { ngx.say(1) } listen 80; } }\n"
	e := NewEditor("a.conf", []byte(src))
	at := func(needle string) model.Pos { return posOf(t, "a.conf", src, needle, 1) }
	for name, f := range map[string]func() ([]model.Edit, error){
		"not a directive":      func() ([]model.Edit, error) { return e.Remove(at("isten")) },
		"other file":           func() ([]model.Edit, error) { return e.Remove(model.Pos{File: "b.conf", Line: 1, Col: 1}) },
		"into a simple one":    func() ([]model.Edit, error) { return e.Insert(at("listen"), model.AtEnd, keepalive16) },
		"into Lua":             func() ([]model.Edit, error) { return e.Insert(at("content_by_lua_block"), model.AtEnd, keepalive16) },
		"argument of nothing":  func() ([]model.Edit, error) { return e.SetArg(at("listen"), 3, "x") },
		"two words":            func() ([]model.Edit, error) { return e.SetArg(at("listen"), 0, "a b") },
		"no argument left":     func() ([]model.Edit, error) { return e.RemoveArg(at("server"), 0) },
		"renamed to two words": func() ([]model.Edit, error) { return e.Rename(at("listen"), "listen 81") },
		"renamed to nothing":   func() ([]model.Edit, error) { return e.Rename(at("listen"), "") },
		"a word with a break": func() ([]model.Edit, error) {
			return e.Insert(at("listen"), model.After, model.Directive{Name: "a\nb"})
		},
	} {
		if edits, err := f(); err == nil {
			t.Errorf("%s: made %+v", name, edits)
		}
	}
	bad := NewEditor("b.conf", []byte("http {"))
	if _, err := bad.Insert(model.TopLevel("b.conf"), model.AtEnd, keepalive16); err == nil {
		t.Error("edited a file that does not parse")
	}
}

// TestEditorReads: the editor answers what a fix asks of the syntax.
func TestEditorReads(t *testing.T) {
	src := "http {\n    upstream api { server 127.0.0.1:9 weight=2; }\n    server {\n        location / { proxy_set_header Host \"a b\"; proxy_pass http://api; }\n    }\n}\n"
	e := NewEditor("a.conf", []byte(src))
	at := func(needle string) model.Pos { return posOf(t, "a.conf", src, needle, 1) }
	st, ok := e.Stmt(at("127.0.0.1:9"))
	if !ok || st.Name != "server" || strings.Join(st.Args, ",") != "127.0.0.1:9,weight=2" || st.Pos != at("server") {
		t.Fatalf("server: %+v %v", st, ok)
	}
	p, ok := e.Parent(at("proxy_pass"))
	if !ok || p.Name != "location" || !p.Block || p.Args[0] != "/" {
		t.Fatalf("parent: %+v %v", p, ok)
	}
	if _, ok := e.Parent(at("http")); ok {
		t.Fatal("http has a parent")
	}
	kids, err := e.Children(at("location"))
	if err != nil || len(kids) != 2 || kids[0].Args[1] != "a b" || kids[0].Raw[1] != `"a b"` {
		t.Fatalf("children: %+v %v", kids, err)
	}
	top, err := e.Children(model.TopLevel("a.conf"))
	if err != nil || len(top) != 1 || top[0].Name != "http" {
		t.Fatalf("top level: %+v %v", top, err)
	}
}

// TestEditorFindsAcrossTheFile: Find lists a directive at any depth in
// the order written, and UsesVariable finds $name and ${name} but not a
// variable whose name only starts with it, nor one in a Lua block's code.
func TestEditorFindsAcrossTheFile(t *testing.T) {
	src := "proxy_set_header A $proxy_hostname;\nhttp {\n    proxy_set_header B b;\n    server { location / { proxy_set_header C \"${x}y\"; } }\n}\n"
	e := NewEditor("a.conf", []byte(src))
	ds, err := e.Find("proxy_set_header")
	if err != nil || len(ds) != 3 {
		t.Fatalf("find: %+v %v", ds, err)
	}
	for i, want := range []string{"A", "B", "C"} {
		if ds[i].Args[0] != want || ds[i].Pos != posOf(t, "a.conf", src, "proxy_set_header "+want, 1) {
			t.Errorf("find %d: %+v, want proxy_set_header %s at its name", i, ds[i], want)
		}
	}
	for name, want := range map[string]bool{"proxy_host": false, "proxy_hostname": true, "x": true, "y": false} {
		if got, err := e.UsesVariable(name); err != nil || got != want {
			t.Errorf("UsesVariable(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	lua := NewEditor("b.conf", []byte("content_by_lua_block { ngx.say(ngx.var.proxy_host, \"$proxy_host\") }\n"))
	if got, err := lua.UsesVariable("proxy_host"); err != nil || got {
		t.Errorf("a Lua block's code uses $proxy_host: %v %v", got, err)
	}
}

// TestEditorIndentUnit: the unit is the step a nested directive is
// indented by.
func TestEditorIndentUnit(t *testing.T) {
	for src, want := range map[string]string{
		"http {\n  server {\n    listen 80;\n  }\n}\n":        "  ",
		"http {\n\tserver {\n\t\tlisten 80;\n\t}\n}\n":        "\t",
		"http { server { listen 80; } }":                      "    ",
		"http {\n   server {\n      listen 80;\n   }\n}\n":    "   ",
		"# a\n\tlisten 80;\n":                                 "\t",
		"http {\n        server {\n            a;\n }\n}\n":   "        ",
		"http {\n    a;\n    b;\n    c {\n      d;\n    }\n}": "    ",
	} {
		e := NewEditor("a.conf", []byte(src))
		if _, err := e.spans(); err != nil {
			t.Fatal(err)
		}
		if e.unit != want {
			t.Errorf("%q: unit %q, want %q", src, e.unit, want)
		}
	}
}

// TestEditorCorpusReadsBack builds the spans of every corpus nginx file
// and checks them against the parse tree: each directive's span starts at
// its name and ends at its ";" or "}".
func TestEditorCorpusReadsBack(t *testing.T) {
	dir := requireCorpus(t)
	var files []string
	for _, sub := range []string{"nginx", "parser-edge-cases"} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ParseFile(path, src)
		if err != nil {
			continue
		}
		s, err := buildSpans(path, src)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		model := &model.File{Path: path, Source: src}
		var check func(ds []*Directive)
		check = func(ds []*Directive) {
			for _, d := range ds {
				i, ok := s.at(d.Pos)
				if !ok {
					t.Errorf("%s: no span for %s at %s", path, d.Name, d.Pos)
					continue
				}
				sd := s.dirs[i]
				if end := model.Offset(d.End()); int(sd.end) != end+1 {
					t.Errorf("%s: %s at %s ends at %d, the tree says %d", path, d.Name, d.Pos, sd.end, end+1)
				}
				for j, a := range d.Args {
					w := s.wordsOf(i)[j+1]
					if s.value(w) != a.Value || int(w.end-w.start) != int(a.Len) {
						t.Errorf("%s: %s argument %d: %q, the tree has %q", path, d.Name, j, s.value(w), a.Value)
					}
				}
				check(d.Block)
			}
		}
		check(f.Directives)
	}
}

// TestSpansOffsetIsFileOffset: the spans place every position where
// model.File.Offset does, in ASCII files and others, inside and outside
// the lines.
func TestSpansOffsetIsFileOffset(t *testing.T) {
	for _, src := range []string{"a;", "ab;\ncd;\n", "é ü;\n\nx { y; }\n", "a b; # no newline at the end", "\n\n\na;", "a\r\n  b;\r\n"} {
		s, err := buildSpans("a.conf", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		f := &model.File{Path: "a.conf", Source: []byte(src)}
		for line := 0; line <= 6; line++ {
			for col := 0; col <= 12; col++ {
				p := model.Pos{File: "a.conf", Line: int32(line), Col: int32(col)}
				want := f.Offset(p)
				if got := s.offset(p); got != want {
					t.Errorf("%q at %d:%d: spans %d, File.Offset %d", src, line, col, got, want)
				}
				if want >= 0 && want < len(src) {
					if back := s.pos("a.conf", want); back != p {
						t.Errorf("%q: offset %d is at %s, not %s", src, want, back, p)
					}
				}
			}
		}
	}
}
