package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proxylint/proxylint/bench/gen"
)

// result builds the runs of one tree: per tool, its wall and CPU medians
// and peak RSS (three equal samples), or an error.
func result(t *tree, tools map[string]sample, failed map[string]error) sizeResult {
	r := sizeResult{tree: t}
	for _, name := range []string{"proxylint text", "proxylint json", "nginx -t", "gixy", "nginx-linter"} {
		e := &entry{toolSpec: toolSpec{name: name, reference: strings.HasPrefix(name, "proxylint")}}
		if err, ok := failed[name]; ok {
			e.err = err
		} else if s, ok := tools[name]; ok {
			e.samples = []sample{s, s, s}
		} else {
			continue
		}
		r.entries = append(r.entries, e)
	}
	return r
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// verdictsOf prints the verdicts as the summary does, one a line.
func verdictsOf(vs []verdict) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(v.String() + "\n")
	}
	return b.String()
}

func TestNginxTargetsJudgeCPUAsWellAsWall(t *testing.T) {
	big := &tree{label: "N=2000", bytes: 4 << 20}
	// Twice as fast in wall time on two cores, slower in CPU time.
	r := result(big, map[string]sample{
		"proxylint text": {wall: ms(400), cpu: ms(1100), rss: 90 << 10},
		"proxylint json": {wall: ms(450), cpu: ms(1200), rss: 95 << 10},
		"nginx -t":       {wall: ms(1000), cpu: ms(1000), rss: 197 << 10},
	}, nil)
	got := verdictsOf(nginxTargets(r))
	for _, want := range []string{
		"- N=2000: CPU time at most 0.5× that of nginx -t: MISSED (1.20×: 1.20 s against 1.00 s)\n",
		"- N=2000: wall time at most 1× that of nginx -t: met (0.45×: 450 ms against 1.00 s)\n",
		"- N=2000: peak RSS at most 100 MB: met (95 MB)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestNginxTargetsBySize(t *testing.T) {
	for _, c := range []struct {
		tree      *tree
		cpu, wall string // the targets' ratios
		rss       bool
	}{
		{&tree{label: "one file", bytes: 900}, "2×", "2×", false},
		{&tree{label: "N=10", bytes: 21 << 10}, "1×", "1×", false},
		{&tree{label: "N=200", bytes: 390 << 10}, "0.8×", "1×", false},
		{&tree{label: "N=2000", bytes: 4 << 20}, "0.5×", "1×", true},
		{&tree{label: "N=20000", bytes: 39 << 20}, "0.2×", "1×", true},
	} {
		r := result(c.tree, map[string]sample{
			"proxylint text": {wall: ms(10), cpu: ms(10), rss: 1 << 10},
			"proxylint json": {wall: ms(10), cpu: ms(10), rss: 1 << 10},
			"nginx -t":       {wall: ms(100), cpu: ms(100), rss: 1 << 10},
		}, nil)
		got := verdictsOf(nginxTargets(r))
		for _, want := range []string{"CPU time at most " + c.cpu + " that of nginx -t: met", "wall time at most " + c.wall + " that of nginx -t: met"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: missing %q in:\n%s", c.tree.label, want, got)
			}
		}
		if strings.Contains(got, "peak RSS") != c.rss {
			t.Errorf("%s: peak RSS target: want %v:\n%s", c.tree.label, c.rss, got)
		}
	}
	// At the bound: 0.8× is met, a little more is not.
	n200 := &tree{label: "N=200", bytes: 390 << 10}
	for cpu, want := range map[int]string{800: "met", 810: "MISSED"} {
		r := result(n200, map[string]sample{
			"proxylint text": {wall: ms(500), cpu: ms(cpu)},
			"proxylint json": {wall: ms(500), cpu: ms(700)},
			"nginx -t":       {wall: ms(1000), cpu: ms(1000)},
		}, nil)
		if got := verdictsOf(nginxTargets(r)); !strings.Contains(got, "CPU time at most 0.8× that of nginx -t: "+want) {
			t.Errorf("CPU %d ms against 1 s: want %s:\n%s", cpu, want, got)
		}
	}
}

// TestNginxTargetsWhenProxylintFails: a tree proxylint refuses with its
// default flags misses every target, and says why.
func TestNginxTargetsWhenProxylintFails(t *testing.T) {
	r := result(&tree{label: "N=20000", bytes: 39 << 20}, map[string]sample{
		"proxylint json": {wall: ms(10), cpu: ms(10)},
		"nginx -t":       {wall: ms(100), cpu: ms(100)},
	}, map[string]error{"proxylint text": &runError{argv: []string{"proxylint", "nginx.conf"}, code: 2, okCodes: []int{0, 1}, stderr: "nginx.conf:1:1: error: more than 10000 inclusions\nmore\n"}})
	got := verdictsOf(nginxTargets(r))
	for _, want := range []string{
		"- N=20000: runs with the default flags: MISSED (proxylint text: exit 2: nginx.conf:1:1: error: more than 10000 inclusions)\n",
		"- N=20000: CPU time at most 0.2× that of nginx -t: MISSED (proxylint text failed)\n",
		"- N=20000: peak RSS at most 400 MB: MISSED (proxylint text failed)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, ": met") {
		t.Errorf("a target is met although proxylint failed:\n%s", got)
	}
}

