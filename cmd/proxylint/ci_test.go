package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/rules"
)

// only returns the flags that turn off every rule but ids (and the
// suppression rules, which tests of suppressions need), so that tests do not
// depend on rules added later.
func only(ids ...string) []string {
	keep := map[string]bool{"unused-suppression": true, "invalid-suppression": true}
	for _, id := range ids {
		keep[id] = true
	}
	var off []string
	for _, r := range rules.All() {
		if !keep[r.ID] {
			off = append(off, r.ID)
		}
	}
	if len(off) == 0 {
		return nil
	}
	return []string{"--disable", strings.Join(off, ",")}
}

func args(a []string, more ...string) []string { return append(append([]string{}, a...), more...) }

// sarifOut is the part of proxylint's SARIF the CLI tests read.
type sarifOut struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Rules []struct{ ID string }
			}
		}
		Invocations []struct {
			ExecutionSuccessful        bool
			ToolExecutionNotifications []struct {
				Level   string
				Message struct{ Text string }
			}
		}
		Results []struct {
			RuleID    string
			RuleIndex int
			Level     string
			Message   struct{ Text string }
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct{ URI, URIBaseID string }
					Region           struct{ StartLine, StartColumn int }
				}
			}
			PartialFingerprints map[string]string
			Suppressions        []struct{ Kind, Justification string }
		}
	}
}

func parseSARIF(t *testing.T, out string) sarifOut {
	t.Helper()
	var doc sarifOut
	require.NoError(t, json.Unmarshal([]byte(out), &doc), "stdout holds nothing but the SARIF:\n%s", out)
	require.Len(t, doc.Runs, 1)
	return doc
}

func TestSARIFFormat(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, out, errOut := runCLI(t, dir, args(only("upstream-no-keepalive"), "--format", "sarif", "nginx.conf")...)
	assert.Equal(t, exitFindings, code)
	assert.Empty(t, errOut)
	doc := parseSARIF(t, out)
	run := doc.Runs[0]
	assert.Len(t, run.Tool.Driver.Rules, len(rules.All()), "every rule, enabled or not")
	require.Len(t, run.Results, 1)
	r := run.Results[0]
	assert.Equal(t, "upstream-no-keepalive", r.RuleID)
	assert.Equal(t, "upstream-no-keepalive", run.Tool.Driver.Rules[r.RuleIndex].ID)
	assert.Equal(t, "warning", r.Level)
	loc := r.Locations[0].PhysicalLocation
	assert.Equal(t, "nginx.conf", loc.ArtifactLocation.URI)
	assert.Equal(t, "%SRCROOT%", loc.ArtifactLocation.URIBaseID)
	assert.Equal(t, 6, loc.Region.StartLine)
	assert.Equal(t, 13, loc.Region.StartColumn)
	assert.True(t, run.Invocations[0].ExecutionSuccessful)
}

func TestSARIFCleanRunHasEmptyResults(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", "events {}\nhttp {}\n")
	code, out, _ := runCLI(t, dir, args(only(), "--format", "sarif", "nginx.conf")...)
	assert.Equal(t, exitClean, code)
	assert.Contains(t, out, `"results": []`)
	parseSARIF(t, out)
}

// TestSARIFUnreadableFile: a file that cannot be read is a result at line
// 1 (GitHub needs a region), a tool execution notification, and exit 2.
func TestSARIFUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := runCLI(t, dir, "--format", "sarif", "absent.conf")
	assert.Equal(t, exitError, code)
	doc := parseSARIF(t, out)
	run := doc.Runs[0]
	require.Len(t, run.Results, 1)
	assert.Equal(t, "load-error", run.Results[0].RuleID)
	assert.Equal(t, "absent.conf", run.Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI)
	assert.Equal(t, 1, run.Results[0].Locations[0].PhysicalLocation.Region.StartLine)
	inv := run.Invocations[0]
	assert.False(t, inv.ExecutionSuccessful)
	require.Len(t, inv.ToolExecutionNotifications, 1)
	assert.Equal(t, "error", inv.ToolExecutionNotifications[0].Level)
	assert.Contains(t, inv.ToolExecutionNotifications[0].Message.Text, "absent.conf")
}

