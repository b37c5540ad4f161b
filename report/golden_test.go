package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/golden")

// goldenInput is testInput with a note below the threshold and a fix, read
// in a repository at /work: one input for the golden report of every
// format. It lists no rules, so that SARIF's golden holds no rule's
// documentation, which changes with the rule.
func goldenInput() *Input {
	in := testInput()
	const file = "/work/nginx.conf"
	in.Findings = append(in.Findings, rules.Finding{
		Rule: "log-format-blind", Severity: model.Note, Pos: model.Pos{File: file, Line: 2, Col: 1},
		Message: `The default access log has no $request_time & "$upstream_status" <combined>`,
		Fix:     rules.Advice("log with a format that has $request_time"),
	})
	in.Findings[2].Fix = rules.Advice("declare upstream backend for 127.0.0.1:8001")
	in.Findings = rules.Sort(in.Findings)
	in.Rules = nil
	in.Root = "/work"
	in.FailOn = model.Warning
	in.Targets = []string{"nginx 1.18 or newer"}
	in.Read = ReadStats{Files: 1}
	return in
}

// TestGoldenReports writes goldenInput in every format of LintFormats and
// compares each with testdata/golden/report.FORMAT, byte for byte
// (go test ./report -run TestGoldenReports -update rewrites them).
func TestGoldenReports(t *testing.T) {
	for _, f := range LintFormats {
		t.Run(f.Name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, f.Write(&buf, goldenInput(), false))
			path := filepath.Join("testdata", "golden", "report."+f.Name)
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "go test ./report -run TestGoldenReports -update writes it")
			assert.Equal(t, string(want), buf.String())
		})
	}
}
