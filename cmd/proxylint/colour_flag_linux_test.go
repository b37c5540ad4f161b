//go:build linux

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestColorNeverOnTerminal: --color never and --no-color keep a terminal
// plain; auto colours it.
func TestColorNeverOnTerminal(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	_, out := runOnTerminal(t, dir, nil, "--no-config", "--color", "auto", "nginx.conf")
	assert.Contains(t, out, "\x1b[33;1mwarning")
	for _, args := range [][]string{{"--color", "never"}, {"--color=never"}, {"--no-color"}} {
		_, out := runOnTerminal(t, dir, nil, append(append([]string{"--no-config"}, args...), "nginx.conf")...)
		assert.Contains(t, out, "nginx.conf:6:13: warning:", args)
		assert.NotContains(t, out, ansiEscape, args)
	}
}
