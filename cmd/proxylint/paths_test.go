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

// repoTree is a git checkout (a .git directory is what marks one) with a
// configuration two levels down.
func repoTree(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	writeFile(t, repo, "deploy/nginx/nginx.conf", literalProxyPass)
	return repo
}

// TestSARIFPathsFromSubdirectory: run from deploy/, the SARIF names the
// file as the repository has it (deploy/nginx/nginx.conf) against
// %SRCROOT%, which originalUriBaseIds places at the checkout; GitHub's
// ingestion rules of the SARIF multitool accept it. Text stays relative to
// where the user stands.
func TestSARIFPathsFromSubdirectory(t *testing.T) {
	repo := repoTree(t)
	sub := filepath.Join(repo, "deploy")
	code, _, errOut := runCLI(t, sub, args(only("upstream-no-keepalive"), "--no-color",
		"--format", "sarif=out.sarif", "--format", "github=gh.txt", "--format", "text", "nginx/nginx.conf")...)
	require.Empty(t, errOut)
	assert.Equal(t, exitFindings, code)
	b, err := os.ReadFile(filepath.Join(sub, "out.sarif"))
	require.NoError(t, err)
	doc := parseSARIF(t, string(b))
	require.Len(t, doc.Runs[0].Results, 1)
	loc := doc.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation
	assert.Equal(t, "deploy/nginx/nginx.conf", loc.URI)
	assert.Equal(t, "%SRCROOT%", loc.URIBaseID)
	var bases struct {
		Runs []struct {
			OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
		}
	}
	require.NoError(t, json.Unmarshal(b, &bases))
	assert.Equal(t, "file://"+filepath.ToSlash(repo)+"/", bases.Runs[0].OriginalURIBaseIDs["%SRCROOT%"].URI)

	gh, err := os.ReadFile(filepath.Join(sub, "gh.txt"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(gh), "::warning file=deploy/nginx/nginx.conf,line=6,col=13,"), string(gh))

	// Text for the person in deploy/.
	code, text, _ := runCLI(t, sub, args(only("upstream-no-keepalive"), "--no-color", "nginx/nginx.conf")...)
	assert.Equal(t, exitFindings, code)
	assert.True(t, strings.HasPrefix(text, "nginx/nginx.conf:6:13: warning:"), text)

	// An absolute path on the command line, from a directory outside
	// the configuration's, still yields the repository path.
	_, out, _ := runCLI(t, filepath.Join(repo, "deploy", "nginx"), args(only("upstream-no-keepalive"), "--format", "sarif",
		filepath.Join(repo, "deploy", "nginx", "nginx.conf"))...)
	assert.Equal(t, "deploy/nginx/nginx.conf", parseSARIF(t, out).Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI)

	// --root names another root.
	_, out, _ = runCLI(t, sub, args(only("upstream-no-keepalive"), "--root", ".", "--format", "sarif", "nginx/nginx.conf")...)
	assert.Equal(t, "nginx/nginx.conf", parseSARIF(t, out).Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI)

	validateWithMultitool(t, map[string][]byte{"subdir.sarif": b})
}

// validateWithMultitool runs the SARIF multitool with GitHub's ingestion
// rules on the documents and fails the test on any error or warning.
func validateWithMultitool(t *testing.T, docs map[string][]byte) {
	t.Helper()
	tool := requireTool(t, "Sarif.Multitool", os.Getenv("PROXYLINT_SARIF_MULTITOOL"))
	dir := t.TempDir()
	var files []string
	for name, b := range docs {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
		files = append(files, name)
	}
	b := runMultitool(t, tool, dir, files)
	var log struct {
		Runs []struct {
			Invocations []struct{ ExecutionSuccessful bool }
			Results     []struct {
				RuleID, Level string
				Message       struct{ Text, ID string }
			}
		}
	}
	require.NoError(t, json.Unmarshal(b, &log))
	require.NotEmpty(t, log.Runs)
	for _, run := range log.Runs {
		for _, inv := range run.Invocations {
			assert.True(t, inv.ExecutionSuccessful)
		}
		for _, r := range run.Results {
			if r.Level == "error" || r.Level == "warning" || r.Level == "" {
				t.Errorf("multitool: %s %s %s %s", r.Level, r.RuleID, r.Message.ID, r.Message.Text)
			}
		}
	}
}

