package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nestedConfigRepo is a repository with a .proxylint.yaml at its root and
// two nested below it, each over one copy of the same nginx.conf:
//
//	.proxylint.yaml               upstream-no-keepalive: error
//	edge/nginx.conf               (the root's)
//	nginx/.proxylint.yaml         upstream-no-keepalive: note
//	nginx/nginx.conf
//	nginx/legacy/.proxylint.yaml  upstream-no-keepalive disabled
//	nginx/legacy/nginx.conf
func nestedConfigRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	writeFile(t, root, ".proxylint.yaml", "rules:\n  severity:\n    upstream-no-keepalive: error\n")
	writeFile(t, root, "nginx/.proxylint.yaml", "rules:\n  severity:\n    upstream-no-keepalive: note\n")
	writeFile(t, root, "nginx/legacy/.proxylint.yaml", "rules:\n  disable: [upstream-no-keepalive]\n")
	for _, d := range []string{"edge", "nginx", "nginx/legacy"} {
		writeFile(t, root, d+"/nginx.conf", literalProxyPass)
	}
	return root
}

// keepaliveFindings runs proxylint in dir and lists its
// upstream-no-keepalive findings as "FILE:LINE SEVERITY".
func keepaliveFindings(t *testing.T, dir string, args ...string) (int, []string) {
	t.Helper()
	code, out, errOut := runCLI(t, dir, append([]string{"-f", "json"}, args...)...)
	var doc struct {
		Findings []struct {
			Rule, Severity, File string
			Line                 int
		} `json:"findings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), errOut)
	got := []string{}
	for _, f := range doc.Findings {
		if f.Rule == "upstream-no-keepalive" {
			got = append(got, fmt.Sprintf("%s:%d %s", f.File, f.Line, f.Severity))
		}
	}
	return code, got
}

// TestNearestConfigPerFile: each linted file is linted under the
// .proxylint.yaml nearest above it, up to the repository root, as ruff
// and shellcheck find theirs, whatever the working directory and however
// the file is named (in a directory walked, or by its path).
func TestNearestConfigPerFile(t *testing.T) {
	root := nestedConfigRepo(t)
	for _, c := range []struct {
		dir  string
		args []string
		code int
		want []string
	}{
		{"", []string{"."}, exitFindings, []string{"edge/nginx.conf:6 error", "nginx/nginx.conf:6 note"}},
		{"", []string{"edge/nginx.conf", "nginx/nginx.conf", "nginx/legacy/nginx.conf"}, exitFindings, []string{"edge/nginx.conf:6 error", "nginx/nginx.conf:6 note"}},
		{"", []string{"nginx"}, exitClean, []string{"nginx/nginx.conf:6 note"}},
		{"", []string{"nginx/legacy"}, exitClean, []string{}},
		{"nginx", []string{"."}, exitClean, []string{"nginx.conf:6 note"}},
		{"nginx", []string{"nginx.conf", "legacy/nginx.conf", "../edge/nginx.conf"}, exitFindings, []string{"../edge/nginx.conf:6 error", "nginx.conf:6 note"}},
		{"nginx/legacy", []string{"nginx.conf", "../../edge"}, exitFindings, []string{"../../edge/nginx.conf:6 error"}},
		{"edge", []string{"nginx.conf", "../nginx"}, exitFindings, []string{"../nginx/nginx.conf:6 note", "nginx.conf:6 error"}},
	} {
		code, got := keepaliveFindings(t, filepath.Join(root, c.dir), c.args...)
		assert.Equal(t, c.want, got, "in %s/: proxylint %v", c.dir, c.args)
		assert.Equal(t, c.code, code, "in %s/: proxylint %v", c.dir, c.args)
	}
}

// TestNearestConfigFlags: --config names one file for every linted file,
// and --no-config reads none, nested or not.
func TestNearestConfigFlags(t *testing.T) {
	root := nestedConfigRepo(t)
	code, got := keepaliveFindings(t, root, "--config", ".proxylint.yaml", ".")
	assert.Equal(t, exitFindings, code)
	assert.Equal(t, []string{"edge/nginx.conf:6 error", "nginx/legacy/nginx.conf:6 error", "nginx/nginx.conf:6 error"}, got)
	code, got = keepaliveFindings(t, filepath.Join(root, "nginx"), "--no-config", ".")
	assert.Equal(t, exitFindings, code)
	assert.Equal(t, []string{"legacy/nginx.conf:6 warning", "nginx.conf:6 warning"}, got)
}

// TestNearestConfigOutsideRepository: outside a repository the lookup goes
// up from a file's directory to the working directory, never above it, so
// that a .proxylint.yaml planted in a shared directory (/tmp) applies to
// nobody's files, while the one in the directory proxylint runs from still
// applies to the files below it.
func TestNearestConfigOutsideRepository(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, ".proxylint.yaml", "rules:\n  severity:\n    upstream-no-keepalive: error\n")
	writeFile(t, root, "sub/nginx.conf", literalProxyPass)
	writeFile(t, root, "sub/inner/nginx.conf", literalProxyPass)
	code, got := keepaliveFindings(t, root, "sub/nginx.conf", "sub")
	assert.Equal(t, exitFindings, code)
	assert.Equal(t, []string{"sub/inner/nginx.conf:6 error", "sub/nginx.conf:6 error"}, got)
	code, got = keepaliveFindings(t, filepath.Join(root, "sub"), "nginx.conf", "inner/nginx.conf")
	assert.Equal(t, exitFindings, code)
	assert.Equal(t, []string{"inner/nginx.conf:6 warning", "nginx.conf:6 warning"}, got, "the file above the working directory is not read")
}

// TestNearestConfigKeepsWhatOnlyAnotherGroupRead: a file read through an
// include by one group, under a .proxylint.yaml whose group does not read
// it, keeps the findings of the group that did: nothing goes silent
// because another configuration file governs the directory.
func TestNearestConfigKeepsWhatOnlyAnotherGroupRead(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	writeFile(t, root, ".proxylint.yaml", "rules:\n  severity:\n    upstream-no-keepalive: error\n")
	writeFile(t, root, "nginx.conf", "events {}\nhttp {\n    include nested/site.conf;\n}\n")
	writeFile(t, root, "nested/.proxylint.yaml", "rules:\n  severity:\n    upstream-no-keepalive: note\n")
	writeFile(t, root, "nested/site.conf", "server {\n    listen 80;\n    location / {\n        proxy_pass http://127.0.0.1:8000;\n    }\n}\n")
	writeFile(t, root, "nested/other.conf", literalProxyPass)
	code, got := keepaliveFindings(t, root, "nginx.conf", "nested/other.conf")
	assert.Equal(t, exitFindings, code)
	assert.Equal(t, []string{"nested/other.conf:6 note", "nested/site.conf:4 error"}, got)
}

// TestNearestConfigCountsSkippedOnce: the walks of the groups overlap (a
// nested directory is walked by its own group and by the one above it);
// what they leave out is counted, and told with --verbose, once.
func TestNearestConfigCountsSkippedOnce(t *testing.T) {
	root := nestedConfigRepo(t)
	writeFile(t, root, "nginx/legacy/notes.txt", "not a configuration\n")
	code, out, errOut := runCLI(t, root, "--no-color", "--verbose", ".")
	assert.Equal(t, exitFindings, code, errOut)
	// .git/, the three .proxylint.yaml and notes.txt.
	assert.Contains(t, out, "(5 files skipped)")
	assert.Equal(t, 1, strings.Count(errOut, "skipped nginx/legacy/notes.txt"), errOut)
}

// TestNearestConfigOneBaseline: one run reads one baseline; files that
// name different ones stop it with both names, unless --baseline names
// the one to read or --write-baseline the one to write.
func TestNearestConfigOneBaseline(t *testing.T) {
	root := nestedConfigRepo(t)
	writeFile(t, root, ".proxylint.yaml", "baseline: root-baseline.json\n")
	writeFile(t, root, "nginx/.proxylint.yaml", "baseline: nginx-baseline.json\n")
	code, out, errOut := runCLI(t, root, "--no-color", "edge", "nginx/nginx.conf")
	assert.Equal(t, exitError, code, out)
	assert.Equal(t, "proxylint: .proxylint.yaml and nginx/.proxylint.yaml name different baselines; a run reads one (name it with --baseline)\n", errOut)
	code, _, errOut = runCLI(t, root, "--no-color", "--write-baseline", "all.json", "edge", "nginx/nginx.conf")
	assert.Equal(t, exitClean, code, errOut)
	code, out, errOut = runCLI(t, root, "--no-color", "--baseline", "all.json", "edge", "nginx/nginx.conf")
	assert.Equal(t, exitClean, code, errOut)
	assert.NotContains(t, out, "upstream-no-keepalive")
}

// TestNearestConfigExcludedStaysExcluded: a directory that the
// configuration above excludes (vendor/, or --exclude) is not linted
// because a .proxylint.yaml of its own lies in it: a vendored project's
// configuration does not bring it back.
func TestNearestConfigExcludedStaysExcluded(t *testing.T) {
	root := nestedConfigRepo(t)
	writeFile(t, root, ".proxylint.yaml", "exclude: [vendor/]\n")
	writeFile(t, root, "vendor/lib/.proxylint.yaml", "fail-on: note\n")
	writeFile(t, root, "vendor/lib/nginx.conf", literalProxyPass)
	writeFile(t, root, "third_party/lib/.proxylint.yaml", "fail-on: note\n")
	writeFile(t, root, "third_party/lib/nginx.conf", literalProxyPass)
	code, got := keepaliveFindings(t, root, "--exclude", "third_party", ".")
	assert.Equal(t, exitFindings, code)
	assert.Equal(t, []string{"edge/nginx.conf:6 warning", "nginx/nginx.conf:6 note"}, got)
}
