package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/rules"
)

// The SARIF of every fixture, and of runs that exercise suppressions,
// unreadable files and related places outside any file, is checked three
// ways: by structure here, against the SARIF 2.1.0 JSON schema, and by
// Microsoft's SARIF multitool with GitHub's ingestion rules.
//
// The schema and the multitool come from the npm package
// @microsoft/sarif-multitool:
//
//	npm install --prefix DIR @microsoft/sarif-multitool@5.7.0
//	export PROXYLINT_SARIF_MULTITOOL=DIR/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
//
// The schema is read from sarif-2.1.0.json next to the binary, or from
// PROXYLINT_SARIF_SCHEMA. Without them the checks that need them are
// skipped; PROXYLINT_REQUIRE_SARIF_MULTITOOL=1 (set by .ci/run) makes that a
// failure.

// sarifCase is one SARIF document to check.
type sarifCase struct {
	name  string
	sarif []byte
}

// fixtureArgs reads a fixture's "# proxylint-fixture: --flag value ..."
// header, so that each fixture is linted as the fixture test lints it.
func fixtureArgs(t *testing.T, path string) []string {
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []string
	for _, line := range strings.Split(string(src), "\n") {
		if _, rest, ok := strings.Cut(line, "# proxylint-fixture:"); ok {
			out = append(out, strings.Fields(rest)...)
		}
	}
	return out
}

// sarifCases lints every fixture from the repository root, and a few
// scratch configurations from their own directory.
func sarifCases(t *testing.T) []sarifCase {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	var cases []sarifCase
	paths, err := filepath.Glob(filepath.Join(root, "fixtures", "*", "*"))
	require.NoError(t, err)
	sort.Strings(paths)
	for _, p := range paths {
		switch filepath.Ext(p) {
		case ".conf", ".yaml", ".yml", ".json":
		default:
			continue
		}
		rel, _ := filepath.Rel(root, p)
		a := append(fixtureArgs(t, p), "--format", "sarif", filepath.ToSlash(rel))
		// A fixture may exit 2 on purpose (a file nginx would refuse),
		// but not because the command line is wrong.
		_, out, errOut := runCLI(t, root, a...)
		require.Empty(t, errOut, rel)
		cases = append(cases, sarifCase{filepath.ToSlash(rel), []byte(out)})
	}
	require.NotEmpty(t, cases)

	dir := t.TempDir()
	writeFile(t, dir, "suppressed.conf", suppressed)
	writeFile(t, dir, "unused.conf", strings.Replace(literalProxyPass, "        listen 80;\n",
		"        listen 80; # proxylint:ignore upstream-no-keepalive -- stale\n        # proxylint:ignore no-such-rule\n", 1))
	writeFile(t, dir, "broken.conf", "http {\n    server {\n        listen 80\n    }\n")
	writeFile(t, dir, "missing-include.conf", "events {}\nhttp {\n    include nothere.conf;\n}\n")
	writeFile(t, dir, "envoy.yaml", strings.Replace(envoyUnknownFilter, "          - name: acme.filters.http.audit\n",
		"          # proxylint:ignore-file envoy-unknown-extension -- our own filter\n          - name: acme.filters.http.audit\n", 1))
	writeFile(t, dir, "conf.d/site.conf", "location / {\n    proxy_pass http://10.0.0.1:8000;\n    proxy_read_timeout 60s;\n}\n")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"suppressed", []string{"suppressed.conf"}},
		{"unused-suppression", []string{"--require-reason", "unused.conf"}},
		{"syntax-error", []string{"broken.conf"}},
		{"missing-include", []string{"missing-include.conf"}},
		{"unreadable", []string{"absent.conf", "suppressed.conf"}},
		{"envoy-suppressed", []string{"envoy.yaml"}},
		{"fragment-behind-alb", []string{"--behind", "aws-alb", "--client-timeout", "30s", "conf.d/site.conf"}},
		{"clean", []string{"--no-config", "--disable", "upstream-no-keepalive,log-format-blind", "suppressed.conf"}},
	} {
		_, out, _ := runCLI(t, dir, append(c.args, "--format", "sarif")...)
		cases = append(cases, sarifCase{c.name, []byte(out)})
	}
	return cases
}

// validatedCases are sarifCases and the SARIF the GitHub Action writes
// itself when it has no program to run, which the schema and the
// multitool check as well; it lists no rules, since no proxylint ran.
func validatedCases(t *testing.T) []sarifCase {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	cases := sarifCases(t)
	if b := actionFallbackSARIF(t, root); b != nil {
		cases = append(cases, sarifCase{"action-without-program", b})
	}
	return cases
}

