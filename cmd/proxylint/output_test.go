package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const keepaliveConf = "events {}\nhttp {\n    upstream app { server 10.0.0.1:8000; }\n    server {\n        listen 80;\n        location / { proxy_pass http://app; }\n    }\n}\n"

func TestOutputRefusesToOverwriteAnInput(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, "nginx.conf", keepaliveConf)
	writeFile(t, dir, "inc/site.conf", "# a site\n")
	writeFile(t, dir, "main.conf", "events {}\nhttp { include inc/site.conf; }\n")
	require.NoError(t, os.Symlink("nginx.conf", filepath.Join(dir, "link.conf")))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--output", "nginx.conf", "nginx.conf"}, "proxylint: --output: nginx.conf is an input, which this run reads; refusing to overwrite it\n"},
		{[]string{"--output", "link.conf", "nginx.conf"}, "proxylint: --output: link.conf is the input nginx.conf, which this run reads; refusing to overwrite it\n"},
		{[]string{"--output", "inc/site.conf", "main.conf"}, "proxylint: --output: inc/site.conf is an input, which this run reads; refusing to overwrite it\n"},
		{[]string{"--write-baseline", "nginx.conf", "nginx.conf"}, "proxylint: --write-baseline: nginx.conf is an input, which this run reads; refusing to overwrite it\n"},
	} {
		code, _, errOut := runCLI(t, dir, c.args...)
		assert.Equal(t, exitError, code, "%v", c.args)
		assert.Equal(t, c.want, errOut, "%v", c.args)
	}
	got, err := os.ReadFile(filepath.Join(dir, "nginx.conf"))
	require.NoError(t, err)
	assert.Equal(t, keepaliveConf, string(got))
	got, err = os.ReadFile(filepath.Join(dir, "inc/site.conf"))
	require.NoError(t, err)
	assert.Equal(t, "# a site\n", string(got))
}

// Runs that write the same report at once each leave a whole document:
// the report is renamed into place, never written through.
func TestOutputIsReplacedWhole(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, "nginx.conf", keepaliveConf)
	t.Chdir(dir)
	// A longer report first, so that writing through a shorter one would
	// leave its tail.
	writeFile(t, dir, "out.sarif", strings.Repeat("x", 1<<20))
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, errOut := runCLIHere("--format", "sarif", "--output", "out.sarif", "nginx.conf")
			assert.NotEqual(t, exitError, code, errOut)
		}()
	}
	wg.Wait()
	b, err := os.ReadFile(filepath.Join(dir, "out.sarif"))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc), "the report is one whole SARIF document")
	assert.Equal(t, "2.1.0", doc["version"])
	left, err := filepath.Glob(filepath.Join(dir, ".out.sarif.tmp-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file is left behind")
	fi, err := os.Stat(filepath.Join(dir, "out.sarif"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())

	// The old file is replaced, not written through: another name for it
	// (a hard link) keeps the old content.
	writeFile(t, dir, "old.txt", "the old report\n")
	require.NoError(t, os.Remove(filepath.Join(dir, "out.sarif")))
	require.NoError(t, os.Link(filepath.Join(dir, "old.txt"), filepath.Join(dir, "out.sarif")))
	code, _, errOut := runCLIHere("--format", "sarif", "--output", "out.sarif", "nginx.conf")
	assert.NotEqual(t, exitError, code, errOut)
	old, err := os.ReadFile(filepath.Join(dir, "old.txt"))
	require.NoError(t, err)
	assert.Equal(t, "the old report\n", string(old))

	// So is a baseline.
	writeFile(t, dir, "keep.txt", "kept\n")
	require.NoError(t, os.Link(filepath.Join(dir, "keep.txt"), filepath.Join(dir, "base.json")))
	code, _, errOut = runCLIHere("--write-baseline", "base.json", "nginx.conf")
	assert.NotEqual(t, exitError, code, errOut)
	kept, err := os.ReadFile(filepath.Join(dir, "keep.txt"))
	require.NoError(t, err)
	assert.Equal(t, "kept\n", string(kept))
	b, err = os.ReadFile(filepath.Join(dir, "base.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
}

// runCLIHere runs proxylint in the working directory, which may be done
// from several goroutines at once.
func runCLIHere(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr, noEnv)
	return code, stdout.String(), stderr.String()
}

func TestInitRefusesSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := writeFile(t, dir, "victim.txt", "keep me\n")
	require.NoError(t, os.Symlink("victim.txt", filepath.Join(dir, ".proxylint.yaml")))
	code, _, errOut := runCLI(t, dir, "init", "--force")
	assert.Equal(t, exitError, code)
	assert.Equal(t, "proxylint init: .proxylint.yaml is a symbolic link; refusing to write through it\n", errOut)
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep me\n", string(got))
}

// A file whose name begins with two dots lies inside the working
// directory: SARIF names it relative to the checkout.
func TestDotDotFileNameIsInside(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, "..x.conf", keepaliveConf)
	code, out, errOut := runCLI(t, dir, "--format", "sarif", "--kind", "nginx", filepath.Join(dir, "..x.conf"))
	assert.NotEqual(t, exitError, code, errOut)
	assert.Contains(t, out, `"uri": "..x.conf"`)
	// The only absolute URI is the one %SRCROOT% stands for.
	assert.Equal(t, 1, strings.Count(out, "file://"), "no artifact is named by an absolute URI")
	assert.Contains(t, out, `"uri": "file://`+filepath.ToSlash(dir)+`/"`)
}
