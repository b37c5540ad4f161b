package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Durations from flags and the configuration file are refused when they
// are infinite, not numbers, negative or too long, with exit code 2.
func TestDurationsRefused(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", "events {}\nhttp { server { listen 80; location / { proxy_pass http://127.0.0.1:8000; } } }\n")
	for _, c := range []struct{ value, why string }{
		{"inf", `bad duration "inf": out of range: not a number of seconds`},
		{"NaN", `bad duration "NaN": out of range: not a number of seconds`},
		{"-30s", `bad duration "-30s": out of range: negative`},
		{"-1", `bad duration "-1": out of range: negative`},
		{"1e19", `bad duration "1e19": out of range: too long`},
	} {
		code, out, errOut := runCLI(t, dir, "--no-color", "--client-timeout", c.value, "nginx.conf")
		assert.Equal(t, exitError, code, c.value)
		assert.Empty(t, out, c.value)
		assert.Contains(t, errOut, "--client-timeout: "+c.why)

		code, _, errOut = runCLI(t, dir, "chain", "--no-color", "--client-timeout", c.value, "nginx.conf")
		assert.Equal(t, exitError, code, c.value)
		assert.NotContains(t, errOut, "-9223372036854", c.value)
		assert.Contains(t, errOut, c.why)
	}

	writeFile(t, dir, ".proxylint.yaml", "chain:\n  - client: inf\n")
	code, _, errOut := runCLI(t, dir, "--no-color", "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, ".proxylint.yaml:2:13")
	assert.Contains(t, errOut, `bad duration "inf": out of range: not a number of seconds`)

	writeFile(t, dir, ".proxylint.yaml", "chain:\n  - client: 30s\n  - backend: {name: app, idle: -5s}\n")
	code, _, errOut = runCLI(t, dir, "--no-color", "nginx.conf")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, `.proxylint.yaml:3:32: chain: backend: idle: bad duration "-5s": out of range: negative`)
}
