package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rhysd/actionlint"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// actionMeta is the part of action.yml the tests read.
type actionMeta struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string           `yaml:"using"`
		Steps []map[string]any `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T, root string) (actionMeta, []byte) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "action.yml"))
	require.NoError(t, err)
	var a actionMeta
	require.NoError(t, yaml.Unmarshal(src, &a))
	return a, src
}

// lintWorkflow runs actionlint on a workflow in the repository at root,
// where "uses: ./" names the repository's own action.yml.
func lintWorkflow(t *testing.T, root, name, workflow string) []string {
	t.Helper()
	var out bytes.Buffer
	opts := &actionlint.LinterOptions{WorkingDir: root}
	// The run: scripts are checked with shellcheck where it is installed
	// (.ci/run installs it), as the actionlint command does.
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		opts.Shellcheck = sc
	}
	l, err := actionlint.NewLinter(&out, opts)
	require.NoError(t, err)
	proj, err := actionlint.NewProject(root)
	require.NoError(t, err)
	errs, err := l.Lint(filepath.Join(root, ".github", "workflows", name), []byte(workflow), proj)
	require.NoError(t, err)
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	return msgs
}

// TestActionLints checks action.yml with actionlint twice: used from a
// workflow as "uses: ./" (actionlint reads its metadata and checks the
// inputs given), and with its steps placed in a job whose inputs are the
// action's, so that the steps' expressions and the actions they use are
// checked too.
func TestActionLints(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	a, _ := readAction(t, root)
	assert.Equal(t, "composite", a.Runs.Using)

	uses := `on: pull_request
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: ./
        with:
          paths: deploy/
          args: --target nginx:1.28
          sarif-file: proxylint.sarif
          format: github
          fail-on: error
          no-fail: true
          go-version: stable
