package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/proxylint/proxylint/cmd/proxylint/internal/lsp"
)

const lspUsage = `Usage: proxylint lsp [--stdio]

Serve the Language Server Protocol on standard input and output, for an
editor: diagnostics as you type, fixes and suppressions as code actions,
effective values on hover, go to the upstream a pass directive or a
route's cluster names. Setup for Neovim, Helix, Emacs and VS Code:
docs/editors.md.

Each document is linted as "proxylint DIR" lints it, DIR being its
directory, under the .proxylint.yaml nearest above it.

  --stdio   accepted for clients that pass it; standard input and output
            are the only transport
`

// stdio is standard input and output as one stream.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }

func cmdLSP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, a := range args {
		switch a {
		case "--stdio":
		case "-h", "--help":
			fmt.Fprint(stdout, lspUsage)
			return exitClean
		default:
			fmt.Fprintf(stderr, "proxylint lsp: unexpected argument %q\n%s", a, lspUsage)
			return exitError
		}
	}
	if stdin == nil {
		fmt.Fprintln(stderr, "proxylint lsp: no standard input to serve on")
		return exitError
	}
	return lsp.Serve(context.Background(), stdio{stdin, stdout}, lsp.Options{
		Version: strings.TrimPrefix(buildVersion(), "v"), Chdir: true, Log: stderr,
	})
}
