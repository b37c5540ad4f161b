package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
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

// TestRuleSelection: --only runs the rules it names and no other; "all" in
// --enable and --disable switches every rule, the flags taking effect in
// their order; rules.enable and rules.disable take "all" too, with the
// other list's rules as the exceptions.
func TestRuleSelection(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	const keepalive = "::warning file=nginx.conf,line=6,col=13,title=upstream-no-keepalive::"
	const logFormat = "::notice file=nginx.conf,line=2,col=1,title=log-format-blind::"
	rulesOf := func(out string) []string {
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			switch {
			case strings.HasPrefix(l, keepalive):
				got = append(got, "upstream-no-keepalive")
			case strings.HasPrefix(l, logFormat):
				got = append(got, "log-format-blind")
			case l != "":
				got = append(got, l)
			}
		}
		return got
	}
	for _, c := range []struct {
		name   string
		config string
		args   []string
		code   int
		want   []string
	}{
		{"defaults", "", nil, exitFindings, []string{"log-format-blind", "upstream-no-keepalive"}},
		{"only one", "", []string{"--only", "upstream-no-keepalive"}, exitFindings, []string{"upstream-no-keepalive"}},
		{"only two", "", []string{"--only", "log-format-blind,upstream-no-keepalive"}, exitFindings, []string{"log-format-blind", "upstream-no-keepalive"}},
		{"only beats the file", "rules:\n  disable: [upstream-no-keepalive]\n", []string{"--only", "upstream-no-keepalive"}, exitFindings, []string{"upstream-no-keepalive"}},
		{"disable all", "", []string{"--disable", "all"}, exitClean, nil},
		{"disable all, enable one", "", []string{"--disable", "all", "--enable", "log-format-blind"}, exitClean, []string{"log-format-blind"}},
		{"enable one, disable all", "", []string{"--enable", "log-format-blind", "--disable", "all"}, exitClean, nil},
		{"enable all, disable one", "", []string{"--enable", "all", "--disable", "log-format-blind"}, exitFindings, []string{"upstream-no-keepalive"}},
		{"file disables all", "rules:\n  disable: [all]\n  enable: [log-format-blind]\n", nil, exitClean, []string{"log-format-blind"}},
		{"file enables all", "rules:\n  enable: [all]\n  disable: [log-format-blind]\n", nil, exitFindings, []string{"upstream-no-keepalive"}},
		{"flag over the file's all", "rules:\n  disable: [all]\n", []string{"--enable", "upstream-no-keepalive"}, exitFindings, []string{"upstream-no-keepalive"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			writeFile(t, d, "nginx.conf", literalProxyPass)
			writeFile(t, d, ".proxylint.yaml", c.config)
			args := append([]string{"-q", "-f", "github"}, c.args...)
			code, out, errOut := runCLI(t, d, append(args, "nginx.conf")...)
			assert.Equal(t, c.code, code, errOut)
			assert.Empty(t, errOut)
			assert.Equal(t, c.want, rulesOf(out))
		})
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--only", "upstream-no-keepalve"}, "proxylint: unknown rule \"upstream-no-keepalve\"; did you mean \"upstream-no-keepalive\"?\n"},
		{[]string{"--only", ","}, "proxylint: --only names no rule\n"},
		{[]string{"--only", "log-format-blind", "--enable", "upstream-no-keepalive"}, "proxylint: --only names every rule that runs; drop --enable and --disable, or --only\n"},
		{[]string{"--disable", "everything"}, "proxylint: unknown rule \"everything\" (see proxylint rules; \"all\" names every rule)\n"},
	} {
		code, out, errOut := runCLI(t, dir, append(append([]string{"--no-config"}, c.args...), "nginx.conf")...)
		assert.Equal(t, exitError, code, c.args)
		assert.Empty(t, out)
		assert.Equal(t, c.err+"Run \"proxylint --help\" for usage.\n", errOut, c.args)
	}
	writeFile(t, dir, ".proxylint.yaml", "rules:\n  enable: [all]\n  disable: [all]\n")
	code, _, errOut := runCLI(t, dir, "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Equal(t, "proxylint: .proxylint.yaml:3:13: rules: all rules are both enabled and disabled; name the exceptions in one list and \"all\" in the other\n", errOut)
}

// runCLIEnv is runCLI with an environment.
func runCLIEnv(t *testing.T, dir string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr, func(k string) string { return env[k] })
	return code, stdout.String(), stderr.String()
}

