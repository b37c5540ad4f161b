package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/proxylint/proxylint/cmd/proxylint/internal/config"
	"github.com/proxylint/proxylint/lint"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/parsers/nginx"
	"github.com/proxylint/proxylint/report"
	"github.com/proxylint/proxylint/rules"
)

const usageText = `proxylint: static analysis for nginx and Envoy configurations

Usage:
  proxylint [flags] PATH...      lint files or directories ("-" reads
                                 standard input: a file, an nginx -T
                                 dump or Envoy admin /config_dump output)
  proxylint rules                list the rules
  proxylint explain RULE         print a rule's documentation
  proxylint init [--force] [FILE]
                                 write a commented .proxylint.yaml
                                 (FILE "-" prints it)
  proxylint chain [flags] PATH...
                                 show each request's path hop by hop:
                                 timeouts, retries, idle timeouts
  proxylint upgrade --from RELEASE --to RELEASE PATH...
                                 what changes for these configurations
                                 with an upgrade: defaults, directives,
                                 findings (also: --upgrade-to RELEASE)
  proxylint lsp                  a language server on standard input and
                                 output, for editors (docs/editors.md)
  proxylint version, --version   print the version

PATH is a file or a directory. A directory is searched for nginx and Envoy
files and Kubernetes manifests, told apart by their structure; other files
are skipped (--verbose lists them), templates are noted once. A file
included by another linted file, by an entry point named in
.proxylint.yaml, or by a main configuration found above it, is linted
through it, in context. The Kubernetes manifests of a run are joined as
one deployment; those that configure no proxy are skipped.

Flags:
  -f, --format FORMAT[=FILE]
                           text (default), json, sarif (SARIF 2.1.0 for
                           code scanning), github (workflow commands
                           that annotate a pull request), gitlab (a
                           GitLab Code Quality report), junit (JUnit XML:
                           a failed test case per finding at or above
                           --fail-on) or checkstyle (Checkstyle XML);
                           repeat with =FILE for several reports in one
                           run: --format sarif=proxylint.sarif --format text
  --output FILE            write the report to FILE instead of stdout:
                           where a link leads, in place for a device or
                           a FIFO, by rename for a regular file; never
                           over a file the run reads
  --root DIR               the repository root SARIF and github paths are
                           relative to (default: the directory above the
                           working directory that holds .git)
  --stdin-filename NAME    the name standard input ("-") goes by in
                           positions and for finding .proxylint.yaml
  --color WHEN             colour the text report: auto (default: on a
                           terminal, or with FORCE_COLOR set as in a CI
                           log; never with NO_COLOR set or TERM=dumb),
                           always (files too) or never
  --no-color               --color never
  --fail-on LEVEL          exit 1 when a finding is at or above LEVEL:
                           error, warning or note (default warning)
  --exit-zero              exit 0 even with findings at or above
                           --fail-on (still 2 when a file could not be
                           linted)
  -q, --quiet              print the findings and nothing else: no line
                           on what was read, no summary, no progress on
                           standard error (fixed, recorded)
  --enable RULE[,RULE]     turn rules on (repeatable; "all" is every
                           rule, and later flags win: --disable all
                           --enable RULE runs RULE alone)
  --disable RULE[,RULE]    turn rules off (repeatable; "all" as above)
  --only RULE[,RULE]       run these rules and no other, whatever
                           .proxylint.yaml enables or disables
  --target TARGET          the proxy release the configurations are for,
                           because defaults differ; repeat for one per
                           product: nginx (default: every release from
                           1.18, what distributions ship), nginx:1.28,
                           nginx:newest, angie, angie:1.11, envoy (default:
                           the newest), envoy:1.31, istio:1.23,
                           ingress-nginx, nginx-ingress (NGINX Inc's
                           controller), envoy-gateway:1.1.2, contour:1.33,
                           traefik:3.7 (Kubernetes manifests:
                           docs/kubernetes.md)
  --kind nginx|envoy|kubernetes
                           read every file as this kind (default: detect)
  --include-root DIR       also follow includes into DIR (repeatable);
                           by default includes are read only inside the
                           working directory and the named paths
  --exclude PATTERN        skip matching paths (repeatable): a name
                           ("*.bak", "vendor") or a path ("deploy/old/")
  --client-timeout DUR     how long clients wait for a response (e.g. 30s)
  --behind LB              the hop in front of the proxy: aws-alb (60s),
                           cloudflare (100s), gcp-lb (30s), or how long it
                           waits, e.g. 75s; repeat, outermost first, for
                           several
  --backend BACKEND        the server behind the proxies, for its idle
                           keep-alive timeout: uvicorn (5s), gunicorn (2s),
                           gunicorn-sync, node (5s), go-net-http, aiohttp
                           (75s), aiohttp-handler-cancellation, kestrel
                           (130s), tomcat (20s), tomcat-embedded (60s),
                           puma (65s), jetty (30s), or a duration, e.g. 5s
                           (sources: docs/presets.md)
  --config FILE            read settings from FILE for every file,
                           instead of the .proxylint.yaml nearest above
                           each linted file, up to the repository root
  --no-config              read no configuration file
  --require-reason         a "# proxylint:ignore RULE" comment without
                           "-- reason" is an error
  --no-inline-ignores      disregard proxylint:ignore comments (audits)
  --baseline FILE          report only findings not recorded in FILE
  --write-baseline FILE    record today's findings in FILE; later runs
                           with --baseline FILE report only new ones
  --diff                   print the fixes as a unified diff, files named
                           relative to the repository root (git apply,
                           patch -p1)
  --fix                    apply the safe fixes to the files (a link's
                           target, not the link), each replaced whole
                           (one with hard links written in place);
                           never a file outside the named paths and the
                           repository or changed since it was read; then
                           lint again and report what remains
  --unsafe-fixes           with --fix or --diff, the unsafe fixes too:
                           those that may undo what was chosen on purpose
                           or rest on what proxylint cannot see (each
                           rule's doc says which); reports mark them
                           "unsafe fix"
  --verbose                name each file a directory walk skips, and why
                           (the summary counts them)
  --max-file-size SIZE     read at most SIZE bytes of one file (default 64M;
                           K, M, G are powers of 1024)
  --max-total-size SIZE    read at most SIZE bytes in the run, and in what
                           one nginx configuration expands to through its
                           includes (default 256M)
  --max-includes N         parse at most N included files in one nginx
                           configuration, and follow at most 100·N
                           inclusions; a file that includes nothing is
                           parsed once and shared where it is included
                           again, in the same kind of block (default 10000)
  --max-paths N            follow at most N request paths from one entry
                           route across linked hops (default 10000)
  --cpuprofile FILE        write a CPU profile of the run to FILE, for
                           go tool pprof (README, "Troubleshooting")
  --memprofile FILE        write a memory profile of the run to FILE:
                           what was allocated where, and what was in use
  -h, --help               this help

Settings in .proxylint.yaml apply unless a flag says otherwise.

Everything after "--" is a path, even when it starts with "-": after it,
"-" is the file named "-", not standard input.

Exit codes:
  0  no finding at or above --fail-on (or --exit-zero)
  1  findings at or above --fail-on, or --fix changed a file
  2  could not lint: bad usage, a bad configuration file, a named path or
     directory entry that cannot be read or told apart (dangling link,
     link loop, path too long), a file that is not a regular file (FIFO,
     device), a file that cannot be parsed, a budget exceeded (--max-*),
     nothing to lint (no nginx or Envoy configuration found; Kubernetes
     manifests that configure no proxy exit 0 with a note), or a
     report, baseline or fix that cannot be written (a full device, a
     FIFO nobody reads, a link out of the repository)

Examples:
  proxylint /etc/nginx/nginx.conf --include-root /etc/nginx
  proxylint --target nginx:1.28 --format json deploy/nginx/
  proxylint --format sarif=proxylint.sarif --format text .
  nginx -T | proxylint -
  curl -s localhost:9901/config_dump | proxylint -
  proxylint explain retry-timeout-write
`

