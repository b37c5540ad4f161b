package nginx

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// bigConfig returns a valid configuration of at least size bytes: an http
// block with as many server blocks as it takes.
func bigConfig(size int) []byte {
	var b bytes.Buffer
	b.WriteString("events {}\nhttp {\n    upstream backend {\n        server 127.0.0.1:8080 max_fails=3;\n        keepalive 16;\n    }\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `    server {
        listen 127.0.0.1:%d;
        server_name site%d.example.com "*.site%d.example.com";
        access_log off;
        location / {
            proxy_pass http://backend;
            proxy_set_header Host $host;
            proxy_read_timeout 30s;
        }
        location ~* \.(css|js)$ { expires 7d; add_header Cache-Control "public, max-age=604800"; }
        # server %d
    }
`, 10000+i%50000, i, i, i)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// TestBrokenInput feeds the loader damaged and hostile files end to end.
// Each must end quickly in a fatal error that names the file, line and
// column (exactly, where the position is deterministic), never in a panic,
// a hang or success.
func TestBrokenInput(t *testing.T) {
	t.Parallel()
	random := make([]byte, 64<<10)
	rand.New(rand.NewSource(1)).Read(random)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte("events {}\nhttp { server { listen 80; } }\n"))
	_ = zw.Close()
	elf, elfErr := os.ReadFile("/bin/true")
	big := bigConfig(8 << 20)

	tests := []struct {
		name  string
		files map[string][]byte
		// want is "file:line:col message-prefix", or "" when any
		// positioned fatal error will do.
		want string
	}{
		{"unclosed blocks", map[string][]byte{"nginx.conf": []byte("events {}\nhttp {\n  server {\n    listen 80;\n  }\n")},
			`nginx.conf:6:1: unexpected end of file, expecting "}" to close "http" opened at line 2`},
		{"extra closing brace", map[string][]byte{"nginx.conf": []byte("events {}\nhttp {}\n}\nhttp {}\n")},
			`nginx.conf:3:1: unexpected "}": no block is open here`},
		{"stray closing brace in a block", map[string][]byte{"nginx.conf": []byte("events {}\nhttp {\n  } }\n")},
			`nginx.conf:3:5: unexpected "}": no block is open here`},
		{"stray opening brace", map[string][]byte{"nginx.conf": []byte("events {}\nhttp {\n  server { { listen 80; } }\n}\n")},
			`nginx.conf:3:12: unexpected "{"`},
		{"unterminated double quote", map[string][]byte{"nginx.conf": []byte("events {}\nhttp { add_header X \"abc; }\n")},
			`nginx.conf:3:1: unexpected end of file, expecting ";" or "}": the quoted string opened at ` + "%DIR%" + `/nginx.conf:2:21 is not closed`},
		{"unterminated single quote", map[string][]byte{"nginx.conf": []byte("events {}\nhttp { add_header X 'abc; }")},
			`nginx.conf:2:28: unexpected end of file, expecting ";" or "}": the quoted string opened at`},
		{"unterminated Lua block", map[string][]byte{"nginx.conf": []byte("http {\n  init_by_lua_block {\n    local t = {\n")},
			`nginx.conf:3:15: unexpected end of file: the Lua code block opened at line 2 is not closed by "}"`},
		{"NUL byte", map[string][]byte{"nginx.conf": []byte("events {}\nhttp {\x00}\n")},
			`nginx.conf:2:7: NUL byte in the configuration: the file is binary or damaged`},
		{"UTF-16 text", map[string][]byte{"nginx.conf": []byte("\xff\xfeh\x00t\x00t\x00p\x00")},
			`nginx.conf:1:4: NUL byte`},
		{"gzip file", map[string][]byte{"nginx.conf": gz.Bytes()},
			`nginx.conf:1:4: NUL byte`},
		{"random bytes", map[string][]byte{"nginx.conf": random}, ""},
		{"20000-deep nesting", map[string][]byte{"nginx.conf": []byte(strings.Repeat("a {\n", 20000) + strings.Repeat("}\n", 20000))},
			`nginx.conf:513:1: blocks and includes nested deeper than 512 levels`},
		{"20000-deep nesting on one line", map[string][]byte{"nginx.conf": []byte(strings.Repeat("a{", 20000) + strings.Repeat("}", 20000))},
			`nginx.conf:1:1025: blocks and includes nested deeper than 512 levels`},
		{"20000 unclosed blocks", map[string][]byte{"nginx.conf": []byte(strings.Repeat("a {\n", 20000))},
			`nginx.conf:513:1: blocks and includes nested deeper than 512 levels`},
		{"include cycle", map[string][]byte{
			"nginx.conf": []byte("events {}\nhttp { include a.conf; }\n"),
			"a.conf":     []byte("include b.conf;\n"),
			"b.conf":     []byte("# back\ninclude a.conf;\n"),
		}, `b.conf:2:9: include cycle: a.conf -> b.conf -> a.conf`},
		{"missing include", map[string][]byte{"nginx.conf": []byte("events {}\nhttp {\n    include conf.d/site.conf;\n}\n")},
			`nginx.conf:3:13: include "conf.d/site.conf": ` + "%DIR%" + `/conf.d/site.conf does not exist`},
		{"error at the end of 8 MB", map[string][]byte{"nginx.conf": append(append([]byte(nil), big...), "}\n"...)},
			fmt.Sprintf("nginx.conf:%d:1: unexpected \"}\": no block is open here", bytes.Count(big, []byte("\n"))+1)},
	}
	if elfErr == nil {
		tests = append(tests, struct {
			name  string
			files map[string][]byte
			want  string
		}{"ELF executable", map[string][]byte{"nginx.conf": elf}, `nginx.conf:1:8: NUL byte`})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, content := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			main := filepath.Join(dir, "nginx.conf")
			cfg := loadWithin(t, main, Options{})
			fatal := fatalDiagnostics(cfg)
			if len(fatal) == 0 {
				t.Fatalf("loaded without a fatal error: %v", cfg.Diagnostics)
			}
			d := fatal[0]
			src := tt.files[filepath.Base(d.Pos.File)]
			if src == nil || d.Pos.Line < 1 || d.Pos.Col < 1 || int(d.Pos.Line) > bytes.Count(src, []byte("\n"))+1 {
				t.Fatalf("error without a position in the file: %s: %s", d.Pos, d.Message)
			}
			if lines := bytes.Split(src, []byte("\n")); int(d.Pos.Line) <= len(lines) && int(d.Pos.Col) > utf8.RuneCount(lines[d.Pos.Line-1])+1 {
				t.Fatalf("error past the end of its line: %s: %s", d.Pos, d.Message)
			}
			rel, _ := filepath.Rel(dir, d.Pos.File)
			p := d.Pos
			p.File = rel
			got := p.String() + ": " + d.Message
			if want := strings.ReplaceAll(tt.want, "%DIR%", dir); !strings.HasPrefix(got, want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestLoadLargeValidConfig checks that an 8 MB configuration loads whole
// (its speed is BenchmarkLoad*).
func TestLoadLargeValidConfig(t *testing.T) {
	t.Parallel()
	big := bigConfig(8 << 20)
	dir := t.TempDir()
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := loadWithin(t, path, Options{})
	if len(cfg.Diagnostics) != 0 || cfg.Syntax || cfg.Context != "main" {
		t.Fatalf("diagnostics %v, syntax %v, context %q", cfg.Diagnostics, cfg.Syntax, cfg.Context)
	}
	http := cfg.Main.Directives[1]
	servers := 0
	for _, d := range http.Block {
		if d.Name == "server" {
			servers++
		}
	}
	if want := strings.Count(string(big), "    server {\n"); servers != want || servers < 1000 {
		t.Errorf("read %d servers, want %d", servers, want)
	}
	last := http.Block[len(http.Block)-1]
	if int(last.End().Line) != bytes.Count(big, []byte("\n"))-1 {
		t.Errorf("last server ends on line %d, want %d", last.End().Line, bytes.Count(big, []byte("\n"))-1)
	}
}