// TestColorFlag: --color always colours the text report in a pipe (a CI
// log) and in a file, FORCE_COLOR colours standard output unless NO_COLOR
// is set, and --color never and --no-color colour nothing.
func TestColorFlag(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	base := []string{"--no-config", "-q", "--only", "upstream-no-keepalive"}
	const coloured = "\x1b[1mnginx.conf:6:13:\x1b[22m \x1b[33;1mwarning:\x1b[0;22m proxy_pass to 127.0.0.1:8000"
	const plain = "nginx.conf:6:13: warning: proxy_pass to 127.0.0.1:8000"
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"auto in a pipe", nil, nil, plain},
		{"always in a pipe", nil, []string{"--color", "always"}, coloured},
		{"always beats NO_COLOR", map[string]string{"NO_COLOR": "1"}, []string{"--color=always"}, coloured},
		{"FORCE_COLOR", map[string]string{"FORCE_COLOR": "1"}, nil, coloured},
		{"FORCE_COLOR beats TERM=dumb", map[string]string{"FORCE_COLOR": "1", "TERM": "dumb"}, nil, coloured},
		{"NO_COLOR beats FORCE_COLOR", map[string]string{"FORCE_COLOR": "1", "NO_COLOR": "1"}, nil, plain},
		{"never beats FORCE_COLOR", map[string]string{"FORCE_COLOR": "1"}, []string{"--color", "never"}, plain},
		{"--no-color beats FORCE_COLOR", map[string]string{"FORCE_COLOR": "1"}, []string{"--no-color"}, plain},
		{"--no-color with --color never", nil, []string{"--no-color", "--color", "never"}, plain},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLIEnv(t, dir, c.env, append(append(base, c.args...), "nginx.conf")...)
			assert.Equal(t, exitFindings, code, errOut)
			assert.True(t, strings.HasPrefix(out, c.want), "%q", out)
		})
	}

	// A file is coloured only when asked for.
	code, _, _ := runCLIEnv(t, dir, map[string]string{"FORCE_COLOR": "1"}, append(base, "--output", "auto.txt", "nginx.conf")...)
	require.Equal(t, exitFindings, code)
	code, _, _ = runCLIEnv(t, dir, nil, append(base, "--color", "always", "--format", "text=always.txt", "nginx.conf")...)
	require.Equal(t, exitFindings, code)
	got, err := os.ReadFile(filepath.Join(dir, "auto.txt"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), plain), "%q", got)
	got, err = os.ReadFile(filepath.Join(dir, "always.txt"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), coloured), "%q", got)

	// The chain's table too.
	_, out, _ := runCLIEnv(t, dir, nil, "chain", "--no-config", "--color", "always", "nginx.conf")
	assert.Contains(t, out, "\x1b[1mPath 1 of 1: nginx.conf:5 location /\x1b[22m\n")

	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--color", "yes"}, "proxylint: --color \"yes\": want always, never or auto\n"},
		{[]string{"--no-color", "--color", "always"}, "proxylint: --no-color and --color always contradict each other\n"},
	} {
		code, out, errOut := runCLI(t, dir, append(c.args, "nginx.conf")...)
		assert.Equal(t, exitError, code)
		assert.Empty(t, out)
		assert.Equal(t, c.err+"Run \"proxylint --help\" for usage.\n", errOut)
	}
}

