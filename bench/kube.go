package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/proxylint/proxylint/bench/gen"
)

// kubeChainBound is what proxylint chain may take on a cluster's
// manifests, as a share of the lint's CPU time on the same files: the
// lint's work and the listing of the paths.
const kubeChainBound = 1.2

// kubeRun is one of the commands timed, and its samples.
type kubeRun struct {
	name    string
	cmd     command
	samples []sample
}

type kubeFlags struct {
	objects int
	rounds  int
	buildFlags
}

func parseKubeFlags(args []string, log io.Writer) (*kubeFlags, error) {
	f := &kubeFlags{}
	fs := flag.NewFlagSet("bench kube", flag.ContinueOnError)
	fs.SetOutput(log)
	fs.IntVar(&f.objects, "objects", 10000, "Kubernetes objects in the manifests")
	fs.IntVar(&f.rounds, "rounds", 5, "measured rounds")
	f.register(fs, "the manifests")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if f.objects < 4 || f.rounds < 1 {
		return nil, errors.New("want -objects of at least 4 and -rounds of at least 1")
	}
	return f, nil
}

// runKube times proxylint's lint and proxylint chain on one cluster's
// manifests (gen.KubeDeployment), round-robin, the first of each round
// alternating, and judges the chain's CPU time against the lint's.
func runKube(args []string, out, log io.Writer) error {
	f, err := parseKubeFlags(args, log)
	if err != nil {
		return err
	}
	root, tmp, bin, cleanup, err := workspace("proxylint-bench-kube-", f.keep, f.proxylint, f.rev, log)
	if err != nil {
		return err
	}
	defer cleanup()
	var buf bytes.Buffer
	if err := gen.KubeDeployment(&buf, f.objects); err != nil {
		return err
	}
	path := filepath.Join(tmp, "cluster.yaml")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return err
	}
	runs := []*kubeRun{
		{name: "proxylint (lint)", cmd: command{argv: []string{bin, "--no-config", "--kind", "kubernetes", path}, dir: tmp, okCodes: []int{0, 1}}},
		{name: "proxylint chain", cmd: command{argv: []string{bin, "chain", "--no-config", "--kind", "kubernetes", path}, dir: tmp, okCodes: []int{0}}},
	}

	fmt.Fprintln(out, "# proxylint chain against the lint on one cluster's manifests (whole process, text)")
	fmt.Fprintln(out)
	for _, l := range machine(root, describeBuild(root, f.rev, f.proxylint)) {
		fmt.Fprintln(out, "- "+l)
	}
	fmt.Fprintf(out, "- manifests: bench/gen KubeDeployment, %d objects (%s, %d lines): per unit an ingress-nginx Ingress, an HTTPRoute, a Service, a Deployment\n",
		f.objects, fmtBytes(int64(buf.Len())), bytes.Count(buf.Bytes(), []byte{'\n'}))
	fmt.Fprintf(out, "- rounds: 1 warm-up, then %d measured, the first of each round alternating\n\n", f.rounds)

	fmt.Fprintln(log, "kube: warm-up")
	for _, e := range runs {
		if _, err := runOnce(e.cmd, false); err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
	}
	for round := range f.rounds {
		fmt.Fprintf(log, "kube: round %d/%d\n", round+1, f.rounds)
		for i := range runs {
			e := runs[(i+round)%len(runs)]
			o, err := runOnce(e.cmd, false)
			if err != nil {
				return fmt.Errorf("%s: %w", e.name, err)
			}
			e.samples = append(e.samples, o.sample)
		}
	}
	fmt.Fprintln(out, "| run | wall: median (min–max) | CPU: median (min–max) | peak RSS |")
	fmt.Fprintln(out, "|---|---|---|---|")
	for _, e := range runs {
		s := summarise(e.samples)
		fmt.Fprintf(out, "| %s | %s (%s–%s) | %s (%s–%s) | %s |\n", e.name,
			fmtDur(s.median), fmtDur(s.lo), fmtDur(s.hi), fmtDur(s.cpuMedian), fmtDur(s.cpuLo), fmtDur(s.cpuHi), fmtKiB(s.rssPeak))
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Targets (medians):")
	for _, v := range kubeTargets(f.objects, summarise(runs[0].samples), summarise(runs[1].samples)) {
		fmt.Fprintln(out, v.String())
	}
	fmt.Fprintf(out, "\nload average at the end: %s\n", loadAverage())
	return nil
}

// kubeTargets judges the chain's CPU time against the lint's, and
// reports the wall ratio beside it.
func kubeTargets(objects int, lint, chain stats) []verdict {
	label := fmt.Sprintf("Kubernetes, %d objects", objects)
	ratio := float64(chain.cpuMedian) / float64(lint.cpuMedian)
	wall := float64(chain.median) / float64(lint.median)
	return []verdict{{
		config: label, what: fmt.Sprintf("proxylint chain CPU time at most %s× the lint's", fmtBound(kubeChainBound)),
		met:   ratio <= kubeChainBound+0.005,
		value: fmt.Sprintf("%.2f×: %s against %s; wall %.2f×", ratio, fmtDur(chain.cpuMedian), fmtDur(lint.cpuMedian), wall),
	}}
}
