package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/proxylint/proxylint/bench/gen"
)

// tree is one generated nginx configuration and nginx's scratch prefix for
// it.
type tree struct {
	label  string
	dir    string
	main   string
	prefix string
	files  int
	lines  int
	bytes  int64
}

func (t *tree) size() string {
	return fmt.Sprintf("%d files, %d lines, %s", t.files, t.lines, fmtBytes(t.bytes))
}

func fmtBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
}

// toolSpec is a tool and how to run it on a tree.
type toolSpec struct {
	name    string
	command func(t *tree) command
	// check looks at the warm-up run's output for signs that the tool
	// did not really read the configuration.
	check func(o outcome) error
	// reference marks proxylint's own runs, which the others are
	// compared with.
	reference bool
}

// entry is a tool's runs on one tree.
type entry struct {
	toolSpec
	rounds  int
	samples []sample
	err     error
}

type nginxFlags struct {
	sizes      []int
	rounds     int
	slowRounds int
	slow       time.Duration
	oneRounds  int
	tools      map[string]bool
	gen        string
	toolRounds map[string]int
	buildFlags
}

func parseNginxFlags(args []string, log io.Writer) (*nginxFlags, error) {
	f := &nginxFlags{}
	fs := flag.NewFlagSet("bench nginx", flag.ContinueOnError)
	fs.SetOutput(log)
	sizes := fs.String("sizes", "10,200,2000,20000", "server blocks of the generated trees, comma-separated")
	fs.IntVar(&f.rounds, "rounds", 5, "measured rounds of each tool")
	fs.IntVar(&f.slowRounds, "slow-rounds", 3, "measured rounds of a slow tool (see -slow)")
	fs.DurationVar(&f.slow, "slow", 10*time.Second, "a tool whose warm-up run takes longer than this is slow")
	fs.IntVar(&f.oneRounds, "one-file-rounds", 21, "measured rounds on the one-file nginx.conf (0 skips it)")
	tools := fs.String("tools", "proxylint,nginx,gixy,nginx-linter", "tools to run, comma-separated")
	fs.StringVar(&f.gen, "gen", "", "gen_nginx.py (default $GEN_NGINX, else ../shared/bench/gen_nginx.py from the repository root; without it the trees come from bench/gen)")
	f.register(fs, "the configurations")
	toolRounds := fs.String("tool-rounds", "", "measured rounds of named tools on the generated trees, e.g. \"gixy=2,nginx-linter=3\"")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.toolRounds = map[string]int{}
	for _, kv := range strings.Split(*toolRounds, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		name, v, ok := strings.Cut(kv, "=")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || err != nil || n < 1 {
			return nil, fmt.Errorf("-tool-rounds: %q: want TOOL=ROUNDS", kv)
		}
		f.toolRounds[strings.TrimSpace(name)] = n
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	for _, s := range strings.Split(*sizes, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-sizes: %q is not a number of servers", s)
		}
		f.sizes = append(f.sizes, n)
	}
	f.tools = map[string]bool{}
	for _, t := range strings.Split(*tools, ",") {
		switch t = strings.TrimSpace(t); t {
		case "proxylint", "nginx", "gixy", "nginx-linter":
			f.tools[t] = true
		case "":
		default:
			return nil, fmt.Errorf("-tools: unknown tool %q (want proxylint, nginx, gixy, nginx-linter)", t)
		}
	}
	if !f.tools["proxylint"] {
		return nil, errors.New("-tools: proxylint is what the others are compared with")
	}
	if f.rounds < 1 || f.slowRounds < 1 {
		return nil, errors.New("-rounds and -slow-rounds must be at least 1")
	}
	return f, nil
}