// TestChainFailOn: proxylint chain --fail-on exits 1 when a finding the
// paths mark is at or above the level; without it the chain is a view.
func TestChainFailOn(t *testing.T) {
	dir, err := filepath.Abs("../../fixtures/retry-amplification/layers")
	require.NoError(t, err)
	args := []string{"chain", "--no-config", "--no-color", "--target", "nginx:newest", "edge.conf", "internal.conf"}
	code, view, errOut := runCLI(t, dir, args...)
	require.Equal(t, exitClean, code, errOut)
	require.Contains(t, view, "  ! edge.conf:15: 2 hops retry the same request [retry-amplification]\n")
	for _, c := range []struct {
		flags []string
		code  int
	}{
		{[]string{"--fail-on", "warning"}, exitFindings},
		{[]string{"--fail-on", "note"}, exitFindings},
		{[]string{"--fail-on", "error"}, exitClean},
		{[]string{"--fail-on", "warning", "--exit-zero"}, exitClean},
		{[]string{"--fail-on", "warning", "--disable", "retry-amplification"}, exitClean},
	} {
		code, out, errOut := runCLI(t, dir, append(append([]string{"chain"}, c.flags...), args[1:]...)...)
		assert.Equal(t, c.code, code, "%v: %s", c.flags, errOut)
		if len(c.flags) == 2 {
			assert.Equal(t, view, out, "--fail-on changes no output")
		}
	}
	// A config's fail-on is the lint gate's; it does not make the view fail.
	d := t.TempDir()
	writeFile(t, d, "nginx.conf", literalProxyPass)
	writeFile(t, d, ".proxylint.yaml", "fail-on: note\n")
	code, _, errOut = runCLI(t, d, "chain", "nginx.conf")
	assert.Equal(t, exitClean, code, errOut)
	code, _, errOut = runCLI(t, d, "chain", "--fail-on", "warning", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
}

// TestRulesListDefaultsAndProducts: proxylint rules says which rules run by
// default and which configurations each reads; explain says it too.
func TestRulesListDefaultsAndProducts(t *testing.T) {
	code, out, errOut := runCLI(t, "", "rules")
	require.Equal(t, exitClean, code, errOut)
	// Columns, whatever their widths (the longest rule ID sets them).
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	cols := regexp.MustCompile(`\S(?:\S| \S)*`)
	var rows [][]string
	for _, l := range lines[:len(rules.All())+1] {
		rows = append(rows, cols.FindAllString(l, -1))
	}
	assert.Equal(t, []string{"RULE", "SEVERITY", "DEFAULT", "PRODUCTS", "SUMMARY"}, rows[0])
	for _, want := range [][]string{
		{"client-abort-ignored-broadly", "warning", "on", "nginx, angie", "*_ignore_client_abort on at http or server level: every abandoned request runs to the end and is logged as a success"},
		{"envoy-h1-unsafe-drain", "warning", "on", "envoy", "max_connection_duration closes HTTP/1 connections under idle clients: a request sent as it closes fails, and a POST is not retried"},
		{"gateway-policy-replaces", "warning", "on", "envoy-gateway", "a route's policy replaces its Gateway's, dropping a retry or timeout set only at the Gateway"},
		{"kube-invalid", "error", "on", "kubernetes", "a field of a Kubernetes resource has a value the platform refuses"},
		{"nginx-syntax", "error", "on", "nginx, angie", "nginx would refuse to read this configuration"},
		{"retry-timeout-write", "error", "on", "all", "a request that may write is retried after it may already have run"},
	} {
		assert.Contains(t, rows, want)
	}
	for i, r := range rules.All() {
		state := map[bool]string{false: "on", true: "off"}[r.Off]
		assert.Equal(t, []string{r.ID, r.Severity.String(), state}, rows[i+1][:3])
	}
	assert.Len(t, lines, len(rules.All())+5, "a line per rule, the header, a blank line and the three lines after")
	assert.True(t, strings.HasSuffix(out, "\nDEFAULT says whether a rule runs unless --enable, --disable, --only or .proxylint.yaml says otherwise;\n"+
		"PRODUCTS which configurations it reads (kubernetes: Istio, ingress-nginx, NGINX Inc's controller and Envoy Gateway manifests).\n"+
		"Run \"proxylint explain RULE\" for why a rule matters and how to fix what it finds.\n"), out)

	off := &rules.Rule{ID: "x", Off: true, Tags: []string{"load", "kubernetes"}}
	assert.Equal(t, "kubernetes", productsOf(off))
	assert.Equal(t, "envoy, kubernetes", productsOf(&rules.Rule{Products: []model.Product{model.Envoy, model.Istio, model.IngressNginx}, Check: func(*rules.Pass) {}}))

	code, out, _ = runCLI(t, "", "explain", "upstream-no-keepalive")
	require.Equal(t, exitClean, code)
	assert.True(t, strings.HasSuffix(out, "\nSeverity: warning\nDefault: on\nProducts: nginx, angie\n"), out)
}

// TestInitTargetIsAHint: proxylint init writes the nginx on PATH as a
// commented hint, never as the target, and says the file is the default.
func TestInitTargetIsAHint(t *testing.T) {
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "nginx"), []byte("#!/bin/sh\necho 'nginx version: nginx/1.27.3' >&2\n"), 0o755))
	t.Setenv("PATH", bin)
	dir := t.TempDir()
	code, out, errOut := runCLI(t, dir, "init")
	require.Equal(t, exitClean, code, errOut)
	assert.Empty(t, out)
	assert.Equal(t, "proxylint: wrote .proxylint.yaml; every setting in it is the default until you edit it (set target: to the releases production runs)\n", errOut)
	b, err := os.ReadFile(filepath.Join(dir, ".proxylint.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "\n# This machine runs nginx:1.27.3 (nginx -v on the PATH). Name it only if\n")
	assert.Contains(t, string(b), "\n# target: nginx:1.27.3\n")
	assert.NotRegexp(t, `(?m)^target:`, string(b))

	// Linted with the file, a configuration gets the findings of every
	// release from 1.18, as without it, not those of 1.27.3 alone.
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	_, with, _ := runCLI(t, dir, "--no-color", "nginx.conf")
	assert.Contains(t, with, "linted for nginx 1.18 or newer")
	_, pinned, _ := runCLI(t, dir, "--no-color", "--target", "nginx:1.27.3", "nginx.conf")
	assert.NotEqual(t, pinned, with)
}

// TestReadCountsAgreeWithFindings: "N includes not followed" counts the
// includes the findings name, never the note that a fragment was linted
// through the nginx.conf above it.
func TestReadCountsAgreeWithFindings(t *testing.T) {
	dir := dirWithGitMarker(t)
	writeFile(t, dir, "nginx.conf", "events {}\nhttp {\n    upstream api { server 10.0.0.1:8000; keepalive 16; }\n    include conf.d/*.conf;\n}\n")
	writeFile(t, dir, "conf.d/api.conf", "server {\n    listen 80;\n    location / { proxy_pass http://api; }\n}\n")
	code, out, errOut := runCLI(t, dir, "--no-config", "--no-color", "--only", "nginx-include", "--fail-on", "note", "conf.d/api.conf")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Equal(t, "conf.d/api.conf: note: linted through nginx.conf, which includes this file (found in the directories above it; name entry-points in .proxylint.yaml to choose the main configuration) [nginx-include]\n"+
		"read 2 files (1 through includes), linted for nginx 1.18 or newer (--target names a release)\n"+
		"1 note\n", out)
	code, out, _ = runCLI(t, dir, "--no-config", "-f", "json", "conf.d/api.conf")
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, "\"read\": {\n    \"files\": 2,\n    \"included\": 1,\n    \"includes_not_followed\": 0\n  },")

	// An include that is not followed is counted, and named.
	writeFile(t, dir, "conf.d/api.conf", "server {\n    listen 80;\n    include snippets/missing.conf;\n    location / { proxy_pass http://api; }\n}\n")
	code, out, _ = runCLI(t, dir, "--no-config", "--no-color", "--only", "nginx-include", "conf.d/api.conf")
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, "conf.d/api.conf:3:13: warning: include \"snippets/missing.conf\" was not found next to this fragment")
	assert.True(t, strings.HasSuffix(out, "\nread 1 file (1 include not followed), linted for nginx 1.18 or newer (--target names a release)\n1 warning\n"), out)
}

