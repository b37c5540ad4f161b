//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"strconv"
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
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal on this machine: %v", err)
	}
	t.Cleanup(func() { _ = ptmx.Close() })
	fd := int(ptmx.Fd())
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0), "unlock")
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	require.NoError(t, err)
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
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
	return tty, read
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
