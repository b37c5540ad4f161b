package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixedLiteralProxyPass is literalProxyPass with the fix of its
// upstream-no-keepalive finding applied.
const fixedLiteralProxyPass = `events {}
http {
    upstream backend_127_0_0_1_8000 {
        server 127.0.0.1:8000;
        keepalive 16;
    }

    server {
        listen 80;
        location / {
            proxy_pass http://backend_127_0_0_1_8000;
            proxy_set_header Host 127.0.0.1:8000;
            proxy_redirect http://127.0.0.1:8000/ /;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`

func TestDiffPrintsTheFixes(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, out, errOut := runCLI(t, dir, "--diff", "nginx.conf")
	assert.Equal(t, `--- a/nginx.conf
+++ b/nginx.conf
@@ -1,9 +1,18 @@
 events {}
 http {
+    upstream backend_127_0_0_1_8000 {
+        server 127.0.0.1:8000;
+        keepalive 16;
+    }
+
     server {
         listen 80;
         location / {
-            proxy_pass http://127.0.0.1:8000;
+            proxy_pass http://backend_127_0_0_1_8000;
+            proxy_set_header Host 127.0.0.1:8000;
+            proxy_redirect http://127.0.0.1:8000/ /;
+            proxy_http_version 1.1;
+            proxy_set_header Connection "";
         }
     }
 }
`, out)
	assert.Empty(t, errOut)
	assert.Equal(t, exitFindings, code, "a diff with changes exits 1")
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, literalProxyPass, string(got), "--diff changes nothing")

	// Nothing to fix: no diff, exit 0.
	writeFile(t, dir, "fixed.conf", fixedLiteralProxyPass)
	code, out, errOut = runCLI(t, dir, "--diff", "fixed.conf")
	assert.Empty(t, out)
	assert.Empty(t, errOut)
	assert.Equal(t, exitClean, code)
}

func TestFixWritesTheFileAndReportsWhatRemains(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "nginx.conf", literalProxyPass)
	require.NoError(t, os.Chmod(p, 0o640))
	code, out, errOut := runCLI(t, dir, "--no-color", "--fix", "nginx.conf")
	assert.Equal(t, "proxylint: fixed 1 finding in 1 file\n", errOut)
	assert.Equal(t, exitFindings, code, "a run that changed files fails")
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, fixedLiteralProxyPass, string(got))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "the file keeps its mode")
	// The report is of the fixed file: the finding fixed is gone, the one
	// without a safe edit remains.
	assert.NotContains(t, out, "upstream-no-keepalive")
	assert.Contains(t, out, "nginx.conf:2:1: note: The default access log (logs/access.log, format \"combined\") has no $request_time")
	assert.Contains(t, out, "[log-format-blind]\n")
	assert.Contains(t, out, "\n1 note\n")

	// The next run has nothing to fix: it passes (notes do not fail) and
	// leaves the file alone.
	code, out2, errOut := runCLI(t, dir, "--no-color", "--fix", "nginx.conf")
	assert.Equal(t, "proxylint: fixed 0 findings in 0 files\n", errOut)
	assert.Equal(t, exitClean, code)
	assert.Equal(t, out, out2)
	got, err = os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, fixedLiteralProxyPass, string(got))
}

// A fix that edits a file outside the named paths (an include from a
// sibling directory) changes no file at all: the upstream block alone,
// without the proxy_pass pointed at it, would be half a fix.
func TestFixRefusesAFileOutsideTheNamedPaths(t *testing.T) {
	dir := t.TempDir()
	site := "events {}\nhttp {\n    server {\n        listen 80;\n        include ../shared/loc.conf;\n    }\n}\n"
	loc := "location / {\n    proxy_pass http://127.0.0.1:8000;\n}\n"
	sp := writeFile(t, dir, "site/nginx.conf", site)
	lp := writeFile(t, dir, "shared/loc.conf", loc)

	// The fix spans both files.
	_, diff, _ := runCLI(t, dir, "--diff", "site/nginx.conf")
	assert.Contains(t, diff, "--- a/shared/loc.conf\n")
	assert.Contains(t, diff, "--- a/site/nginx.conf\n")

	code, out, errOut := runCLI(t, dir, "--no-color", "--fix", "site/nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Equal(t, "proxylint: --fix: shared/loc.conf is outside the linted paths; no file changed\n", errOut)
	assert.Empty(t, out)
	for p, want := range map[string]string{sp: site, lp: loc} {
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, want, string(got), p)
	}

	// Naming both directories lets the fix through, whole.
	code, _, errOut = runCLI(t, dir, "--no-color", "--fix", "site", "shared")
	assert.Equal(t, exitFindings, code, errOut)
	got, err := os.ReadFile(lp)
	require.NoError(t, err)
	assert.Contains(t, string(got), "proxy_pass http://backend_127_0_0_1_8000;")
	got, err = os.ReadFile(sp)
	require.NoError(t, err)
	assert.Contains(t, string(got), "    upstream backend_127_0_0_1_8000 {\n")
}