// lintFlags are the parsed command line of a lint run.
type lintFlags struct {
	format string
	// outputs are the reports to write (--format NAME[=FILE] and
	// --output), at least one; format is the first one's.
	outputs       []output
	formatArgs    []string
	root          string
	stdinFilename string
	stdin         io.Reader
	output        string
	noColor       bool
	// color is --color: always, never or auto (the default).
	color  string
	failOn string
	// ruleChoices are --enable and --disable in their order; only is
	// --only (nil when not given).
	ruleChoices     []ruleChoice
	only            []string
	targets         []string
	kind            string
	includeRoots    []string
	exclude         []string
	clientTime      string
	behind          []string
	backend         string
	config          string
	noConfig        bool
	requireReason   bool
	noInlineIgnores bool
	baseline        string
	writeBaseline   string
	help            bool
	// quiet prints the findings and nothing else; exitZero exits 0
	// whatever was found (2 still when a file could not be linted).
	quiet, exitZero bool
	// diff prints the fixes as a unified diff; fix applies them;
	// unsafeFixes takes the unsafe fixes too.
	diff, fix, unsafeFixes bool
	limits
	// prof are --cpuprofile and --memprofile.
	prof profiles
	// given holds the flags set on the command line, which beat the
	// configuration file.
	given map[string]bool
	// nginxRead hears of every nginx configuration read
	// (load.Options.NginxRead; proxylint upgrade's directive walk).
	nginxRead func(cfg *nginx.Config, target model.Target)
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
	f := &lintFlags{format: "text", failOn: "warning", given: map[string]bool{}}
	fs := flag.NewFlagSet("proxylint", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(appendFlag{&f.formatArgs}, "format", "")
	fs.Var(appendFlag{&f.formatArgs}, "f", "")
	fs.StringVar(&f.root, "root", "", "")
	fs.StringVar(&f.stdinFilename, "stdin-filename", "", "")
	fs.StringVar(&f.output, "output", "", "")
	fs.BoolVar(&f.noColor, "no-color", false, "")
	fs.StringVar(&f.color, "color", colorAuto, "")
	fs.StringVar(&f.failOn, "fail-on", f.failOn, "")
	fs.Var(choiceFlag{true, &f.ruleChoices}, "enable", "")
	fs.Var(choiceFlag{false, &f.ruleChoices}, "disable", "")
	fs.Var(listFlag{&f.only}, "only", "")
	fs.Var(listFlag{&f.targets}, "target", "")
	fs.StringVar(&f.kind, "kind", "", "")
	fs.Var(listFlag{&f.includeRoots}, "include-root", "")
	fs.Var(listFlag{&f.exclude}, "exclude", "")
	fs.StringVar(&f.clientTime, "client-timeout", "", "")
	fs.Var(listFlag{&f.behind}, "behind", "")
	fs.StringVar(&f.backend, "backend", "", "")
	fs.StringVar(&f.config, "config", "", "")
	fs.BoolVar(&f.noConfig, "no-config", false, "")
	fs.BoolVar(&f.requireReason, "require-reason", false, "")
	fs.BoolVar(&f.noInlineIgnores, "no-inline-ignores", false, "")
	fs.StringVar(&f.baseline, "baseline", "", "")
	fs.StringVar(&f.writeBaseline, "write-baseline", "", "")
	fs.BoolVar(&f.help, "help", false, "")
	fs.BoolVar(&f.help, "h", false, "")
	fs.BoolVar(&f.diff, "diff", false, "")
	fs.BoolVar(&f.fix, "fix", false, "")
	fs.BoolVar(&f.quiet, "quiet", false, "")
	fs.BoolVar(&f.quiet, "q", false, "")
	fs.BoolVar(&f.exitZero, "exit-zero", false, "")
	fs.BoolVar(&f.unsafeFixes, "unsafe-fixes", false, "")
	f.limits.register(fs)
	f.prof.register(fs)

	var paths, tail []string
	for i, a := range args {
		if a == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, fmt.Errorf("%w: %w", errUsage, flagError(fs, err))
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		paths = append(paths, args[0])
		args = args[1:]
	}
	for _, p := range tail {
		if p == load.StdinPath {
			// After "--" a "-" is the file of that name, not standard
			// input.
			p = "." + string(filepath.Separator) + p
		}
		paths = append(paths, p)
	}
	fs.Visit(func(fl *flag.Flag) { f.given[fl.Name] = true })
	if f.help {
		return f, paths, nil
	}
	if err := f.parseOutputs(report.LintFormats.Names()); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	if f.writeBaseline != "" && leadsToStdout(f.writeBaseline) {
		for _, o := range f.outputs {
			if o.file == "" {
				return nil, nil, fmt.Errorf("%w: --write-baseline %s and the %s report both write to standard output; give the report a file with --format %s=FILE", errUsage, f.writeBaseline, o.format, o.format)
			}
		}
	}
	if f.unsafeFixes && !f.fix && !f.diff {
		return nil, nil, fmt.Errorf("%w: --unsafe-fixes applies with --fix or --diff", errUsage)
	}
	if _, err := model.ParseSeverity(f.failOn); err != nil {
		return nil, nil, fmt.Errorf("%w: --fail-on: %w", errUsage, err)
	}
	switch f.kind {
	case "", load.KindNginx, load.KindEnvoy, load.KindKube:
	default:
		return nil, nil, fmt.Errorf("%w: --kind %q: want nginx, envoy or kubernetes", errUsage, f.kind)
	}
	ids := append([]string{}, f.only...)
	for _, c := range f.ruleChoices {
		ids = append(ids, c.id)
	}
	for _, id := range ids {
		if err := checkRuleID(id); err != nil {
			return nil, nil, fmt.Errorf("%w: %w", errUsage, err)
		}
	}
	if f.given["only"] {
		if len(f.only) == 0 {
			return nil, nil, fmt.Errorf("%w: --only names no rule", errUsage)
		}
		if len(f.ruleChoices) > 0 {
			return nil, nil, fmt.Errorf("%w: --only names every rule that runs; drop --enable and --disable, or --only", errUsage)
		}
	}
	if err := f.limits.check(); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	if f.root != "" {
		if err := checkRoot(f.root); err != nil {
			return nil, nil, fmt.Errorf("%w: %w", errUsage, err)
		}
	}
	switch f.color {
	case colorAuto, colorAlways, colorNever:
	default:
		return nil, nil, fmt.Errorf("%w: --color %q: want always, never or auto", errUsage, f.color)
	}
	if f.noColor && f.given["color"] && f.color != colorNever {
		return nil, nil, fmt.Errorf("%w: --no-color and --color %s contradict each other", errUsage, f.color)
	}
	if f.noColor {
		f.color = colorNever
	}
	if f.quiet && f.verbose {
		return nil, nil, fmt.Errorf("%w: --quiet and --verbose contradict each other", errUsage)
	}
	if err := f.prof.check(f, f.given); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	if f.config != "" && f.noConfig {
		return nil, nil, fmt.Errorf("%w: --config and --no-config contradict each other", errUsage)
	}
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("%w: no paths to lint", errUsage)
	}
	if n := countStdin(paths); n > 1 {
		return nil, nil, fmt.Errorf("%w: standard input (\"-\") named %d times", errUsage, n)
	} else if n == 0 && f.stdinFilename != "" {
		return nil, nil, fmt.Errorf("%w: --stdin-filename without \"-\" among the paths", errUsage)
	}
	return f, paths, nil
}