func TestGitHubFormat(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, out, _ := runCLI(t, dir, args(only("upstream-no-keepalive"), "--format", "github", "nginx.conf")...)
	assert.Equal(t, exitFindings, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	assert.True(t, strings.HasPrefix(lines[0], "::warning file=nginx.conf,line=6,col=13,title=upstream-no-keepalive::proxy_pass to 127.0.0.1:8000 has no upstream block"), lines[0])
	assert.Contains(t, lines[0], "%0Afix: declare")
	assert.Equal(t, "1 warning", lines[1])
}

// suppressed is literalProxyPass with the finding suppressed, for a reason.
const suppressed = `events {}
http {
    server {
        listen 80;
        location / {
            # proxylint:ignore upstream-no-keepalive -- a local sidecar, one request a minute
            proxy_pass http://127.0.0.1:8000;
        }
    }
}
`

func TestSuppressionWithReason(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", suppressed)
	base := only("upstream-no-keepalive")

	code, out, _ := runCLI(t, dir, args(base, "--no-color", "nginx.conf")...)
	assert.Equal(t, exitClean, code, "a suppressed finding does not fail the run")
	assert.Equal(t, "no findings (1 suppressed)\n", out)

	code, out, _ = runCLI(t, dir, args(base, "--format", "sarif", "nginx.conf")...)
	assert.Equal(t, exitClean, code)
	res := parseSARIF(t, out).Runs[0].Results
	require.Len(t, res, 1, "suppressed findings stay in SARIF")
	require.Len(t, res[0].Suppressions, 1)
	assert.Equal(t, "inSource", res[0].Suppressions[0].Kind)
	assert.Equal(t, "a local sidecar, one request a minute", res[0].Suppressions[0].Justification)

	code, out, _ = runCLI(t, dir, args(base, "--format", "json", "nginx.conf")...)
	assert.Equal(t, exitClean, code)
	assert.Contains(t, out, `"reason": "a local sidecar, one request a minute"`)

	code, out, _ = runCLI(t, dir, args(base, "--no-color", "--no-inline-ignores", "nginx.conf")...)
	assert.Equal(t, exitFindings, code, "audits see through suppressions")
	assert.Contains(t, out, "nginx.conf:7:13: warning:")
}

func TestUnusedAndReasonlessSuppressions(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", strings.Replace(literalProxyPass, "        listen 80;\n",
		"        listen 80; # proxylint:ignore upstream-no-keepalive -- nothing here\n", 1))
	writeFile(t, dir, "bare.conf", strings.Replace(suppressed, " -- a local sidecar, one request a minute", "", 1))
	base := only("upstream-no-keepalive")

	code, out, _ := runCLI(t, dir, args(base, "--no-color", "nginx.conf")...)
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, "nginx.conf:4:20: note: proxylint:ignore upstream-no-keepalive suppresses nothing: upstream-no-keepalive reports no finding on line 4.")
	assert.Contains(t, out, "[unused-suppression]")

	code, _, _ = runCLI(t, dir, args(base, "bare.conf")...)
	assert.Equal(t, exitClean, code, "a reason is encouraged, not required")
	code, out, _ = runCLI(t, dir, args(base, "--no-color", "--require-reason", "bare.conf")...)
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, "bare.conf:6:13: error: proxylint:ignore upstream-no-keepalive gives no reason, and --require-reason demands one.")
}

