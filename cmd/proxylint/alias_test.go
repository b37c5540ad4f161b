package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Rules are named by other linters' names too, on the command line and in
// the configuration file; a flag beats the configuration whichever name
// each uses, and findings carry the rule's own ID.
func TestRuleAliasesOnTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", `events {}
http {
    add_header X-Frame-Options DENY;
    upstream api { server api.internal.example.com:8080; }
    server {
        listen 80;
        location / {
            add_header Cache-Control no-store;
            proxy_pass http://api;
        }
    }
}
`)
	_, out, _ := runCLI(t, dir, "--no-config", "--no-color", "--disable", "log-format-blind,upstream-no-keepalive,retry-tries-unbounded", "nginx.conf")
	assert.Contains(t, out, "[set-header-drops-inherited]")
	assert.Contains(t, out, "[upstream-dns-stale]")

	_, out, errOut := runCLI(t, dir, "--no-config", "--no-color", "--disable", "add_header_redefinition,stale_dns_cache,log-format-blind,upstream-no-keepalive,retry-tries-unbounded", "nginx.conf")
	assert.NotContains(t, out, "[set-header-drops-inherited]", errOut)
	assert.NotContains(t, out, "[upstream-dns-stale]")

	writeFile(t, dir, ".proxylint.yaml", "rules:\n  disable: [missing_resolver, add_header_redefinition]\n")
	_, out, _ = runCLI(t, dir, "--no-color", "--enable", "upstream-dns-stale", "nginx.conf")
	assert.Contains(t, out, "[upstream-dns-stale]")
	assert.NotContains(t, out, "[set-header-drops-inherited]")

	_, out, _ = runCLI(t, dir, "--no-config", "--no-color", "--only", "stale_dns_cache", "nginx.conf")
	assert.Contains(t, out, "[upstream-dns-stale]")
	assert.NotContains(t, out, "[set-header-drops-inherited]")

	code, out, _ := runCLI(t, dir, "explain", "add_header_redefinition")
	assert.Equal(t, exitClean, code)
	assert.Contains(t, out, "# set-header-drops-inherited")
	assert.Contains(t, out, "Also accepted as: add_header_redefinition")
}