// TestIngressUpstreamIsTheServicePods: an Ingress's upstream holds the
// endpoints of its Service, one server per ready pod, which no manifest
// fixes: the message says so, never "(1 servers)".
func TestIngressUpstreamIsTheServicePods(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "shop.yaml", `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  annotations:
    nginx.ingress.kubernetes.io/proxy-next-upstream: "error timeout non_idempotent"
spec:
  ingressClassName: nginx
  rules:
    - host: shop.example.com
      http:
        paths:
          - path: /checkout
            pathType: Prefix
            backend:
              service:
                name: shop
                port:
                  number: 80
---
apiVersion: v1
kind: Service
metadata:
  name: shop
spec:
  selector:
    app: shop
  ports:
    - port: 80
      targetPort: 8080
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: 3
  selector:
    matchLabels:
      app: shop
  template:
    metadata:
      labels:
        app: shop
    spec:
      containers:
        - name: shop
          image: shop
          ports:
            - containerPort: 8080
`)
	code, out, errOut := runCLI(t, dir, "--no-config", "--no-color", "-q", "--only", "retry-timeout-write", "shop.yaml")
	assert.Equal(t, exitFindings, code, errOut)
	assert.True(t, strings.HasPrefix(out, `shop.yaml:6:54: error: nginx.ingress.kubernetes.io/proxy-next-upstream error timeout non_idempotent replays POST, PATCH and LOCK requests: after error and timeout the request may already have run, and nginx sends it again to the next server of upstream "default-shop-80" (one server per ready pod of Service default/shop), so one order or payment can be executed twice. [retry-timeout-write]
`), out)
}

