package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChainText(t *testing.T) {
	code, out, errOut := runCLI(t, "../../fixtures/retry-amplification/layers", "chain", "--no-color", "--target", "nginx:newest",
		"--client-timeout", "40s", "--behind", "aws-alb", "--backend", "uvicorn", "edge.conf", "internal.conf")
	require.Equal(t, exitClean, code, errOut)
	assert.Equal(t, `Path 1 of 1: edge.conf:12 location /api/
  HOP                                 WAITS  TRIES  KEEPS IDLE FROM FRONT  POOLS IDLE TO NEXT  POOL LIFETIME
  client                              40s    -      -                      -                   -
  balancer aws-alb                    60s    -      60s                    60s                 -
  nginx edge.conf location /api/      30s    2 !    [75s]                  [60s]               [1h]
  nginx internal.conf location /api/  20s    3      [75s]                  4s                  [1h]
  backend uvicorn                     -      -      5s                     -                   -
  ! edge.conf:15: 2 hops retry the same request [retry-amplification]
`, out)
}

func TestChainJSON(t *testing.T) {
	code, out, _ := runCLI(t, "../../fixtures/keepalive-idle-race/layers", "chain", "--format", "json", "--target", "nginx:newest", "edge.conf", "internal.conf")
	require.Equal(t, exitClean, code)
	var doc struct {
		Version int `json:"version"`
		Paths   []struct {
			Steps []struct {
				Kind     string `json:"kind"`
				Name     string `json:"name"`
				PoolIdle *struct {
					Seconds float64 `json:"seconds"`
					Setting string  `json:"setting"`
					Line    int     `json:"line"`
				} `json:"pool_idle"`
			} `json:"steps"`
			Findings []struct{ Rule, File string } `json:"findings"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Paths, 1)
	steps := doc.Paths[0].Steps
	require.Len(t, steps, 2)
	assert.Equal(t, "nginx edge.conf location /", steps[0].Name)
	require.NotNil(t, steps[0].PoolIdle)
	assert.Equal(t, 90.0, steps[0].PoolIdle.Seconds)
	assert.Equal(t, 8, steps[0].PoolIdle.Line)
	require.Len(t, doc.Paths[0].Findings, 1)
	assert.Equal(t, "keepalive-idle-race", doc.Paths[0].Findings[0].Rule)
}

func TestChainErrors(t *testing.T) {
	code, _, errOut := runCLI(t, t.TempDir(), "chain", "missing.conf")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "missing.conf")
	code, _, errOut = runCLI(t, "", "chain", "--format", "sarif", "x.conf")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "want text or json")
	code, out, _ := runCLI(t, "", "chain", "--help")
	assert.Equal(t, exitClean, code)
	assert.Contains(t, out, "Usage: proxylint chain")
}

func TestChainFromConfigFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".proxylint.yaml", `chain:
  - client: 30s
  - balancer: aws-alb
  - backend: node
target: nginx:newest
`)
	writeFile(t, dir, "nginx.conf", `events {}
http {
    log_format timing '$request $status $request_time $upstream_status $upstream_response_time';
    access_log logs/access.log timing;
    upstream app { server 10.0.0.1:8000; }
    server {
        listen 80;
        keepalive_timeout 75s;
        location / { proxy_pass http://app; proxy_read_timeout 45s; }
    }
}
`)
	code, out, errOut := runCLI(t, dir, "--no-color", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
	assert.Contains(t, out, ".proxylint.yaml:3:15: warning: aws-alb waits 60s, longer than the client (chain: client) in front of it (30s)")
	assert.Contains(t, out, "nginx.conf:5:5: warning: upstream \"app\" keeps idle connections for 60s (keepalive_timeout 60s (default)), but node (chain: backend node) closes them after 5s")

	// A flag replaces the matching hop of the file.
	code, out, _ = runCLI(t, dir, "--no-color", "--client-timeout", "90s", "nginx.conf")
	assert.Equal(t, exitFindings, code)
	assert.NotContains(t, out, "longer than the client")
}

// A file's name and a location's path reach the chain table escaped: they
// can neither start a line of their own nor hold a terminal sequence.
func TestChainTextEscapesInput(t *testing.T) {
	dir := t.TempDir()
	name := "e\n::error::forged.conf"
	writeFile(t, dir, name, "events {}\nhttp {\n  server {\n    listen 80;\n    location \"/a\x1b]0;title\x07\u202e\" {\n      proxy_pass http://127.0.0.1:8000;\n      proxy_read_timeout 30s;\n    }\n  }\n}\n")
	code, out, errOut := runCLI(t, dir, "chain", "--no-color", name)
	require.Equal(t, exitClean, code, errOut)
	assert.Equal(t, `Path 1 of 1: e\n::error::forged.conf:5 location /a\x1b]0;title\x07\u202e
  HOP                                                              WAITS  TRIES  KEEPS IDLE FROM FRONT  POOLS IDLE TO NEXT  POOL LIFETIME
  nginx e\n::error::forged.conf location /a\x1b]0;title\x07\u202e  30s    1      [75s]                  -                   -
  ! e\n::error::forged.conf:6: proxy_pass to 127.0.0.1:8000 has no upstream block, so nginx opens a new connection for every request. Addresses used directly are never pooled, on any nginx... [upstream-no-keepalive]
`, out)
}