func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, "deploy/nginx.conf", literalProxyPass)
	base := only("upstream-no-keepalive")

	writeFile(t, dir, ".proxylint.yaml", "rules:\n  disable: [upstream-no-keepalive]\n")
	code, _, _ := runCLI(t, filepath.Join(dir, "deploy"), args(base, "nginx.conf")...)
	assert.Equal(t, exitClean, code, "found by walking up")
	code, _, _ = runCLI(t, filepath.Join(dir, "deploy"), args(base, "--enable", "upstream-no-keepalive", "nginx.conf")...)
	assert.Equal(t, exitFindings, code, "flags beat the file")
	code, _, _ = runCLI(t, filepath.Join(dir, "deploy"), args(base, "--no-config", "nginx.conf")...)
	assert.Equal(t, exitFindings, code)

	writeFile(t, dir, ".proxylint.yaml", "fail-on: error\nrules:\n  severity:\n    upstream-no-keepalive: note\n")
	code, out, _ := runCLI(t, dir, args(base, "--no-color", "deploy/nginx.conf")...)
	assert.Equal(t, exitClean, code)
	assert.Contains(t, out, "deploy/nginx.conf:6:13: note:")
	code, _, _ = runCLI(t, dir, args(base, "--fail-on", "note", "deploy/nginx.conf")...)
	assert.Equal(t, exitFindings, code)

	writeFile(t, dir, ".proxylint.yaml", "target: nginx:1.28\nrules:\n  disabel: [x]\n")
	code, out, errOut := runCLI(t, dir, "deploy/nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Empty(t, out)
	assert.Equal(t, "proxylint: .proxylint.yaml:3:3: rules: unknown key \"disabel\"; the keys are disable, enable, severity\n", errOut)

	writeFile(t, dir, "other.yaml", "rules:\n  disable: [upstream-no-keepalive]\n")
	code, _, _ = runCLI(t, dir, args(base, "--config", "other.yaml", "deploy/nginx.conf")...)
	assert.Equal(t, exitClean, code, "--config names the file")
	code, _, errOut = runCLI(t, dir, "--config", "missing.yaml", "deploy/nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "missing.yaml")
}

func TestConfigRequireReasonAndExclude(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, "bare.conf", strings.Replace(suppressed, " -- a local sidecar, one request a minute", "", 1))
	writeFile(t, dir, "old/nginx.conf", literalProxyPass)
	writeFile(t, dir, ".proxylint.yaml", "require-reason: true\nexclude: [old/]\n")
	base := only("upstream-no-keepalive")
	code, _, _ := runCLI(t, dir, args(base, "bare.conf")...)
	assert.Equal(t, exitFindings, code)
	code, _, _ = runCLI(t, dir, args(base, "--require-reason=false", "bare.conf")...)
	assert.Equal(t, exitClean, code, "flags beat the file")
	code, out, _ := runCLI(t, dir, args(base, "--require-reason=false", "--no-color", ".")...)
	assert.Equal(t, exitClean, code, "old/ is excluded from the walk: %s", out)
	code, _, _ = runCLI(t, dir, args(base, "old/nginx.conf")...)
	assert.Equal(t, exitClean, code, "and when named")
}

