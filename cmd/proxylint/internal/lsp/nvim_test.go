package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// proxylintBin is the proxylint program built once for the package's
// tests that run it, "" when none needs it; packageDir is the package's
// directory, the working directory the tests start in.
var proxylintBin, packageDir string

func TestMain(m *testing.M) {
	os.Exit(func() int {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		packageDir = wd
		if haveEditor() {
			dir, err := os.MkdirTemp("", "proxylint-lsp-test")
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			defer func() { _ = os.RemoveAll(dir) }()
			bin := filepath.Join(dir, "proxylint")
			out, err := exec.Command("go", "build", "-o", bin, "github.com/proxylint/proxylint/cmd/proxylint").CombinedOutput()
			if err != nil {
				fmt.Fprintf(os.Stderr, "building proxylint: %v\n%s", err, out)
				return 2
			}
			proxylintBin = bin
		}
		return m.Run()
	}())
}

// haveEditor says whether an editor the tests drive is installed, so
// that the program is built for them.
func haveEditor() bool {
	for _, name := range []string{"nvim", "emacs"} {
		if _, err := exec.LookPath(name); err == nil {
			return true
		}
	}
	return false
}

// nvimResult is what testdata/nvim.lua saw.
type nvimResult struct {
	OK            bool
	Error         string
	Steps         []string
	Main          []nvimDiagnostic
	MainFixed     []nvimDiagnostic `json:"main_fixed"`
	App           []nvimDiagnostic
	AppSuppressed []nvimDiagnostic `json:"app_suppressed"`
	Hover         string
	Fix, Suppress string
	Definition    []string
}

type nvimDiagnostic struct {
	Lnum, Col          int
	Code, Source, Href string
	Message            string
	Related            []string
}

func (d nvimDiagnostic) String() string {
	s := fmt.Sprintf("%s %d:%d", d.Code, d.Lnum, d.Col)
	for _, r := range d.Related {
		s += " -> " + r
	}
	return s
}

func strs(ds []nvimDiagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

// Neovim 0.7's own client, headless, against the proxylint program:
// diagnostics with the rule's link and related places, hover, a fix
// applied through its code action menu and written across two files, go
// to definition, and a suppression. Everything it writes stays in the
// test's directories.
func TestNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("PROXYLINT_REQUIRE_NVIM") == "1" {
			t.Fatal("nvim is not installed and PROXYLINT_REQUIRE_NVIM=1")
		}
		t.Skip("nvim is not installed")
	}
	require.NotEmpty(t, proxylintBin)
	root := nginxWorkspace(t)
	home := t.TempDir()
	script, err := filepath.Abs(filepath.Join(testdataDir(t), "nvim.lua"))
	require.NoError(t, err)
	result := filepath.Join(home, "result.json")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-i", "NONE", "-c", "luafile "+script)
	cmd.Dir = root
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TERM=dumb",
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"XDG_RUNTIME_DIR=" + filepath.Join(home, "run"), "NVIM_LOG_FILE=" + filepath.Join(home, "nvim.log"), "TMPDIR=" + home,
		"WS=" + root, "PROXYLINT=" + proxylintBin, "RESULT=" + result,
	}
	out, err := cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), "nvim did not finish in time:\n%s", out)
	require.NoError(t, err, "nvim:\n%s", out)
	raw, err := os.ReadFile(result)
	require.NoError(t, err, "nvim wrote no result:\n%s", out)
	var r nvimResult
	require.NoError(t, json.Unmarshal(raw, &r), "%s", raw)
	if !r.OK {
		lsplog, _ := os.ReadFile(filepath.Join(home, "cache", "nvim", "lsp.log"))
		t.Fatalf("the script stopped after %v: %s\n%s\nlsp.log:\n%s", r.Steps, r.Error, out, lsplog)
	}

	assert.Equal(t, []string{"log-format-blind 1:0", "upstream-no-keepalive 3:4 -> app.conf:3"}, strs(r.Main))
	assert.Equal(t, "proxylint", r.Main[1].Source)
	assert.Equal(t, "https://github.com/proxylint/proxylint/blob/main/rules/docs/upstream-no-keepalive.md", r.Main[1].Href)
	assert.Equal(t, "**proxy_read_timeout `30s`**, written here (http level): in effect for location /, location /metrics", r.Hover)

	assert.True(t, strings.HasPrefix(r.Fix, `Add "keepalive 16;" to upstream "app"`), r.Fix)
	assert.Equal(t, []string{"log-format-blind 1:0"}, strs(r.MainFixed))
	assert.Equal(t, strings.Replace(mainConf, "        server 127.0.0.1:8080;\n", "        server 127.0.0.1:8080;\n        keepalive 16;\n", 1), readFile(t, root, "nginx.conf"))

	assert.Equal(t, []string{"nginx-include 0:0", "upstream-no-keepalive 8:8"}, strs(r.App))
	assert.Equal(t, []string{"nginx.conf:3"}, r.Definition)
	assert.Equal(t, "Suppress upstream-no-keepalive on line 9, with a reason", r.Suppress)
	assert.Equal(t, []string{"nginx-include 0:0"}, strs(r.AppSuppressed))
	assert.Equal(t, `server {
    listen 80;
    location / {
        proxy_pass http://app;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
    }
    location /metrics {
        # proxylint:ignore upstream-no-keepalive -- reason
        proxy_pass http://127.0.0.1:9100;
    }
}
`, readFile(t, root, "conf.d/app.conf"))
}

func readFile(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	require.NoError(t, err)
	return string(b)
}

// testdataDir is the package's testdata directory; the tests change the
// working directory, so it is found from the source file's.
func testdataDir(t *testing.T) string {
	t.Helper()
	return filepath.Join(packageDir, "testdata")
}
