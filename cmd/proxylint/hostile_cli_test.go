package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"
)

// The hooks' entries end the flags with "--": pre-commit appends the staged
// file names, and a file named "--exclude=*,.nginx" (which the nginx hook's
// files: pattern matches) must be linted, not taken for a flag that
// excludes everything.
func TestPreCommitEntryEndsFlags(t *testing.T) {
	src, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	require.NoError(t, err)
	var hooks []struct{ ID, Entry, Files string }
	require.NoError(t, yaml.Unmarshal(src, &hooks))
	require.Len(t, hooks, 4)
	for _, h := range hooks {
		assert.True(t, strings.HasSuffix(h.Entry, " --"), "%s: %q", h.ID, h.Entry)
	}
	nginxHook := hooks[0]
	require.Equal(t, "proxylint-nginx", nginxHook.ID)

	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	staged := []string{"--exclude=*,.nginx", "nginx.conf"}
	for _, name := range staged {
		writeFile(t, dir, name, literalProxyPass)
		require.True(t, regexp.MustCompile(nginxHook.Files).MatchString(name), "the hook passes %s", name)
	}
	entry := strings.Fields(nginxHook.Entry)
	require.Equal(t, "proxylint", entry[0])
	// The extra flags go before "--", where a user's args: would.
	args := append(append([]string{}, entry[1:len(entry)-1]...), "--no-color", "--target", "nginx:1.28", "--")
	args = append(args, staged...)
	code, out, errOut := runCLI(t, dir, args...)
	assert.Equal(t, exitFindings, code, "%s%s", out, errOut)
	assert.Contains(t, out, "--exclude=*,.nginx:6:13: warning:")
	assert.Contains(t, out, "nginx.conf:6:13: warning:")
}

func TestVerboseListsSkippedFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, "deploy/nginx.conf", literalProxyPass)
	writeFile(t, dir, "deploy/notes.txt", "a site\n")
	code, out, errOut := runCLI(t, dir, "--no-color", "--fail-on", "error", "--verbose", "deploy")
	assert.Equal(t, exitClean, code, errOut)
	assert.Equal(t, "proxylint: skipped deploy/notes.txt: not an nginx or Envoy configuration\n", errOut)
	assert.True(t, strings.HasSuffix(out, " (1 file skipped)\n"), out)

	code, out, errOut = runCLI(t, dir, "--format", "json", "--fail-on", "error", "deploy")
	assert.Equal(t, exitClean, code, errOut)
	assert.Empty(t, errOut, "without --verbose only the count")
	assert.Contains(t, out, `"skipped": 1`)
}

func TestNothingToLintExitsTwo(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "empty"), 0o755))
	writeFile(t, dir, "deploy/nginx.conf", literalProxyPass)
	for _, args := range [][]string{
		{"empty"},
		{"--exclude", "*", "deploy"},
	} {
		code, out, errOut := runCLI(t, dir, append([]string{"--no-color"}, args...)...)
		assert.Equal(t, exitError, code, "%v: %s%s", args, out, errOut)
		assert.Contains(t, out, "error: no nginx or Envoy configuration found in "+args[len(args)-1]+" [load-error]")
	}
}

// A FIFO given as the configuration file or the baseline is refused at
// once (it used to block for ever).
func TestSpecialFilesAsConfigAndBaseline(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	t.Chdir(dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", "fifo", "nginx.conf"}, "proxylint: --config: fifo: not a regular file (named pipe)\n"},
		{[]string{"--baseline", "fifo", "nginx.conf"}, "proxylint: baseline: fifo: not a regular file (named pipe) (write one with --write-baseline fifo)\n"},
		{[]string{"--baseline", "/dev/zero", "nginx.conf"}, "proxylint: baseline: /dev/zero: not a regular file (character device) (write one with --write-baseline /dev/zero)\n"},
		{[]string{"--kind", "envoy", "fifo"}, ""},
	} {
		done := make(chan [3]string, 1)
		go func() {
			code, out, errOut := runCLIHere(c.args...)
			done <- [3]string{string(rune('0' + code)), out, errOut}
		}()
		select {
		case r := <-done:
			assert.Equal(t, "2", r[0], "%v", c.args)
			if c.want != "" {
				assert.Equal(t, c.want, r[2], "%v", c.args)
			} else {
				assert.Contains(t, r[1], "fifo: error: cannot read fifo: not a regular file (named pipe) [load-error]")
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%v blocked", c.args)
		}
	}
}

// Positions count lines and columns in 32 bits, so one file is read up to
// 2 GiB less one byte; a larger --max-file-size is refused, not taken.
func TestMaxFileSizeFitsPositions(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	for _, c := range []struct {
		size string
		code int
	}{{"2G", exitError}, {"3G", exitError}, {"2147483648", exitError}, {"2147483647", exitFindings}, {"2047M", exitFindings}} {
		code, out, errOut := runCLI(t, dir, "--no-color", "--no-config", "--max-file-size", c.size, "nginx.conf")
		assert.Equal(t, c.code, code, "%s: %s%s", c.size, out, errOut)
		if c.code == exitError {
			assert.Contains(t, errOut, "--max-file-size: "+c.size+" is more than proxylint reads of one file (2G less one byte)")
		}
	}
}