// TestCIFormats: --format checkstyle, junit and gitlab, exactly, from one
// run; the GitLab report carries the fingerprints the JSON report and the
// baseline use.
func TestCIFormats(t *testing.T) {
	dir := dirWithGitMarker(t)
	writeFile(t, dir, "deploy/nginx.conf", literalProxyPass)
	sub := filepath.Join(dir, "deploy")
	args := []string{"--no-config", "--only", "upstream-no-keepalive,log-format-blind", "--format", "checkstyle=cs.xml", "--format", "junit=junit.xml", "--format", "gitlab=gl.json", "--format", "json", "nginx.conf"}
	code, out, errOut := runCLI(t, sub, args...)
	require.Equal(t, exitFindings, code, errOut)
	const keepalive = "proxy_pass to 127.0.0.1:8000 has no upstream block, so nginx opens a new connection for every request. Addresses used directly are never pooled, on any nginx version."
	const keepaliveFix = "declare upstream backend_127_0_0_1_8000 for 127.0.0.1:8000 and point proxy_pass at it, keeping the request it sends"
	const logFormat = "The default access log (format \"combined\") has no $request_time, $upstream_response_time and $upstream_status: a 499 does not show whether a slow backend made the client give up: neither the request's time nor the backend's is logged; what the backend answered is not logged, so a 502 or 504 that nginx made cannot be told for certain from one the backend sent, nor the status of each attempt of a retried request."
	const logFormatFix = "decide where the access log goes and log it with a format that has $request_time, $upstream_response_time and $upstream_status"
	xmlEsc := strings.NewReplacer(`"`, "&quot;").Replace
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(sub, name))
		require.NoError(t, err)
		return string(b)
	}
	// Files are named relative to the repository root, as in SARIF.
	assert.Equal(t, `<?xml version="1.0" encoding="UTF-8"?>
<checkstyle version="4.3">
  <file name="deploy/nginx.conf">
    <error line="2" column="1" severity="info" message="`+xmlEsc(logFormat)+`" source="proxylint.log-format-blind"/>
    <error line="6" column="13" severity="warning" message="`+keepalive+`" source="proxylint.upstream-no-keepalive"/>
  </file>
</checkstyle>
`, read("cs.xml"))
	assert.Equal(t, `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="proxylint" tests="2" failures="1" errors="0" time="0">
  <testsuite name="deploy/nginx.conf" tests="2" failures="1" errors="0" skipped="0" time="0">
    <testcase name="log-format-blind at deploy/nginx.conf:2:1" classname="deploy/nginx.conf" time="0">
      <system-out>deploy/nginx.conf:2:1: note: `+logFormat+` [log-format-blind]
    fix: `+logFormatFix+`</system-out>
    </testcase>
    <testcase name="upstream-no-keepalive at deploy/nginx.conf:6:13" classname="deploy/nginx.conf" time="0">
      <failure message="`+keepalive+`" type="warning">deploy/nginx.conf:6:13: warning: `+keepalive+` [upstream-no-keepalive]
    fix: `+keepaliveFix+`</failure>
    </testcase>
  </testsuite>
</testsuites>
`, read("junit.xml"))

	var doc struct {
		Findings []struct{ Fingerprint string } `json:"findings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Findings, 2)
	issue := func(rule, desc, sev, fp string, line int) string {
		d, _ := json.Marshal(desc)
		return `  {
    "type": "issue",
    "check_name": "` + rule + `",
    "description": ` + string(d) + `,
    "categories": [
      "Bug Risk"
    ],
    "severity": "` + sev + `",
    "fingerprint": "` + fp + `",
    "location": {
      "path": "deploy/nginx.conf",
      "lines": {
        "begin": ` + strconv.Itoa(line) + `
      }
    }
  }`
	}
	assert.Equal(t, "[\n"+issue("log-format-blind", logFormat+" Fix: "+logFormatFix, "info", doc.Findings[0].Fingerprint, 2)+",\n"+
		issue("upstream-no-keepalive", keepalive+" Fix: "+keepaliveFix, "major", doc.Findings[1].Fingerprint, 6)+"\n]\n", read("gl.json"))

	// --fail-on moves the JUnit threshold: with note, both fail.
	code, out, _ = runCLI(t, sub, "--no-config", "--only", "upstream-no-keepalive,log-format-blind", "--fail-on", "note", "-f", "junit", "nginx.conf")
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, `<testsuites name="proxylint" tests="2" failures="2" errors="0" time="0">`)
	// A clean run: the file passes.
	writeFile(t, sub, "clean.conf", "events {}\nhttp {}\n")
	code, out, _ = runCLI(t, sub, "--no-config", "--disable", "log-format-blind", "-f", "junit", "clean.conf")
	assert.Equal(t, exitClean, code)
	assert.Equal(t, `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="proxylint" tests="1" failures="0" errors="0" time="0">
  <testsuite name="deploy/clean.conf" tests="1" failures="0" errors="0" skipped="0" time="0">
    <testcase name="no findings in deploy/clean.conf" classname="deploy/clean.conf" time="0"></testcase>
  </testsuite>
</testsuites>
`, out)
}

// TestFailedRunWritesSARIF: a run that cannot lint (a bad flag, a bad
// .proxylint.yaml, a file it cannot read) still writes the SARIF asked for,
// with the invocation unsuccessful and the error as its notification, so
// that a CI step uploading it finds it.
func TestFailedRunWritesSARIF(t *testing.T) {
	type notification struct {
		Level   string
		Message struct{ Text string }
	}
	var doc struct {
		Runs []struct {
			Invocations []struct {
				ExecutionSuccessful        bool
				ToolExecutionNotifications []notification
			}
			Results []json.RawMessage
		}
	}
	for _, c := range []struct {
		name, config string
		args         []string
		want         string
	}{
		{"bad flag", "", []string{"--bogus", "--format", "sarif=out.sarif", "nginx.conf"}, "flag provided but not defined: --bogus."},
		{"bad flag, --output", "", []string{"--format", "sarif", "--output=out.sarif", "--fail-on", "fatal", "nginx.conf"}, "--fail-on: unknown severity \"fatal\" (want error, warning or note)."},
		{"bad configuration", "rules:\n  disabel: [x]\n", []string{"-f", "text", "-f", "sarif=out.sarif", "nginx.conf"}, ".proxylint.yaml:2:3: rules: unknown key \"disabel\"; the keys are disable, enable, severity."},
		{"unreadable file", "", []string{"--format=sarif=out.sarif", "absent.conf"}, "cannot read absent.conf: no such file or directory."},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "nginx.conf", literalProxyPass)
			if c.config != "" {
				writeFile(t, dir, ".proxylint.yaml", c.config)
			}
			code, _, errOut := runCLI(t, dir, c.args...)
			assert.Equal(t, exitError, code, errOut)
			b, err := os.ReadFile(filepath.Join(dir, "out.sarif"))
			require.NoError(t, err, errOut)
			require.NoError(t, json.Unmarshal(b, &doc))
			require.Len(t, doc.Runs, 1)
			inv := doc.Runs[0].Invocations
			require.Len(t, inv, 1)
			assert.False(t, inv[0].ExecutionSuccessful)
			require.NotEmpty(t, inv[0].ToolExecutionNotifications)
			n := inv[0].ToolExecutionNotifications[len(inv[0].ToolExecutionNotifications)-1]
			assert.Equal(t, "error", n.Level)
			assert.Equal(t, c.want, n.Message.Text)
		})
	}
	// Nothing is written where no SARIF was asked for.
	dir := t.TempDir()
	code, _, _ := runCLI(t, dir, "--bogus", "--format", "json=out.json", "x.conf")
	assert.Equal(t, exitError, code)
	assert.NoFileExists(t, filepath.Join(dir, "out.json"))
	// The command line as written: after "--" are paths.
	assert.Equal(t, []string{"a.sarif", "", "b.sarif"}, sarifTargets([]string{"-f", "sarif=a.sarif", "--format", "sarif", "--format=sarif=b.sarif", "-format", "json", "--", "--format", "sarif=d.sarif"}))
	assert.Equal(t, []string{"o.sarif"}, sarifTargets([]string{"--output", "o.sarif", "--format", "sarif", "x.conf"}))
}