func TestInit(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runCLI(t, dir, "init")
	assert.Equal(t, exitClean, code)
	assert.Contains(t, errOut, "wrote .proxylint.yaml")
	b, err := os.ReadFile(filepath.Join(dir, ".proxylint.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "fail-on: warning")

	code, _, errOut = runCLI(t, dir, "init")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "exists; --force overwrites it")
	code, _, _ = runCLI(t, dir, "init", "--force")
	assert.Equal(t, exitClean, code)

	code, out, _ := runCLI(t, dir, "init", "-")
	assert.Equal(t, exitClean, code)
	assert.Equal(t, string(b), out)

	// The file changes nothing: the target is commented out, the
	// release of the nginx on PATH a hint beside it.
	assert.NotRegexp(t, `(?m)^target:`, string(b))
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, withDefault, _ := runCLI(t, dir, "--no-color", "nginx.conf")
	code2, without, _ := runCLI(t, dir, "--no-color", "--no-config", "nginx.conf")
	assert.Equal(t, code2, code)
	assert.Equal(t, without, withDefault)
}

// insertAbove puts unrelated lines at the top of a configuration and into
// its http block: every line number below changes.
func insertAbove(src string) string {
	src = "# reviewed 2024-05-01\n\n" + src
	return strings.Replace(src, "http {\n", "http {\n    server_tokens off;\n    client_max_body_size 10m;\n", 1)
}

func fingerprints(t *testing.T, dir string, extra ...string) map[string]int {
	t.Helper()
	_, out, _ := runCLI(t, dir, args(extra, "--format", "sarif", "nginx.conf")...)
	fps := map[string]int{}
	for _, r := range parseSARIF(t, out).Runs[0].Results {
		fps[r.PartialFingerprints["proxylint/v1"]] = r.Locations[0].PhysicalLocation.Region.StartLine
	}
	return fps
}

// TestFingerprintsSurviveUnrelatedEdits: inserting lines above a finding
// moves it, and keeps its fingerprint.
func TestFingerprintsSurviveUnrelatedEdits(t *testing.T) {
	dir := t.TempDir()
	src := strings.Replace(literalProxyPass, "        location / {\n", "        location /b/ {\n            proxy_pass http://127.0.0.1:8001;\n        }\n        location / {\n", 1)
	writeFile(t, dir, "nginx.conf", src)
	base := only("upstream-no-keepalive")
	before := fingerprints(t, dir, base...)
	require.Len(t, before, 2)

	writeFile(t, dir, "nginx.conf", insertAbove(src))
	after := fingerprints(t, dir, base...)
	require.Len(t, after, 2)
	for fp, line := range before {
		moved, ok := after[fp]
		assert.True(t, ok, "fingerprint %s (line %d) survives", fp, line)
		assert.Equal(t, line+4, moved, "the finding moved down four lines")
	}
}

func TestBaseline(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	base := only("upstream-no-keepalive")

	code, out, errOut := runCLI(t, dir, args(base, "--no-color", "--write-baseline", "baseline.json", "nginx.conf")...)
	assert.Equal(t, exitClean, code, "everything recorded is known")
	assert.Equal(t, "proxylint: recorded 1 finding in baseline.json\n", errOut)
	assert.Equal(t, "no findings (1 known from the baseline)\n", out)

	// Legacy lines move; a new mistake appears.
	legacy := insertAbove(literalProxyPass)
	writeFile(t, dir, "nginx.conf", legacy)
	code, out, _ = runCLI(t, dir, args(base, "--no-color", "--baseline", "baseline.json", "nginx.conf")...)
	assert.Equal(t, exitClean, code, out)

	writeFile(t, dir, "nginx.conf", strings.Replace(legacy, "        location / {\n", "        location /new/ { proxy_pass http://127.0.0.1:9000; }\n        location / {\n", 1))
	code, out, _ = runCLI(t, dir, args(base, "--no-color", "--baseline", "baseline.json", "nginx.conf")...)
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, "127.0.0.1:9000")
	assert.NotContains(t, out, "127.0.0.1:8000 has no upstream")
	assert.Contains(t, out, "1 warning (1 known from the baseline)")

	code, out, _ = runCLI(t, dir, args(base, "--format", "json", "--baseline", "baseline.json", "nginx.conf")...)
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, `"known": 1`)

	// The configuration file can name the baseline.
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, ".proxylint.yaml", "baseline: baseline.json\n")
	code, out, _ = runCLI(t, dir, args(base, "--no-color", "nginx.conf")...)
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, "(1 known from the baseline)")

	code, _, errOut = runCLI(t, dir, args(base, "--baseline", "nope.json", "nginx.conf")...)
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "nope.json")
}

// A site whose upstream block lives in nginx.conf.
const (
	entryNginx = `events {}
http {
    upstream app { server 10.0.0.1:8000; keepalive 16; }
    server {
        listen 80;
        location /legacy/ { proxy_pass http://127.0.0.1:7000; }
        include conf.d/*.conf;
    }
}
`
	appFragment = `location / {
    proxy_pass http://app;
    proxy_http_version 1.0;
}
location /static/ {
    proxy_pass http://127.0.0.1:8080;
}
`
)

func TestEntryPoints(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, "deploy/conf.d/app.conf", appFragment)
	base := only("upstream-no-keepalive", "nginx-syntax", "nginx-include")

	// Alone, the fragment is read inside a server (no "not allowed here").
	code, out, _ := runCLI(t, dir, args(base, "--no-color", "deploy/conf.d/app.conf")...)
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, "deploy/conf.d/app.conf:6:5: warning: proxy_pass to 127.0.0.1:8080")
	assert.NotContains(t, out, "not allowed")
	assert.NotContains(t, out, "app.conf:3:", "alone, nobody knows that app is a pooled upstream block")

	// With the nginx.conf that includes it in the repository, it is found
	// and the fragment linted through it; its own findings are not reported.
	writeFile(t, dir, "deploy/nginx.conf", entryNginx)
	code, out, _ = runCLI(t, dir, args(base, "--no-color", "deploy/conf.d/app.conf")...)
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, "deploy/conf.d/app.conf:3:5: warning: proxy_http_version 1.0 defeats the keepalive pool of upstream \"app\"")
	assert.Contains(t, out, "deploy/conf.d/app.conf: note: linted through deploy/nginx.conf, which includes this file")
	assert.NotContains(t, out, "deploy/nginx.conf:6:")

	// Through its entry point: linted in context, and only its own
	// findings are reported, not those of nginx.conf (line 6).
	writeFile(t, dir, ".proxylint.yaml", "entry-points: [deploy/nginx.conf]\n")
	code, out, _ = runCLI(t, dir, args(base, "--no-color", "--format", "json", "deploy/conf.d/app.conf")...)
	assert.Equal(t, exitFindings, code)
	var doc struct {
		Findings []struct {
			Rule, File string
			Line       int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Findings, 2, out)
	assert.Equal(t, "deploy/conf.d/app.conf", doc.Findings[0].File)
	assert.Equal(t, 3, doc.Findings[0].Line, "through nginx.conf, proxy_http_version 1.0 defeats app's pool")
	assert.Equal(t, "deploy/conf.d/app.conf", doc.Findings[1].File)
	assert.Equal(t, 6, doc.Findings[1].Line)

	// Named together, everything is reported.
	code, out, _ = runCLI(t, dir, args(base, "--no-color", "deploy/nginx.conf", "deploy/conf.d/app.conf")...)
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, "deploy/nginx.conf:6:29: warning:")
}

