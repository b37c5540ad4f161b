package main

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionFlag(t *testing.T) {
	for _, a := range [][]string{{"--version"}, {"version"}} {
		code, out, errOut := runCLI(t, "", a...)
		assert.Equal(t, exitClean, code)
		assert.Empty(t, errOut)
		assert.Equal(t, "proxylint "+buildVersion()+" ("+runtime.Version()+")\n", out)
	}
}

func TestVersionOf(t *testing.T) {
	settings := []debug.BuildSetting{{Key: "vcs.revision", Value: "962ec51abcdef0123456789"}, {Key: "vcs.modified", Value: "true"}}
	assert.Equal(t, "v0.2.0", versionOf(&debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}), "go install ...@v0.2.0")
	assert.Equal(t, "962ec51abcde+dirty", versionOf(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: settings}), "a checkout")
	assert.Equal(t, "962ec51abcde", versionOf(&debug.BuildInfo{Settings: settings[:1]}))
	assert.Equal(t, "(devel)", versionOf(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}))
}

// TestVersionOfBuiltBinary runs proxylint built from this checkout with VCS
// stamping off (the package's shared build) and on; the binary prints
// "(devel)" or its commit.
func TestVersionOfBuiltBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := proxylintBinary(t)
	got, err := boundedCommand(t, time.Minute, bin, "--version").Output()
	require.NoError(t, err)
	// Go stamps a module version only from VCS information.
	assert.True(t, strings.HasPrefix(string(got), "proxylint (devel) (go"), "%s", got)

	// From a git checkout, the version names the commit. The go command
	// recognises a .git directory, not a worktree's .git file: in a
	// worktree the build runs in a fresh clone of the current commit
	// (whose packages the build cache does not hold yet). The go command
	// runs git status, which with GIT_OPTIONAL_LOCKS=0 leaves the
	// checkout's index as it is.
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	rev, err := boundedCommand(t, time.Minute, "git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	checkout := root
	if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || !fi.IsDir() {
		checkout = filepath.Join(t.TempDir(), "clone")
		out, err := boundedCommand(t, time.Minute, "git", "clone", "-q", "--shared", root, checkout).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	stamped := filepath.Join(t.TempDir(), "proxylint")
	build := boundedCommand(t, buildTimeout, goBin, "build", "-buildvcs=true", "-o", stamped, "./cmd/proxylint")
	build.Dir = checkout
	build.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	got, err = boundedCommand(t, time.Minute, stamped, "--version").Output()
	require.NoError(t, err)
	assert.Contains(t, string(got), strings.TrimSpace(string(rev)))
}

func TestDidYouMean(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", "events {}\nhttp {}\n")
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"explian", "retry-timeout-write"}, `proxylint: unknown command "explian"; did you mean "explain"?`},
		{[]string{"rulse"}, `unknown command "rulse"; did you mean "rules"?`},
		{[]string{"--fromat", "json", "nginx.conf"}, "flag provided but not defined: --fromat; did you mean --format?"},
		{[]string{"--disable", "retry-timeout-writes", "nginx.conf"}, `unknown rule "retry-timeout-writes"; did you mean "retry-timeout-write"?`},
		{[]string{"--enable=upstream-no-keepalve", "nginx.conf"}, `did you mean "upstream-no-keepalive"?`},
		{[]string{"explain", "retry-timeout-writes"}, `proxylint explain: unknown rule "retry-timeout-writes"; did you mean "retry-timeout-write"?`},
	} {
		code, out, errOut := runCLI(t, dir, c.args...)
		assert.Equal(t, exitError, code, c.args)
		assert.Empty(t, out)
		assert.Contains(t, errOut, c.err)
	}
	// A file that happens to be called like a command is linted.
	writeFile(t, dir, "rulse", "events {}\nhttp {}\n")
	code, _, errOut := runCLI(t, dir, "--no-config", "rulse")
	assert.Equal(t, exitClean, code, errOut)
	// A word far from every command is taken for a path, as before.
	code, out, _ := runCLI(t, dir, "--no-color", "absent")
	assert.Equal(t, exitError, code)
	assert.Contains(t, out, "cannot read absent")
	require.NoError(t, os.Remove(filepath.Join(dir, "rulse")))
}

// TestGoInstallAtTagPrintsTag installs proxylint the way a user does,
// "go install github.com/proxylint/proxylint/cmd/proxylint@v0.2.0", from a
// module proxy on the disk that serves this checkout as v0.2.0 (and the
// dependencies from the local module cache), and runs --version.
func TestGoInstallAtTagPrintsTag(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	files, err := boundedCommand(t, time.Minute, "git", "-C", root, "ls-files", "-z", "--deduplicate", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	env, err := boundedCommand(t, time.Minute, goBin, "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	download := filepath.Join(strings.TrimSpace(string(env)), "cache", "download")

	const module, version = "github.com/proxylint/proxylint", "v0.2.0"
	tmp := t.TempDir()
	at := filepath.Join(tmp, "proxy", filepath.FromSlash(module), "@v")
	require.NoError(t, os.MkdirAll(at, 0o755))
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		src, err := os.ReadFile(filepath.Join(root, name))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree
		}
		require.NoError(t, err)
		w, err := zw.Create(module + "@" + version + "/" + name)
		require.NoError(t, err)
		_, err = w.Write(src)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(at, version+".zip"), buf.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(at, version+".mod"), gomod, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(at, version+".info"), []byte(`{"Version":"`+version+`","Time":"2026-12-01T00:00:00Z"}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(at, "list"), []byte(version+"\n"), 0o644))

	// Without -trimpath, as go test builds: the standard library comes
	// from the build cache; the dependencies, read from the scratch module
	// cache, and proxylint are compiled (a -trimpath build would compile
	// the standard library as well on a fresh build cache, and nothing on
	// a second run).
	gobin := filepath.Join(tmp, "bin")
	install := boundedCommand(t, buildTimeout, goBin, "install", module+"/cmd/proxylint@"+version)
	install.Dir = tmp
	install.Env = append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(filepath.Join(tmp, "proxy"))+",file://"+filepath.ToSlash(download),
		"GOSUMDB=off", "GOFLAGS=-modcacherw", "GOMODCACHE="+filepath.Join(tmp, "modcache"), "GOBIN="+gobin, "GOTOOLCHAIN=local")
	out, err := install.CombinedOutput()
	require.NoError(t, err, "%s", out)
	got, err := boundedCommand(t, time.Minute, filepath.Join(gobin, "proxylint"), "--version").Output()
	require.NoError(t, err)
	assert.Equal(t, "proxylint "+version+" ("+runtime.Version()+")\n", string(got))
}
