package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// eglotDir is where Debian's elpa-eglot installs Eglot for Emacs 28
// (Emacs 29 and later have it built in).
const eglotDir = "/usr/share/emacs/site-lisp/elpa"

// Emacs's own client, Eglot (Debian's Emacs 28.2 with elpa-eglot 1.9),
// in batch against the proxylint program: diagnostics, hover, a fix
// applied through Eglot's workspace edit across two files and saved, and
// go to definition. Everything it writes stays in the test's directories.
func TestEmacsEglot(t *testing.T) {
	emacs, err := exec.LookPath("emacs")
	if err == nil {
		if _, statErr := os.Stat(eglotDir); statErr != nil {
			err = statErr
		}
	}
	if err != nil {
		if os.Getenv("PROXYLINT_REQUIRE_EMACS") == "1" {
			t.Fatalf("emacs with Eglot is not installed and PROXYLINT_REQUIRE_EMACS=1: %v", err)
		}
		t.Skip("emacs with Eglot is not installed")
	}
	require.NotEmpty(t, proxylintBin)
	root := nginxWorkspace(t)
	home := t.TempDir()
	script := filepath.Join(testdataDir(t), "eglot.el")
	result := filepath.Join(home, "result.tsv")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, emacs, "-Q", "--batch", "-l", script)
	cmd.Dir = root
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TERM=dumb", "TMPDIR=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"WS=" + root, "PROXYLINT=" + proxylintBin, "RESULT=" + result,
	}
	out, err := cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), "emacs did not finish in time:\n%s", out)
	require.NoError(t, err, "emacs:\n%s", out)
	raw, err := os.ReadFile(result)
	require.NoError(t, err, "emacs wrote no result:\n%s", out)
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		k, v, _ := strings.Cut(line, "\t")
		got[k] = v
	}
	require.Equal(t, "t", got["ok"], "the script stopped: %s\n%s\n%s", got["error"], raw, out)

	assert.Equal(t, "2 log-format-blind, 4 upstream-no-keepalive", got["diagnostics"])
	assert.Equal(t, "**proxy_read_timeout `30s`**, written here (http level): in effect for location /, location /metrics", got["hover"])
	assert.True(t, strings.HasPrefix(got["actions"], `Add "keepalive 16;" to upstream "app"`), got["actions"])
	assert.Contains(t, got["actions"], "Suppress upstream-no-keepalive on line 4, with a reason")
	assert.Equal(t, "2 log-format-blind", got["fixed"])
	assert.Equal(t, strings.Replace(mainConf, "        server 127.0.0.1:8080;\n", "        server 127.0.0.1:8080;\n        keepalive 16;\n", 1), readFile(t, root, "nginx.conf"))
	assert.Equal(t, strings.Replace(appConf, "        proxy_pass http://app;\n", "        proxy_pass http://app;\n        proxy_http_version 1.1;\n        proxy_set_header Connection \"\";\n", 1), readFile(t, root, "conf.d/app.conf"))
	assert.Equal(t, "nginx.conf:3", got["definition"])
}
