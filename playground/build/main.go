// Command build builds the browser playground into a directory of static
// files that any web server can serve (GitHub Pages publishes it):
//
//	go run ./playground/build [-o DIR]
//
// DIR (default playground/dist, which is not committed) receives the page
// (playground/web), Go's wasm_exec.js from $(go env GOROOT)/lib/wasm, which
// the page's worker loads, and main.wasm, the lint core built from
// playground/wasm with GOOS=js GOARCH=wasm, without symbol tables or DWARF
// (-ldflags=-s -w). It prints
// the size of main.wasm and of its gzip compression, which is about what
// a browser downloads.
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	out := flag.String("o", "", "the directory to build into (default: playground/dist in the module)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "build: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if err := build(*out, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
}

func build(out string, log io.Writer) error {
	pkg, err := goOutput(nil, "list", "-f", "{{.Dir}}", "github.com/proxylint/proxylint/playground")
	if err != nil {
		return err
	}
	if out == "" {
		out = filepath.Join(pkg, "dist")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	web := filepath.Join(pkg, "web")
	entries, err := os.ReadDir(web)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			if err := copyFile(filepath.Join(web, e.Name()), filepath.Join(out, e.Name())); err != nil {
				return err
			}
		}
	}
	goroot, err := goOutput(nil, "env", "GOROOT")
	if err != nil {
		return err
	}
	if err := copyFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"), filepath.Join(out, "wasm_exec.js")); err != nil {
		return err
	}
	wasm := filepath.Join(out, "main.wasm")
	env := []string{"GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0"}
	if _, err := goOutput(env, "build", "-trimpath", "-ldflags=-s -w", "-o", wasm, filepath.Join(pkg, "wasm")); err != nil {
		return err
	}
	raw, gz, err := sizes(wasm)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "built %s: main.wasm %.1f MB (%.1f MB gzipped)\n", out, float64(raw)/1e6, float64(gz)/1e6)
	return nil
}

// goOutput runs the go command with env added to the environment and
// returns what it printed, trimmed.
func goOutput(env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return strings.TrimSpace(string(b)), nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// sizes are the size of the file and of its gzip compression.
func sizes(path string) (raw, gz int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	var n countWriter
	w, err := gzip.NewWriterLevel(&n, gzip.BestCompression)
	if err != nil {
		return 0, 0, err
	}
	_, err = w.Write(b)
	err = errors.Join(err, w.Close())
	return int64(len(b)), int64(n), err
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
