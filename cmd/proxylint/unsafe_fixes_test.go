package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnsafeFixesOnlyWhenAsked: --fix leaves the unsafe fixes (removing
// non_idempotent, adding a tries count) and says how many it left;
// --unsafe-fixes applies them; alone, --unsafe-fixes is a usage error.
func TestUnsafeFixesOnlyWhenAsked(t *testing.T) {
	dir := dirWithGitMarker(t)
	src := "events {}\nhttp {\n" + shopSite + "}\n"
	path := writeFile(t, dir, "nginx.conf", src)
	t.Chdir(dir)

	code, out, errOut := runCLIBounded(t, "--no-color", "--fix", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Equal(t, "proxylint: fixed 0 findings in 0 files\nproxylint: 2 unsafe fixes not applied (--unsafe-fixes applies them; each rule's doc says why it is unsafe)\n", errOut)
	assert.Contains(t, out, "    unsafe fix (--unsafe-fixes): remove non_idempotent from proxy_next_upstream")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, src, string(b), "--fix applied an unsafe fix")

	code, diff, errOut := runCLIBounded(t, "--diff", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Empty(t, diff)
	assert.Contains(t, errOut, "2 unsafe fixes not applied")

	code, _, errOut = runCLIBounded(t, "--fix", "--unsafe-fixes", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Equal(t, "proxylint: fixed 2 findings in 1 file\n", errOut)
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "events {}\nhttp {\n"+fixedShopSite+"}\n", string(b))

	code, _, errOut = runCLIBounded(t, "--unsafe-fixes", "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "--unsafe-fixes applies with --fix or --diff")
}

// TestDiffExitsAsTheLintDoes: a finding with advice and no edit fails a
// CI step that runs --diff as it fails the lint; below --fail-on it
// passes.
func TestDiffExitsAsTheLintDoes(t *testing.T) {
	dir := dirWithGitMarker(t)
	writeFile(t, dir, "nginx.conf", `events {}
http {
    proxy_ignore_client_abort on;
    upstream api {
        server 10.0.0.1:8000;
        keepalive 16;
    }
    server {
        listen 80;
        location / {
            proxy_pass http://api;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`)
	t.Chdir(dir)

	lint, _, _ := runCLIBounded(t, "nginx.conf")
	code, diff, errOut := runCLIBounded(t, "--diff", "nginx.conf")
	assert.Equal(t, exitFindings, lint)
	assert.Equal(t, lint, code, errOut)
	assert.Empty(t, diff)

	code, diff, errOut = runCLIBounded(t, "--diff", "--fail-on", "error", "nginx.conf")
	assert.Equal(t, exitClean, code, errOut)
	assert.Empty(t, diff)

	code, _, _ = runCLIBounded(t, "--diff", filepath.Join(dir, "missing.conf"))
	assert.Equal(t, exitError, code)
}
