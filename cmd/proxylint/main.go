// Command proxylint is a static analyzer for nginx and Envoy configurations.
// It finds the quiet failures no syntax check sees: timeouts that race
// between hops, retries that replay writes, upstreams that are never pooled.
//
// Run "proxylint --help" for usage.
package main

import (
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// Exit codes a pipeline can trust.
const (
	exitClean    = 0 // nothing at or above --fail-on
	exitFindings = 1 // findings at or above --fail-on
	exitError    = 2 // could not lint: bad usage, unreadable or unparsable input
)

// run is the whole program with its environment passed in, so tests can
// drive it in-process.
func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) > 0 {
		switch args[0] {
		case "rules":
			return cmdRules(args[1:], stdout, stderr)
		case "explain":
			return cmdExplain(args[1:], stdout, stderr)
		case "version":
			return cmdVersion(args[1:], stdout, stderr)
		case "init":
			return cmdInit(args[1:], stdout, stderr)
		case "chain":
			return cmdChain(args[1:], stdout, stderr, getenv)
		case "help":
			return cmdHelp(args[1:], stdout, stderr)
		}
	}
	return cmdLint(args, stdout, stderr, getenv)
}
