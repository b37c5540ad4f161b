package nginxtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Result is the outcome of one "nginx -t" run.
type Result struct {
	// OK reports whether nginx accepted the configuration (exit status 0).
	OK bool
	// Stderr is everything nginx printed.
	Stderr string
	// Diagnostics are the "nginx: [level] ..." lines of Stderr, in order,
	// warnings included.
	Diagnostics []Diagnostic
	// Config is the path of the main configuration nginx was given.
	Config string
}

// Errors returns the diagnostics at level emerg, alert, crit or error.
func (r Result) Errors() []Diagnostic {
	var out []Diagnostic
	for _, d := range r.Diagnostics {
		if d.IsError() {
			out = append(out, d)
		}
	}
	return out
}

// Diagnostic is one message nginx printed about the configuration.
type Diagnostic struct {
	Level   string // "emerg", "alert", "crit", "error", "warn", "notice", ...
	Message string // the text without the level and the position
	File    string // absolute path; "" when nginx gave no position
	Line    int    // 1-based; 0 when nginx gave no position
}

// IsError reports whether the level makes nginx -t fail.
func (d Diagnostic) IsError() bool {
	switch d.Level {
	case "emerg", "alert", "crit", "error":
		return true
	}
	return false
}

func (d Diagnostic) String() string {
	if d.File == "" {
		return fmt.Sprintf("[%s] %s", d.Level, d.Message)
	}
	return fmt.Sprintf("%s:%d: [%s] %s", d.File, d.Line, d.Level, d.Message)
}

var (
	// nginx ends a positioned message with " in FILE:LINE". The message
	// itself may contain " in " (`host not found in upstream "x"`), so the
	// greedy first group picks the last occurrence.
	diagAtRE = regexp.MustCompile(`^nginx: \[([a-z]+)\] (.*) in (.+):([0-9]+)$`)
	diagRE   = regexp.MustCompile(`^nginx: \[([a-z]+)\] (.*)$`)
)

// ParseDiagnostics extracts the diagnostics from nginx's stderr.
func ParseDiagnostics(stderr string) []Diagnostic {
	var out []Diagnostic
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := diagAtRE.FindStringSubmatch(line); m != nil {
			n, err := strconv.Atoi(m[4])
			if err == nil {
				out = append(out, Diagnostic{Level: m[1], Message: m[2], File: m[3], Line: n})
				continue
			}
		}
		if m := diagRE.FindStringSubmatch(line); m != nil {
			out = append(out, Diagnostic{Level: m[1], Message: m[2]})
		}
	}
	return out
}

// Check writes conf as the main configuration file of a scratch prefix and
// runs nginx -t on it. Relative paths in conf (logs, temp paths, pid) are
// resolved by nginx against that prefix; relative include paths against
// its conf directory.
func Check(t testing.TB, conf string, opts ...Option) Result {
	t.Helper()
	bin := Require(t)
	prefix := newPrefix(t)
	path := filepath.Join(prefix, "conf", "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatalf("nginxtest: %v", err)
	}
	return runCheck(t, bin, prefix, path, buildOptions(opts))
}

// CheckFile runs nginx -t on an existing main configuration file, in
// place, so that its relative includes resolve as they would in
// production. nginx's own writes still go to a scratch prefix, except for
// paths the file names explicitly (see [Isolated]).
func CheckFile(t testing.TB, path string, opts ...Option) Result {
	t.Helper()
	bin := Require(t)
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatalf("nginxtest: %v", err)
	}
	return runCheck(t, bin, newPrefix(t), abs, buildOptions(opts))
}

// Context says where [CheckFragment] places a fragment.
type Context string

// The contexts a fragment can be checked in. Each "-lua" variant is the
// same context with [LuaModules] loaded.
const (
	// InMain includes the fragment at the top level and adds "events {}"
	// after it: for main-level directives and blocks other than events.
	InMain Context = "main"
	// InMainNoEvents includes the fragment at the top level and adds
	// nothing: for complete configurations.
	InMainNoEvents Context = "main-noevents"
	// InHTTP includes the fragment inside http{}.
	InHTTP Context = "http"
	// InServer includes the fragment inside http{server{}}.
	InServer Context = "server"
	// InLocation includes the fragment inside http{server{location /{}}}.
	InLocation Context = "location"

	InMainLua         Context = "main-lua"
	InMainNoEventsLua Context = "main-noevents-lua"
	InHTTPLua         Context = "http-lua"
	InServerLua       Context = "server-lua"
	InLocationLua     Context = "location-lua"
)

// Contexts lists every valid Context.
func Contexts() []Context {
	return []Context{
		InMain, InMainNoEvents, InHTTP, InServer, InLocation,
		InMainLua, InMainNoEventsLua, InHTTPLua, InServerLua, InLocationLua,
	}
}

