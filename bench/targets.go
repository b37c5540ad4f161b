package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// verdict is one target judged on one configuration.
type verdict struct {
	config, what string
	met          bool
	value        string // what was measured, or why it could not be
	// unmeasured marks a target this run has nothing to judge by.
	unmeasured bool
}

func (v verdict) String() string {
	word := "met"
	switch {
	case v.unmeasured:
		word = "not measured"
	case !v.met:
		word = "MISSED"
	}
	return fmt.Sprintf("- %s: %s: %s (%s)", v.config, v.what, word, v.value)
}

// nginxBudget is what proxylint may take on a tree, against nginx -t in
// the same run: its CPU time (user + system) and its wall time as a share
// of nginx -t's, and its peak RSS (0: no bound).
type nginxBudget struct {
	cpu, wall float64
	rssKiB    int64
}

// budgetFor is the budget of a tree, by its size: the one-file
// configuration (start-up), then gen_nginx.py's trees of 10 (21 KB), 200
// (390 KB), 2000 (3.9 MB) and 20000 servers (39 MB) and any tree of about
// their size. The wall time is judged as well as the CPU time: proxylint
// spreads a large configuration over the processors where nginx -t uses
// one, so that its wall time depends on a processor being free and its CPU
// time on the work it does.
func budgetFor(t *tree) nginxBudget {
	switch {
	case t.label == "one file":
		return nginxBudget{cpu: 2, wall: 2}
	case t.bytes < 100<<10:
		return nginxBudget{cpu: 1, wall: 1}
	case t.bytes < 1<<20:
		return nginxBudget{cpu: 0.8, wall: 1}
	case t.bytes < 10<<20:
		return nginxBudget{cpu: 0.5, wall: 1, rssKiB: 100 << 10}
	}
	return nginxBudget{cpu: 0.2, wall: 1, rssKiB: 400 << 10}
}

// nginxTargets judges proxylint's runs on one tree: that it ran with the
// default flags; against nginx -t, its CPU time, its wall time and its peak
// RSS (budgetFor); against gixy and nginx-linter, how many times less CPU
// and wall time it takes. Each is judged on the slower of proxylint's two
// formats, and on medians.
func nginxTargets(r sizeResult) []verdict {
	label := r.tree.label
	var failed []string
	var wall, cpu time.Duration
	var rss int64
	for _, name := range []string{"proxylint text", "proxylint json"} {
		e := r.find(name)
		if e == nil {
			continue
		}
		if e.err != nil {
			failed = append(failed, name+": "+failure(e.err))
			continue
		}
		s := summarise(e.samples)
		wall, cpu, rss = max(wall, s.median), max(cpu, s.cpuMedian), max(rss, s.rssPeak)
	}
	var out []verdict
	notRun := ""
	if len(failed) > 0 {
		out = append(out, verdict{config: label, what: "runs with the default flags", value: strings.Join(failed, "; ")})
		notRun = strings.SplitN(failed[0], ":", 2)[0] + " failed"
	} else if wall == 0 {
		return nil
	}
	if nginx := r.get("nginx -t"); nginx != nil {
		n := summarise(nginx.samples)
		b := budgetFor(r.tree)
		share := func(what string, bound float64, pl, ref time.Duration) verdict {
			v := verdict{config: label, what: fmt.Sprintf("%s at most %s× that of nginx -t", what, fmtBound(bound))}
			if notRun != "" {
				v.value = notRun
				return v
			}
			ratio := float64(pl) / float64(ref)
			// Compared as the ratios are printed, to two decimals.
			v.met = ratio <= bound+0.005
			v.value = fmt.Sprintf("%.2f×: %s against %s", ratio, fmtDur(pl), fmtDur(ref))
			return v
		}
		out = append(out, share("CPU time", b.cpu, cpu, n.cpuMedian), share("wall time", b.wall, wall, n.median))
		if b.rssKiB > 0 {
			v := verdict{config: label, what: "peak RSS at most " + fmtKiB(b.rssKiB)}
			if notRun != "" {
				v.value = notRun
			} else {
				v.met, v.value = rss <= b.rssKiB, fmtKiB(rss)
			}
			out = append(out, v)
		}
	}
	for _, o := range []struct {
		tool  string
		times float64
	}{{"gixy", 100}, {"nginx-linter", 20}} {
		e := r.get(o.tool)
		if e == nil {
			continue
		}
		s := summarise(e.samples)
		for _, m := range []struct {
			what      string
			pl, other time.Duration
		}{{"wall time", wall, s.median}, {"CPU time", cpu, s.cpuMedian}} {
			v := verdict{config: label, what: fmt.Sprintf("%s at least %s× less than %s's", m.what, fmtBound(o.times), o.tool)}
			if notRun != "" {
				v.value = notRun
			} else {
				v.met, v.value = float64(m.other) >= o.times*float64(m.pl), fmtRatio(m.other, m.pl)
			}
			out = append(out, v)
		}
	}
	return out
}

