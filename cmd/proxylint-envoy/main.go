// Command proxylint-envoy reads Envoy configurations for proxylint. The
// proxylint command runs it when it meets an Envoy file, so that linting
// nginx alone never loads Envoy's API; it is not meant to be run by hand.
//
// Usage: proxylint-envoy --target TARGET FILE
//
// It writes the loaded configuration to stdout in the format of package
// parsers/wire and exits 0, or exits 2 with a message on bad usage.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/proxylint/proxylint/parsers"
	"github.com/proxylint/proxylint/parsers/load/envoyload"
	"github.com/proxylint/proxylint/parsers/wire"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("proxylint-envoy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("target", "envoy", "the Envoy release the file is for")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: proxylint-envoy --target TARGET FILE (run by proxylint)")
		return 2
	}
	t, err := parsers.ParseTarget(*target)
	if err != nil {
		fmt.Fprintf(stderr, "proxylint-envoy: --target: %v\n", err)
		return 2
	}
	r := envoyload.Load(fs.Arg(0), t)
	w := bufio.NewWriter(stdout)
	if err := wire.Encode(w, wire.Bundle{Proxies: r.Proxies, Files: r.Files, Diagnostics: r.Diagnostics}); err != nil {
		fmt.Fprintf(stderr, "proxylint-envoy: %v\n", err)
		return 2
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "proxylint-envoy: %v\n", err)
		return 2
	}
	return 0
}