// base returns the context without its "-lua" suffix and whether the
// suffix was there.
func (c Context) base() (Context, bool) {
	if b, ok := strings.CutSuffix(string(c), "-lua"); ok {
		return Context(b), true
	}
	return c, false
}

// Valid reports whether c is one of [Contexts].
func (c Context) Valid() bool {
	for _, v := range Contexts() {
		if c == v {
			return true
		}
	}
	return false
}

// CheckFragment checks the file at fragmentPath as if it appeared in
// context ctx. It writes a wrapper main configuration into a scratch prefix
// that includes the fragment by absolute path, so nginx reports errors
// with the fragment's own file name and line numbers. Relative include
// paths inside the fragment resolve against the wrapper's directory, not
// the fragment's.
//
// For the http, server and location contexts the wrapper's http{} block
// sets [HTTPTempPaths] (unless [OmitTempPaths]) and
// "access_log logs/access.log;". For the main contexts the fragment's own
// http{} block decides; see [Isolated].
func CheckFragment(t testing.TB, ctx Context, fragmentPath string, opts ...Option) Result {
	t.Helper()
	if !ctx.Valid() {
		t.Fatalf("nginxtest: unknown context %q", ctx)
	}
	bin := Require(t)
	abs, err := filepath.Abs(fragmentPath)
	if err != nil {
		t.Fatalf("nginxtest: %v", err)
	}
	o := buildOptions(opts)
	base, lua := ctx.base()
	if lua {
		o.modules = append(append([]string(nil), LuaModules...), o.modules...)
	}
	prefix := newPrefix(t)
	path := filepath.Join(prefix, "conf", "nginx.conf")
	wrapper := wrapFragment(base, abs, !o.omitTempPaths)
	if err := os.WriteFile(path, []byte(wrapper), 0o644); err != nil {
		t.Fatalf("nginxtest: %v", err)
	}
	return runCheck(t, bin, prefix, path, o)
}

// wrapFragment returns the wrapper configuration for a fragment.
func wrapFragment(ctx Context, fragment string, tempPaths bool) string {
	include := "include " + quote(fragment) + ";\n"
	switch ctx {
	case InMain:
		// load_module must come before the first block, so the fragment
		// goes first.
		return include + "events {}\n"
	case InMainNoEvents:
		return include
	}
	inner := include
	if ctx == InLocation {
		inner = "location / {\n" + indent(inner) + "}\n"
	}
	if ctx == InServer || ctx == InLocation {
		inner = "server {\n" + indent(inner) + "}\n"
	}
	http := "access_log logs/access.log;\n"
	if tempPaths {
		http = HTTPTempPaths + http
	}
	return "events {}\n\nhttp {\n" + indent(http+"\n"+inner) + "}\n"
}

// quote renders s as an nginx double-quoted string.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// isolateScript mounts an empty tmpfs over nginx's compiled-in writable
// directories, then runs the command given as arguments.
const isolateScript = `for d in /run /var/lib/nginx /var/log/nginx; do
	if [ -d "$d" ]; then
		mount -t tmpfs -o mode=0755,size=16m nginxtest "$d" ||
			{ echo "nginxtest: cannot mount tmpfs on $d" >&2; exit 125; }
	fi
done
exec "$@"
`

func runCheck(t testing.TB, bin, prefix, conf string, o options) Result {
	t.Helper()
	for _, m := range o.modules {
		requireFile(t, m, "nginx module "+filepath.Base(m))
	}
	var global strings.Builder
	if !o.omitPID {
		global.WriteString("pid logs/nginx.pid;")
	}
	for _, m := range o.modules {
		fmt.Fprintf(&global, " load_module %s;", quote(m))
	}
	args := []string{"-q", "-t", "-p", prefix + "/", "-e", filepath.Join(prefix, "logs", "error.log"), "-c", conf}
	if g := strings.TrimSpace(global.String()); g != "" {
		args = append(args, "-g", g)
	}
	name := bin
	if o.isolated {
		unshare, err := exec.LookPath("unshare")
		if err != nil || os.Geteuid() != 0 {
			Unavailable(t, "nginxtest.Isolated needs root and util-linux unshare")
		}
		name = unshare
		args = append([]string{"-m", "--propagation", "private", "sh", "-c", isolateScript, "nginxtest", bin}, args...)
	}

	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = prefix
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	err := cmd.Run()
	out := stderr.String()
	if ctx.Err() != nil {
		t.Fatalf("nginxtest: nginx -t did not finish within %v\n%s", o.timeout, out)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("nginxtest: running %s: %v", name, err)
	}
	if o.isolated && err != nil && (exit.ExitCode() == 125 || strings.HasPrefix(out, "unshare:")) {
		Unavailable(t, "nginxtest.Isolated: private mount namespace unavailable: "+strings.TrimSpace(out))
	}
	return Result{
		OK:          err == nil,
		Stderr:      out,
		Diagnostics: ParseDiagnostics(out),
		Config:      conf,
	}
}