// checkRoot refuses a --root that names no directory: paths in SARIF and
// github output would be relative to something that is not there.
func checkRoot(root string) error {
	fi, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--root %s: no such directory", root)
	case err != nil:
		return fmt.Errorf("--root %s: %w", root, unwrapPath(err))
	case !fi.IsDir():
		return fmt.Errorf("--root %s: not a directory", root)
	}
	return nil
}

// settings are what a run does: the command line over the configuration
// file over the defaults.
type settings struct {
	targets  []model.Target
	failOn   model.Severity
	rules    *rules.Options
	load     load.Options
	baseline string
	// skipped counts the files directory walks left out.
	skipped int
	// configPaths are the configuration files read, if any.
	configPaths []string
	// failOnOf, when set, is the threshold of the configuration that
	// governs a file (a run over files under different ones); failOn
	// otherwise.
	failOnOf func(file string) model.Severity
}

// threshold is the severity at which a finding at file fails the run.
func (s *settings) threshold(file string) model.Severity {
	if s.failOnOf != nil {
		return s.failOnOf(file)
	}
	return s.failOn
}

// readConfig reads the configuration file that governs the group, or
// none.
func readConfig(f *lintFlags, g *configGroup) (*config.Config, error) {
	if f.noConfig || g.config == "" {
		return nil, nil
	}
	cfg, err := config.LoadMax(g.config, f.fileLimit())
	var ce *config.Error
	if err != nil && !errors.As(err, &ce) {
		return nil, fmt.Errorf("--config: %w", err)
	}
	return cfg, err
}

