package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/bench/gen"
)

// newRepo makes a checkout in a temporary directory.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	return dir
}

// A plain nginx.conf whose first comment reads like a dump's header is a
// plain file: its include is read from the disk and the error in it seen.
func TestCommentLikeDumpHeaderIsPlainFile(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "nginx.conf", "# configuration file for the shop:\nevents {}\nhttp {\n    include shop.conf;\n}\n")
	writeFile(t, dir, "shop.conf", "server {\n    listen 80\n}\n")
	code, out, errOut := runCLI(t, dir, "--no-color", "--no-config", "nginx.conf")
	assert.Equal(t, exitError, code, "%s%s", out, errOut)
	assert.Contains(t, out, "shop.conf:3:1: error: ")
	assert.Contains(t, out, "[nginx-syntax]")
}

// A saved nginx -T dump whose messages were commented out is a dump: its
// files are linted at their own paths.
func TestCommentedDumpMessages(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "dump.txt", "# nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\n"+
		"# nginx: configuration file /etc/nginx/nginx.conf test is successful\n"+
		"# configuration file /etc/nginx/nginx.conf:\n"+literalProxyPass+"\n")
	code, out, errOut := runCLI(t, dir, "--no-color", "--no-config", "--target", "nginx:1.28", "dump.txt")
	assert.Equal(t, exitFindings, code, "%s%s", out, errOut)
	assert.Contains(t, out, "/etc/nginx/nginx.conf:6:13: warning:")
}

// After "--", "-" is the file named "-": standard input is left unread.
func TestDashAfterDoubleDashIsAFile(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "-", literalProxyPass)
	code, out, errOut := runStdin(t, dir, "events {}\n", "--no-color", "--no-config", "--kind", "nginx", "--target", "nginx:1.28", "--", "-")
	assert.Equal(t, exitFindings, code, "%s%s", out, errOut)
	assert.Contains(t, out, "-:6:13: warning:")
	assert.NotContains(t, out, "<stdin>")

	// Before "--" it is standard input, as it always was.
	code, out, errOut = runStdin(t, dir, "events {}\n", "--no-color", "--no-config", "--kind", "nginx", "-")
	assert.Equal(t, exitClean, code, "%s%s", out, errOut)
}

// --root names the checkout's directory: a missing one or a file is a
// usage error, not paths relative to nothing. The SARIF asked for is the
// failed run's: no result, the error as its notification.
func TestRootMustBeADirectory(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	for root, want := range map[string]string{
		"missing":    "--root missing: no such directory",
		"nginx.conf": "--root nginx.conf: not a directory",
	} {
		code, out, errOut := runCLI(t, dir, "--no-config", "--format", "sarif", "--root", root, "nginx.conf")
		assert.Equal(t, exitError, code, root)
		run := parseSARIF(t, out).Runs[0]
		assert.Empty(t, run.Results, root)
		require.Len(t, run.Invocations, 1, root)
		assert.False(t, run.Invocations[0].ExecutionSuccessful, root)
		require.Len(t, run.Invocations[0].ToolExecutionNotifications, 1, root)
		assert.Equal(t, want+".", run.Invocations[0].ToolExecutionNotifications[0].Message.Text, root)
		assert.True(t, strings.HasPrefix(errOut, "proxylint: "+want+"\n"), "%s: %s", root, errOut)
	}
	code, _, errOut := runCLI(t, dir, "--no-config", "--format", "sarif", "--root", ".", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
}

// A --target outside the releases proxylint models is an error that names
// the range, on the command line and in .proxylint.yaml.
func TestTargetOutsideModelledRange(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	for _, target := range []string{"nginx:1.17", "nginx:2.0"} {
		code, out, errOut := runCLI(t, dir, "--no-config", "--target", target, "nginx.conf")
		assert.Equal(t, exitError, code, target)
		assert.Empty(t, out, target)
		assert.Contains(t, errOut, `proxylint: --target: target "`+target+`": proxylint models nginx 1.18 to `, target)
	}
	writeFile(t, dir, ".proxylint.yaml", "target: nginx:1.17\n")
	code, out, errOut := runCLI(t, dir, "nginx.conf")
	assert.Equal(t, exitError, code, out)
	assert.Contains(t, errOut, `proxylint models nginx 1.18 to `)
}

// A directory that holds only templates lints nothing: exit 2, the
// templates still noted.
func TestOnlyTemplatesIsNothingLinted(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "d/site.conf", "server {\n    listen 80;\n    location / { proxy_pass http://{{ backend }}; }\n}\n")
	code, out, errOut := runCLI(t, dir, "--no-color", "--no-config", "d")
	assert.Equal(t, exitError, code, "%s%s", out, errOut)
	assert.Contains(t, out, "d: error: nothing linted: the only configurations found in d are templates (d/site.conf), which are linted once rendered [load-error]\n")
	assert.Contains(t, out, "d/site.conf:3:36: note: this looks like a template")

	// With one file to lint beside it, the run lints that file.
	writeFile(t, dir, "d/nginx.conf", literalProxyPass)
	code, out, errOut = runCLI(t, dir, "--no-color", "--no-config", "--fail-on", "error", "d")
	assert.Equal(t, exitClean, code, "%s%s", out, errOut)
	assert.NotContains(t, out, "nothing linted")
}