func TestOtherToolTargetsJudgeCPUAsWellAsWall(t *testing.T) {
	r := result(&tree{label: "N=200", bytes: 390 << 10}, map[string]sample{
		"proxylint text": {wall: ms(100), cpu: ms(150)},
		"proxylint json": {wall: ms(100), cpu: ms(150)},
		"gixy":           {wall: ms(11000), cpu: ms(11000)},
		"nginx-linter":   {wall: ms(1500), cpu: ms(2500)},
	}, nil)
	got := verdictsOf(nginxTargets(r))
	for _, want := range []string{
		"- N=200: wall time at least 100× less than gixy's: met (110×)\n",
		"- N=200: CPU time at least 100× less than gixy's: MISSED (73.3×)\n",
		"- N=200: wall time at least 20× less than nginx-linter's: MISSED (15.0×)\n",
		"- N=200: CPU time at least 20× less than nginx-linter's: MISSED (16.7×)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

// TestWorkerConnectionsForTheListeningSockets: nginx refuses a
// configuration with more listening sockets than worker_connections
// (ngx_event_init_conf: "worker_connections are not enough for N
// listening sockets"); gen_nginx.py writes 1024, and its 20000-server
// tree listens on 2,001 sockets.
func TestWorkerConnectionsForTheListeningSockets(t *testing.T) {
	for _, c := range []struct {
		sockets int
		want    string
	}{{200, "worker_connections 1024;"}, {1023, "worker_connections 1024;"}, {1024, "worker_connections 65536;"}, {2001, "worker_connections 65536;"}} {
		dir := t.TempDir()
		main := filepath.Join(dir, "nginx.conf")
		write(t, main, "worker_processes 2;\nevents {\n    worker_connections 1024;\n}\nhttp {\n    include sites/*.conf;\n}\n")
		var b strings.Builder
		for i := range c.sockets {
			b.WriteString("server {\n    listen 80;\n")
			if i > 0 {
				b.WriteString("    listen 127.0.0.1:" + strconv.Itoa(10000+i) + ";\n")
			}
			b.WriteString("}\n")
		}
		write(t, filepath.Join(dir, "sites", "a.conf"), b.String())
		if err := fitWorkerConnections(dir, main); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(main)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(got), "\n    "+c.want+"\n") {
			t.Errorf("%d listening sockets: want %s in:\n%s", c.sockets, c.want, got)
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// boot is a bootstrap of l listeners of 40 routes whose runs took the given
// wall and CPU time and peak RSS.
func boot(l int, bytes int64, wall, cpu time.Duration, rssKiB int64) *bootstrap {
	return &bootstrap{
		spec:    gen.EnvoyBootstrap{Listeners: l, RoutesPerListener: 40, Clusters: 10 * l},
		bytes:   bytes,
		samples: []sample{{wall: wall, cpu: cpu, rss: rssKiB}, {wall: wall, cpu: cpu, rss: rssKiB}},
	}
}

func TestEnvoyTargetsJudgeCPUAsWellAsWall(t *testing.T) {
	// 50 ms + 30 µs of wall time per route, 50 ms + 60 µs of CPU time.
	var boots []*bootstrap
	for _, l := range []int{1, 4, 16, 64, 256} {
		routes := time.Duration(40 * l)
		boots = append(boots, boot(l, int64(l)*(16<<10), ms(50)+routes*30*time.Microsecond, ms(50)+routes*60*time.Microsecond, 150<<10))
	}
	got := verdictsOf(envoyTargets(boots))
	for _, want := range []string{
		"- 4.0 MB bootstrap: whole process in at most 1 s of wall time: met (357 ms)\n",
		"- 4.0 MB bootstrap: whole process in at most 1 s of CPU time: met (664 ms)\n",
		"- up to 4.0 MB: at most 40 µs of wall time per added route (least-squares slope): met (30 µs)\n",
		"- up to 4.0 MB: at most 40 µs of CPU time per added route (least-squares slope): MISSED (60 µs)\n",
		"- 39 MB bootstrap: peak RSS at most 400 MB: not measured (the largest bootstrap here is 4.0 MB; -scales up to 2560)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	// The 39 MB bootstrap: its peak RSS is judged, and it stays out of
	// the slope of the smaller ones.
	boots = append(boots, boot(2560, 39<<20, 20*time.Second, 40*time.Second, 1300<<10))
	got = verdictsOf(envoyTargets(boots))
	for _, want := range []string{
		"- 39.0 MB bootstrap: peak RSS at most 400 MB: MISSED (1300 MB)\n",
		"- up to 4.0 MB: at most 40 µs of wall time per added route (least-squares slope): met (30 µs)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}
