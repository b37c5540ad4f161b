package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestLSPCommandLine(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"lsp", "--help"}, &out, &errOut, func(string) string { return "" }); code != exitClean {
		t.Fatalf("lsp --help exited %d: %s", code, errOut.String())
	}
	if !strings.HasPrefix(out.String(), "Usage: proxylint lsp [--stdio]\n") || !strings.Contains(out.String(), "docs/editors.md") {
		t.Errorf("lsp --help printed:\n%s", out.String())
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"lsp", "--tcp"}, &out, &errOut, func(string) string { return "" }); code != exitError {
		t.Errorf("lsp --tcp exited %d, want %d", code, exitError)
	}
	if !strings.HasPrefix(errOut.String(), `proxylint lsp: unexpected argument "--tcp"`) {
		t.Errorf("lsp --tcp said:\n%s", errOut.String())
	}
	out.Reset()
	if code := run([]string{"--help"}, &out, &errOut, func(string) string { return "" }); code != exitClean || !strings.Contains(out.String(), "proxylint lsp ") {
		t.Errorf("--help does not list the lsp command:\n%s", out.String())
	}
}