// resolve merges the command line and the configuration file.
func resolve(f *lintFlags, cfg *config.Config) (*settings, error) {
	if cfg == nil {
		cfg = &config.Config{}
	}
	s := &settings{}

	// Targets: the configuration file's, each replaced by a --target of
	// the same product family; one per family.
	family := func(p model.Product) model.Product {
		if p == model.Angie {
			return model.Nginx
		}
		return p
	}
	s.targets = append(s.targets, cfg.Targets...)
	given := map[model.Product]bool{}
	for _, v := range f.targets {
		t, err := model.ParseTarget(v)
		if err != nil {
			return nil, fmt.Errorf("--target: %w", err)
		}
		if given[family(t.Product)] {
			return nil, fmt.Errorf("--target %s: a second target for %s configurations", v, family(t.Product))
		}
		given[family(t.Product)] = true
		var kept []model.Target
		for _, c := range s.targets {
			if family(c.Product) != family(t.Product) {
				kept = append(kept, c)
			}
		}
		kept = append(kept, t)
		s.targets = kept
	}

	s.failOn, _ = model.ParseSeverity(f.failOn)
	if cfg.FailOn != nil && !f.given["fail-on"] {
		s.failOn = *cfg.FailOn
	}

	s.rules = cfg.RuleOptions()
	s.rules.Enable, s.rules.Disable = ruleSwitches(cfg.Enable, cfg.Disable, f.ruleChoices, f.onlyRules())
	if f.given["require-reason"] {
		s.rules.RequireReason = f.requireReason
	}
	s.rules.NoInlineIgnores = f.noInlineIgnores

	wd, _ := os.Getwd()
	s.load = cfg.LoadOptions()
	s.load.Kind = f.kind
	s.load.Targets = s.targets
	s.load.IncludeRoots = append(append([]string{}, f.includeRoots...), s.load.IncludeRoots...)
	for _, e := range f.exclude {
		pat, err := config.ExcludePattern(e, wd)
		if err != nil {
			return nil, fmt.Errorf("--exclude: %w", err)
		}
		s.load.Exclude = append(s.load.Exclude, pat)
	}

	f.limits.apply(&s.load)

	s.baseline = cfg.Baseline
	if f.given["baseline"] {
		s.baseline = f.baseline
	}
	return s, nil
}

