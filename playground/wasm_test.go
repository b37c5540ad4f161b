package playground

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// dist is the page built once for the tests of a run, in a directory
// removed when they end (TestMain).
var dist struct {
	once sync.Once
	dir  string
	out  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if dist.dir != "" {
		_ = os.RemoveAll(dist.dir)
	}
	os.Exit(code)
}

// builtPage builds the page with the build command the workflow runs
// (go run ./playground/build) and returns its directory.
func builtPage(t *testing.T) string {
	t.Helper()
	dist.once.Do(func() {
		dist.dir, dist.err = os.MkdirTemp("", "proxylint-playground-")
		if dist.err != nil {
			return
		}
		cmd := exec.Command("go", "run", "./build", "-o", dist.dir)
		b, err := cmd.CombinedOutput()
		dist.out, dist.err = string(b), err
	})
	if dist.err != nil {
		t.Fatalf("go run ./build: %v\n%s", dist.err, dist.out)
	}
	return dist.dir
}

// The lint core builds for the browser (GOOS=js GOARCH=wasm), and the page
// is everything it needs: its files, Go's wasm_exec.js and main.wasm.
func TestPageBuilds(t *testing.T) {
	dir := builtPage(t)
	t.Log(strings.TrimSpace(dist.out))
	for _, name := range []string{"index.html", "playground.js", "playground.css", "worker.js", "wasm_exec.js", "main.wasm"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("the page lacks %s: %v", name, err)
			continue
		}
		if fi.Size() == 0 {
			t.Errorf("%s is empty", name)
		}
	}
	wasm, err := os.ReadFile(filepath.Join(dir, "main.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(wasm), "\x00asm") {
		t.Errorf("main.wasm is not WebAssembly: it starts %q", wasm[:min(8, len(wasm))])
	}
	// The page fetches nothing from elsewhere: no script, style sheet or
	// image from another origin, and no fetch of one.
	remote := regexp.MustCompile(`(?i)<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=\s*["']?(https?:)?//|@import|url\(\s*["']?(https?:)?//|fetch\(\s*["'](https?:)?//`)
	for _, name := range []string{"index.html", "playground.js", "playground.css", "worker.js"} {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if m := remote.Find(src); m != nil {
			t.Errorf("%s loads from elsewhere: %s", name, m)
		}
	}
}

// The program for the browser links neither a way to run programs or
// reach the network, nor the browser tests' driver, nor the generated
// Envoy API (parsers/envoy reads Envoy through its embedded descriptors).
func TestWasmLinksNoProcessNetworkOrTestDriver(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list named only %d packages: %v", len(deps), deps)
	}
	linked := map[string]bool{}
	for _, p := range deps {
		linked[p] = true
		for _, banned := range []string{"os/exec", "net/http", "github.com/chromedp/", "github.com/envoyproxy/go-control-plane/", "github.com/cncf/xds/"} {
			if p == banned || strings.HasPrefix(p, banned) {
				t.Errorf("the playground links %s", p)
			}
		}
	}
	for _, want := range []string{"syscall/js", "github.com/proxylint/proxylint/parsers/load", "github.com/proxylint/proxylint/rules", "github.com/proxylint/proxylint/chain"} {
		if !linked[want] {
			t.Errorf("the playground does not link %s", want)
		}
	}
}
