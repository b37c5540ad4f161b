package nginxtest_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/internal/nginxtest"
)

func TestParseDiagnostics(t *testing.T) {
	t.Parallel()
	stderr := `nginx: [warn] duplicate extension "html", content type: "text/plain", previous content type: "text/html" in /tmp/a b/w.conf:3
nginx: [emerg] host not found in upstream "backend" in /etc/nginx/x.conf:12
nginx: [emerg] "pid" directive is duplicate in command line
nginx: configuration file /tmp/p/conf/nginx.conf test failed
`
	got := nginxtest.ParseDiagnostics(stderr)
	want := []nginxtest.Diagnostic{
		{Level: "warn", Message: `duplicate extension "html", content type: "text/plain", previous content type: "text/html"`, File: "/tmp/a b/w.conf", Line: 3},
		{Level: "emerg", Message: `host not found in upstream "backend"`, File: "/etc/nginx/x.conf", Line: 12},
		{Level: "emerg", Message: `"pid" directive is duplicate in command line`},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d diagnostics %v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("diagnostic %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	r := nginxtest.Result{Diagnostics: got}
	if n := len(r.Errors()); n != 2 {
		t.Errorf("Errors() has %d entries, want 2 (warn excluded)", n)
	}
}

func writeFragment(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fragment.conf")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckFragmentAcceptsEachContext(t *testing.T) {
	t.Parallel()
	fragments := map[nginxtest.Context]string{
		nginxtest.InMain:            "worker_processes 1;\n",
		nginxtest.InMainNoEvents:    "events {}\nhttp {\n" + nginxtest.HTTPTempPaths + "access_log off;\n}\n",
		nginxtest.InHTTP:            "upstream b { server 127.0.0.1:9; keepalive 8; }\n",
		nginxtest.InServer:          "listen 127.0.0.1:8080;\nlocation / { proxy_pass http://127.0.0.1:9; }\n",
		nginxtest.InLocation:        "proxy_read_timeout 1s;\nproxy_pass http://127.0.0.1:9;\n",
		nginxtest.InMainLua:         "worker_processes 1;\n",
		nginxtest.InMainNoEventsLua: "events {}\nhttp {\n" + nginxtest.HTTPTempPaths + "access_log off;\nlua_package_path \"/nonexistent/?.lua;;\";\n}\n",
		nginxtest.InHTTPLua:         "init_by_lua_block { local x = 1 }\n",
		nginxtest.InServerLua:       "location / { content_by_lua_block { ngx.say(\"hi\") } }\n",
		nginxtest.InLocationLua:     "content_by_lua_block { ngx.say(\"hi\") }\n",
	}
	if len(fragments) != len(nginxtest.Contexts()) {
		t.Fatalf("test covers %d contexts, package has %d", len(fragments), len(nginxtest.Contexts()))
	}
	for ctx, text := range fragments {
		t.Run(string(ctx), func(t *testing.T) {
			t.Parallel()
			r := nginxtest.CheckFragment(t, ctx, writeFragment(t, text))
			if !r.OK {
				t.Fatalf("nginx rejected a valid %s fragment:\n%s", ctx, r.Stderr)
			}
			prefix := filepath.Dir(filepath.Dir(r.Config))
			if ctx != nginxtest.InMain && ctx != nginxtest.InMainLua {
				// The temp directories were created inside the prefix.
				if _, err := os.Stat(filepath.Join(prefix, "tmp", "proxy")); err != nil {
					t.Errorf("proxy temp path not inside the prefix: %v", err)
				}
			}
		})
	}
}

func TestCheckFragmentReportsFragmentLine(t *testing.T) {
	t.Parallel()
	frag := writeFragment(t, "proxy_pass http://127.0.0.1:9;\n\nno_such_directive on;\n")
	r := nginxtest.CheckFragment(t, nginxtest.InLocation, frag)
	if r.OK {
		t.Fatalf("nginx accepted an unknown directive:\n%s", r.Stderr)
	}
	errs := r.Errors()
	if len(errs) != 1 {
		t.Fatalf("got errors %v, want exactly one", errs)
	}
	want := nginxtest.Diagnostic{Level: "emerg", Message: `unknown directive "no_such_directive"`, File: frag, Line: 3}
	if errs[0] != want {
		t.Errorf("got %+v, want %+v", errs[0], want)
	}
}

func TestCheckFragmentLuaNeedsLuaContext(t *testing.T) {
	t.Parallel()
	frag := writeFragment(t, "content_by_lua_block { ngx.say(1) }\n")
	if r := nginxtest.CheckFragment(t, nginxtest.InLocation, frag); r.OK {
		t.Errorf("content_by_lua_block accepted without the Lua module")
	}
	if r := nginxtest.CheckFragment(t, nginxtest.InLocationLua, frag); !r.OK {
		t.Errorf("content_by_lua_block rejected with the Lua module:\n%s", r.Stderr)
	}
}

func TestCheckWithStreamModule(t *testing.T) {
	t.Parallel()
	conf := "events {}\nstream {\n    server { listen 127.0.0.1:9999; return x; }\n}\n"
	if r := nginxtest.Check(t, conf); r.OK || len(r.Errors()) != 1 || r.Errors()[0].Line != 2 {
		t.Errorf("stream{} without the module: OK=%v errors=%v, want one error at line 2", r.OK, r.Errors())
	}
	if r := nginxtest.Check(t, conf, nginxtest.WithModules(nginxtest.StreamModule)); !r.OK {
		t.Errorf("stream{} rejected with the module:\n%s", r.Stderr)
	}
}

func TestOmitPIDFlag(t *testing.T) {
	t.Parallel()
	conf := "pid logs/own.pid;\nevents {}\n"
	r := nginxtest.Check(t, conf)
	if r.OK || !strings.Contains(r.Stderr, `"pid" directive is duplicate`) {
		t.Errorf("a config setting pid passed with -g pid: OK=%v\n%s", r.OK, r.Stderr)
	}
	if r := nginxtest.Check(t, conf, nginxtest.OmitPIDFlag()); !r.OK {
		t.Errorf("rejected with OmitPIDFlag:\n%s", r.Stderr)
	}
}

func TestOmitTempPaths(t *testing.T) {
	t.Parallel()
	frag := writeFragment(t, "proxy_temp_path tmp/own;\n")
	if r := nginxtest.CheckFragment(t, nginxtest.InHTTP, frag); r.OK {
		t.Errorf("duplicate proxy_temp_path accepted")
	}
	if r := nginxtest.CheckFragment(t, nginxtest.InHTTP, frag, nginxtest.OmitTempPaths()); !r.OK {
		t.Errorf("rejected with OmitTempPaths:\n%s", r.Stderr)
	}
}

func TestIsolatedLeavesNoTrace(t *testing.T) {
	t.Parallel()
	// A complete configuration with compiled-in temp and log paths.
	frag := writeFragment(t, "events {}\nhttp {\n    server { listen 127.0.0.1:8080; }\n}\n")
	const probe = "/var/lib/nginx/proxy"
	_, before := os.Stat(probe)
	r := nginxtest.CheckFragment(t, nginxtest.InMainNoEvents, frag, nginxtest.Isolated())
	if !r.OK {
		t.Fatalf("rejected:\n%s", r.Stderr)
	}
	if _, after := os.Stat(probe); os.IsNotExist(before) && !os.IsNotExist(after) {
		t.Errorf("%s was created outside the private namespace", probe)
	}
}

func TestStartServesAndLogs(t *testing.T) {
	t.Parallel()
	addr := fmt.Sprintf("127.0.0.1:%d", nginxtest.FreePort(t))
	srv := nginxtest.Start(t, nginxtest.HTTPConf(fmt.Sprintf(`
log_format st "$request_uri $status";
server {
    listen %s;
    access_log logs/st.log st;
    location / { return 204; }
}
`, addr)), addr)
	c := &http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(srv.URL() + "/probe")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("status %d, want 204", resp.StatusCode)
	}
	if line := srv.WaitLog(t, "st.log", func(l string) bool { return strings.HasPrefix(l, "/probe ") }); line != "/probe 204" {
		t.Errorf("log line %q, want %q", line, "/probe 204")
	}
	srv.Stop()
	if resp, err := c.Get(srv.URL()); err == nil {
		_ = resp.Body.Close()
		t.Errorf("nginx still answers after Stop")
	}
}

// fakeTB records how a prerequisite check ended.
type fakeTB struct {
	testing.TB
	ended string
}

type stop struct{}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skip(args ...any) {
	f.ended = "skip: " + fmt.Sprint(args...)
	panic(stop{})
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.ended = "fatal: " + fmt.Sprintf(format, args...)
	panic(stop{})
}

func unavailable(env string) (ended string) {
	f := &fakeTB{}
	defer func() {
		if r := recover(); r != nil && r != (stop{}) {
			panic(r)
		}
		ended = f.ended
	}()
	nginxtest.Unavailable(f, "nginx not installed: test")
	return "returned"
}

func TestUnavailableSkipsOrFails(t *testing.T) {
	t.Setenv(nginxtest.RequireEnv, "")
	if got := unavailable(""); got != "skip: nginx not installed: test" {
		t.Errorf("without %s: %q, want a skip", nginxtest.RequireEnv, got)
	}
	t.Setenv(nginxtest.RequireEnv, "1")
	if got := unavailable("1"); !strings.HasPrefix(got, "fatal: nginx not installed: test") {
		t.Errorf("with %s=1: %q, want a fatal error", nginxtest.RequireEnv, got)
	}
}

func TestFreePortStaysReserved(t *testing.T) {
	t.Parallel()
	a, b := nginxtest.FreePort(t), nginxtest.FreePort(t)
	if a == b {
		t.Fatalf("FreePort returned %d twice", a)
	}
	for range 500 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if p == a || p == b {
			t.Fatalf("the kernel handed out reserved port %d", p)
		}
	}
}
