package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/proxylint/proxylint/bench/gen"
)

type envoyFlags struct {
	scales                 []int
	routes, clustersPerLis int
	rounds                 int
	buildFlags
}

func parseEnvoyFlags(args []string, log io.Writer) (*envoyFlags, error) {
	f := &envoyFlags{}
	fs := flag.NewFlagSet("bench envoy", flag.ContinueOnError)
	fs.SetOutput(log)
	scales := fs.String("scales", "1,2,4,8,16,32,64,128,256,2560", "listeners of each bootstrap, comma-separated")
	fs.IntVar(&f.routes, "routes", 40, "routes per listener")
	fs.IntVar(&f.clustersPerLis, "clusters", 10, "clusters per listener")
	fs.IntVar(&f.rounds, "rounds", 5, "measured rounds")
	f.register(fs, "the bootstraps")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	for _, s := range strings.Split(*scales, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-scales: %q is not a number of listeners", s)
		}
		f.scales = append(f.scales, n)
	}
	if len(f.scales) < 2 || f.rounds < 1 || f.routes < 1 || f.clustersPerLis < 1 {
		return nil, errors.New("want at least two scales, and -rounds, -routes, -clusters of at least 1")
	}
	return f, nil
}

// bootstrap is one generated Envoy bootstrap and its runs.
type bootstrap struct {
	spec    gen.EnvoyBootstrap
	path    string
	bytes   int64
	lines   int
	samples []sample
}