func runNginx(args []string, out, log io.Writer) error {
	f, err := parseNginxFlags(args, log)
	if err != nil {
		return err
	}
	root, tmp, bin, cleanup, err := workspace("proxylint-bench-", f.keep, f.proxylint, f.rev, log)
	if err != nil {
		return err
	}
	defer cleanup()

	specs, notes := nginxTools(f, bin)
	for _, s := range specs {
		if r, ok := f.toolRounds[s.name]; ok {
			notes = append(notes, fmt.Sprintf("%s: %d measured rounds (-tool-rounds)", s.name, r))
		}
	}
	for name := range f.toolRounds {
		if !slices.ContainsFunc(specs, func(s toolSpec) bool { return s.name == name }) {
			return fmt.Errorf("-tool-rounds: no tool %q is run (tools: proxylint text, proxylint json, nginx -t, gixy, nginx-linter)", name)
		}
	}
	genScript, err := findGenerator(f.gen, root)
	if err != nil {
		return err
	}

	fmt.Fprintln(out, "# proxylint vs nginx -t, gixy, nginx-linter (whole process)")
	fmt.Fprintln(out)
	for _, l := range machine(root, describeBuild(root, f.rev, f.proxylint)) {
		fmt.Fprintln(out, "- "+l)
	}
	for _, l := range toolVersions(specs) {
		fmt.Fprintln(out, "- "+l)
	}
	if genScript != "" {
		fmt.Fprintf(out, "- trees: %s -n N\n", genScript)
	} else {
		fmt.Fprintln(out, "- trees: bench/gen (gen_nginx.py not found: set GEN_NGINX or -gen to compare with docs/benchmarks.md)")
	}
	fmt.Fprintf(out, "- rounds: 1 warm-up, then %d measured (%d for a tool whose warm-up took over %s), round-robin\n", f.rounds, f.slowRounds, f.slow)
	fmt.Fprintln(out, "- measured: wall time from fork to reaping, CPU time (user + system) and peak RSS from wait4; targets are judged on CPU time and on wall time each")
	for _, n := range notes {
		fmt.Fprintln(out, "- "+n)
	}
	fmt.Fprintln(out, "- commands (CONF is the tree's nginx.conf, DIR its directory, PREFIX a scratch directory with logs/ and tmp/; output to /dev/null):")
	example := &tree{dir: "DIR", main: "CONF", prefix: "PREFIX"}
	for _, s := range specs {
		argv := s.command(example).argv
		if s.reference {
			argv = append([]string{"proxylint"}, argv[1:]...)
		}
		fmt.Fprintf(out, "  - %s: `%s`\n", s.name, strings.Join(argv, " "))
	}
	fmt.Fprintln(out)

	var results []sizeResult
	failed := false
	if f.oneRounds > 0 {
		t, err := oneFileTree(tmp)
		if err != nil {
			return err
		}
		var one []toolSpec
		for _, s := range specs {
			if s.reference || s.name == "nginx -t" {
				one = append(one, s)
			}
		}
		r := measure(t, one, f.oneRounds, f.oneRounds, f.slow, nil, log)
		results = append(results, r)
		failed = printSize(out, r) || failed
	}
	for _, n := range f.sizes {
		t, err := generatedTree(tmp, n, genScript, log)
		if err != nil {
			return err
		}
		r := measure(t, specs, f.rounds, f.slowRounds, f.slow, f.toolRounds, log)
		results = append(results, r)
		failed = printSize(out, r) || failed
	}
	printSummary(out, results)
	fmt.Fprintf(out, "\nload average at the end: %s\n", loadAverage())
	if failed {
		return errors.New("proxylint failed on a configuration (see above)")
	}
	return nil
}

// nginxTools returns the tools found, and a note for each one missing.
func nginxTools(f *nginxFlags, bin string) ([]toolSpec, []string) {
	var specs []toolSpec
	var notes []string
	okProxylint := []int{0, 1} // 1: findings
	for _, format := range []string{"text", "json"} {
		specs = append(specs, toolSpec{
			name:      "proxylint " + format,
			reference: true,
			command: func(t *tree) command {
				return command{
					argv:    []string{bin, "--no-config", "--include-root", t.dir, "--format", format, t.main},
					dir:     t.dir,
					okCodes: okProxylint,
				}
			},
		})
	}
	if f.tools["nginx"] {
		if nginx := lookPath("nginx", "/usr/sbin/nginx"); nginx != "" {
			specs = append(specs, toolSpec{
				name: "nginx -t",
				command: func(t *tree) command {
					return command{
						argv:    []string{nginx, "-q", "-t", "-p", t.prefix + "/", "-e", filepath.Join(t.prefix, "logs", "error.log"), "-c", t.main},
						dir:     t.prefix,
						okCodes: []int{0},
					}
				},
			})
		} else {
			notes = append(notes, "nginx not found: skipped (Debian: apt-get install nginx-light)")
		}
	}
	if f.tools["gixy"] {
		if gixy := firstNonEmpty(os.Getenv("GIXY"), lookPath("gixy")); gixy != "" {
			specs = append(specs, toolSpec{
				name: "gixy",
				command: func(t *tree) command {
					return command{argv: []string{gixy, t.main}, dir: t.dir, okCodes: []int{0, 1}}
				},
				check: func(o outcome) error {
					if strings.Contains(o.stdout+o.stderr, "Skip unparseable block") {
						return errors.New("gixy skipped blocks it could not parse, so its time is not that of linting this configuration (it needs pyparsing 2.4.7; see docs/benchmarks.md)")
					}
					return nil
				},
			})
		} else {
			notes = append(notes, "gixy not found: skipped (set GIXY=/path/to/gixy or put it on PATH; docs/benchmarks.md shows how to run it from a source snapshot with pyparsing 2.4.7)")
		}
	}
	if f.tools["nginx-linter"] {
		argv := nginxLinterArgv()
		if argv != nil {
			specs = append(specs, toolSpec{
				name: "nginx-linter",
				command: func(t *tree) command {
					return command{argv: append(append([]string{}, argv...), "--include", t.main), dir: t.dir, okCodes: []int{0, 1}}
				},
				check: func(o outcome) error {
					if !strings.Contains(o.stdout, "Files: ") {
						return errors.New("nginx-linter printed no summary line (\"Files: N\"): did it read the configuration?")
					}
					return nil
				},
			})
		} else {
			notes = append(notes, "nginx-linter not found: skipped (npm install nginx-linter@0.7.0 in a scratch directory, then NGINX_LINTER=$PWD/node_modules/nginx-linter/bin/nginx-linter.js)")
		}
	}
	return specs, notes
}

