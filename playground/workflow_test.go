package playground

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// The workflow that publishes the playground passes actionlint, pins
// every action by commit with the release named beside it, builds the
// page with the command the tests run, and deploys only from main.
func TestPagesWorkflow(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	path := filepath.Join(root, ".github", "workflows", "playground.yml")
	src, err := os.ReadFile(path)
	require.NoError(t, err)

	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{WorkingDir: root})
	require.NoError(t, err)
	proj, err := actionlint.NewProject(root)
	require.NoError(t, err)
	errs, err := l.Lint(path, src, proj)
	require.NoError(t, err)
	for _, e := range errs {
		t.Errorf("actionlint: %s", e.Error())
	}

	pinned := regexp.MustCompile(`^\s*(- )?uses: ([\w.-]+/[\w.-]+)@([0-9a-f]{40}) # v\d+\.\d+\.\d+$`)
	uses := 0
	for _, line := range strings.Split(string(src), "\n") {
		if !strings.Contains(line, "uses:") {
			continue
		}
		uses++
		assert.Regexp(t, pinned, line, "an action pinned by commit, its release in a comment")
	}
	assert.Equal(t, 4, uses, "checkout, setup-go, upload-pages-artifact, deploy-pages")

	var wf struct {
		Jobs map[string]struct {
			If    string `yaml:"if"`
			Needs any    `yaml:"needs"`
			Steps []struct {
				Run  string `yaml:"run"`
				Uses string `yaml:"uses"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(src, &wf))
	var runs []string
	for _, s := range wf.Jobs["build"].Steps {
		if s.Run != "" {
			runs = append(runs, s.Run)
		}
	}
	assert.Equal(t, []string{"go test ./playground", "go run ./playground/build -o _site"}, runs)
	assert.Equal(t, "github.event_name != 'pull_request' && github.ref == 'refs/heads/main'", wf.Jobs["deploy"].If)
	assert.Equal(t, "build", wf.Jobs["deploy"].Needs)
}
