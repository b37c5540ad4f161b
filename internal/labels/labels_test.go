// Package labels holds proxylint to the hand-reviewed findings on the shared
// corpus: ../shared/labels from the repository root, beside ../shared/corpus.
// Every row names a corpus file, a line, a rule and a verdict:
//
//	TP                 the finding (rule, file, line) must be reported
//	FP                 it must not be reported
//	FN                 it must be reported, where the rule exists
//	LOAD-FALSE-REJECT  the file must load: nginx or Envoy accepts it
//	line 0, load-error linting the folder must not exit 0 silently
//
// Other verdicts (DEBATABLE, LOAD-OK, LOAD-TRUE-REJECT) are information.
// Each file is linted alone from its own folder, as a user linting one file
// would: `proxylint --format json --no-config [ARGS] NAME`, with a file's
// `# args:` line and a row's `[args: FLAGS]`.
//
// A row believed wrong about nginx or Envoy is listed, with its evidence, in
// testdata/labels-disputed.txt at the repository root; the test leaves only
// those rows out, and prints them.
package labels

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// sharedDir is the shared folder, relative to this package.
const sharedDir = "../../../shared"

// disputedFile lists the rows left out, relative to this package.
const disputedFile = "../../testdata/labels-disputed.txt"

// loadRules are the codes that say a file was not loaded as it should be.
var loadRules = map[string]bool{"envoy-invalid": true, "envoy-syntax": true, "nginx-syntax": true, "load-error": true, "nginx-include": true}

// row is one labelled finding.
type row struct {
	table   string // the TSV file's name
	file    string // relative to the table's base
	path    string // absolute
	line    int
	rule    string
	verdict string
	reason  string
	args    []string
}

func (r row) key() string {
	return fmt.Sprintf("%s\t%s\t%d\t%s", r.table, r.file, r.line, r.rule)
}

func (r row) String() string {
	return fmt.Sprintf("%s: %s:%d %s %s", r.table, r.file, r.line, r.rule, r.verdict)
}

var argsRe = regexp.MustCompile(`\[args: ([^\]]*)\]`)

// readTable reads one TSV file of labels.
func readTable(t *testing.T, path string) []row {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var base string
	var fileArgs []string
	var rows []row
	for n, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "# base:"):
			base = filepath.Join(filepath.Dir(filepath.Dir(path)), strings.TrimSpace(strings.TrimPrefix(line, "# base:")))
			continue
		case strings.HasPrefix(line, "# args:"):
			fileArgs = strings.Fields(strings.TrimPrefix(line, "# args:"))
			continue
		case strings.HasPrefix(line, "#"), strings.HasPrefix(line, "file\t"), strings.TrimSpace(line) == "":
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 4 {
			t.Fatalf("%s:%d: a row needs file, line, rule and verdict: %q", path, n+1, line)
		}
		if base == "" {
			t.Fatalf("%s:%d: a row before the # base: line", path, n+1)
		}
		ln := 0
		if cols[1] != "" {
			if ln, err = strconv.Atoi(cols[1]); err != nil {
				t.Fatalf("%s:%d: line %q is not a number", path, n+1, cols[1])
			}
		}
		r := row{table: filepath.Base(path), file: cols[0], path: filepath.Join(base, cols[0]), line: ln,
			rule: strings.TrimSpace(cols[2]), verdict: strings.TrimSpace(cols[3])}
		if len(cols) > 4 {
			r.reason = cols[4]
		}
		r.args = append([]string(nil), fileArgs...)
		if m := argsRe.FindStringSubmatch(r.reason); m != nil {
			r.args = append(r.args, strings.Fields(m[1])...)
		}
		rows = append(rows, r)
	}
	return rows
}

// readDisputed reads the rows left out: TABLE, FILE, LINE, RULE and the
// evidence, tab-separated.
func readDisputed(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	b, err := os.ReadFile(disputedFile)
	if os.IsNotExist(err) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	for n, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		cols := strings.SplitN(line, "\t", 5)
		if len(cols) < 5 || strings.TrimSpace(cols[4]) == "" {
			t.Fatalf("%s:%d: a disputed row is TABLE, FILE, LINE, RULE and the evidence, tab-separated", disputedFile, n+1)
		}
		out[strings.Join(cols[:4], "\t")] = cols[4]
	}
	return out
}

// result is one run of proxylint.
type result struct {
	found map[string]bool // "base:line:rule"
	code  int
	err   error
}

func findingKey(file string, line int, rule string) string {
	return fmt.Sprintf("%s:%d:%s", filepath.Base(file), line, rule)
}

// lint runs proxylint on one file (or folder) from its folder.
func lint(bin string, path string, args []string) result {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append([]string{"--format", "json", "--no-config"}, args...), filepath.Base(path))...)
	cmd.Dir = filepath.Dir(path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{found: map[string]bool{}}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.code = ee.ExitCode()
	} else if err != nil {
		res.err = err
		return res
	}
	if ctx.Err() != nil {
		res.err = fmt.Errorf("timed out")
		return res
	}
	var doc struct {
		Findings []struct {
			Rule       string          `json:"rule"`
			File       string          `json:"file"`
			Line       int             `json:"line"`
			Suppressed json.RawMessage `json:"suppressed"`
		} `json:"findings"`
	}
	if stdout.Len() > 0 {
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
			res.err = fmt.Errorf("reading the JSON report: %w (stderr: %s)", err, strings.TrimSpace(stderr.String()))
			return res
		}
	}
	for _, f := range doc.Findings {
		if len(f.Suppressed) > 0 && string(f.Suppressed) != "null" && string(f.Suppressed) != "false" {
			continue
		}
		res.found[findingKey(f.File, f.Line, f.Rule)] = true
	}
	return res
}

