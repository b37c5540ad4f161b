package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlagErrorsInDoubleDashForm: the flag package's messages name flags
// as --help writes them, "--quiet" and "-f", never Go's "-quiet".
func TestFlagErrorsInDoubleDashForm(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--bogus", "nginx.conf"}, "proxylint: flag provided but not defined: --bogus\n"},
		{[]string{"-bogus", "nginx.conf"}, "proxylint: flag provided but not defined: --bogus\n"},
		{[]string{"-x", "nginx.conf"}, "proxylint: flag provided but not defined: -x\n"},
		{[]string{"--fromat", "json", "nginx.conf"}, "proxylint: flag provided but not defined: --fromat; did you mean --format?\n"},
		{[]string{"nginx.conf", "--format"}, "proxylint: flag needs an argument: --format\n"},
		{[]string{"nginx.conf", "-f"}, "proxylint: flag needs an argument: -f\n"},
		{[]string{"--max-includes", "many", "nginx.conf"}, "proxylint: invalid value \"many\" for flag --max-includes: parse error\n"},
		{[]string{"--fix=maybe", "nginx.conf"}, "proxylint: invalid boolean value \"maybe\" for --fix: parse error\n"},
		{[]string{"chain", "--bogus", "nginx.conf"}, "proxylint chain: flag provided but not defined: --bogus\n"},
	} {
		code, out, errOut := runCLI(t, dir, c.args...)
		assert.Equal(t, exitError, code, c.args)
		assert.Empty(t, out, c.args)
		assert.Equal(t, c.err+"Run \"proxylint"+chainWord(c.args)+" --help\" for usage.\n", errOut, c.args)
	}
}

func chainWord(args []string) string {
	if args[0] == "chain" {
		return " chain"
	}
	return ""
}

// TestShortFormatFlag: -f is --format, as hadolint and shellcheck spell it.
func TestShortFormatFlag(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, short, errOut := runCLI(t, dir, "--no-config", "-f", "json", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
	_, long, _ := runCLI(t, dir, "--no-config", "--format", "json", "nginx.conf")
	assert.Equal(t, long, short)
	assert.Contains(t, short, `"rule": "upstream-no-keepalive"`)
	code, _, errOut = runCLI(t, dir, "--no-config", "-f", "sarif=out.sarif", "-f", "text", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
	assert.FileExists(t, dir+"/out.sarif")
}

func TestInitFlagErrorInDoubleDashForm(t *testing.T) {
	code, out, errOut := runCLI(t, t.TempDir(), "init", "--forse")
	assert.Equal(t, exitError, code)
	assert.Empty(t, out)
	assert.Equal(t, "proxylint init: flag provided but not defined: --forse; did you mean --force?\nusage: proxylint init [--force] [FILE]\n", errOut)
}

// TestQuiet: --quiet prints the findings whole (quote, notes, fix) and
// leaves out the line on what was read and the summary, in the text and
// github reports, and the progress lines on standard error.
func TestQuiet(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, full, _ := runCLI(t, dir, "--no-config", "--no-color", "nginx.conf")
	require.Equal(t, exitFindings, code)
	const tail = "read 1 file, linted for nginx 1.18 or newer (--target names a release)\n1 warning, 1 note\n"
	require.True(t, strings.HasSuffix(full, tail), full)
	for _, flag := range []string{"--quiet", "-q"} {
		code, out, errOut := runCLI(t, dir, "--no-config", "--no-color", flag, "nginx.conf")
		assert.Equal(t, exitFindings, code, "--quiet changes no exit code")
		assert.Equal(t, strings.TrimSuffix(full, tail), out)
		assert.Empty(t, errOut)
	}

	code, out, _ := runCLI(t, dir, "--no-config", "--quiet", "--format", "github", "--disable", "log-format-blind", "nginx.conf")
	assert.Equal(t, exitFindings, code)
	assert.Equal(t, "::warning file=nginx.conf,line=6,col=13,title=upstream-no-keepalive::proxy_pass to 127.0.0.1:8000 has no upstream block, so nginx opens a new connection for every request. Addresses used directly are never pooled, on any nginx version.%0Afix: declare upstream backend_127_0_0_1_8000 for 127.0.0.1:8000 and point proxy_pass at it, keeping the request it sends\n", out)

	// A clean run prints nothing at all.
	writeFile(t, dir, "clean.conf", "events {}\nhttp {}\n")
	code, out, errOut := runCLI(t, dir, "--no-config", "--quiet", "--disable", "log-format-blind", "clean.conf")
	assert.Equal(t, exitClean, code)
	assert.Empty(t, out)
	assert.Empty(t, errOut)

	// --fix and --write-baseline say nothing of what they did.
	code, _, errOut = runCLI(t, dir, "--no-config", "--quiet", "--write-baseline", "base.json", "nginx.conf")
	assert.Equal(t, exitClean, code)
	assert.Empty(t, errOut)
	_, _, loud := runCLI(t, dir, "--no-config", "--write-baseline", "base.json", "nginx.conf")
	assert.Equal(t, "proxylint: recorded 2 findings in base.json\n", loud)
	code, out, errOut = runCLI(t, dir, "--no-config", "--quiet", "--fix", "--disable", "log-format-blind", "nginx.conf")
	assert.Equal(t, exitFindings, code, "a run that fixed files fails")
	assert.Empty(t, out)
	assert.Empty(t, errOut)

	code, _, errOut = runCLI(t, dir, "--quiet", "--verbose", "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Equal(t, "proxylint: --quiet and --verbose contradict each other\nRun \"proxylint --help\" for usage.\n", errOut)
}

// TestExitZero: --exit-zero passes a run with findings, and never one that
// could not lint.
func TestExitZero(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	writeFile(t, dir, "broken.conf", "server {\n    listen 80\n}\n")
	code, out, errOut := runCLI(t, dir, "--no-config", "--no-color", "--exit-zero", "nginx.conf")
	assert.Equal(t, exitClean, code)
	assert.Contains(t, out, "nginx.conf:6:13: warning: proxy_pass to 127.0.0.1:8000 has no upstream block")
	assert.True(t, strings.HasSuffix(out, "\n1 warning, 1 note\n"), out)
	assert.Empty(t, errOut)

	code, out, _ = runCLI(t, dir, "--no-config", "--no-color", "--exit-zero", "broken.conf")
	assert.Equal(t, exitError, code, "a file that cannot be parsed still fails")
	assert.Contains(t, out, "broken.conf:3:1: error: unexpected \"}\"")

	code, _, _ = runCLI(t, dir, "--no-config", "--exit-zero", "--diff", "nginx.conf")
	assert.Equal(t, exitClean, code, "--diff with fixes")
	code, _, _ = runCLI(t, dir, "--no-config", "--exit-zero", "--fix", "nginx.conf")
	assert.Equal(t, exitClean, code, "--fix that changed a file")
}
