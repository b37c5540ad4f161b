package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const upgradeExamples = "../../fixtures/examples/upgrade"

// TestUpgradeGolden holds proxylint upgrade's text report on one example
// per product to fixtures/examples/upgrade/*.txt, byte for byte, with its
// exit code: 1 when a finding appears that is no finding of the release
// run now told elsewhere (legacy.conf: nginx 1.30 refuses "ssl on";
// angie.conf: a host Angie 1.12 now resolves is proxied unpooled;
// traefik.yaml: Traefik 3.7 reads the retried statuses and sends a POST
// again), else 0.
func TestUpgradeGolden(t *testing.T) {
	dir, err := filepath.Abs(upgradeExamples)
	require.NoError(t, err)
	for _, c := range []struct {
		file, from, to string
		code           int
	}{
		{"nginx.conf", "nginx:1.28", "nginx:1.30", exitClean},
		{"legacy.conf", "nginx:1.24", "nginx:1.30", exitFindings},
		{"angie.conf", "angie:1.11", "angie:1.12", exitFindings},
		{"envoy.yaml", "envoy:1.30", "envoy:1.32", exitClean},
		{"istio.yaml", "istio:1.23", "istio:1.24", exitClean},
		{"traefik.yaml", "traefik:3.6", "traefik:3.7", exitFindings},
	} {
		t.Run(c.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(c.file, filepath.Ext(c.file))+".txt"))
			require.NoError(t, err)
			code, out, errOut := runCLI(t, dir, "upgrade", "--no-config", "--no-color", "--from", c.from, "--to", c.to, c.file)
			assert.Equal(t, string(want), out)
			assert.Empty(t, errOut)
			assert.Equal(t, c.code, code)
		})
	}
}

// TestUpgradeJSONGolden: the JSON report of the nginx example
// (docs/json-format.md), through the flag spelling of the command.
func TestUpgradeJSONGolden(t *testing.T) {
	dir, err := filepath.Abs(upgradeExamples)
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(dir, "nginx.json"))
	require.NoError(t, err)
	code, out, errOut := runCLI(t, dir, "--no-config", "--target", "nginx:1.28", "--upgrade-to", "nginx:1.30", "--format", "json", "nginx.conf")
	require.Empty(t, errOut)
	assert.Equal(t, exitClean, code)
	version := strings.TrimPrefix(buildVersion(), "v")
	assert.Equal(t, strings.Replace(string(want), `"version": "(devel)"`, `"version": "`+version+`"`, 1), out)
	var doc struct {
		Changes []struct {
			Change, File string
			Line         int
		}
		Summary struct{ Changes, Appear, Disappear int }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "nginx-upstream-keepalive", doc.Changes[0].Change)
	assert.Equal(t, 24, doc.Changes[0].Line)
	assert.Equal(t, len(doc.Changes), doc.Summary.Changes)
}

// TestUpgradeSpellings: the subcommand and the flag give the same report;
// --from and --target are the same flag there, --to and --upgrade-to.
func TestUpgradeSpellings(t *testing.T) {
	dir, err := filepath.Abs(upgradeExamples)
	require.NoError(t, err)
	_, want, _ := runCLI(t, dir, "upgrade", "--no-config", "--no-color", "--from", "envoy:1.30", "--to", "envoy:1.32", "envoy.yaml")
	for _, args := range [][]string{
		{"--no-config", "--no-color", "--target", "envoy:1.30", "--upgrade-to", "envoy:1.32", "envoy.yaml"},
		{"--no-config", "--no-color", "--target=envoy:1.30", "--upgrade-to=envoy:1.32", "envoy.yaml"},
		{"upgrade", "--no-config", "--no-color", "--target", "envoy:1.30", "--upgrade-to", "envoy:1.32", "envoy.yaml"},
		{"upgrade", "envoy.yaml", "--no-config", "--no-color", "-from", "envoy:1.30", "-to=envoy:1.32"},
	} {
		code, out, errOut := runCLI(t, dir, args...)
		assert.Equal(t, exitClean, code, "%v: %s", args, errOut)
		assert.Equal(t, want, out, "%v", args)
	}
}