func cmdLint(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) (code int) {
	f, paths, err := parseLintFlags(args)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "usage: ")
		fmt.Fprintf(stderr, "proxylint: %v\nRun \"proxylint --help\" for usage.\n", msg)
		writeFailedSARIF(sarifTargets(args), msg, model.Pos{}, stdout, stderr)
		return exitError
	}
	if f.help {
		fmt.Fprint(stdout, usageText)
		return exitClean
	}
	f.stdin = stdin
	prof, err := startProfiles(f.prof, paths)
	if err != nil {
		fmt.Fprintf(stderr, "proxylint: %v\n", err)
		return exitError
	}
	defer prof.stop(stdout, stderr, &code)
	rec := &messageRecorder{w: stderr}
	s, run, ok := analyze(f, paths, rec)
	if !ok {
		writeFailedSARIF(f.sarifOutputs(), rec.first, model.Pos{}, stdout, stderr)
		return exitError
	}
	prof.read(inputs(paths, run.model.Files, s))
	wd, _ := os.Getwd()
	read := readStats(run.model)
	realNames(run, wd)
	var fixes *rules.Applicability
	if f.diff || f.fix {
		threshold := rules.Safe
		if f.unsafeFixes {
			threshold = rules.Unsafe
		}
		fixes = &threshold
	}
	out, code := afterRules(f, s, paths, run, wd, fixes, stdout, stderr)
	if code != exitClean {
		return code
	}
	changed := false
	if fixes != nil {
		files, err := fixFiles(run.files, out.Fixes)
		if err != nil {
			fmt.Fprintf(stderr, "proxylint: %v\n", err)
			return exitError
		}
		set := out.Fixes
		if f.diff {
			if err := writeDiff(stdout, files, repoRoot(f, wd), wd); err != nil {
				fmt.Fprintf(stderr, "proxylint: --diff: %v\n", err)
				return exitError
			}
			if !f.quiet {
				unsafeLeft(stderr, set)
			}
			// The diff is the report: it exits as the lint does, and
			// with 1 when it changes a file, so that a CI step running
			// --diff fails where the lint would.
			c := exitCode(out.Findings, s.threshold)
			if c == exitClean && len(files) > 0 {
				c = exitFindings
			}
			if c == exitFindings {
				return f.findingsExit()
			}
			return c
		}
		n, ok := applyFixes(files, paths, repository(f, wd), stderr)
		if !ok && n == 0 {
			return exitError
		}
		if !f.quiet {
			fmt.Fprintf(stderr, "proxylint: fixed %d %s in %d %s\n", set.Applied, plural(set.Applied, "finding", "findings"), n, plural(n, "file", "files"))
			unsafeLeft(stderr, set)
		}
		if !ok {
			return exitError
		}
		if s, run, ok = analyze(f, paths, stderr); !ok {
			return exitError
		}
		read = readStats(run.model)
		realNames(run, wd)
		if out, code = afterRules(f, s, paths, run, wd, nil, stdout, stderr); code != exitClean {
			return code
		}
		// Like pre-commit's fixers: a run that changed files fails, and
		// the next one, after "git add", passes.
		changed = n > 0
	}
	mdl := run.model
	read.NotFollowed = notFollowed(out.Findings)
	in := &report.Input{Findings: out.Findings, Known: out.Known, Files: run.files, Rules: rules.All(), Version: strings.TrimPrefix(buildVersion(), "v"),
		Dir: wd, Root: repoRoot(f, wd), Diagnostics: run.diagnostics, Skipped: s.skipped, Targets: targetsUsed(mdl),
		Read: read, Verbose: f.verbose, Quiet: f.quiet, FailOn: s.failOn}

	reportInputs := inputs(paths, run.files, s)
	// The model is not used past this point: the report needs the
	// findings and the files' sources, which in holds.
	collectLarge(bytesRead(mdl))
	if err := writeReports(report.LintFormats, f, in, reportInputs, stdout, stderr, getenv); err != nil {
		fmt.Fprintf(stderr, "proxylint: %v\n", err)
		return exitError
	}
	c := exitCode(in.Findings, s.threshold)
	if c == exitClean && changed {
		c = exitFindings
	}
	if c == exitFindings {
		return f.findingsExit()
	}
	return c
}

