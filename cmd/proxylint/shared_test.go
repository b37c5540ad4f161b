package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// What the package's tests share within one run: a temporary directory,
// removed when the run ends; the proxylint program, built into it once;
// and one pre-commit home, in which pre-commit installs the hooks (its own
// "go install" of the module) once for every test that runs them.

// TestMain removes what the tests suite.
func TestMain(m *testing.M) {
	code := m.Run()
	if suite.dir != "" {
		_ = os.RemoveAll(suite.dir)
	}
	os.Exit(code)
}

var suite struct {
	mu  sync.Mutex
	dir string

	bin      string
	binErr   error
	binOnce  sync.Once
	hookRepo string
	hookOnce sync.Once
}

// sharedDir is the run's shared temporary directory, made on first use.
func sharedDir(t *testing.T) string {
	t.Helper()
	suite.mu.Lock()
	defer suite.mu.Unlock()
	if suite.dir == "" {
		dir, err := os.MkdirTemp("", "proxylint-test-")
		require.NoError(t, err)
		suite.dir = dir
	}
	return suite.dir
}

// buildTimeout bounds one build of the command: a fresh build cache on a
// busy machine takes minutes.
const buildTimeout = 8 * time.Minute

// proxylintBinary returns the proxylint program built from this checkout
// (go build, without VCS stamping: its --version says "(devel)"). It is
// built once per run of the package's tests, on first use, and shared:
// callers must not change or remove it (copy it to put it elsewhere).
//
// It is built with the flags go test builds the package's dependencies
// with, so that they come from the build cache and only the main package
// is compiled: built as the GitHub Action builds it (-trimpath), it would
// compile the standard library and every dependency once more, a minute
// or two of CPU on a fresh build cache.
func proxylintBinary(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "building proxylint needs the go command")
	dir := sharedDir(t)
	suite.binOnce.Do(func() {
		bin := filepath.Join(dir, "bin", "proxylint")
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, goBin, "build", "-buildvcs=false", "-o", bin, ".")
		cmd.WaitDelay = 10 * time.Second
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (stopped after %s)", err, buildTimeout)
		}
		if err != nil {
			suite.binErr = fmt.Errorf("go build -buildvcs=false -o %s .: %w\n%s", bin, err, out)
			return
		}
		suite.bin = bin
	})
	require.NoError(t, suite.binErr)
	return suite.bin
}

// copyBinary copies the shared program to path, for a test that needs it
// at a given place.
func copyBinary(t *testing.T, path string) {
	t.Helper()
	src, err := os.Open(proxylintBinary(t))
	require.NoError(t, err)
	defer func() { _ = src.Close() }()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	dst, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	require.NoError(t, err)
	require.NoError(t, dst.Close())
}

// sharedHookRepo returns the hook repository the pre-commit tests share: a
// copy of the module committed in a git repository of its own
// (copyModule), made once per run. pre-commit keys the environments it
// installs by repository and commit, so with preCommitEnv's home the hooks
// are built once for all the tests.
func sharedHookRepo(t *testing.T) string {
	t.Helper()
	dir := sharedDir(t)
	suite.hookOnce.Do(func() {
		suite.hookRepo = copyModule(t, filepath.Join(dir, "hook-repo", "proxylint"))
	})
	// When copyModule failed, the test that called it says why.
	require.NotEmpty(t, suite.hookRepo, "the hook repository could not be made")
	return suite.hookRepo
}

// preCommitHome is the pre-commit home of the run.
func preCommitHome(t *testing.T) string {
	t.Helper()
	return filepath.Join(sharedDir(t), "pre-commit-home")
}

// boundedCommand is exec.Command bound in time: the program is killed after d,
// or a little before the test binary's own deadline (go test -timeout) if
// that comes first, so that a program that hangs fails its test, with its
// output, instead of stopping the whole run.
func boundedCommand(t *testing.T, d time.Duration, name string, args ...string) *exec.Cmd {
	t.Helper()
	if deadline, ok := t.Deadline(); ok {
		if left := time.Until(deadline) - 30*time.Second; left < d {
			d = max(left, time.Second)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 10 * time.Second
	cmd.Cancel = func() error {
		t.Errorf("%s %s: still running after %s; killed", name, strings.Join(args, " "), d)
		return cmd.Process.Kill()
	}
	return cmd
}
