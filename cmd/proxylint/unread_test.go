package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An include proxylint did not read is reported whatever the repository
// says: no suppression comment, baseline, severity or --disable hides it
// or makes it less than it is.
func TestUnreadIncludeCannotBeHidden(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, outside, "secret.conf", "# not for the report\n")
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	conf := "events {}\nhttp {\n    # proxylint:ignore-file nginx-include -- hide it\n    include " + filepath.Join(outside, "secret.conf") + ";\n}\n"
	writeFile(t, dir, "nginx.conf", conf)
	want := "nginx.conf:4:13: note: include \"" + filepath.Join(outside, "secret.conf") + "\": " + filepath.Join(outside, "secret.conf") + " is outside the linted tree and was not read (widen it with --include-root) [nginx-include]"

	code, out, errOut := runCLI(t, dir, "--no-color", "--fail-on", "note", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Contains(t, out, want+"\n", "an ignore-file comment does not hide it")
	assert.NotContains(t, out, "suppressed")

	code, out, _ = runCLI(t, dir, "--no-color", "--fail-on", "note", "--disable", "nginx-include", "nginx.conf")
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, want+"\n", "--disable does not turn it off")

	writeFile(t, dir, ".proxylint.yaml", "rules:\n  severity:\n    nginx-include: note\n")
	writeFile(t, dir, "nginx.conf", conf+"http {\n    include missing.conf;\n}\n")
	_, out, _ = runCLI(t, dir, "--no-color", "nginx.conf")
	assert.Contains(t, out, "nginx.conf:7:13: error: include \"missing.conf\"", "a missing include is not demoted")

	writeFile(t, dir, "nginx.conf", conf)
	require.NoError(t, os.Remove(filepath.Join(dir, ".proxylint.yaml")))
	code, _, errOut = runCLI(t, dir, "--no-inline-ignores", "--write-baseline", "base.json", "nginx.conf")
	assert.Equal(t, exitClean, code, errOut)
	code, out, _ = runCLI(t, dir, "--no-color", "--fail-on", "note", "--no-inline-ignores", "--baseline", "base.json", "nginx.conf")
	assert.Equal(t, exitFindings, code)
	assert.Contains(t, out, want+"\n", "a baseline does not hide it")
	assert.NotContains(t, out, "known from the baseline")
}