// nginxLinterArgv is how to start nginx-linter: node with $NGINX_LINTER
// when that names a script, else nginx-linter on PATH.
func nginxLinterArgv() []string {
	if js := os.Getenv("NGINX_LINTER"); js != "" {
		if strings.HasSuffix(js, ".js") {
			if node := lookPath("node"); node != "" {
				return []string{node, js}
			}
			return nil
		}
		return []string{js}
	}
	if p := lookPath("nginx-linter"); p != "" {
		return []string{p}
	}
	return nil
}

func lookPath(name string, fallbacks ...string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, p := range fallbacks {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// toolVersions reports the version of each tool that is run.
func toolVersions(specs []toolSpec) []string {
	var out []string
	t := &tree{dir: os.TempDir(), prefix: os.TempDir(), main: "/dev/null"}
	for _, s := range specs {
		argv := s.command(t).argv
		var v string
		switch s.name {
		case "nginx -t":
			v = firstLine(output("", argv[0], "-v"))
		case "gixy":
			v = firstLine(output("", argv[0], "--version"))
		case "nginx-linter":
			v = "nginx-linter " + packageVersion(argv[len(argv)-3])
		default:
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s", s.name, v))
	}
	return out
}

// packageVersion reads the version from the package.json above an npm
// package's script.
func packageVersion(script string) string {
	if real, err := filepath.EvalSymlinks(script); err == nil {
		script = real
	}
	for dir := filepath.Dir(script); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			continue
		}
		var p struct{ Version string }
		if json.Unmarshal(b, &p) == nil && p.Version != "" {
			return p.Version
		}
	}
	return "(version unknown)"
}

// findGenerator returns gen_nginx.py: the one named by -gen or $GEN_NGINX,
// which must exist, else the one next to the repository, else "".
func findGenerator(flagged, root string) (string, error) {
	named := firstNonEmpty(flagged, os.Getenv("GEN_NGINX"))
	p := named
	if p == "" {
		p = filepath.Join(root, "..", "shared", "bench", "gen_nginx.py")
	}
	if _, err := os.Stat(p); err != nil {
		if named != "" {
			return "", fmt.Errorf("generator: %w", err)
		}
		return "", nil
	}
	return filepath.Abs(p)
}

// generatedTree writes the tree of n servers, with gen_nginx.py when there
// is one, and nginx's prefix with the directories the tree refers to.
func generatedTree(tmp string, n int, genScript string, log io.Writer) (*tree, error) {
	t := &tree{label: fmt.Sprintf("N=%d", n), dir: filepath.Join(tmp, fmt.Sprintf("nginx-%d", n))}
	if genScript != "" {
		cmd := exec.Command("python3", genScript, "-n", strconv.Itoa(n), "-o", t.dir)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s -n %d: %w", genScript, n, err)
		}
		t.main = filepath.Join(t.dir, "nginx.conf")
	} else {
		var err error
		if t.main, err = (gen.NginxTree{Servers: n}).Write(t.dir); err != nil {
			return nil, err
		}
	}
	if err := fitWorkerConnections(t.dir, t.main); err != nil {
		return nil, err
	}
	return t, t.finish(tmp)
}