`
	assert.Empty(t, lintWorkflow(t, root, "uses.yml", uses))
	// A control: an input the action does not have is flagged.
	bad := strings.Replace(uses, "fail-on: error", "fail_on: error", 1)
	assert.NotEmpty(t, lintWorkflow(t, root, "bad.yml", bad), "actionlint did not read action.yml")

	var inputs strings.Builder
	for name, in := range a.Inputs {
		inputs.WriteString("      " + name + ":\n        type: string\n        default: " + strconvQuote(in.Default) + "\n")
	}
	steps, err := yaml.Marshal(a.Runs.Steps)
	require.NoError(t, err)
	job := "on:\n  workflow_call:\n    inputs:\n" + inputs.String() +
		"jobs:\n  action:\n    runs-on: ubuntu-latest\n    steps:\n" + indentLines(string(steps), "      ")
	assert.Empty(t, lintWorkflow(t, root, "steps.yml", job), job)
}

func strconvQuote(s string) string {
	b, _ := yaml.Marshal(s)
	return strings.TrimSpace(string(b))
}

func indentLines(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pre + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// readmeWorkflows are the complete workflows (YAML blocks with jobs:) in
// README.md.
func readmeWorkflows(t *testing.T, root string) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	var out []string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(src), -1) {
		if strings.Contains(m[1], "\njobs:\n") {
			out = append(out, m[1])
		}
	}
	return out
}

// TestREADMEWorkflowsLint runs actionlint on every workflow in README.md,
// with the action the README names read from this repository's
// action.yml, so its inputs are checked.
func TestREADMEWorkflowsLint(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	wfs := readmeWorkflows(t, root)
	require.GreaterOrEqual(t, len(wfs), 2, "README.md shows the action's workflow and the go install one")
	usesAction := regexp.MustCompile(`uses: proxylint/proxylint@\S+`)
	sawAction, sawUpload := false, false
	for i, wf := range wfs {
		if usesAction.MatchString(wf) {
			sawAction = true
		}
		if strings.Contains(wf, "github/codeql-action/upload-sarif@") {
			sawUpload = true
		}
		local := usesAction.ReplaceAllString(wf, "uses: ./")
		assert.Empty(t, lintWorkflow(t, root, "readme"+strconv.Itoa(i)+".yml", local), wf)
	}
	assert.True(t, sawAction, "README.md shows a workflow using the action")
	// The workflow without the action writes SARIF and a report for the
	// log in one run.
	assert.Regexp(t, `run: proxylint --format sarif=proxylint\.sarif --format (text|github) `, strings.Join(wfs, "\n"))
	assert.True(t, sawUpload, "README.md shows the upload to code scanning")
}

// TestActionRunStep runs the action's lint step with bash as the runner
// would: SARIF written, the exit code and the report's path in the step's
// outputs, the step failing with proxylint's exit code.
func TestActionRunStep(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	a, _ := readAction(t, root)
	var script string
	for _, s := range a.Runs.Steps {
		if s["id"] == "lint" {
			script, _ = s["run"].(string)
		}
	}
	require.NotEmpty(t, script)

	// The build step's program: the package's shared build (the step's
	// build adds -trimpath, which changes only the paths the program
	// records).
	runnerTemp := t.TempDir()
	copyBinary(t, filepath.Join(runnerTemp, "proxylint-action", "proxylint"))

	ws := t.TempDir()
	writeFile(t, ws, "deploy/nginx.conf", literalProxyPass)
	writeFile(t, ws, "other/nginx.conf", "events {}\nhttp {}\n")
	run := func(inputs map[string]string) (int, string, string) {
		outputs := filepath.Join(t.TempDir(), "output")
		cmd := boundedCommand(t, time.Minute, bash, "-e", "-c", script)
		cmd.Dir = ws
		temp := runnerTemp
		if inputs["RUNNER_TEMP"] != "" {
			temp = inputs["RUNNER_TEMP"]
			delete(inputs, "RUNNER_TEMP")
		}
		cmd.Env = append(os.Environ(), "RUNNER_TEMP="+temp, "GITHUB_OUTPUT="+outputs)
		for k, v := range inputs {
			cmd.Env = append(cmd.Env, "PROXYLINT_"+k+"="+v)
		}
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stdout
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		o, _ := os.ReadFile(outputs)
		return code, stdout.String(), string(o)
	}
	code, log, outputs := run(map[string]string{"PATHS": "deploy/ other/", "ARGS": "--no-config --no-color --disable log-format-blind", "SARIF": "proxylint.sarif", "FORMAT": "text", "FAIL_ON": "warning"})
	assert.Equal(t, exitFindings, code, log)
	assert.Contains(t, log, "deploy/nginx.conf:6:13: warning: proxy_pass to 127.0.0.1:8000")
	assert.Equal(t, "exit-code=1\nsarif-file=proxylint.sarif\n", outputs)
	sarif, err := os.ReadFile(filepath.Join(ws, "proxylint.sarif"))
	require.NoError(t, err)
	assert.Equal(t, "upstream-no-keepalive", parseSARIF(t, string(sarif)).Runs[0].Results[0].RuleID)

	code, log, outputs = run(map[string]string{"PATHS": "deploy/", "ARGS": "--no-config --disable log-format-blind", "SARIF": "", "FORMAT": "github", "FAIL_ON": "error"})
	assert.Equal(t, exitClean, code, log)
	assert.Contains(t, log, "::warning file=deploy/nginx.conf,line=6,col=13,")
	assert.Equal(t, "exit-code=0\n", outputs)

	readSARIF := func() sarifOut {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(ws, "proxylint.sarif"))
		require.NoError(t, err)
		return parseSARIF(t, string(b))
	}
	// no-fail: the findings are reported and the step passes; the exit
	// code is still proxylint's.
	lint := map[string]string{"PATHS": "deploy/", "ARGS": "--no-config --no-color --disable log-format-blind", "SARIF": "proxylint.sarif", "FORMAT": "text", "FAIL_ON": "warning", "NO_FAIL": "true"}
	code, log, outputs = run(lint)
	assert.Equal(t, exitClean, code, log)
	assert.Contains(t, log, "deploy/nginx.conf:6:13: warning: proxy_pass to 127.0.0.1:8000")
	assert.Contains(t, log, "proxylint: findings at or above warning; not failing the step (no-fail: true)")
	assert.Equal(t, "exit-code=1\nsarif-file=proxylint.sarif\n", outputs)
	assert.Equal(t, "upstream-no-keepalive", readSARIF().Runs[0].Results[0].RuleID)

	// A run that cannot lint fails the step even with no-fail, and its
	// SARIF is proxylint's: no result, the error as its notification.
	bad := map[string]string{"PATHS": "deploy/", "ARGS": "--no-config --bogus", "SARIF": "proxylint.sarif", "FORMAT": "text", "FAIL_ON": "warning", "NO_FAIL": "true"}
	code, log, outputs = run(bad)
	assert.Equal(t, exitError, code, log)
	assert.Contains(t, log, "proxylint: flag provided but not defined: --bogus")
	assert.Equal(t, "exit-code=2\nsarif-file=proxylint.sarif\n", outputs)
	failed := readSARIF().Runs[0]
	assert.Empty(t, failed.Results)
	require.Len(t, failed.Invocations, 1)
	assert.False(t, failed.Invocations[0].ExecutionSuccessful)
	assert.Equal(t, "flag provided but not defined: --bogus.", failed.Invocations[0].ToolExecutionNotifications[0].Message.Text)

	// Without a program (its build failed) and with a no-fail that is
	// neither true nor false, the step writes the SARIF itself, with the
	// reason, and fails; a report left by an earlier run is replaced.
	for _, c := range []struct {
		inputs map[string]string
		why    string
	}{
		{map[string]string{"RUNNER_TEMP": t.TempDir(), "NO_FAIL": "false"}, "proxylint was not built (see the steps above)."},
		{map[string]string{"NO_FAIL": "yes"}, `the no-fail input is "yes"; want true or false.`},
	} {
		in := map[string]string{"PATHS": "deploy/", "ARGS": "--no-config", "SARIF": "reports/proxylint.sarif", "FORMAT": "text", "FAIL_ON": "warning"}
		for k, v := range c.inputs {
			in[k] = v
		}
		writeFile(t, ws, "reports/proxylint.sarif", "stale")
		code, log, outputs = run(in)
		assert.Equal(t, exitError, code, log)
		assert.Equal(t, "::error title=proxylint::"+strings.TrimSuffix(c.why, ".")+"\n", log)
		assert.Equal(t, "exit-code=2\nsarif-file=reports/proxylint.sarif\n", outputs)
		b, err := os.ReadFile(filepath.Join(ws, "reports", "proxylint.sarif"))
		require.NoError(t, err)
		run := parseSARIF(t, string(b)).Runs[0]
		assert.Empty(t, run.Results)
		require.Len(t, run.Invocations, 1)
		assert.False(t, run.Invocations[0].ExecutionSuccessful)
		assert.Equal(t, c.why, run.Invocations[0].ToolExecutionNotifications[0].Message.Text)
	}
}

// TestActionBuildKey runs the step that keys the cached build on a copy of
// an action's files: the key names the runner, the ref and the sources,
// and changes with go.sum, with a Go file and with the ref.
func TestActionBuildKey(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	a, _ := readAction(t, root)
	var script string
	for _, s := range a.Runs.Steps {
		if s["id"] == "build-key" {
			script, _ = s["run"].(string)
		}
	}
	require.NotEmpty(t, script)
	action := t.TempDir()
	writeFile(t, action, "go.mod", "module example.com/x\n")
	writeFile(t, action, "go.sum", "example.com/y v1.0.0 h1:abc=\n")
	writeFile(t, action, "cmd/proxylint/main.go", "package main\n")
	writeFile(t, action, "README.md", "not hashed\n")
	key := func(ref string) string {
		t.Helper()
		outputs := filepath.Join(t.TempDir(), "output")
		cmd := boundedCommand(t, time.Minute, bash, "-e", "-c", script)
		cmd.Env = append(os.Environ(), "GITHUB_ACTION_PATH="+action, "GITHUB_OUTPUT="+outputs, "RUNNER_OS=Linux", "RUNNER_ARCH=X64", "ACTION_REF="+ref)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		o, err := os.ReadFile(outputs)
		require.NoError(t, err)
		return strings.TrimSpace(string(o))
	}
	first := key("v1.2.0")
	assert.Regexp(t, `^key=proxylint-build-v1-Linux-X64-v1\.2\.0-[0-9a-f]{16}-[0-9a-f]{16}$`, first)
	assert.Equal(t, first, key("v1.2.0"))
	assert.Regexp(t, `^key=proxylint-build-v1-Linux-X64-local-`, key(""))
	assert.Regexp(t, `^key=proxylint-build-v1-Linux-X64-feature-x-`, key("feature/x"))
	writeFile(t, action, "README.md", "still not hashed\n")
	assert.Equal(t, first, key("v1.2.0"))
	writeFile(t, action, "cmd/proxylint/main.go", "package main\n\nfunc main() {}\n")
	second := key("v1.2.0")
	assert.NotEqual(t, first, second)
	writeFile(t, action, "go.sum", "example.com/y v1.0.1 h1:def=\n")
	assert.NotEqual(t, second, key("v1.2.0"))
}

// pinned is a "uses:" of a remote action pinned by a full commit, with the
// release it is in a comment: "owner/repo[/path]@SHA # vX[.Y[.Z]]".
var pinned = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[A-Za-z0-9_./-]+)?@[0-9a-f]{40} # v[0-9]+(\.[0-9]+){0,2}$`)

