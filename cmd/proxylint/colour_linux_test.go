//go:build linux

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// openTerminal opens a pseudo-terminal and returns its terminal side, the
// file a program sees as its standard output when it runs in a terminal,
// and a function that returns everything written to it so far. Nothing
// translates the output: the line discipline is put in raw mode.
func openTerminal(t *testing.T) (*os.File, func() string) {
	t.Helper()
	tty, _, read := openTerminalAt(t)
	return tty, read
}

// openTerminalAt is openTerminal that also returns the path of the
// terminal side. As root the pair comes from a devpts instance of the
// test's own, mounted in its temporary directory, so that the machine's
// /dev is never used; a user who may not mount gets one from /dev/ptmx,
// which such a user cannot change.
func openTerminalAt(t *testing.T) (*os.File, string, func() string) {
	t.Helper()
	ptmx, pts := privateTerminals(t)
	fd := int(ptmx.Fd())
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0), "unlock")
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	require.NoError(t, err)
	ttyPath := filepath.Join(pts, strconv.Itoa(n))
	tty, err := os.OpenFile(ttyPath, os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tty.Close() })
	termios, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	require.NoError(t, err)
	termios.Oflag &^= unix.OPOST
	termios.Lflag &^= unix.ECHO | unix.ICANON
	require.NoError(t, unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, termios))

	// The master side is drained as the program writes, so a report
	// larger than the terminal's buffer does not block it.
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(&got, ptmx)
	}()
	read := func() string {
		// Closing the terminal side ends the copy once all is read.
		_ = tty.Close()
		<-done
		return got.String()
	}
	return tty, ttyPath, read
}

// privateTerminals opens the master multiplexer of a new devpts instance
// mounted in the test's temporary directory and returns it with the
// directory its terminals appear in; it is unmounted when the test ends.
// Where mounting is not permitted (not root), it opens /dev/ptmx.
func privateTerminals(t *testing.T) (*os.File, string) {
	t.Helper()
	pts := filepath.Join(t.TempDir(), "pts")
	require.NoError(t, os.Mkdir(pts, 0o700))
	err := unix.Mount("devpts", pts, "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0600,mode=0600")
	if err != nil {
		if os.Geteuid() == 0 && !errors.Is(err, syscall.EPERM) {
			require.NoError(t, err, "mount a devpts instance at %s", pts)
		}
		ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
		if err != nil {
			t.Skipf("no pseudo-terminal on this machine: %v", err)
		}
		t.Cleanup(func() { _ = ptmx.Close() })
		return ptmx, "/dev/pts"
	}
	ptmx, err := os.OpenFile(filepath.Join(pts, "ptmx"), os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	// Cleanups run last-registered first: the files close before the
	// instance goes.
	t.Cleanup(func() { require.NoError(t, unix.Unmount(pts, unix.MNT_DETACH)) })
	t.Cleanup(func() { _ = ptmx.Close() })
	return ptmx, pts
}

// runOnTerminal runs proxylint in dir with its standard output on a
// pseudo-terminal and returns the exit code and what the terminal got.
func runOnTerminal(t *testing.T, dir string, env map[string]string, args ...string) (int, string) {
	t.Helper()
	tty, read := openTerminal(t)
	t.Chdir(dir)
	var stderr bytes.Buffer
	code := run(args, tty, &stderr, func(k string) string { return env[k] })
	return code, read()
}

const ansiEscape = "\x1b["

// TestColourOnTerminal: colour is decided by where the text report goes
// and by the user's settings, seen from a real terminal.
func TestColourOnTerminal(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)

	t.Run("text on a terminal", func(t *testing.T) {
		code, out := runOnTerminal(t, dir, nil, "--no-config", "nginx.conf")
		assert.Equal(t, exitFindings, code)
		assert.Contains(t, out, "nginx.conf:6:13:")
		assert.Contains(t, out, "\x1b[33;1mwarning", "a warning in bold yellow")
	})
	t.Run("NO_COLOR", func(t *testing.T) {
		code, out := runOnTerminal(t, dir, map[string]string{"NO_COLOR": "1"}, "--no-config", "nginx.conf")
		assert.Equal(t, exitFindings, code)
		assert.Contains(t, out, "nginx.conf:6:13: warning:")
		assert.NotContains(t, out, ansiEscape)
	})
	t.Run("TERM=dumb", func(t *testing.T) {
		_, out := runOnTerminal(t, dir, map[string]string{"TERM": "dumb"}, "--no-config", "nginx.conf")
		assert.Contains(t, out, "nginx.conf:6:13: warning:")
		assert.NotContains(t, out, ansiEscape)
	})
	t.Run("--no-color", func(t *testing.T) {
		_, out := runOnTerminal(t, dir, nil, "--no-config", "--no-color", "nginx.conf")
		assert.Contains(t, out, "nginx.conf:6:13: warning:")
		assert.NotContains(t, out, ansiEscape)
	})
	t.Run("JSON on a terminal", func(t *testing.T) {
		_, out := runOnTerminal(t, dir, nil, "--no-config", "--format", "json", "nginx.conf")
		assert.Contains(t, out, `"rule": "upstream-no-keepalive"`)
		assert.NotContains(t, out, ansiEscape)
	})
	t.Run("text on a terminal, SARIF to a file", func(t *testing.T) {
		_, out := runOnTerminal(t, dir, nil, "--no-config", "--format", "sarif=out.sarif", "--format", "text", "nginx.conf")
		assert.Contains(t, out, "\x1b[33;1mwarning")
		b, err := os.ReadFile("out.sarif")
		require.NoError(t, err)
		assert.NotContains(t, string(b), ansiEscape, "no colour in the file")
	})
	t.Run("chain on a terminal", func(t *testing.T) {
		_, coloured := runOnTerminal(t, dir, nil, "chain", "--no-config", "nginx.conf")
		assert.Contains(t, coloured, ansiEscape)
		_, plain := runOnTerminal(t, dir, map[string]string{"NO_COLOR": "1"}, "chain", "--no-config", "nginx.conf")
		assert.NotContains(t, plain, ansiEscape)
		assert.Contains(t, plain, "nginx.conf")
	})
}