// A baseline followed by anything but white space is not a baseline: the
// run stops instead of hiding findings with half a file.
func TestBaselineFollowedByGarbage(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, _, errOut := runCLI(t, dir, "--no-config", "--write-baseline", "base.json", "nginx.conf")
	require.Equal(t, exitClean, code, errOut)
	b, err := os.ReadFile(filepath.Join(dir, "base.json"))
	require.NoError(t, err)
	for _, tail := range []string{"\n\n", "garbage\n", "}\n", "{}\n"} {
		writeFile(t, dir, "base.json", string(b)+tail)
		code, out, errOut := runCLI(t, dir, "--no-config", "--baseline", "base.json", "nginx.conf")
		if strings.TrimSpace(tail) == "" {
			assert.Equal(t, exitClean, code, "%q: %s%s", tail, out, errOut)
			continue
		}
		assert.Equal(t, exitError, code, "%q: %s%s", tail, out, errOut)
		assert.Equal(t, fmt.Sprintf("proxylint: baseline base.json: not a proxylint baseline: more follows the JSON document, at byte %d\n", len(b)-1), errOut, "%q", tail)
	}
}

// endless is a stream that never ends.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '#'
	}
	e.read += int64(len(p))
	return len(p), nil
}

// --max-file-size bounds standard input: more is an error naming it, and
// an endless stream stops at the limit, its memory within about twice it.
func TestStdinObeysMaxFileSize(t *testing.T) {
	dir := newRepo(t)
	code, out, errOut := runStdin(t, dir, strings.Repeat("# comment\n", 200), "--no-config", "--max-file-size", "1K", "-")
	assert.Equal(t, exitError, code, out)
	assert.Equal(t, "proxylint: <stdin>: standard input is too large (more than 1024 bytes; see --max-file-size)\n", errOut)

	const limit = 8 << 20
	in := &endless{}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var stdout, stderr bytes.Buffer
	code = runIO([]string{"--no-config", "--max-file-size", "8M", "-"}, in, &stdout, &stderr, noEnv)
	runtime.ReadMemStats(&after)
	assert.Equal(t, exitError, code, stdout.String())
	assert.Contains(t, stderr.String(), "standard input is too large (more than 8388608 bytes")
	assert.LessOrEqual(t, in.read, int64(limit+stdinChunk), "reading stops at the limit")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(2*limit), "allocated while reading")
}

// --max-file-size bounds a saved dump, a baseline and the configuration
// file as it bounds a configuration.
func TestMaxFileSizeBoundsEveryFile(t *testing.T) {
	dir := newRepo(t)
	big := strings.Repeat("# padding\n", 300)
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	writeFile(t, dir, "dump.txt", "# configuration file /etc/nginx/nginx.conf:\n"+big+literalProxyPass+"\n")
	code, out, errOut := runCLI(t, dir, "--no-color", "--no-config", "--max-file-size", "2K", "dump.txt")
	assert.Equal(t, exitError, code, errOut)
	assert.Contains(t, out, "dump.txt: error: cannot read dump.txt: file too large")

	code, _, errOut = runCLI(t, dir, "--no-config", "--write-baseline", "base.json", "nginx.conf")
	require.Equal(t, exitClean, code, errOut)
	b, err := os.ReadFile(filepath.Join(dir, "base.json"))
	require.NoError(t, err)
	writeFile(t, dir, "base.json", string(b)+strings.Repeat(" ", 2048))
	code, _, errOut = runCLI(t, dir, "--no-config", "--max-file-size", "2K", "--baseline", "base.json", "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "proxylint: baseline: base.json: file too large")

	writeFile(t, dir, ".proxylint.yaml", "fail-on: error\n"+big)
	code, _, errOut = runCLI(t, dir, "--max-file-size", "2K", "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, ".proxylint.yaml: file too large")
}

// What a message echoes of the input is cut: a 1 MB "@type" is not printed
// whole in any format.
func TestLongTypeURLIsNotEchoed(t *testing.T) {
	dir := newRepo(t)
	var src bytes.Buffer
	require.NoError(t, gen.EnvoyLongTypeURL(&src, 1<<20))
	writeFile(t, dir, "envoy.json", src.String())
	for _, format := range []string{"text", "json", "sarif", "github"} {
		code, out, errOut := runCLI(t, dir, "--no-config", "--no-color", "--format", format, "envoy.json")
		assert.Equal(t, exitClean, code, "%s: %s", format, errOut)
		assert.Contains(t, out, "extension not understood: example.xxxx", format)
		assert.Regexp(t, `…\(104[0-9]{4} bytes\)…`, out, format)
		assert.NotContains(t, out, strings.Repeat("x", 1000), format)
	}
}
