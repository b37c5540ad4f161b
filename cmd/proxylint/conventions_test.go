package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFlagErrorsInDoubleDashForm: the flag package's messages name flags
// as --help writes them, "--quiet" and "-f", never Go's "-quiet".
func TestFlagErrorsInDoubleDashForm(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--bogus", "nginx.conf"}, "proxylint: flag provided but not defined: --bogus\n"},
		{[]string{"-bogus", "nginx.conf"}, "proxylint: flag provided but not defined: --bogus\n"},
		{[]string{"-x", "nginx.conf"}, "proxylint: flag provided but not defined: -x\n"},
		{[]string{"--fromat", "json", "nginx.conf"}, "proxylint: flag provided but not defined: --fromat; did you mean --format?\n"},
		{[]string{"nginx.conf", "--format"}, "proxylint: flag needs an argument: --format\n"},
		{[]string{"nginx.conf", "-f"}, "proxylint: flag needs an argument: -f\n"},
		{[]string{"--max-includes", "many", "nginx.conf"}, "proxylint: invalid value \"many\" for flag --max-includes: parse error\n"},
		{[]string{"--fix=maybe", "nginx.conf"}, "proxylint: invalid boolean value \"maybe\" for --fix: parse error\n"},
		{[]string{"chain", "--bogus", "nginx.conf"}, "proxylint chain: flag provided but not defined: --bogus\n"},
	} {
		code, out, errOut := runCLI(t, dir, c.args...)
		assert.Equal(t, exitError, code, c.args)
		assert.Empty(t, out, c.args)
		assert.Equal(t, c.err+"Run \"proxylint"+chainWord(c.args)+" --help\" for usage.\n", errOut, c.args)
	}
}

func chainWord(args []string) string {
	if args[0] == "chain" {
		return " chain"
	}
	return ""
}

// TestShortFormatFlag: -f is --format, as hadolint and shellcheck spell it.
func TestShortFormatFlag(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nginx.conf", literalProxyPass)
	code, short, errOut := runCLI(t, dir, "--no-config", "-f", "json", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
	_, long, _ := runCLI(t, dir, "--no-config", "--format", "json", "nginx.conf")
	assert.Equal(t, long, short)
	assert.Contains(t, short, `"rule": "upstream-no-keepalive"`)
	code, _, errOut = runCLI(t, dir, "--no-config", "-f", "sarif=out.sarif", "-f", "text", "nginx.conf")
	assert.Equal(t, exitFindings, code, errOut)
	assert.FileExists(t, dir+"/out.sarif")
}

func TestInitFlagErrorInDoubleDashForm(t *testing.T) {
	code, out, errOut := runCLI(t, t.TempDir(), "init", "--forse")
	assert.Equal(t, exitError, code)
	assert.Empty(t, out)
	assert.Equal(t, "proxylint init: flag provided but not defined: --forse; did you mean --force?\nusage: proxylint init [--force] [FILE]\n", errOut)
}