// usesOf lists the remote actions a workflow or action file uses, as
// written after "uses: " (comment included).
func usesOf(src string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:- )?uses:\s*(.+?)\s*$`).FindAllStringSubmatch(src, -1) {
		if u := strings.Trim(m[1], `"'`); !strings.HasPrefix(u, "./") && !strings.HasPrefix(u, "docker://") {
			out = append(out, u)
		}
	}
	return out
}

// TestActionsPinnedByCommit: every action used by action.yml, by the
// repository's workflows and by the workflows README.md shows is pinned by
// commit (a tag can be moved to other code; a commit cannot), with the
// release named beside it. The README's own "uses: proxylint/proxylint@"
// is the reader's choice of ref.
func TestActionsPinnedByCommit(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	_, action := readAction(t, root)
	files := map[string]string{"action.yml": string(action)}
	workflows, err := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	require.NoError(t, err)
	require.NotEmpty(t, workflows)
	for _, w := range workflows {
		b, err := os.ReadFile(w)
		require.NoError(t, err)
		files[filepath.Base(w)] = string(b)
	}
	for i, wf := range readmeWorkflows(t, root) {
		files["README.md workflow "+strconv.Itoa(i+1)] = wf
	}
	n := 0
	for name, src := range files {
		for _, u := range usesOf(src) {
			if strings.HasPrefix(name, "README.md") && strings.HasPrefix(u, "proxylint/proxylint@") {
				continue
			}
			n++
			assert.Regexp(t, pinned, u, "%s: uses: %s", name, u)
		}
	}
	assert.GreaterOrEqual(t, n, 8, "the uses: lines were not found")
	// One release of each action throughout.
	byAction := map[string]string{}
	for _, src := range files {
		for _, u := range usesOf(src) {
			name, ref, _ := strings.Cut(u, "@")
			name = strings.Join(strings.SplitN(name, "/", 3)[:2], "/")
			if prev, ok := byAction[name]; ok && !strings.HasPrefix(u, "proxylint/") {
				assert.Equal(t, prev, ref, "%s is used at two commits", name)
			}
			byAction[name] = ref
		}
	}
}

