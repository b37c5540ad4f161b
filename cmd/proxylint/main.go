// Command proxylint is a static analyzer for nginx and Envoy configurations.
// It finds the quiet failures no syntax check sees: timeouts that race
// between hops, retries that replay writes, upstreams that are never pooled.
//
// Run "proxylint --help" for usage.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/proxylint/proxylint/internal/suggest"
)

func main() {
	if !memProfileAsked(os.Args[1:]) {
		// No heap profile is written: the runtime need not sample
		// allocations (each sample unwinds the allocating stack).
		runtime.MemProfileRate = 0
	}
	gcPolicy(os.Getenv)
	os.Exit(runIO(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// Exit codes a pipeline can trust.
const (
	exitClean    = 0 // nothing at or above --fail-on
	exitFindings = 1 // findings at or above --fail-on
	exitError    = 2 // could not lint: bad usage, unreadable or unparsable input
)

// subcommands are the words that name a command rather than a path.
var subcommands = []string{"rules", "explain", "version", "init", "chain", "upgrade", "lsp", "help"}

// run is the whole program with its environment passed in, so tests can
// drive it in-process; it has no standard input.
func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return runIO(args, nil, stdout, stderr, getenv)
}

// runIO is run with standard input, which "-" among the paths reads.
func runIO(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) > 0 {
		switch args[0] {
		case "rules":
			return cmdRules(args[1:], stdout, stderr)
		case "explain":
			return cmdExplain(args[1:], stdout, stderr)
		case "version", "--version", "-version":
			return cmdVersion(args[1:], stdout, stderr)
		case "init":
			return cmdInit(args[1:], stdout, stderr)
		case "chain":
			return cmdChain(args[1:], stdin, stdout, stderr, getenv)
		case "upgrade":
			return cmdUpgrade(args[1:], stdin, stdout, stderr, getenv)
		case "lsp":
			return cmdLSP(args[1:], stdin, stdout, stderr)
		case "help":
			return cmdHelp(args[1:], stdout, stderr)
		}
		if near := misspeltCommand(args[0]); near != "" {
			fmt.Fprintf(stderr, "proxylint: unknown command %q; did you mean %q? (a path to lint must exist)\nRun \"proxylint --help\" for usage.\n", args[0], near)
			return exitError
		}
	}
	if wantsUpgrade(args) {
		return cmdUpgrade(args, stdin, stdout, stderr, getenv)
	}
	return cmdLint(args, stdin, stdout, stderr, getenv)
}

// misspeltCommand returns the subcommand that word, the first argument,
// was probably meant to be: word is no flag and no existing path, and is
// close to one subcommand. Otherwise "".
func misspeltCommand(word string) string {
	if word == "" || strings.HasPrefix(word, "-") || strings.ContainsAny(word, `/\.`) {
		return ""
	}
	if _, err := os.Lstat(word); err == nil {
		return ""
	}
	return suggest.Nearest(strings.ToLower(word), subcommands, 2)
}