// TestUpgradeDowngrade: going back says what the downgrade undoes, with
// before and after swapped and what gives the newer behaviour on the
// older release.
func TestUpgradeDowngrade(t *testing.T) {
	dir, err := filepath.Abs(upgradeExamples)
	require.NoError(t, err)
	code, out, errOut := runCLI(t, dir, "upgrade", "--no-config", "--no-color", "--from", "nginx:1.30", "--to", "nginx:1.28", "nginx.conf")
	require.Empty(t, errOut)
	assert.Contains(t, out, `  keepalive in upstream blocks without one: default changed in nginx 1.29.7; going back to nginx:1.28 undoes it
    before: keepalive 32 local: up to 32 idle connections per worker, each reused only by the location that opened it
    after:  no pool: every request opens a new connection
    to keep the old behaviour: keepalive 32; (nginx before 1.29.7 has no "local": its pool is shared by every location)
`)
	assert.Contains(t, out, "Findings that appear on nginx:1.28\n")
	// The findings 1.28 has and 1.30 does not come back: upstream "app"
	// opens a connection per request again.
	assert.Contains(t, out, `nginx.conf:5:5: warning: upstream "app" has no keepalive directive, so every request opens a new connection on nginx:1.28`)
	assert.Equal(t, exitFindings, code)
}

// TestUpgradeNothingChanges: two releases the model does not tell apart.
func TestUpgradeNothingChanges(t *testing.T) {
	dir, err := filepath.Abs(upgradeExamples)
	require.NoError(t, err)
	code, out, errOut := runCLI(t, dir, "upgrade", "--no-config", "--no-color", "--from", "nginx:1.30", "--to", "nginx:1.30.2", "nginx.conf")
	require.Empty(t, errOut)
	assert.Equal(t, "Upgrade nginx:1.30 → nginx:1.30.2\n\nNothing changes for these configurations that proxylint models.\n\n0 changes in behaviour, 0 findings appear, 0 findings disappear\n", out)
	assert.Equal(t, exitClean, code)
}

// TestUpgradeUsage: what cannot be compared is refused with a reason,
// exit 2.
func TestUpgradeUsage(t *testing.T) {
	dir, err := filepath.Abs(upgradeExamples)
	require.NoError(t, err)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"upgrade", "--no-config", "nginx.conf"}, "name the release to upgrade to, as in --to nginx:1.30"},
		{[]string{"upgrade", "--no-config", "--to", "nginx:1.30", "nginx.conf"}, "--to nginx:1.30: name the release run now with --from, as in --from nginx:1.28"},
		{[]string{"upgrade", "--no-config", "--from", "nginx", "--to", "nginx:1.30", "nginx.conf"}, "--from nginx: name the one release run now, as in nginx:1.28"},
		{[]string{"upgrade", "--no-config", "--from", "nginx:1.28", "--to", "nginx", "nginx.conf"}, "--to nginx: name the release to upgrade to, as in nginx:1.30, or nginx:newest"},
		{[]string{"upgrade", "--no-config", "--from", "nginx:1.28", "--to", "nginx:1.30", "--to", "angie:1.12", "nginx.conf"}, "--to angie:1.12: a second release for nginx configurations"},
		{[]string{"upgrade", "--no-config", "--from", "nginx:1.28", "--from", "envoy:1.31", "--to", "nginx:1.30", "nginx.conf"}, "--from envoy:1.31: name the release to upgrade envoy to with --to"},
		{[]string{"upgrade", "--no-config", "--from", "nginx:1.28", "--target", "nginx:1.26", "--to", "nginx:1.30", "nginx.conf"}, "--target nginx:1.26 and --from both name"},
		{[]string{"upgrade", "--no-config", "--from", "nginx:1.28", "--to", "nginx:1.30", "--format", "sarif", "nginx.conf"}, `--format "sarif": want text or json`},
		{[]string{"upgrade", "--no-config", "--from", "nginx:1.28", "--to", "nginx:1.30", "--fix", "nginx.conf"}, "--fix does not apply to an upgrade comparison"},
		{[]string{"upgrade", "--no-config", "--from", "nginx:1.28", "--to"}, "flag needs an argument: -to"},
		{[]string{"upgrade", "--no-config", "--from", "nginx:9.1", "--to", "nginx:1.30", "nginx.conf"}, "--from: target \"nginx:9.1\": proxylint models nginx"},
	} {
		code, out, errOut := runCLI(t, dir, c.args...)
		assert.Equal(t, exitError, code, "%v", c.args)
		assert.Empty(t, out, "%v", c.args)
		assert.Contains(t, errOut, c.want, "%v", c.args)
	}
}