// oneFileTree writes gen.OneFile.
func oneFileTree(tmp string) (*tree, error) {
	t := &tree{label: "one file", dir: filepath.Join(tmp, "one-file")}
	t.main = filepath.Join(t.dir, "nginx.conf")
	if err := os.MkdirAll(t.dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(t.main, []byte(gen.OneFile), 0o644); err != nil {
		return nil, err
	}
	return t, t.finish(tmp)
}

// finish counts the tree's files and makes nginx's prefix.
func (t *tree) finish(tmp string) error {
	err := filepath.WalkDir(t.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		t.files++
		t.lines += bytes.Count(b, []byte{'\n'})
		t.bytes += int64(len(b))
		return nil
	})
	if err != nil {
		return err
	}
	t.prefix = filepath.Join(tmp, "prefix-"+filepath.Base(t.dir))
	for _, d := range []string{"logs", "tmp"} {
		if err := os.MkdirAll(filepath.Join(t.prefix, d), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// sizeResult is every tool's runs on one tree.
type sizeResult struct {
	tree    *tree
	entries []*entry
	// loadStart and loadEnd are the load averages before the warm-up and
	// after the last round.
	loadStart, loadEnd string
}

// find is the entry of the named tool, failed or not, or nil.
func (r sizeResult) find(name string) *entry {
	for _, e := range r.entries {
		if e.name == name {
			return e
		}
	}
	return nil
}

// get is the entry of the named tool if its runs succeeded, or nil.
func (r sizeResult) get(name string) *entry {
	for _, e := range r.entries {
		if e.name == name && e.err == nil {
			return e
		}
	}
	return nil
}

// measure runs a warm-up round and then the measured rounds, the tools
// taking turns; the tool that goes first moves on by one each round.
func measure(t *tree, specs []toolSpec, rounds, slowRounds int, slow time.Duration, toolRounds map[string]int, log io.Writer) sizeResult {
	r := sizeResult{tree: t, loadStart: loadAverage()}
	for _, s := range specs {
		r.entries = append(r.entries, &entry{toolSpec: s})
	}
	fmt.Fprintf(log, "%s (%s): warm-up\n", t.label, t.size())
	maxRounds := 0
	for _, e := range r.entries {
		o, err := runOnce(e.command(t), true)
		if err == nil && e.check != nil {
			err = e.check(o)
		}
		if err != nil {
			e.err = err
			fmt.Fprintf(log, "  %s: %v\n", e.name, err)
			continue
		}
		e.rounds = rounds
		if o.wall > slow {
			e.rounds = slowRounds
		}
		if r, ok := toolRounds[e.name]; ok {
			e.rounds = r
		}
		maxRounds = max(maxRounds, e.rounds)
		fmt.Fprintf(log, "  %s: %s\n", e.name, fmtDur(o.wall))
	}
	for round := range maxRounds {
		fmt.Fprintf(log, "%s: round %d/%d\n", t.label, round+1, maxRounds)
		for i := range r.entries {
			e := r.entries[(i+round)%len(r.entries)]
			if e.err != nil || len(e.samples) >= e.rounds {
				continue
			}
			o, err := runOnce(e.command(t), false)
			if err != nil {
				e.err = err
				fmt.Fprintf(log, "  %s: %v\n", e.name, err)
				continue
			}
			e.samples = append(e.samples, o.sample)
		}
	}
	r.loadEnd = loadAverage()
	return r
}

// printSize prints one tree's table; it reports whether proxylint failed.
func printSize(out io.Writer, r sizeResult) bool {
	fmt.Fprintf(out, "## %s: %s\n\n", r.tree.label, r.tree.size())
	fmt.Fprintf(out, "Load average (1, 5 and 15 minutes): %s before the warm-up, %s after the last round.\n\n", r.loadStart, r.loadEnd)
	fmt.Fprintln(out, "| tool | runs | wall: median (min–max) | CPU: median (min–max) | peak RSS | wall ÷ proxylint text / json | CPU ÷ proxylint text / json |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|")
	var wallText, wallJSON, cpuText, cpuJSON time.Duration
	if e := r.get("proxylint text"); e != nil {
		s := summarise(e.samples)
		wallText, cpuText = s.median, s.cpuMedian
	}
	if e := r.get("proxylint json"); e != nil {
		s := summarise(e.samples)
		wallJSON, cpuJSON = s.median, s.cpuMedian
	}
	failed := false
	for _, e := range r.entries {
		if e.err != nil {
			fmt.Fprintf(out, "| %s | failed: %s | | | | | |\n", e.name, failure(e.err))
			failed = failed || e.reference
			continue
		}
		s := summarise(e.samples)
		fmt.Fprintf(out, "| %s | %d | %s (%s–%s) | %s (%s–%s) | %s | %s / %s | %s / %s |\n", e.name, s.n,
			fmtDur(s.median), fmtDur(s.lo), fmtDur(s.hi), fmtDur(s.cpuMedian), fmtDur(s.cpuLo), fmtDur(s.cpuHi), fmtKiB(s.rssPeak),
			fmtRatio(s.median, wallText), fmtRatio(s.median, wallJSON), fmtRatio(s.cpuMedian, cpuText), fmtRatio(s.cpuMedian, cpuJSON))
	}
	fmt.Fprintln(out)
	return failed
}

// printSummary prints every tree's figures in three tables (proxylint
// against nginx -t; the other tools against proxylint; peak RSS), and
// which targets are met (nginxTargets).
func printSummary(out io.Writer, results []sizeResult) {
	stat := func(r sizeResult, name string) (stats, bool) {
		if e := r.get(name); e != nil {
			return summarise(e.samples), true
		}
		return stats{}, false
	}
	fmt.Fprintln(out, "## Summary")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "proxylint against nginx -t: medians, and proxylint's as a share of nginx -t's (below 1× it takes less). CPU time is user + system: it counts the work of every thread, and less of the other work on the machine than wall time does.")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| config | nginx -t: wall / CPU | proxylint text: wall / CPU | ÷ nginx -t | proxylint json: wall / CPU | ÷ nginx -t |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|")
	for _, r := range results {
		n, ok := stat(r, "nginx -t")
		row := []string{r.tree.label, "–"}
		if ok {
			row[1] = fmtDur(n.median) + " / " + fmtDur(n.cpuMedian)
		}
		for _, name := range []string{"proxylint text", "proxylint json"} {
			s, sok := stat(r, name)
			switch {
			case !sok:
				row = append(row, "failed", "")
			case !ok:
				row = append(row, fmtDur(s.median)+" / "+fmtDur(s.cpuMedian), "")
			default:
				row = append(row, fmtDur(s.median)+" / "+fmtDur(s.cpuMedian), fmtRatio(s.median, n.median)+" / "+fmtRatio(s.cpuMedian, n.cpuMedian))
			}
		}
		fmt.Fprintln(out, "| "+strings.Join(row, " | ")+" |")
	}
	fmt.Fprintln(out)
	var others bool
	for _, r := range results {
		_, g := stat(r, "gixy")
		_, l := stat(r, "nginx-linter")
		others = others || g || l
	}
	if others {
		fmt.Fprintln(out, "gixy and nginx-linter: medians, and how many times longer they take than the slower proxylint format (wall / CPU).")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "| config | gixy: wall / CPU | ÷ proxylint | nginx-linter: wall / CPU | ÷ proxylint |")
		fmt.Fprintln(out, "|---|---|---|---|---|")
		for _, r := range results {
			t, tok := stat(r, "proxylint text")
			j, jok := stat(r, "proxylint json")
			wall, cpu := max(t.median, j.median), max(t.cpuMedian, j.cpuMedian)
			row := []string{r.tree.label}
			for _, name := range []string{"gixy", "nginx-linter"} {
				s, ok := stat(r, name)
				switch {
				case !ok:
					row = append(row, "–", "")
				case !tok || !jok:
					row = append(row, fmtDur(s.median)+" / "+fmtDur(s.cpuMedian), "")
				default:
					row = append(row, fmtDur(s.median)+" / "+fmtDur(s.cpuMedian), fmtRatio(s.median, wall)+" / "+fmtRatio(s.cpuMedian, cpu))
				}
			}
			fmt.Fprintln(out, "| "+strings.Join(row, " | ")+" |")
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out, "| config | peak RSS: proxylint text | proxylint json | nginx -t | gixy | nginx-linter |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|")
	for _, r := range results {
		row := []string{r.tree.label}
		for _, name := range []string{"proxylint text", "proxylint json", "nginx -t", "gixy", "nginx-linter"} {
			s, _ := stat(r, name)
			row = append(row, fmtKiB(s.rssPeak))
		}
		fmt.Fprintln(out, "| "+strings.Join(row, " | ")+" |")
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Targets (medians of the slower proxylint format, against the other tools in the same run; CPU and wall time each):")
	for _, r := range results {
		for _, v := range nginxTargets(r) {
			fmt.Fprintln(out, v.String())
		}
	}
}