// Envoy budgets: the bootstrap of 256 listeners (3.9 MB) in at most 1 s
// and with at most 40 µs for each route added up to it, and one of 2560
// listeners (39 MB) in at most 400 MB of peak RSS.
const (
	envoyMidBytes   = 4 << 20
	envoyLargeBytes = 30 << 20
	envoyWhole      = time.Second
	envoyPerRoute   = 40 // µs
	envoyLargeRSS   = 400 << 10
)

// envoyTargets judges proxylint's runs on the Envoy bootstraps: the
// largest of at most 4 MB in at most 1 s of wall and of CPU time; the cost
// of a route added up to it (the least-squares slope through those
// sizes) in wall and in CPU time; and the peak RSS of the largest
// bootstrap of 30 MB or more.
func envoyTargets(boots []*bootstrap) []verdict {
	var out []verdict
	var mid, large *bootstrap
	var xs, walls, cpus []float64
	for _, b := range boots {
		if b.bytes <= envoyMidBytes {
			s := summarise(b.samples)
			xs = append(xs, float64(b.spec.Routes()))
			walls = append(walls, float64(s.median)/float64(time.Microsecond))
			cpus = append(cpus, float64(s.cpuMedian)/float64(time.Microsecond))
			if mid == nil || b.bytes > mid.bytes {
				mid = b
			}
		} else if b.bytes >= envoyLargeBytes && (large == nil || b.bytes > large.bytes) {
			large = b
		}
	}
	if mid != nil && mid.bytes >= 3<<20 {
		s := summarise(mid.samples)
		for _, m := range []struct {
			what string
			d    time.Duration
		}{{"wall", s.median}, {"CPU", s.cpuMedian}} {
			out = append(out, verdict{config: fmtBytes(mid.bytes) + " bootstrap", what: "whole process in at most 1 s of " + m.what + " time", met: m.d <= envoyWhole, value: fmtDur(m.d)})
		}
	} else {
		largest := "none"
		if mid != nil {
			largest = fmtBytes(mid.bytes)
		}
		out = append(out, verdict{config: "3.9 MB bootstrap", what: "whole process in at most 1 s", unmeasured: true, value: "the largest bootstrap up to 4 MB here is " + largest + "; -scales up to 256"})
	}
	if len(xs) >= 2 && mid != nil {
		for _, m := range []struct {
			what string
			ys   []float64
		}{{"wall", walls}, {"CPU", cpus}} {
			_, slope, _ := fitLine(xs, m.ys)
			out = append(out, verdict{config: "up to " + fmtBytes(mid.bytes), what: fmt.Sprintf("at most %d µs of %s time per added route (least-squares slope)", envoyPerRoute, m.what), met: slope <= envoyPerRoute, value: fmt.Sprintf("%.0f µs", slope)})
		}
	}
	if large != nil {
		rss := summarise(large.samples).rssPeak
		out = append(out, verdict{config: fmtBytes(large.bytes) + " bootstrap", what: "peak RSS at most " + fmtKiB(envoyLargeRSS), met: rss <= envoyLargeRSS, value: fmtKiB(rss)})
	} else {
		var largest int64
		for _, b := range boots {
			largest = max(largest, b.bytes)
		}
		out = append(out, verdict{config: "39 MB bootstrap", what: "peak RSS at most " + fmtKiB(envoyLargeRSS), unmeasured: true, value: "the largest bootstrap here is " + fmtBytes(largest) + "; -scales up to 2560"})
	}
	return out
}

// failure says in a line how a run failed.
func failure(err error) string {
	var re *runError
	if errors.As(err, &re) {
		return re.short()
	}
	return firstLine(err.Error())
}

// fmtBound prints a target's ratio: 0.5, 1, 100.
func fmtBound(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

// listenArg is a listen directive's address, the first word after it.
var listenArg = regexp.MustCompile(`^\s*listen\s+([^\s;]+)`)

// fitWorkerConnections raises the worker_connections of the tree's main
// file from gen_nginx.py's 1024 to 65536 when the tree listens on too
// many sockets for it: nginx refuses a configuration whose
// worker_connections are fewer than its listening sockets plus one
// (ngx_event_init_conf, "worker_connections are not enough for N listening
// sockets"), and gen_nginx.py's tree of 20000 servers listens on 2,001.
// nginx -t allocates no connections, so the number costs it nothing. The
// sockets are counted as the distinct addresses of the tree's listen
// directives.
func fitWorkerConnections(dir, main string) error {
	sockets := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if m := listenArg.FindSubmatch(sc.Bytes()); m != nil {
				sockets[string(m[1])] = true
			}
		}
		return sc.Err()
	})
	if err != nil {
		return err
	}
	const from, to = "worker_connections 1024;", "worker_connections 65536;"
	if len(sockets)+1 <= 1024 {
		return nil
	}
	b, err := os.ReadFile(main)
	if err != nil {
		return err
	}
	if bytes.Count(b, []byte(from)) != 1 {
		return fmt.Errorf("%s: %d listening sockets, more than %q allows, and no single %q to raise", main, len(sockets), from, from)
	}
	return os.WriteFile(main, bytes.Replace(b, []byte(from), []byte(to), 1), 0o644)
}
