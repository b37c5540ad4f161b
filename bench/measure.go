package main

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// command is one way of running a tool on one configuration.
type command struct {
	argv []string
	env  []string // added to the environment
	dir  string
	// okCodes are the exit codes that mean the tool did its job; any
	// other code, or death by a signal, is a failure.
	okCodes []int
}

// sample is one measured run.
type sample struct {
	wall time.Duration
	cpu  time.Duration // user + system
	rss  int64         // peak resident set, KiB
}

// outcome is a finished run and what it printed.
type outcome struct {
	sample
	code   int
	stdout string // only when asked for
	stderr string
}

// runOnce runs c, its standard output to /dev/null unless keepStdout, and
// measures its wall time from fork to reaping, and from the kernel's
// accounting of the child (and anything it waited for) its CPU time and
// peak RSS.
func runOnce(c command, keepStdout bool) (outcome, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir = c.dir
	if len(c.env) > 0 {
		cmd.Env = append(cmd.Environ(), c.env...)
	}
	var stdout bytes.Buffer
	if keepStdout {
		cmd.Stdout = &stdout
	}
	stderr := &tailBuffer{max: 4096}
	cmd.Stderr = stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var o outcome
	o.wall = wall
	o.stdout, o.stderr = stdout.String(), stderr.String()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return o, fmt.Errorf("%s: %w", c.argv[0], err)
	}
	st := cmd.ProcessState
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		o.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		o.rss = ru.Maxrss
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return o, &runError{argv: c.argv, signal: ws.Signal().String(), stderr: o.stderr}
	}
	o.code = st.ExitCode()
	if !slices.Contains(c.okCodes, o.code) {
		return o, &runError{argv: c.argv, code: o.code, okCodes: c.okCodes, stderr: o.stderr}
	}
	return o, nil
}

// runError is a run that failed: an exit code other than the expected
// ones, or death by a signal.
type runError struct {
	argv    []string
	code    int
	okCodes []int
	signal  string // "" unless it died of one
	stderr  string
}

func (e *runError) Error() string {
	if e.signal != "" {
		return fmt.Sprintf("%s died of %s%s", strings.Join(e.argv, " "), e.signal, stderrNote(e.stderr))
	}
	return fmt.Sprintf("%s exited %d (expected %v)%s", strings.Join(e.argv, " "), e.code, e.okCodes, stderrNote(e.stderr))
}

// short says how the run failed in a line: the exit code or the signal,
// and the first line of what it printed on standard error.
func (e *runError) short() string {
	s := fmt.Sprintf("exit %d", e.code)
	if e.signal != "" {
		s = "died of " + e.signal
	}
	if l := firstLine(e.stderr); l != "" {
		s += ": " + l
	}
	return s
}

func stderrNote(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return ":\n    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// stats summarises the samples of one tool on one configuration.
type stats struct {
	n                       int
	median, lo, hi          time.Duration
	cpuMedian, cpuLo, cpuHi time.Duration
	rssPeak, rssMedian      int64
}

func summarise(samples []sample) stats {
	s := stats{n: len(samples)}
	if s.n == 0 {
		return s
	}
	walls := make([]time.Duration, 0, s.n)
	cpus := make([]time.Duration, 0, s.n)
	rss := make([]int64, 0, s.n)
	for _, x := range samples {
		walls = append(walls, x.wall)
		cpus = append(cpus, x.cpu)
		rss = append(rss, x.rss)
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	slices.Sort(rss)
	s.median, s.lo, s.hi = median(walls), walls[0], walls[len(walls)-1]
	s.cpuMedian, s.cpuLo, s.cpuHi = median(cpus), cpus[0], cpus[len(cpus)-1]
	s.rssPeak, s.rssMedian = rss[len(rss)-1], median(rss)
	return s
}

// median of sorted values: the middle one, or the mean of the two middle
// ones.
func median[T int64 | time.Duration](sorted []T) T {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// fmtDur prints a duration with three significant digits in a unit that
// suits it.
func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	case d < 100*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	case d < 10*time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	default:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
}

// fmtKiB prints a size given in KiB.
func fmtKiB(k int64) string {
	if k <= 0 {
		return "–"
	}
	if k < 10*1024 {
		return fmt.Sprintf("%.1f MB", float64(k)/1024)
	}
	return fmt.Sprintf("%.0f MB", float64(k)/1024)
}

// fmtRatio prints a/b as "12×".
func fmtRatio(a, b time.Duration) string {
	if a <= 0 || b <= 0 {
		return "–"
	}
	r := float64(a) / float64(b)
	switch {
	case r < 10:
		return fmt.Sprintf("%.2f×", r)
	case r < 100:
		return fmt.Sprintf("%.1f×", r)
	default:
		return fmt.Sprintf("%.0f×", r)
	}
}