// runEnvoy times proxylint on bootstraps whose listeners, routes and
// clusters grow together, and shows how the time grows: the cost of each
// added route between consecutive sizes, and a least-squares line through
// all of them.
func runEnvoy(args []string, out, log io.Writer) error {
	f, err := parseEnvoyFlags(args, log)
	if err != nil {
		return err
	}
	root, tmp, bin, cleanup, err := workspace("proxylint-bench-envoy-", f.keep, f.proxylint, f.rev, log)
	if err != nil {
		return err
	}
	defer cleanup()

	var boots []*bootstrap
	for _, s := range f.scales {
		b := &bootstrap{spec: gen.EnvoyBootstrap{Listeners: s, RoutesPerListener: f.routes, Clusters: s * f.clustersPerLis}}
		src := b.spec.YAML()
		b.path = filepath.Join(tmp, fmt.Sprintf("envoy-%04d.yaml", s))
		b.bytes, b.lines = int64(len(src)), bytes.Count(src, []byte{'\n'})
		if err := os.WriteFile(b.path, src, 0o644); err != nil {
			return err
		}
		boots = append(boots, b)
	}
	cmd := func(b *bootstrap) command {
		return command{
			argv:    []string{bin, "--no-config", "--kind", "envoy", "--format", "json", b.path},
			dir:     tmp,
			okCodes: []int{0, 1},
		}
	}

	fmt.Fprintln(out, "# proxylint on Envoy bootstraps of growing size (whole process, --format json, Envoy read in-process)")
	fmt.Fprintln(out)
	for _, l := range machine(root, describeBuild(root, f.rev, f.proxylint)) {
		fmt.Fprintln(out, "- "+l)
	}
	fmt.Fprintf(out, "- bootstraps: bench/gen, L listeners × %d routes each, %d·L static clusters\n", f.routes, f.clustersPerLis)
	fmt.Fprintf(out, "- rounds: 1 warm-up, then %d measured, the sizes taking turns\n\n", f.rounds)

	fmt.Fprintln(log, "envoy: warm-up")
	for _, b := range boots {
		o, err := runOnce(cmd(b), true)
		if err != nil {
			return fmt.Errorf("envoy bootstrap of %d listeners: %w", b.spec.Listeners, err)
		}
		if strings.Contains(o.stderr, "not supported") {
			return fmt.Errorf("this proxylint does not read Envoy configurations yet: %s", firstLine(o.stderr))
		}
	}
	for round := range f.rounds {
		fmt.Fprintf(log, "envoy: round %d/%d\n", round+1, f.rounds)
		for i := range boots {
			b := boots[(i+round)%len(boots)]
			o, err := runOnce(cmd(b), false)
			if err != nil {
				return err
			}
			b.samples = append(b.samples, o.sample)
		}
	}

	fmt.Fprintln(out, "| listeners | routes | clusters | size | wall: median (min–max) | CPU: median (min–max) | peak RSS | µs per added route (wall / CPU) |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|")
	var prev *bootstrap
	for _, b := range boots {
		s := summarise(b.samples)
		marginal := "–"
		if prev != nil {
			p := summarise(prev.samples)
			dx := float64(b.spec.Routes() - prev.spec.Routes())
			marginal = fmt.Sprintf("%.0f / %.0f", float64(s.median-p.median)/float64(time.Microsecond)/dx, float64(s.cpuMedian-p.cpuMedian)/float64(time.Microsecond)/dx)
		}
		prev = b
		fmt.Fprintf(out, "| %d | %d | %d | %s, %d lines | %s (%s–%s) | %s (%s–%s) | %s | %s |\n",
			b.spec.Listeners, b.spec.Routes(), b.spec.Clusters, fmtBytes(b.bytes), b.lines,
			fmtDur(s.median), fmtDur(s.lo), fmtDur(s.hi), fmtDur(s.cpuMedian), fmtDur(s.cpuLo), fmtDur(s.cpuHi), fmtKiB(s.rssPeak), marginal)
	}
	fmt.Fprintln(out)
	// The line through the sizes up to 4 MB, as the per-route target
	// takes it.
	var xs, walls, cpus []float64
	for _, b := range boots {
		if b.bytes > envoyMidBytes {
			continue
		}
		s := summarise(b.samples)
		xs = append(xs, float64(b.spec.Routes()))
		walls = append(walls, float64(s.median)/float64(time.Microsecond))
		cpus = append(cpus, float64(s.cpuMedian)/float64(time.Microsecond))
	}
	if len(xs) >= 2 {
		for _, series := range []struct {
			name string
			ys   []float64
		}{{"wall time", walls}, {"CPU time", cpus}} {
			a, slope, r2 := fitLine(xs, series.ys)
			worst := 0.0
			for i := range xs {
				worst = max(worst, math.Abs(series.ys[i]-(a+slope*xs[i]))/series.ys[i])
			}
			n := len(xs)
			sign := "+"
			if slope < 0 {
				sign = "−"
			}
			fmt.Fprintf(out, "- %s, bootstraps up to 4 MB: least-squares line %s %s %.0f µs × routes, R² = %.4f, furthest point %.0f%% off it; the last step multiplies the routes by %.2f and the time by %.2f.\n",
				series.name, fmtSigned(time.Duration(a*float64(time.Microsecond))), sign, math.Abs(slope), r2, 100*worst,
				xs[n-1]/xs[n-2], series.ys[n-1]/series.ys[n-2])
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out, "Targets (medians; wall and CPU time each):")
	for _, v := range envoyTargets(boots) {
		fmt.Fprintln(out, v.String())
	}
	fmt.Fprintf(out, "\nload average at the end: %s\n", loadAverage())
	return nil
}

// fitLine fits y = a + b·x by least squares and returns a, b and the
// coefficient of determination.
func fitLine(xs, ys []float64) (a, b, r2 float64) {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	b = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	a = (sy - b*sx) / n
	mean := sy / n
	var ssRes, ssTot float64
	for i := range xs {
		d := ys[i] - (a + b*xs[i])
		ssRes += d * d
		ssTot += (ys[i] - mean) * (ys[i] - mean)
	}
	if ssTot == 0 {
		return a, b, 1
	}
	return a, b, 1 - ssRes/ssTot
}

// fmtSigned prints a duration that may be negative (an intercept).
func fmtSigned(d time.Duration) string {
	switch {
	case d < 0:
		return "−" + fmtDur(-d)
	case d == 0:
		return "0"
	}
	return fmtDur(d)
}