// TestRepeatedFormats: one run writes SARIF to a file and text to
// standard output; conflicting destinations are usage errors.
func TestRepeatedFormats(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	base := only("upstream-no-keepalive")
	code, out, errOut := runCLI(t, dir, args(base, "--no-color", "--format", "sarif=results.sarif", "--format", "text", "nginx.conf")...)
	assert.Equal(t, exitFindings, code)
	assert.Empty(t, errOut)
	assert.True(t, strings.HasPrefix(out, "nginx.conf:6:13: warning: proxy_pass to 127.0.0.1:8000"), out)
	b, err := os.ReadFile(filepath.Join(dir, "results.sarif"))
	require.NoError(t, err)
	assert.Equal(t, "upstream-no-keepalive", parseSARIF(t, string(b)).Runs[0].Results[0].RuleID)

	// --output still takes the single report; with =FILE formats it
	// takes the one without a file.
	code, out, _ = runCLI(t, dir, args(base, "--format", "json", "--output", "r.json", "nginx.conf")...)
	assert.Equal(t, exitFindings, code)
	assert.Empty(t, out)
	j, err := os.ReadFile(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	assert.Contains(t, string(j), `"rule": "upstream-no-keepalive"`)
	code, out, _ = runCLI(t, dir, args(base, "--format", "github=gh.txt", "--format", "json", "--output", "r2.json", "nginx.conf")...)
	assert.Equal(t, exitFindings, code)
	assert.Empty(t, out)
	j, err = os.ReadFile(filepath.Join(dir, "r2.json"))
	require.NoError(t, err)
	assert.Contains(t, string(j), `"rule": "upstream-no-keepalive"`)
	gh, err := os.ReadFile(filepath.Join(dir, "gh.txt"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(gh), "::warning file=nginx.conf,line=6,col=13,"), string(gh))

	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--format", "text", "--format", "json"}, "--format text and --format json both write to standard output; give one a file with --format NAME=FILE"},
		{[]string{"--format", "sarif=x", "--format", "json=x"}, "--format sarif and --format json both write to x; give each its own file"},
		{[]string{"--format", "sarif="}, "--format sarif=: name the file to write"},
		{[]string{"--format", "sraif=x"}, `--format "sraif": did you mean "sarif"?`},
	} {
		code, _, errOut := runCLI(t, dir, append(c.args, "nginx.conf")...)
		assert.Equal(t, exitError, code, c.args)
		assert.Contains(t, errOut, c.err)
	}
	// A usage error writes no report but the SARIF asked for, the failed
	// run's: no result, the error as its notification.
	x, err := os.ReadFile(filepath.Join(dir, "x"))
	require.NoError(t, err)
	failed := parseSARIF(t, string(x)).Runs[0]
	assert.Empty(t, failed.Results)
	require.Len(t, failed.Invocations, 1)
	require.Len(t, failed.Invocations[0].ToolExecutionNotifications, 1)
	assert.Equal(t, "--format sarif and --format json both write to x; give each its own file.", failed.Invocations[0].ToolExecutionNotifications[0].Message.Text)

	// proxylint chain takes the same form, with its own formats.
	code, out, errOut = runCLI(t, dir, "chain", "--format", "json=chain.json", "--format", "text", "--no-color", "nginx.conf")
	assert.Equal(t, exitClean, code, errOut)
	assert.Contains(t, out, "Path 1 of")
	c, err := os.ReadFile(filepath.Join(dir, "chain.json"))
	require.NoError(t, err)
	var doc struct{ Version int }
	require.NoError(t, json.Unmarshal(c, &doc))
	assert.Equal(t, 1, doc.Version)
	code, _, errOut = runCLI(t, dir, "chain", "--format", "text", "--format", "sarif=s.sarif", "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, `--format "sarif": want text or json`)
}