// envoyUnknownFilter is an Envoy configuration with an HTTP filter
// proxylint does not know, which it reports as a note.
const envoyUnknownFilter = `static_resources:
  listeners:
  - name: edge
    address:
      socket_address: { address: 0.0.0.0, port_value: 8080 }
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: edge
          route_config:
            virtual_hosts:
            - name: all
              domains: ["*"]
              routes:
              - match: { prefix: "/" }
                route: { cluster: app }
          http_filters:
          - name: acme.filters.http.audit
            typed_config:
              "@type": type.googleapis.com/acme.audit.v1.Audit
          - name: envoy.filters.http.router
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
  clusters:
  - name: app
    connect_timeout: 1s
    load_assignment:
      cluster_name: app
      endpoints:
      - lb_endpoints:
        - endpoint: { address: { socket_address: { address: 10.0.0.1, port_value: 8000 } } }
`

// TestEnvoySuppression: a YAML comment on the line above an Envoy finding
// suppresses it, as in nginx files.
func TestEnvoySuppression(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "envoy.yaml", envoyUnknownFilter)
	base := args(only("envoy-unknown-extension"), "--fail-on", "note")
	code, out, errOut := runCLI(t, dir, args(base, "--format", "json", "envoy.yaml")...)
	require.Equal(t, exitFindings, code, "%s%s", out, errOut)
	var doc struct {
		Findings []struct {
			Rule   string
			Line   int
			Column int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Findings, 1, out)
	line := doc.Findings[0].Line

	lines := strings.Split(envoyUnknownFilter, "\n")
	indent := strings.Repeat(" ", doc.Findings[0].Column-1)
	lines = append(lines[:line-1], append([]string{indent + "# proxylint:ignore envoy-unknown-extension -- our own filter, reviewed on its own"}, lines[line-1:]...)...)
	writeFile(t, dir, "envoy.yaml", strings.Join(lines, "\n"))
	code, out, _ = runCLI(t, dir, args(base, "--no-color", "envoy.yaml")...)
	assert.Equal(t, exitClean, code, out)
	assert.Equal(t, "no findings (1 suppressed)\n", out)

	code, out, _ = runCLI(t, dir, args(base, "--format", "sarif", "envoy.yaml")...)
	assert.Equal(t, exitClean, code)
	res := parseSARIF(t, out).Runs[0].Results
	require.Len(t, res, 1)
	require.Len(t, res[0].Suppressions, 1)
	assert.Equal(t, "our own filter, reviewed on its own", res[0].Suppressions[0].Justification)
}

func TestTargetOfVersion(t *testing.T) {
	for out, want := range map[string]string{
		"nginx version: nginx/1.22.1\n":          "nginx:1.22.1",
		"nginx version: nginx/1.29.7 (Ubuntu)\n": "nginx:1.29.7",
		"nginx version: openresty/1.25.3.1\n":    "nginx",
		"Angie version: Angie/1.11.3\n":          "angie:1.11.3",
		"nginx: [emerg] something went wrong\n":  "nginx",
		"nginx version: nginx/1\n":               "nginx",
	} {
		assert.Equal(t, want, targetOfVersion(out), out)
	}
}