// build builds proxylint once for the test.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "proxylint")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/proxylint")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// knownRules lists the rule IDs of `proxylint rules`.
func knownRules(t *testing.T, bin string) map[string]bool {
	t.Helper()
	out, err := exec.Command(bin, "rules").Output()
	if err != nil {
		t.Fatalf("proxylint rules: %v", err)
	}
	known := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 0 {
			known[f[0]] = true
		}
	}
	return known
}

// checkedVerdict reports whether a row is held to the findings: TP, FP,
// LOAD-FALSE-REJECT, a folder row, and FN of a rule that exists.
func checkedVerdict(r row, known map[string]bool) bool {
	switch {
	case r.line == 0 && r.rule == "load-error":
		return r.verdict == "FN"
	case r.verdict == "TP", r.verdict == "FP", r.verdict == "LOAD-FALSE-REJECT":
		return true
	case r.verdict == "FN":
		return known[r.rule]
	}
	return false
}

// TestLabels runs every checked row of ../shared/labels, both ways: a true
// finding that is no longer reported fails as a false positive that is
// reported does.
func TestLabels(t *testing.T) {
	tables, _ := filepath.Glob(filepath.Join(sharedDir, "labels", "*.tsv"))
	if len(tables) == 0 {
		t.Skipf("no labels at %s/labels (the shared corpus is not beside the repository)", sharedDir)
	}
	sort.Strings(tables)
	var rows []row
	for _, tb := range tables {
		rows = append(rows, readTable(t, tb)...)
	}
	disputed := readDisputed(t)
	bin := build(t)
	known := knownRules(t, bin)

	// The rows to check, and the runs they need (one per file and flags).
	type run struct {
		path string
		args []string
	}
	runKey := func(r run) string { return r.path + "\x00" + strings.Join(r.args, "\x00") }
	var checked []row
	runs := map[string]run{}
	for _, r := range rows {
		if ev, ok := disputed[r.key()]; ok && !checkedVerdict(r, known) {
			// A row of information only: nothing to leave out, but the
			// evidence against it is printed for its reviewers.
			t.Logf("disputed (a row of information): %s (%s)", r, ev)
			delete(disputed, r.key())
			continue
		}
		if !checkedVerdict(r, known) {
			continue
		}
		if ev, ok := disputed[r.key()]; ok {
			t.Logf("disputed, not checked: %s (%s)", r, ev)
			delete(disputed, r.key())
			continue
		}
		checked = append(checked, r)
		rn := run{r.path, r.args}
		runs[runKey(rn)] = rn
	}
	for k := range disputed {
		t.Errorf("testdata/labels-disputed.txt names a row that is not in the labels: %q", k)
	}

	results := map[string]result{}
	var mu sync.Mutex
	keys := make([]string, 0, len(runs))
	for k := range runs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	work := make(chan string)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				rn := runs[k]
				res := lint(bin, rn.path, rn.args)
				mu.Lock()
				results[k] = res
				mu.Unlock()
			}
		}()
	}
	for _, k := range keys {
		work <- k
	}
	close(work)
	wg.Wait()

	tally := map[string][2]int{}
	count := func(kind string, ok bool) {
		c := tally[kind]
		c[1]++
		if ok {
			c[0]++
		}
		tally[kind] = c
	}
	for _, r := range checked {
		res := results[runKey(run{r.path, r.args})]
		if res.err != nil {
			t.Errorf("%s: %v", r, res.err)
			continue
		}
		hit := res.found[findingKey(r.path, r.line, r.rule)]
		switch {
		case r.line == 0 && r.rule == "load-error":
			count("FN", res.code != 0)
			if res.code == 0 {
				t.Errorf("%s: the folder lints clean (exit 0) though it lints nothing", r)
			}
		case r.verdict == "TP":
			count("TP", hit)
			if !hit {
				t.Errorf("%s: true finding no longer reported (%s)", r, r.reason)
			}
		case r.verdict == "FP":
			count("FP", !hit)
			if hit {
				t.Errorf("%s: false positive still reported (%s)", r, r.reason)
			}
		case r.verdict == "FN":
			count("FN", hit)
			if !hit {
				t.Errorf("%s: missed (%s)", r, r.reason)
			}
		case r.verdict == "LOAD-FALSE-REJECT":
			bad := false
			for k := range res.found {
				rule := k[strings.LastIndexByte(k, ':')+1:]
				if rule == "envoy-invalid" || rule == "envoy-syntax" || (loadRules[rule] && k == findingKey(r.path, r.line, rule)) {
					bad = true
				}
			}
			count("LOAD", !bad)
			if bad {
				t.Errorf("%s: a file the proxy accepts is still rejected (%s)", r, r.reason)
			}
		}
	}
	t.Logf("false positives gone %d/%d, true findings kept %d/%d, misses found %d/%d, false rejects gone %d/%d",
		tally["FP"][0], tally["FP"][1], tally["TP"][0], tally["TP"][1], tally["FN"][0], tally["FN"][1], tally["LOAD"][0], tally["LOAD"][1])
}