// sarifOutputs are the files the SARIF reports go to ("" for standard
// output).
func (f *lintFlags) sarifOutputs() []string {
	var out []string
	for _, o := range f.outputs {
		if o.format == "sarif" {
			out = append(out, o.file)
		}
	}
	return out
}

// onlyRules is --only's list, nil when it was not given.
func (f *lintFlags) onlyRules() []string {
	if !f.given["only"] {
		return nil
	}
	return f.only
}

// findingsExit is the exit code of a run with findings that fail it: 1,
// or 0 with --exit-zero.
func (f *lintFlags) findingsExit() int {
	if f.exitZero {
		return exitClean
	}
	return exitFindings
}

// analyzeGroup reads the group's configuration file, resolves the
// settings, loads the paths, links them into request paths with the
// declared hops, runs the rules and the steps after them up to the
// baseline (applyBaseline). ok is false after a usage or configuration
// error, which it has reported.
func analyzeGroup(f *lintFlags, g *configGroup, stderr io.Writer) (*settings, *linted, bool) {
	paths := g.paths
	cfg, err := readConfig(f, g)
	if err != nil {
		fmt.Fprintf(stderr, "proxylint: %s\n", report.Escape(err.Error()))
		return nil, nil, false
	}
	s, err := resolve(f, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "proxylint: %s\nRun \"proxylint --help\" for usage.\n", report.Escape(err.Error()))
		return nil, nil, false
	}
	if cfg != nil {
		s.configPaths = []string{cfg.Path}
	}
	declared, err := declaredChain(f, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "proxylint: %s\nRun \"proxylint --help\" for usage.\n", report.Escape(err.Error()))
		return nil, nil, false
	}
	s.load.OnSkip = func(path, reason string) {
		if g.skipped != nil {
			// Another group's walk passed over it already.
			if id := absPath(path); g.skipped[id] {
				return
			} else {
				g.skipped[id] = true
			}
		}
		s.skipped++
		if f.verbose {
			fmt.Fprintf(stderr, "proxylint: skipped %s: %s\n", path, report.Escape(reason))
		}
	}
	if countStdin(paths) > 0 {
		if s.load.Stdin, err = readStdin(f); err != nil {
			fmt.Fprintf(stderr, "proxylint: %v\n", err)
			return nil, nil, false
		}
	}
	s.load.NginxRead = f.nginxRead
	if declared != nil {
		s.rules.Hops = declared.Hops
	}
	s.rules.MaxPaths = f.limits.maxPaths
	res := lint.Run(paths, lint.Options{Load: s.load, Rules: s.rules})
	return s, &linted{model: res.Model, chain: res.Chain, files: res.Model.Files, diagnostics: res.Diagnostics, findings: res.Findings}, true
}

