package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/proxylint/proxylint/parsers"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
	"github.com/proxylint/proxylint/rules/report"
)

const usageText = `proxylint: static analysis for nginx and Envoy configurations

Usage:
  proxylint [flags] PATH...      lint files or directories
  proxylint rules                list the rules
  proxylint explain RULE         print a rule's documentation
  proxylint version              print the version

PATH is a file or a directory. A directory is searched for nginx files
(nginx.conf, *.conf, sites-*/, conf.d/) and Envoy files (*.yaml, *.yml,
*.json with Envoy content). A file included by another linted file is
linted through it, in context.

Flags:
  --format text|json       output format (default text)
  --output FILE            write the report to FILE instead of stdout
  --no-color               no colour in text output (also: NO_COLOR set,
                           or stdout not a terminal)
  --fail-on LEVEL          exit 1 when a finding is at or above LEVEL:
                           error, warning or note (default warning)
  --enable RULE[,RULE]     turn rules on (repeatable)
  --disable RULE[,RULE]    turn rules off (repeatable)
  --target TARGET          the proxy the configuration is for, because
                           defaults differ: nginx (the newest, default),
                           nginx:1.28, nginx:1.29.7, angie, angie:1.11
  --kind nginx|envoy       read every file as this kind (default: detect)
  --include-root DIR       also follow includes into DIR (repeatable);
                           by default includes are read only inside the
                           working directory and the named paths
  --client-timeout DUR     how long clients wait for a response (e.g. 30s)
  --behind LB              the hop in front of the proxy: aws-alb (60s),
                           cloudflare (100s), gcp-lb (30s), or how long it
                           waits, e.g. 75s; repeat, outermost first, for
                           several
  -h, --help               this help

Exit codes:
  0  no finding at or above --fail-on
  1  findings at or above --fail-on
  2  could not lint: bad usage, or a file that cannot be read or parsed

Examples:
  proxylint /etc/nginx/nginx.conf --include-root /etc/nginx
  proxylint --target nginx:1.28 --format json deploy/nginx/
  proxylint explain retry-timeout-write
`

// lintFlags are the parsed command line of a lint run.
type lintFlags struct {
	format       string
	output       string
	noColor      bool
	failOn       string
	enable       []string
	disable      []string
	target       string
	kind         string
	includeRoots []string
	clientTime   string
	behind       []string
	help         bool
}

// listFlag collects a repeatable, comma-separated flag.
type listFlag struct{ vals *[]string }

func (l listFlag) String() string { return "" }
func (l listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l.vals = append(*l.vals, v)
		}
	}
	return nil
}

// errUsage marks command-line mistakes (exit code 2).
var errUsage = errors.New("usage")

// parseLintFlags reads flags and paths in any order ("proxylint a.conf
// --format json" works); everything after "--" is a path.
func parseLintFlags(args []string) (*lintFlags, []string, error) {
	f := &lintFlags{format: "text", failOn: "warning"}
	fs := flag.NewFlagSet("proxylint", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.format, "format", f.format, "")
	fs.StringVar(&f.output, "output", "", "")
	fs.BoolVar(&f.noColor, "no-color", false, "")
	fs.StringVar(&f.failOn, "fail-on", f.failOn, "")
	fs.Var(listFlag{&f.enable}, "enable", "")
	fs.Var(listFlag{&f.disable}, "disable", "")
	fs.StringVar(&f.target, "target", "nginx", "")
	fs.StringVar(&f.kind, "kind", "", "")
	fs.Var(listFlag{&f.includeRoots}, "include-root", "")
	fs.StringVar(&f.clientTime, "client-timeout", "", "")
	fs.Var(listFlag{&f.behind}, "behind", "")
	fs.BoolVar(&f.help, "help", false, "")
	fs.BoolVar(&f.help, "h", false, "")

	var paths, tail []string
	for i, a := range args {
		if a == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		paths = append(paths, args[0])
		args = args[1:]
	}
	paths = append(paths, tail...)
	if f.help {
		return f, paths, nil
	}
	switch f.format {
	case "text", "json":
	default:
		return nil, nil, fmt.Errorf("%w: --format %q: want text or json", errUsage, f.format)
	}
	if _, err := parsers.ParseSeverity(f.failOn); err != nil {
		return nil, nil, fmt.Errorf("%w: --fail-on: %v", errUsage, err)
	}
	switch f.kind {
	case "", load.KindNginx, load.KindEnvoy:
	default:
		return nil, nil, fmt.Errorf("%w: --kind %q: want nginx or envoy", errUsage, f.kind)
	}
	for _, id := range append(append([]string{}, f.enable...), f.disable...) {
		if _, ok := rules.Lookup(id); !ok {
			return nil, nil, fmt.Errorf("%w: unknown rule %q (see proxylint rules)", errUsage, id)
		}
	}
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("%w: no paths to lint", errUsage)
	}
	return f, paths, nil
}