// TestUpgradeFromConfigTarget: without --from, the target of
// .proxylint.yaml is the release run now.
func TestUpgradeFromConfigTarget(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(upgradeExamples, "envoy.yaml"))
	require.NoError(t, err)
	writeFile(t, dir, "envoy.yaml", string(src))
	writeFile(t, dir, ".proxylint.yaml", "target: envoy:1.30\n")
	want, err := os.ReadFile(filepath.Join(upgradeExamples, "envoy.txt"))
	require.NoError(t, err)
	code, out, errOut := runCLI(t, dir, "upgrade", "--no-color", "--to", "envoy:1.32", "envoy.yaml")
	require.Empty(t, errOut)
	assert.Equal(t, string(want), out)
	assert.Equal(t, exitClean, code)
}

// TestUpgradeFailOn: the exit code follows --fail-on: the refusal nginx
// 1.30 brings is an error, so --fail-on error still fails, and an
// appearing warning passes it.
func TestUpgradeFailOn(t *testing.T) {
	dir, err := filepath.Abs(upgradeExamples)
	require.NoError(t, err)
	code, _, _ := runCLI(t, dir, "upgrade", "--no-config", "--from", "nginx:1.24", "--to", "nginx:1.30", "--fail-on", "error", "legacy.conf")
	assert.Equal(t, exitFindings, code)
	code, _, _ = runCLI(t, dir, "upgrade", "--no-config", "--from", "angie:1.11", "--to", "angie:1.12", "--fail-on", "error", "angie.conf")
	assert.Equal(t, exitClean, code)
}

// TestUpgradeStdin: standard input is read once and compared for both
// releases.
func TestUpgradeStdin(t *testing.T) {
	dir, err := filepath.Abs(upgradeExamples)
	require.NoError(t, err)
	src, err := os.ReadFile(filepath.Join(dir, "envoy.yaml"))
	require.NoError(t, err)
	t.Chdir(dir)
	var stdout, stderr strings.Builder
	code := runIO([]string{"upgrade", "--no-config", "--no-color", "--from", "envoy:1.30", "--to", "envoy:1.32", "--stdin-filename", "envoy.yaml", "-"},
		strings.NewReader(string(src)), &stdout, &stderr, noEnv)
	want, err := os.ReadFile("envoy.txt")
	require.NoError(t, err)
	assert.Empty(t, stderr.String())
	assert.Equal(t, string(want), stdout.String())
	assert.Equal(t, exitClean, code)
}

// TestUpgradeHelp: the subcommand has its own help, which the lint help
// names.
func TestUpgradeHelp(t *testing.T) {
	code, out, _ := runCLI(t, "", "upgrade", "--help")
	assert.Equal(t, exitClean, code)
	assert.Equal(t, upgradeUsage, out)
	_, out, _ = runCLI(t, "", "--help")
	assert.Contains(t, out, "proxylint upgrade --from RELEASE --to RELEASE PATH...")
}