// afterRules runs the steps of the pipeline that judge the findings of the
// whole run (rules.Pipeline: each configuration's engine run did the steps
// up to sort): the fingerprints, by the whole run's files, and the
// baseline when one is named (--baseline, baseline: in the configuration,
// or --write-baseline, which records today's findings and applies them at
// once, so the run reports what a later run with it would: nothing new),
// then the fixes at the threshold fixes (nil: none). The exit code is
// exitError after a baseline that cannot be read or written, which it has
// reported.
func afterRules(f *lintFlags, s *settings, paths []string, run *linted, wd string, fixes *rules.Applicability, stdout, stderr io.Writer) (rules.Outcome, int) {
	steps := rules.Steps{Fixes: fixes}
	path := s.baseline
	if f.writeBaseline != "" {
		path = f.writeBaseline
	}
	if path != "" {
		steps.Fingerprint = func(fs []rules.Finding) []string { return report.FingerprintsOf(run.files, wd, fs) }
		if f.writeBaseline != "" {
			steps.Record = func(fs []rules.Finding) (func(string) bool, error) {
				return recordBaseline(f, s, paths, run, path, fs, wd, stdout, stderr)
			}
		} else {
			src, err := load.ReadRegular(path, f.fileLimit())
			if err != nil {
				fmt.Fprintf(stderr, "proxylint: baseline: %s: %v (write one with --write-baseline %s)\n", path, unwrapPath(err), path)
				return rules.Outcome{}, exitError
			}
			b, err := report.ReadBaseline(bytes.NewReader(src))
			if err != nil {
				fmt.Fprintf(stderr, "proxylint: baseline %s: %v\n", path, err)
				return rules.Outcome{}, exitError
			}
			steps.Known = b.Knows
		}
	}
	out := rules.RunPipeline(nil, nil, run.findings, steps)
	if out.Err != nil {
		return out, exitError
	}
	return out, exitClean
}

// errReported is an error the program has told the user of.
var errReported = errors.New("reported")

// recordBaseline writes the fingerprinted findings as the baseline at path
// (--write-baseline) and returns what the baseline written knows.
func recordBaseline(f *lintFlags, s *settings, paths []string, run *linted, path string, findings []rules.Finding, wd string, stdout, stderr io.Writer) (func(string) bool, error) {
	// Written from memory and read back from it: the destination may be
	// a device or a pipe, which cannot be read back.
	var buf bytes.Buffer
	in := &report.Input{Findings: findings, Files: run.files, Dir: wd}
	n, err := report.WriteBaseline(&buf, in)
	if err == nil {
		var d destination
		if d, err = resolveDestination(path, repository(f, wd)); err == nil {
			err = writeDestination(d, stdout, stderr, inputs(paths, nil, s), func(w io.Writer) error {
				_, err := w.Write(buf.Bytes())
				return err
			})
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "proxylint: --write-baseline: %v\n", namedError(path, err))
		return nil, errReported
	}
	if !f.quiet {
		fmt.Fprintf(stderr, "proxylint: recorded %d %s in %s\n", n, plural(n, "finding", "findings"), path)
	}
	b, err := report.ReadBaseline(bytes.NewReader(buf.Bytes()))
	if err != nil {
		fmt.Fprintf(stderr, "proxylint: baseline %s: %v\n", path, err)
		return nil, errReported
	}
	return b.Knows, nil
}