func cmdLint(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	f, paths, err := parseLintFlags(args)
	if err != nil {
		fmt.Fprintf(stderr, "proxylint: %v\nRun \"proxylint --help\" for usage.\n", strings.TrimPrefix(err.Error(), "usage: "))
		return exitError
	}
	if f.help {
		fmt.Fprint(stdout, usageText)
		return exitClean
	}
	target, err := parsers.ParseTarget(f.target)
	if err != nil {
		fmt.Fprintf(stderr, "proxylint: --target: %v\n", err)
		return exitError
	}

	chain, err := declaredChain(f)
	if err != nil {
		fmt.Fprintf(stderr, "proxylint: %v\nRun \"proxylint --help\" for usage.\n", err)
		return exitError
	}

	model := load.Load(paths, load.Options{Kind: f.kind, Target: target, IncludeRoots: f.includeRoots})
	model.Chain = chain
	opts := &rules.Options{Enable: set(f.enable), Disable: set(f.disable)}
	findings := rules.Run(model, opts)

	out := stdout
	var file *os.File
	if f.output != "" {
		file, err = os.Create(f.output)
		if err != nil {
			fmt.Fprintf(stderr, "proxylint: --output: %v\n", err)
			return exitError
		}
		out = file
	}
	wd, _ := os.Getwd()
	in := &report.Input{Findings: findings, Files: model.Files, Rules: rules.All(), Version: version, Dir: wd}
	switch f.format {
	case "json":
		err = report.JSON(out, in)
	default:
		err = report.Text(out, in, useColor(f, out, getenv))
	}
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "proxylint: writing the report: %v\n", err)
		return exitError
	}
	return exitCode(model, findings, f.failOn)
}

func set(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// useColor: colour only for text to a terminal, unless --no-color or
// NO_COLOR (https://no-color.org) say otherwise.
func useColor(f *lintFlags, out io.Writer, getenv func(string) string) bool {
	if f.noColor || getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	file, ok := out.(*os.File)
	return ok && (isatty.IsTerminal(file.Fd()) || isatty.IsCygwinTerminal(file.Fd()))
}

// exitCode: 2 when any input could not be loaded completely, else 1 when an
// unsuppressed finding reaches the threshold, else 0.
func exitCode(m *parsers.Model, findings []rules.Finding, failOn string) int {
	for _, d := range m.Diagnostics {
		if d.Fatal {
			return exitError
		}
	}
	threshold, _ := parsers.ParseSeverity(failOn)
	for _, f := range findings {
		if f.Suppression == nil && f.Severity >= threshold {
			return exitFindings
		}
	}
	return exitClean
}

// declaredChain builds the hops in front of the linted proxies from
// --client-timeout and --behind.
func declaredChain(f *lintFlags) (*parsers.Chain, error) {
	var hops []*parsers.Hop
	if f.clientTime != "" {
		d, err := parsers.ParseDuration(f.clientTime)
		if err != nil {
			return nil, fmt.Errorf("--client-timeout: %w", err)
		}
		hops = append(hops, parsers.ClientHop(d, "--client-timeout "+f.clientTime, parsers.Pos{}))
	}
	for _, b := range f.behind {
		h, err := parsers.BalancerHop(b, "--behind", parsers.Pos{})
		if err != nil {
			return nil, fmt.Errorf("--behind: %w", err)
		}
		hops = append(hops, h)
	}
	if len(hops) == 0 {
		return nil, nil
	}
	return &parsers.Chain{Hops: hops}, nil
}
