// Command bench times proxylint as a whole process against the tools people
// run on the same configurations, and prints medians and ratios.
//
//	go run ./bench                 nginx: proxylint vs nginx -t, gixy, nginx-linter
//	go run ./bench envoy           Envoy bootstraps of growing size
//	go run ./bench help            flags
//
// Every run builds proxylint once into a temporary directory, writes the
// configurations there, runs a warm-up round and then measured rounds in
// which the tools take turns (round-robin, the first tool changing each
// round), so that a machine busy with other work slows every tool alike.
// Wall time is measured from fork to reaping; CPU time and peak RSS come
// from the kernel's accounting of each child. Targets are judged on CPU
// time as well as wall time: proxylint spreads a large configuration over
// the processors and nginx -t uses one, so a wall-time ratio alone depends
// on how busy the machine is. Each table gives the load average.
// docs/benchmarks.md records the method and the numbers.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

func main() {
	args := os.Args[1:]
	cmd := "nginx"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "nginx":
		err = runNginx(args, os.Stdout, os.Stderr)
	case "envoy":
		err = runEnvoy(args, os.Stdout, os.Stderr)
	case "kube":
		err = runKube(args, os.Stdout, os.Stderr)
	case "large":
		err = runLarge(args, os.Stdout)
	case "help":
		fmt.Print(usage)
		return
	default:
		err = fmt.Errorf("unknown command %q\n%s", cmd, usage)
	}
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

const usage = `Usage:
  go run ./bench [nginx] [flags]   proxylint vs nginx -t, gixy and nginx-linter
  go run ./bench envoy [flags]     proxylint on Envoy bootstraps of growing size
  go run ./bench kube [flags]      proxylint chain against the lint on a
                                   cluster's manifests of 10,000 objects
  go run ./bench large DIR [CASE...]
                                   write the large inputs of docs/benchmarks.md
                                   ("Large inputs") under DIR, one directory a case
  go run ./bench nginx -h          the flags of a command

Optional tools are found on PATH or through the environment:
  GIXY=/path/to/gixy                   an executable that runs gixy
  NGINX_LINTER=/path/to/nginx-linter.js  run with node
  GEN_NGINX=/path/to/gen_nginx.py      the generator of the nginx trees
                                       (default ../shared/bench/gen_nginx.py
                                       from the repository root)
`

// moduleRoot finds the proxylint module above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module github.com/proxylint/proxylint\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run from inside the proxylint repository")
		}
		dir = parent
	}
}

// build compiles proxylint into dir: from the
// working tree at root, or, when rev is set, from that commit alone (git
// archive), so that uncommitted changes do not leak into the numbers.
func build(root, dir, rev string, log io.Writer) (string, error) {
	out := filepath.Join(dir, "proxylint")
	src := root
	if rev != "" {
		src = filepath.Join(dir, "src")
		if err := os.MkdirAll(src, 0o755); err != nil {
			return "", err
		}
		fmt.Fprintf(log, "building proxylint at %s\n", rev)
		archive := exec.Command("sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", root, rev, src)
		archive.Stderr = log
		if err := archive.Run(); err != nil {
			return "", fmt.Errorf("git archive %s: %w", rev, err)
		}
	} else {
		fmt.Fprintf(log, "building proxylint from the working tree %s\n", root)
	}
	// One program: Envoy is read in-process. Built as the README's
	// install commands and the GitHub Action build it: static, without
	// cgo.
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "./cmd/proxylint")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Dir = src
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build: %w", err)
	}
	return out, nil
}

// describeBuild says which source the numbers are for.
func describeBuild(root, rev, bin string) string {
	switch {
	case bin != "":
		return "proxylint: the binary " + bin
	case rev != "":
		return "proxylint: commit " + firstLine(output(root, "git", "rev-parse", "--short", rev))
	}
	s := firstLine(output(root, "git", "rev-parse", "--short", "HEAD"))
	if s == "" {
		return "proxylint: the working tree " + root
	}
	if firstLine(output(root, "git", "status", "--porcelain", "--untracked-files=no")) != "" {
		s += " with the working tree's uncommitted changes (-rev HEAD leaves them out)"
	}
	return "proxylint: commit " + s
}

// machine describes where the numbers come from.
func machine(root, build string) []string {
	var lines []string
	model, mem := "unknown", "unknown"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			var kb int64
			if _, err := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); err == nil {
				mem = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
				break
			}
		}
	}
	lines = append(lines, fmt.Sprintf("machine: %d CPUs (%s), %s RAM, %s/%s", runtime.NumCPU(), model, mem, runtime.GOOS, runtime.GOARCH))
	lines = append(lines, "go: "+firstLine(output(root, "go", "version")))
	lines = append(lines, build)
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		lines = append(lines, "load average at start: "+strings.Join(strings.Fields(string(b))[:3], " "))
	}
	return lines
}

// output runs a command and returns what it printed on either stream, or
// "" when it cannot run.
func output(dir string, argv ...string) string {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	if err != nil && len(b) == 0 {
		return ""
	}
	return string(b)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// workspace finds the module's root, makes the temporary directory a run
// works in (kept with -keep) and the proxylint binary it times: the one
// given, or one built into the directory from the working tree or from
// buildFlags choose the proxylint a command times (built from the working
// tree, from a commit, or given) and whether its scratch directory is kept.
type buildFlags struct {
	keep      bool
	proxylint string
	rev       string
}

// register adds -keep, -proxylint and -rev to fs; kept names what the
// scratch directory holds besides the binary.
func (b *buildFlags) register(fs *flag.FlagSet, kept string) {
	fs.BoolVar(&b.keep, "keep", false, "keep the temporary directory with the binary and "+kept)
	fs.StringVar(&b.proxylint, "proxylint", "", "time this proxylint binary instead of building one")
	fs.StringVar(&b.rev, "rev", "", "build proxylint from this commit (e.g. HEAD) instead of the working tree")
}

// rev. cleanup removes the directory unless it is kept.
func workspace(prefix string, keep bool, proxylint, rev string, log io.Writer) (root, tmp, bin string, cleanup func(), err error) {
	root, err = moduleRoot()
	if err != nil {
		return "", "", "", nil, err
	}
	tmp, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", "", nil, err
	}
	cleanup = func() { _ = os.RemoveAll(tmp) }
	if keep {
		fmt.Fprintf(log, "keeping %s\n", tmp)
		cleanup = func() {}
	}
	if proxylint != "" {
		bin, err = filepath.Abs(proxylint)
	} else {
		bin, err = build(root, tmp, rev, log)
	}
	if err != nil {
		cleanup()
		return "", "", "", nil, err
	}
	return root, tmp, bin, cleanup, nil
}
