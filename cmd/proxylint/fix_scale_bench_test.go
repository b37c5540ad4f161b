package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ownAddresses is an nginx configuration of n servers, each passing to an
// address of its own: n upstream-no-keepalive findings, each with a fix
// that declares an upstream block.
func ownAddresses(n int) string {
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n")
	for i := range n {
		fmt.Fprintf(&b, "    server {\n        listen %d;\n        server_name s%d.example.com;\n        location / {\n            proxy_pass http://10.0.%d.%d:8000;\n        }\n    }\n", 8000+i%1000, i, i/250, 1+i%250)
	}
	b.WriteString("}\n")
	return b.String()
}

// BenchmarkFixOwnAddresses lints, diffs and fixes one file of 2,500 and of
// 5,000 servers that each pass to an address of their own: the time of
// 5,000 should stay near twice that of 2,500 (a fix once re-read the
// file for every finding, and selecting fixes compared every pair).
//
//	go test ./cmd/proxylint -run '^$' -bench FixOwnAddresses -count 3
func BenchmarkFixOwnAddresses(b *testing.B) {
	for _, n := range []int{2500, 5000} {
		src := ownAddresses(n)
		for _, mode := range []string{"lint", "diff", "fix"} {
			b.Run(fmt.Sprintf("%s/servers=%d", mode, n), func(b *testing.B) {
				dir := b.TempDir()
				path := filepath.Join(dir, "nginx.conf")
				args := []string{"--no-config", "--no-color", "--quiet", "--root", dir, path}
				switch mode {
				case "diff":
					args = append([]string{"--diff", "--unsafe-fixes"}, args...)
				case "fix":
					args = append([]string{"--fix", "--unsafe-fixes"}, args...)
				}
				write := func() {
					if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
						b.Fatal(err)
					}
				}
				write()
				b.ReportAllocs()
				for b.Loop() {
					if mode == "fix" {
						b.StopTimer()
						write()
						b.StartTimer()
					}
					if code := run(args, io.Discard, io.Discard, noEnv); code == exitError {
						var out stringWriter
						run(args, &out, &out, noEnv)
						b.Fatalf("exit %d: %s", code, out)
					}
				}
			})
		}
	}
}