// unsafeLeft says how many unsafe fixes a run without --unsafe-fixes left
// out.
func unsafeLeft(stderr io.Writer, set rules.FixSet) {
	if set.Unsafe > 0 {
		fmt.Fprintf(stderr, "proxylint: %d unsafe %s not applied (--unsafe-fixes applies %s; each rule's doc says why it is unsafe)\n",
			set.Unsafe, plural(set.Unsafe, "fix", "fixes"), plural(set.Unsafe, "it", "them"))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// The values of --color.
const (
	colorAuto   = "auto"
	colorAlways = "always"
	colorNever  = "never"
)

// useColor says whether a text report written to standard output, out, is
// coloured. --color always colours it wherever it goes and
// --color never (or --no-color) nowhere. In auto, the default, a file is
// never coloured, and standard output is unless NO_COLOR is set
// (https://no-color.org), when FORCE_COLOR is (https://force-color.org:
// a CI log, which is no terminal), or else when it is a terminal whose
// TERM is not dumb.
func useColor(f *lintFlags, out io.Writer, getenv func(string) string) bool {
	return useColorIn(f, out, false, getenv)
}

// useColorIn is useColor for a report written to a file when toFile.
func useColorIn(f *lintFlags, out io.Writer, toFile bool, getenv func(string) string) bool {
	switch {
	case f.color == colorAlways:
		return true
	case f.color == colorNever || f.noColor || toFile || getenv("NO_COLOR") != "":
		return false
	case getenv("FORCE_COLOR") != "":
		return true
	case getenv("TERM") == "dumb":
		return false
	}
	file, ok := out.(*os.File)
	return ok && (isatty.IsTerminal(file.Fd()) || isatty.IsCygwinTerminal(file.Fd()))
}

// exitCode: 2 when any input could not be loaded completely, else 1 when an
// unsuppressed finding reaches the threshold, else 0.
func exitCode(findings []rules.Finding, threshold func(file string) model.Severity) int {
	for _, f := range findings {
		if f.Fatal {
			return exitError
		}
	}
	for _, f := range findings {
		if f.Suppression == nil && f.Severity >= threshold(f.Pos.File) {
			return exitFindings
		}
	}
	return exitClean
}

// declaredChain builds the hops around the linted proxies: the chain of
// .proxylint.yaml, with the client replaced by --client-timeout, the
// balancers by --behind and the backend by --backend when given.
func declaredChain(f *lintFlags, cfg *config.Config) (*model.Chain, error) {
	var client, backend *model.Hop
	var balancers []*model.Hop
	if cfg != nil {
		for _, h := range cfg.Chain {
			switch h.Kind {
			case model.HopClient:
				client = h
			case model.HopBalancer:
				balancers = append(balancers, h)
			case model.HopBackend:
				backend = h
			}
		}
	}
	if f.clientTime != "" {
		d, err := model.ParseDuration(f.clientTime)
		if err != nil {
			return nil, fmt.Errorf("--client-timeout: %w", err)
		}
		client = model.ClientHop(d, "--client-timeout "+f.clientTime, model.Pos{})
	}
	if len(f.behind) > 0 {
		balancers = nil
		for _, b := range f.behind {
			h, err := model.BalancerHop(b, "--behind", model.Pos{})
			if err != nil {
				return nil, fmt.Errorf("--behind: %w", err)
			}
			balancers = append(balancers, h)
		}
	}
	if f.backend != "" {
		h, err := model.BackendHop(f.backend, "--backend", model.Pos{})
		if err != nil {
			return nil, fmt.Errorf("--backend: %w", err)
		}
		backend = h
	}
	var hops []*model.Hop
	if client != nil {
		hops = append(hops, client)
	}
	hops = append(hops, balancers...)
	if backend != nil {
		hops = append(hops, backend)
	}
	if len(hops) == 0 {
		return nil, nil
	}
	return &model.Chain{Hops: hops}, nil
}

// targetsUsed names the releases the linted configurations were read for,
// once each, in the order the proxies were loaded.
func targetsUsed(m *model.Model) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range m.Proxies {
		if t := p.Target.String(); !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// readStats counts what the run read: the files of the model, and those of
// them an include pulled in (every file but the proxies' entry files and
// the files an Envoy deployment was joined from).
func readStats(m *model.Model) report.ReadStats {
	entries := map[string]bool{}
	for _, p := range m.Proxies {
		entries[p.Entry] = true
		for _, s := range p.Sources {
			entries[s] = true
		}
	}
	// A file read under two names (a run over several configuration
	// files reads a main configuration again for its fragments) is
	// counted once.
	var r report.ReadStats
	seen := map[string]bool{}
	for _, f := range m.Files {
		id := f.Real
		if id == "" {
			id = f.Path
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		r.Files++
		if !entries[f.Path] {
			r.Included++
		}
	}
	return r
}

// notFollowed counts the includes not followed among the findings
// reported: the nginx-include findings at an include directive. The notes
// of that rule about a whole file (linted through the nginx.conf above
// it, includes resolved from its directory) name no include, and a
// finding out of the run's scope is not shown, so neither is counted.
func notFollowed(findings []rules.Finding) int {
	n := 0
	for _, f := range findings {
		if f.Rule == rules.NginxInclude.ID && f.Pos.Line > 0 {
			n++
		}
	}
	return n
}
