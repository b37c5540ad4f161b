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
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{WorkingDir: root})
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
		cmd.Env = append(os.Environ(), "RUNNER_TEMP="+runnerTemp, "GITHUB_OUTPUT="+outputs)
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
}
