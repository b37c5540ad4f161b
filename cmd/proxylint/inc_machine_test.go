package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An include outside the linted tree gives the same report on every
// machine: the file is not looked at, so whether this machine has it (a
// developer's laptop with nginx installed, a CI runner without) changes
// nothing. The outside directory stands for /etc/nginx.
func TestIncludeOutsideTreeSameOnEveryMachine(t *testing.T) {
	root := t.TempDir()
	etc := filepath.Join(root, "etc", "nginx")
	mime := writeFile(t, etc, "mime.types", "types { text/html html; }\n")
	dir := filepath.Join(root, "repo")
	writeFile(t, dir, "nginx.conf", "events {}\nhttp {\n    include "+mime+";\n    server {\n        listen 80;\n        location / {\n            proxy_pass http://app;\n        }\n    }\n}\n")

	_, present, errPresent := runCLI(t, dir, "--no-color", "--no-config", "--fail-on", "note", "nginx.conf")
	require.NoError(t, os.Chmod(etc, 0)) // neither listable nor searchable
	t.Cleanup(func() { _ = os.Chmod(etc, 0o755) })
	codeHidden, hiddenOut, errHidden := runCLI(t, dir, "--no-color", "--no-config", "--fail-on", "note", "nginx.conf")
	require.NoError(t, os.Chmod(etc, 0o755))
	require.NoError(t, os.RemoveAll(etc))
	codeGone, gone, errGone := runCLI(t, dir, "--no-color", "--no-config", "--fail-on", "note", "nginx.conf")

	assert.Equal(t, present, hiddenOut)
	assert.Equal(t, present, gone)
	assert.Equal(t, errPresent, errHidden)
	assert.Equal(t, errPresent, errGone)
	assert.Equal(t, exitFindings, codeHidden)
	assert.Equal(t, exitFindings, codeGone)
	assert.Contains(t, gone, "nginx.conf:3:13: note: include \""+mime+"\": "+mime+" is outside the linted tree and was not read (widen it with --include-root) [nginx-include]\n")
	// mime.types holds a types block: not reading it leaves "app" what it
	// is, a host nginx resolves, and the findings about it stand.
	assert.Contains(t, gone, "nginx.conf:7:13: warning: proxy_pass to app:80 has no upstream block")
}
