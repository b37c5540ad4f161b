// Package nginxtest runs a real nginx binary from Go tests, the way
// net/http/httptest runs a Go HTTP server.
//
// It offers three things:
//
//   - [Check], [CheckFile] and [CheckFragment] run "nginx -t" on a
//     configuration inside a scratch prefix and report whether nginx
//     accepted it, with the file and line of every diagnostic.
//   - [Start] runs nginx in the foreground on loopback addresses, waits
//     until it listens and stops it when the test ends. The returned
//     [Server] reads the log files nginx wrote.
//   - [Require] and [Unavailable] skip a test when nginx (or another
//     prerequisite) is missing, or fail it when the environment variable
//     PROXYLINT_REQUIRE_NGINX=1 says the prerequisite must be present.
//
// Everything nginx writes goes below a directory from t.TempDir: the pid
// file, the error and access logs and the *_temp_path directories. The
// helpers never touch /run, /var/log/nginx or /var/lib/nginx, provided the
// configuration under test does not name those paths itself (see
// [Isolated] for configurations that do, or that rely on compiled-in
// defaults).
package nginxtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// RequireEnv is the environment variable that turns a missing prerequisite
// into a test failure instead of a skip. Set it to "1" on machines where
// nginx is known to be installed, so that a broken installation cannot
// silently skip the behaviour tests.
const RequireEnv = "PROXYLINT_REQUIRE_NGINX"

// ModulesDir is where Debian installs nginx's dynamic modules.
const ModulesDir = "/usr/lib/nginx/modules"

// Dynamic module files, for [WithModules].
var (
	// LuaModules are the modules a Lua-enabled configuration needs, in the
	// order they must be loaded (the Lua module depends on NDK).
	LuaModules = []string{
		ModulesDir + "/ndk_http_module.so",
		ModulesDir + "/ngx_http_lua_module.so",
	}
	// StreamModule provides the stream{} block.
	StreamModule = ModulesDir + "/ngx_stream_module.so"
)

// HTTPTempPaths holds the http-level directives that keep nginx's
// temporary files inside the prefix. The paths are relative, and nginx
// resolves them against the -p prefix that every helper passes.
const HTTPTempPaths = `client_body_temp_path tmp/client_body;
proxy_temp_path tmp/proxy;
fastcgi_temp_path tmp/fastcgi;
uwsgi_temp_path tmp/uwsgi;
scgi_temp_path tmp/scgi;
`

// HTTPConf returns a complete main configuration: an empty events{} block
// and an http{} block holding [HTTPTempPaths], a default
// "access_log logs/access.log;" and then body. An access_log directive at
// server or location level in body replaces the default for that level; one
// at http level adds a second log.
func HTTPConf(body string) string {
	var b strings.Builder
	b.WriteString("events {}\n\nhttp {\n")
	b.WriteString(indent(HTTPTempPaths + "access_log logs/access.log;\n"))
	b.WriteString("\n")
	b.WriteString(indent(body))
	b.WriteString("}\n")
	return b.String()
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.TrimSpace(line) != "" {
			b.WriteString("    ")
		}
		b.WriteString(line)
	}
	if !strings.HasSuffix(s, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

// Binary returns the path of the nginx executable: the first "nginx" on
// PATH, else /usr/sbin/nginx. It returns "" when neither exists.
func Binary() string {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	const debian = "/usr/sbin/nginx"
	if fi, err := os.Stat(debian); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
		return debian
	}
	return ""
}

// Require returns the path of the nginx binary. When there is none it skips
// the test, or fails it if PROXYLINT_REQUIRE_NGINX=1.
func Require(t testing.TB) string {
	t.Helper()
	bin := Binary()
	if bin == "" {
		Unavailable(t, "nginx not installed: no nginx on PATH and no /usr/sbin/nginx")
	}
	return bin
}

// Unavailable reports a missing prerequisite: it calls t.Skip with the
// reason, or t.Fatal when PROXYLINT_REQUIRE_NGINX=1. It does not return.
func Unavailable(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s (%s=1 requires it)", reason, RequireEnv)
	}
	t.Skip(reason)
}

// requireFile calls Unavailable unless path names an existing file.
func requireFile(t testing.TB, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		Unavailable(t, fmt.Sprintf("%s not installed: %v", what, err))
	}
}

// newPrefix creates a scratch nginx prefix with the conf, logs and tmp
// directories nginx expects to exist (it does not create parents).
func newPrefix(t testing.TB) string {
	t.Helper()
	prefix := t.TempDir()
	for _, d := range []string{"conf", "logs", "tmp"} {
		if err := os.Mkdir(filepath.Join(prefix, d), 0o755); err != nil {
			t.Fatalf("nginxtest: %v", err)
		}
	}
	return prefix
}

// Option adjusts how [Check], [CheckFile] and [CheckFragment] run nginx.
type Option func(*options)

type options struct {
	timeout       time.Duration
	modules       []string
	omitPID       bool
	omitTempPaths bool
	isolated      bool
}

func buildOptions(opts []Option) options {
	o := options{timeout: 10 * time.Second}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// WithTimeout bounds the nginx run (default 10s). A run that exceeds it is
// killed and the test fails.
func WithTimeout(d time.Duration) Option {
	return func(o *options) { o.timeout = d }
}

// WithModules loads the given dynamic module files (absolute paths) before
// the configuration is parsed, through -g "load_module ...;". A missing
// module file skips the test (see [Unavailable]). Contexts ending in "-lua"
// add [LuaModules] on their own.
func WithModules(paths ...string) Option {
	return func(o *options) { o.modules = append(o.modules, paths...) }
}

// OmitPIDFlag drops the -g "pid ...;" argument. Use it when the
// configuration under test sets pid itself: nginx rejects the duplicate.
// nginx -t then writes the pid file the configuration names.
func OmitPIDFlag() Option {
	return func(o *options) { o.omitPID = true }
}

// OmitTempPaths leaves [HTTPTempPaths] out of the http{} block that
// [CheckFragment] writes for the http, server and location contexts. Use
// it when the fragment sets a *_temp_path directive at http level itself:
// nginx rejects the duplicate.
func OmitTempPaths() Option {
	return func(o *options) { o.omitTempPaths = true }
}

// Isolated runs nginx in a private mount namespace ("unshare -m") with an
// empty tmpfs over /run, /var/lib/nginx and /var/log/nginx (those that
// exist), so that a configuration relying on compiled-in default paths, for
// example a complete nginx.conf without *_temp_path directives, leaves no
// trace on the machine. It needs root and util-linux unshare; without them
// the test is skipped (or fails, see [Unavailable]).
func Isolated() Option {
	return func(o *options) { o.isolated = true }
}