// TestSARIFOfEveryFixture checks what GitHub relies on: no line or column
// 0, relative URIs, every rule described, rule indexes that point at the
// rule, fingerprints present.
func TestSARIFOfEveryFixture(t *testing.T) {
	for _, c := range sarifCases(t) {
		t.Run(c.name, func(t *testing.T) {
			checkSARIFShape(t, c.sarif)
		})
	}
}

func checkSARIFShape(t *testing.T, b []byte) {
	var raw any
	require.NoError(t, json.Unmarshal(b, &raw))
	walkJSON(raw, "", func(path string, key string, v any) {
		switch key {
		case "startLine", "startColumn", "endLine", "endColumn":
			n, ok := v.(float64)
			assert.True(t, ok && n >= 1, "%s = %v: lines and columns start at 1", path, v)
		case "uri":
			s, _ := v.(string)
			if strings.Contains(path, "artifactLocation") {
				assert.False(t, strings.HasPrefix(s, "/") || strings.Contains(s, "://"), "%s = %q: URIs are relative to the checkout", path, s)
			}
		case "uriBaseId":
			assert.Equal(t, "%SRCROOT%", v, path)
		}
	})

	doc := parseSARIF(t, string(b))
	run := doc.Runs[0]
	ids := make([]string, 0, len(run.Tool.Driver.Rules))
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	var want []string
	for _, r := range rules.All() {
		want = append(want, r.ID)
	}
	assert.Equal(t, want, ids, "rules[] lists every registered rule")
	for _, r := range run.Results {
		assert.Equal(t, r.RuleID, ids[r.RuleIndex])
		assert.NotEmpty(t, r.PartialFingerprints["proxylint/v1"])
		require.Len(t, r.Locations, 1)
		first, _, _ := strings.Cut(r.Message.Text, ". ")
		assert.NotEmpty(t, first)
	}
}

func walkJSON(v any, path string, fn func(path, key string, v any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := path + "." + k
			fn(p, k, e)
			walkJSON(e, p, fn)
		}
	case []any:
		for i, e := range x {
			walkJSON(e, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	}
}

// requireTool returns path when the file exists; otherwise it skips the
// test, or fails it when PROXYLINT_REQUIRE_SARIF_MULTITOOL=1.
func requireTool(t *testing.T, what, path string) string {
	t.Helper()
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	msg := fmt.Sprintf("%s not found (%q); install @microsoft/sarif-multitool from npm and set PROXYLINT_SARIF_MULTITOOL to its Sarif.Multitool binary", what, path)
	if os.Getenv("PROXYLINT_REQUIRE_SARIF_MULTITOOL") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func schemaPath() string {
	if p := os.Getenv("PROXYLINT_SARIF_SCHEMA"); p != "" {
		return p
	}
	if p := os.Getenv("PROXYLINT_SARIF_MULTITOOL"); p != "" {
		return filepath.Join(filepath.Dir(p), "sarif-2.1.0.json")
	}
	return ""
}

// TestSARIFSchema validates every document against the SARIF 2.1.0 schema.
func TestSARIFSchema(t *testing.T) {
	path := requireTool(t, "the SARIF 2.1.0 schema", schemaPath())
	f, err := os.Open(path)
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(f)
	_ = f.Close()
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("sarif-2.1.0.json", doc))
	schema, err := c.Compile("sarif-2.1.0.json")
	require.NoError(t, err)
	cases := validatedCases(t)
	for _, sc := range cases {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(sc.sarif))
		require.NoError(t, err, sc.name)
		assert.NoError(t, schema.Validate(inst), sc.name)
	}
	// A control: line 0 violates the schema.
	spoilt := spoil(t, cases)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(spoilt))
	require.NoError(t, err)
	assert.Error(t, schema.Validate(inst), "the schema must reject line 0")
}

