package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readProfile reads a pprof profile (a gzip-compressed protocol buffer)
// and returns its uncompressed bytes, in which the string table's words
// (sample types, function names) can be looked for.
func readProfile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(b))
	require.NoError(t, err, "%s is not a gzip-compressed profile", path)
	raw, err := io.ReadAll(zr)
	require.NoError(t, err)
	require.NotEmpty(t, raw)
	return raw
}

func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, out, errOut := runCLI(t, dir, "--no-config", "--cpuprofile", "cpu.pprof", "--memprofile", "mem.pprof", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Contains(t, out, "nginx.conf:6:13: warning:", "the run lints as without the flags")
	assert.Empty(t, errOut)
	cpu := readProfile(t, filepath.Join(dir, "cpu.pprof"))
	assert.Contains(t, string(cpu), "cpu", "a CPU profile's sample type")
	assert.Contains(t, string(cpu), "nanoseconds")
	mem := readProfile(t, filepath.Join(dir, "mem.pprof"))
	for _, w := range []string{"alloc_space", "inuse_space", "github.com/proxylint/proxylint/"} {
		assert.Contains(t, string(mem), w, "the heap profile holds %s", w)
	}
	for _, name := range []string{"cpu.pprof", "mem.pprof"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular())
		assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	}
	left, err := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file is left behind")
}

// TestProfilesOfAFailedRun: the run a user wants to send a profile of may
// be one that stops, on a budget or a broken file.
func TestProfilesOfAFailedRun(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "broken.conf", "server {\n    listen 80\n}\n")
	code, _, errOut := runCLI(t, dir, "--no-config", "--cpuprofile", "cpu.pprof", "--memprofile", "mem.pprof", "broken.conf")
	assert.Equal(t, exitError, code, errOut)
	readProfile(t, filepath.Join(dir, "cpu.pprof"))
	readProfile(t, filepath.Join(dir, "mem.pprof"))
}

func TestProfileOfChain(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, out, errOut := runCLI(t, dir, "chain", "--no-config", "--cpuprofile", "cpu.pprof", "--memprofile", "mem.pprof", "nginx.conf")
	assert.Equal(t, exitClean, code, errOut)
	assert.NotEmpty(t, out)
	readProfile(t, filepath.Join(dir, "cpu.pprof"))
	readProfile(t, filepath.Join(dir, "mem.pprof"))
}

// TestProfileIsReplacedWhole: a profile is written as a report is
// (resolveDestination, writeDestination): the file at its path is replaced
// through a temporary file, so another name for the old file keeps the old
// content, and a symbolic link inside the tree leads where it points, whose
// file is replaced in turn, the link kept.
func TestProfileIsReplacedWhole(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	writeFile(t, dir, "old.txt", "the old profile\n")
	require.NoError(t, os.Link(filepath.Join(dir, "old.txt"), filepath.Join(dir, "cpu.pprof")))
	writeFile(t, dir, "target.pprof", "the old heap profile\n")
	require.NoError(t, os.Link(filepath.Join(dir, "target.pprof"), filepath.Join(dir, "target-other-name.txt")))
	require.NoError(t, os.Symlink("target.pprof", filepath.Join(dir, "mem.pprof")))
	code, _, errOut := runCLI(t, dir, "--no-config", "--cpuprofile", "cpu.pprof", "--memprofile", "mem.pprof", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
	readProfile(t, filepath.Join(dir, "cpu.pprof"))
	readProfile(t, filepath.Join(dir, "target.pprof"))
	for name, want := range map[string]string{"old.txt": "the old profile\n", "target-other-name.txt": "the old heap profile\n"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, want, string(b), name)
	}
	fi, err := os.Lstat(filepath.Join(dir, "mem.pprof"))
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link is kept, as a report's is")
}

// TestProfileNeverReplacesAnInput: as with reports, a profile is never
// written over a file the run reads, nor over another output of the run.
func TestProfileNeverReplacesAnInput(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", "events {}\nhttp {\n    include site.conf;\n}\n")
	writeFile(t, dir, "site.conf", "server {\n    listen 80;\n}\n")
	for _, args := range [][]string{
		{"--cpuprofile", "nginx.conf", "nginx.conf"},
		{"--memprofile", "site.conf", "nginx.conf"},
	} {
		code, _, errOut := runCLI(t, dir, append([]string{"--no-config"}, args...)...)
		assert.Equal(t, exitError, code, args)
		assert.Contains(t, errOut, "which this run reads; refusing to overwrite it", args)
	}
	for name, want := range map[string]string{"nginx.conf": "events {}\nhttp {\n    include site.conf;\n}\n", "site.conf": "server {\n    listen 80;\n}\n"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, want, string(b), name)
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--cpuprofile", "p.out", "--memprofile", "p.out"}, "--cpuprofile and --memprofile both write to p.out"},
		{[]string{"--cpuprofile", "r.txt", "--output", "r.txt"}, "--format text and --cpuprofile both write to r.txt"},
		{[]string{"--memprofile", "r.sarif", "--format", "sarif=r.sarif"}, "--format sarif and --memprofile both write to r.sarif"},
		{[]string{"--memprofile", "b.json", "--write-baseline", "b.json"}, "--write-baseline and --memprofile both write to b.json"},
		{[]string{"--cpuprofile="}, "--cpuprofile=: name the file to write"},
	} {
		code, _, errOut := runCLI(t, dir, append(append([]string{"--no-config"}, c.args...), "nginx.conf")...)
		assert.Equal(t, exitError, code, c.args)
		assert.Contains(t, errOut, c.err, c.args)
	}
	left, err := filepath.Glob(filepath.Join(dir, "*.out"))
	require.NoError(t, err)
	assert.Empty(t, left, "a refused run writes no profile")
}

func TestHelpNamesTheProfiles(t *testing.T) {
	assert.Contains(t, usageText, "--cpuprofile FILE")
	assert.Contains(t, usageText, "--memprofile FILE")
}

func TestMemProfileAsked(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"--no-config", "nginx.conf"}, false},
		{[]string{"--memprofile", "m.out", "nginx.conf"}, true},
		{[]string{"-memprofile", "m.out"}, true},
		{[]string{"--memprofile=m.out"}, true},
		{[]string{"chain", "-memprofile=m.out"}, true},
		{[]string{"--cpuprofile", "memprofile.out"}, false},
		{[]string{"--memprofiles"}, false},
	} {
		if got := memProfileAsked(c.args); got != c.want {
			t.Errorf("memProfileAsked(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
