package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

// noEnv is an empty environment.
func noEnv(string) string { return "" }

// runCLI runs proxylint in-process in dir and returns its exit code and
// outputs.
func runCLI(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	if dir != "" {
		t.Chdir(dir)
	}
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr, noEnv)
	return code, stdout.String(), stderr.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// TestExampleGolden checks the README's first command: its output is
// fixtures/examples/nginx.txt, byte for byte.
func TestExampleGolden(t *testing.T) {
	want, err := os.ReadFile("../../fixtures/examples/nginx.txt")
	require.NoError(t, err)
	code, out, errOut := runCLI(t, "../..", "--no-color", "fixtures/examples/nginx.conf")
	assert.Equal(t, string(want), out)
	assert.Empty(t, errOut)
	assert.Equal(t, exitFindings, code)
}

const literalProxyPass = `events {}
http {
    server {
        listen 80;
        location / {
            proxy_pass http://127.0.0.1:8000;
        }
    }
}
`

func TestFindingOnLine6ExitsOne(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, out, _ := runCLI(t, dir, "--no-color", "nginx.conf")
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, "\nnginx.conf:6:13: warning: proxy_pass to 127.0.0.1:8000 has no upstream block")
	assert.Contains(t, out, "[upstream-no-keepalive]")
	assert.Contains(t, out, "  6 |             proxy_pass http://127.0.0.1:8000;\n    |             ^\n")
}

func TestCleanConfigExitsZero(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", `events {}
http {
    log_format timing '$request $status $request_time $upstream_status $upstream_response_time';
    access_log logs/access.log timing;
    upstream app { server 10.0.0.1:8000; keepalive 16; }
    server {
        location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
`)
	code, out, errOut := runCLI(t, dir, "nginx.conf")
	assert.Equal(t, exitClean, code)
	assert.Empty(t, out)
	assert.Empty(t, errOut)
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	writeFile(t, dir, "broken.conf", "server {\n    listen 80\n}\n")
	writeFile(t, dir, "missing-include.conf", "events {}\nhttp {\n    include nothere.conf;\n}\n")
	cases := []struct {
		name string
		args []string
		code int
		out  string // substring of stdout
		err  string // substring of stderr
	}{
		{"unknown flag", []string{"--bogus", "nginx.conf"}, exitError, "", "flag provided but not defined: --bogus\n"},
		{"no paths", []string{"--format", "json"}, exitError, "", "no paths to lint"},
		{"bad format", []string{"--format", "xml", "nginx.conf"}, exitError, "", "--format \"xml\""},
		{"bad fail-on", []string{"--fail-on", "fatal", "nginx.conf"}, exitError, "", "--fail-on"},
		{"bad target", []string{"--target", "apache", "nginx.conf"}, exitError, "", "unknown target"},
		{"unknown rule", []string{"--disable", "no-such-rule", "nginx.conf"}, exitError, "", "unknown rule \"no-such-rule\""},
		{"missing file", []string{"absent.conf"}, exitError, "absent.conf", ""},
		{"syntax error", []string{"--no-color", "broken.conf"}, exitError, "broken.conf:3:1: error: unexpected \"}\"", ""},
		{"missing include", []string{"--no-color", "missing-include.conf"}, exitError, "missing-include.conf:3:13: error: include \"nothere.conf\"", ""},
		{"fail-on error", []string{"--fail-on", "error", "nginx.conf"}, exitClean, "warning", ""},
		{"fail-on note", []string{"--fail-on", "note", "nginx.conf"}, exitFindings, "warning", ""},
		{"disabled rule", []string{"--disable", "upstream-no-keepalive", "nginx.conf"}, exitClean, "1 note", ""},
		{"flags after path", []string{"nginx.conf", "--disable", "upstream-no-keepalive,log-format-blind"}, exitClean, "", ""},
		{"double dash", []string{"--no-color", "--", "nginx.conf"}, exitFindings, "nginx.conf:6:13", ""},
		{"help", []string{"--help"}, exitClean, "Exit codes:", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, dir, c.args...)
			assert.Equal(t, c.code, code, "stdout: %s\nstderr: %s", out, errOut)
			assert.Contains(t, out, c.out)
			assert.Contains(t, errOut, c.err)
		})
	}
}

func TestJSONFormat(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, out, _ := runCLI(t, dir, "--format", "json", "nginx.conf")
	assert.Equal(t, exitFindings, code)
	var doc struct {
		Version  int `json:"version"`
		Findings []struct {
			Rule, Severity, Message, File string
			Line, Column                  int
			Fingerprint                   string
		} `json:"findings"`
		Summary struct{ Warnings int } `json:"summary"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Findings, 2)
	assert.Equal(t, "log-format-blind", doc.Findings[0].Rule)
	f := doc.Findings[1]
	assert.Equal(t, 1, doc.Version)
	assert.Equal(t, "upstream-no-keepalive", f.Rule)
	assert.Equal(t, "warning", f.Severity)
	assert.Equal(t, "nginx.conf", f.File)
	assert.Equal(t, 6, f.Line)
	assert.Equal(t, 13, f.Column)
	assert.Len(t, f.Fingerprint, 32)
	assert.Equal(t, 1, doc.Summary.Warnings)
}

func TestJSONCleanRunHasEmptyList(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", "events {}\nhttp {}\n")
	code, out, _ := runCLI(t, dir, "--format", "json", "nginx.conf")
	require.NotContains(t, out, `"rule"`)
	assert.Equal(t, exitClean, code)
	assert.Contains(t, out, `"findings": []`)
}

func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, out, _ := runCLI(t, dir, "--output", "report.txt", "nginx.conf")
	assert.Equal(t, exitFindings, code)
	assert.Empty(t, out)
	b, err := os.ReadFile(filepath.Join(dir, "report.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "nginx.conf:6:13: warning:")
	assert.NotContains(t, string(b), "\x1b[", "no colour in a file")
}

func TestColour(t *testing.T) {
	f := &lintFlags{}
	var buf bytes.Buffer
	assert.False(t, useColor(f, &buf, noEnv), "not a terminal")
	env := func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}
	assert.False(t, useColor(f, os.Stdout, env), "NO_COLOR")
	assert.False(t, useColor(&lintFlags{noColor: true}, os.Stdout, noEnv), "--no-color")
}

func TestRulesAndExplain(t *testing.T) {
	code, out, _ := runCLI(t, "", "rules")
	assert.Equal(t, exitClean, code)
	assert.Contains(t, out, "upstream-no-keepalive")
	code, out, _ = runCLI(t, "", "explain", "upstream-no-keepalive")
	assert.Equal(t, exitClean, code)
	assert.Contains(t, out, "# upstream-no-keepalive")
	assert.Contains(t, out, "Severity: warning")
	code, _, errOut := runCLI(t, "", "explain", "nope")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "unknown rule \"nope\"")
	code, out, _ = runCLI(t, "", "version")
	assert.Equal(t, exitClean, code)
	assert.True(t, strings.HasPrefix(out, "proxylint "+buildVersion()), out)
}

// TestHelpNamesEveryPreset keeps --help true to the presets the code has.
func TestHelpNamesEveryPreset(t *testing.T) {
	for _, p := range append(model.BackendPresets(), model.BalancerPresets()...) {
		assert.Contains(t, usageText, p, "--help does not name preset %s", p)
	}
}