// TestWorkflowsLint runs actionlint (with shellcheck on the run: scripts
// when it is installed) on every workflow of the repository.
func TestWorkflowsLint(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	workflows, err := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	require.NoError(t, err)
	require.NotEmpty(t, workflows)
	for _, w := range workflows {
		b, err := os.ReadFile(w)
		require.NoError(t, err)
		assert.Empty(t, lintWorkflow(t, root, filepath.Base(w), string(b)), w)
	}
}

// actionFallbackSARIF is the SARIF the action's lint step writes itself
// when there is no program to run (its build failed): sarifCases validates
// it with proxylint's own reports. root is the repository's. nil without
// bash.
func actionFallbackSARIF(t *testing.T, root string) []byte {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil
	}
	a, _ := readAction(t, root)
	var script string
	for _, s := range a.Runs.Steps {
		if s["id"] == "lint" {
			script, _ = s["run"].(string)
		}
	}
	require.NotEmpty(t, script)
	ws := t.TempDir()
	cmd := boundedCommand(t, time.Minute, bash, "-e", "-c", script)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "RUNNER_TEMP="+t.TempDir(), "GITHUB_OUTPUT="+filepath.Join(ws, "output"),
		"PROXYLINT_PATHS=.", "PROXYLINT_SARIF=proxylint.sarif", "PROXYLINT_FORMAT=text", "PROXYLINT_FAIL_ON=warning")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee) && ee.ExitCode() == exitError, "the step fails without a program: %v\n%s", err, out)
	b, err := os.ReadFile(filepath.Join(ws, "proxylint.sarif"))
	require.NoError(t, err)
	return b
}