// TestSARIFMultitool runs Microsoft's validator with GitHub's ingestion
// rules over every document in one invocation (the SARIF of every
// fixture, fixes included, and of the scratch configurations); it must
// report no error and no warning. The tool exits 0 either way, so its
// output log is read. The documents' runs are validated together, up to
// GitHub's 20 runs a log (the tool's time goes mostly to starting on each
// file); a finding names the document its run came from.
func TestSARIFMultitool(t *testing.T) {
	tool := requireTool(t, "Sarif.Multitool", os.Getenv("PROXYLINT_SARIF_MULTITOOL"))
	dir := t.TempDir()
	cases := validatedCases(t)
	var docs []namedSARIF
	for _, sc := range cases {
		docs = append(docs, namedSARIF(sc))
	}
	files, origin := mergeRuns(t, dir, docs)
	// A control with a known defect proves that the tool read the files
	// and applies the rules: it must be flagged, and only it.
	control := spoil(t, cases)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "control.sarif"), control, 0o644))
	// A second control, whose fix names its file by an absolute path
	// under %SRCROOT%, must be flagged at the fix: the tool reads fixes.
	withFixes := 0
	var fixControl []byte
	for _, sc := range cases {
		if bytes.Contains(sc.sarif, []byte(`"fixes"`)) {
			withFixes++
			if fixControl == nil {
				fixControl = spoilFix(t, sc.sarif)
			}
		}
	}
	require.NotNil(t, fixControl, "no document has a fix")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fix-control.sarif"), fixControl, 0o644))
	files = append(files, "control.sarif", "fix-control.sarif")
	b := runMultitool(t, tool, dir, files)
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID             string
						MessageStrings map[string]struct{ Text string }
					}
				}
			}
			Results []struct {
				RuleID  string
				Level   string
				Message struct {
					ID        string
					Text      string
					Arguments []string
				}
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
					}
				}
			}
			Invocations []struct {
				ExecutionSuccessful        bool
				ToolExecutionNotifications []struct {
					Message struct{ Text string }
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(b, &log))
	require.NotEmpty(t, log.Runs)
	controlFlagged, fixControlFlagged := false, false
	for _, run := range log.Runs {
		for _, inv := range run.Invocations {
			assert.True(t, inv.ExecutionSuccessful, "the multitool failed: %+v", inv.ToolExecutionNotifications)
		}
		templates := map[string]map[string]struct{ Text string }{}
		for _, r := range run.Tool.Driver.Rules {
			templates[r.ID] = r.MessageStrings
		}
		for _, r := range run.Results {
			if r.Level != "error" && r.Level != "warning" && r.Level != "" {
				continue
			}
			text := r.Message.Text
			if tmpl, ok := templates[r.RuleID][r.Message.ID]; ok && text == "" {
				text = tmpl.Text
				for i, a := range r.Message.Arguments {
					text = strings.ReplaceAll(text, fmt.Sprintf("{%d}", i), a)
				}
			}
			file := ""
			if len(r.Locations) > 0 {
				file = filepath.Base(r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
			}
			if file == "control.sarif" {
				controlFlagged = true
				continue
			}
			if file == "fix-control.sarif" && r.RuleID == "SARIF1004" && len(r.Message.Arguments) > 0 && strings.Contains(r.Message.Arguments[0], ".fixes[0].artifactChanges[0].artifactLocation.uri") {
				fixControlFlagged = true
				continue
			}
			t.Errorf("%s: %s %s: %s", origin.of(file, r.Message.Arguments), r.Level, r.RuleID, text)
		}
	}
	assert.True(t, controlFlagged, "the multitool did not flag the control file's line 0; is it validating at all?")
	assert.True(t, fixControlFlagged, "the multitool did not flag the control's fix; does it read fixes?")
	t.Logf("the multitool checked %d SARIF documents (%d with fixes, in %d logs) and flagged only the controls", len(cases), withFixes, len(files)-2)
}

// namedSARIF is a SARIF document and what it was made from.
type namedSARIF struct {
	name  string
	sarif []byte
}

// maxRunsPerLog is GitHub's limit on the runs of one uploaded log.
const maxRunsPerLog = 20

// mergeRuns writes the runs of docs, unchanged and in order, into logs of
// at most maxRunsPerLog runs in dir, and returns their names and where
// each run came from.
func mergeRuns(t *testing.T, dir string, docs []namedSARIF) ([]string, runOrigins) {
	t.Helper()
	type log struct {
		Schema  string            `json:"$schema"`
		Version string            `json:"version"`
		Runs    []json.RawMessage `json:"runs"`
	}
	origin := runOrigins{}
	var files []string
	var cur log
	flush := func() {
		if len(cur.Runs) == 0 {
			return
		}
		name := fmt.Sprintf("%02d.sarif", len(files))
		b, err := json.Marshal(cur)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
		files = append(files, name)
		cur.Runs = nil
	}
	for _, d := range docs {
		var l log
		require.NoError(t, json.Unmarshal(d.sarif, &l), d.name)
		require.NotEmpty(t, l.Runs, d.name)
		if len(cur.Runs)+len(l.Runs) > maxRunsPerLog {
			flush()
		}
		cur.Schema, cur.Version = l.Schema, l.Version
		for _, r := range l.Runs {
			origin[fmt.Sprintf("%02d.sarif#%d", len(files), len(cur.Runs))] = d.name
			cur.Runs = append(cur.Runs, r)
		}
	}
	flush()
	return files, origin
}

// runOrigins maps "LOG#RUN" to the document the run came from.
type runOrigins map[string]string

// runIndex finds "runs[N]" in the multitool's message arguments.
var runIndex = regexp.MustCompile(`^runs\[(\d+)\]`)

// of names the document a multitool finding in file is about: the
// finding's first argument is the JSON path of what it flags.
func (o runOrigins) of(file string, args []string) string {
	for _, a := range args {
		if m := runIndex.FindStringSubmatch(a); m != nil {
			if name, ok := o[file+"#"+m[1]]; ok {
				return name
			}
		}
	}
	return file + " (run not named)"
}

// spoilFix returns the document b with the first fix naming its file by
// an absolute path, for the controls.
func spoilFix(t *testing.T, b []byte) []byte {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	for _, r := range doc["runs"].([]any)[0].(map[string]any)["results"].([]any) {
		if fx, ok := r.(map[string]any)["fixes"].([]any); ok {
			ch := fx[0].(map[string]any)["artifactChanges"].([]any)[0].(map[string]any)
			ch["artifactLocation"].(map[string]any)["uri"] = "/etc/nginx/nginx.conf"
			out, err := json.Marshal(doc)
			require.NoError(t, err)
			return out
		}
	}
	t.Fatal("the document has no fix to spoil for the control")
	return nil
}

// spoil returns the first document that has a region with its line set to
// 0, for the controls.
func spoil(t *testing.T, cases []sarifCase) []byte {
	t.Helper()
	re := regexp.MustCompile(`"startLine": \d+`)
	for _, c := range cases {
		if re.Match(c.sarif) {
			return re.ReplaceAll(c.sarif, []byte(`"startLine": 0`))
		}
	}
	t.Fatal("no SARIF document has a region to spoil for the control")
	return nil
}

// runMultitool validates files (in dir) with the SARIF multitool's SARIF
// and GitHub rules at error and warning level, and returns its log.
func runMultitool(t *testing.T, tool, dir string, files []string) []byte {
	t.Helper()
	out := filepath.Join(dir, "validation.sarif")
	// The files come first: the tool's list options swallow the words
	// that follow them.
	cmd := boundedCommand(t, 5*time.Minute, tool, append(append([]string{"validate"}, files...), "--rule-kind", "Sarif;Gh", "--level", "Error;Warning", "--output", out)...)
	cmd.Dir = dir
	// The tool is a self-contained .NET program; keep it from writing
	// telemetry or a first-run banner into the home directory.
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1", "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1")
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	b, err := os.ReadFile(out)
	require.NoError(t, err, "the multitool wrote no log:\n%s", msg)
	return b
}

// TestMergeRunsNamesEachRun: the runs of the documents validated together
// keep their order, at most maxRunsPerLog a log, and a finding on a run
// names the document it came from.
func TestMergeRunsNamesEachRun(t *testing.T) {
	dir := t.TempDir()
	var docs []namedSARIF
	for i := range 45 {
		docs = append(docs, namedSARIF{fmt.Sprintf("doc%d", i), fmt.Appendf(nil, `{"$schema":"s","version":"2.1.0","runs":[{"n":%d}]}`, i)})
	}
	files, origin := mergeRuns(t, dir, docs)
	require.Equal(t, []string{"00.sarif", "01.sarif", "02.sarif"}, files)
	var second struct {
		Schema  string `json:"$schema"`
		Version string
		Runs    []struct{ N int }
	}
	b, err := os.ReadFile(filepath.Join(dir, "01.sarif"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &second))
	assert.Equal(t, "s", second.Schema)
	assert.Equal(t, "2.1.0", second.Version)
	require.Len(t, second.Runs, maxRunsPerLog)
	assert.Equal(t, 24, second.Runs[4].N)
	assert.Equal(t, "doc24", origin.of("01.sarif", []string{"runs[4].results[0].locations[0]"}))
	assert.Equal(t, "doc44", origin.of("02.sarif", []string{"x", "runs[4]"}))
	assert.Equal(t, "00.sarif (run not named)", origin.of("00.sarif", []string{"no path"}))
}
