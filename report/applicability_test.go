package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// applicabilityInput has one finding of each kind of fix: safe, unsafe,
// display-only.
func applicabilityInput() *Input {
	const file = "/work/nginx.conf"
	src := "events {}\nhttp {\n    proxy_next_upstream error non_idempotent;\n}\n"
	at := strings.Index(src, " non_idempotent")
	finding := func(line int, fix rules.Fix) rules.Finding {
		return rules.Finding{Rule: "retry-timeout-write", Severity: model.Error, Pos: model.Pos{File: file, Line: int32(line), Col: 5}, Message: "m", Fix: fix}
	}
	return &Input{
		Findings: []rules.Finding{
			finding(1, rules.SafeFix("add events", []rules.Edit{{File: file, Start: 0, End: 0, New: "# x\n"}})),
			finding(3, rules.UnsafeFix("remove non_idempotent", []rules.Edit{{File: file, Start: at, End: at + len(" non_idempotent")}})),
			finding(2, rules.Advice("decide")),
		},
		Files: []*model.File{{Path: file, Source: []byte(src)}},
		Rules: rules.All(),
		Dir:   "/work",
	}
}

// TestReportsSayWhichFixesApply: text and GitHub label an unsafe fix,
// JSON names each fix's applicability, SARIF carries the applicability of
// the fixes it offers (advice has none to offer).
func TestReportsSayWhichFixesApply(t *testing.T) {
	var text bytes.Buffer
	require.NoError(t, Text(&text, applicabilityInput(), false))
	assert.Contains(t, text.String(), "    fix: add events\n")
	assert.Contains(t, text.String(), "    unsafe fix (--unsafe-fixes): remove non_idempotent\n")
	assert.Contains(t, text.String(), "    fix: decide\n")

	var gh bytes.Buffer
	require.NoError(t, GitHub(&gh, applicabilityInput()))
	assert.Contains(t, gh.String(), "%0Aunsafe fix (--unsafe-fixes): remove non_idempotent")

	var js bytes.Buffer
	require.NoError(t, JSON(&js, applicabilityInput()))
	var raw struct {
		Findings []map[string]any `json:"findings"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &raw))
	got := map[string]any{}
	for _, f := range raw.Findings {
		got[f["fix"].(string)] = f["fix_applicability"]
	}
	assert.Equal(t, map[string]any{"add events": "safe", "remove non_idempotent": "unsafe", "decide": "display-only"}, got)

	var sarif bytes.Buffer
	require.NoError(t, SARIF(&sarif, applicabilityInput()))
	var sd struct {
		Runs []struct {
			Results []struct {
				Fixes []struct {
					Description struct{ Text string }
					Properties  struct{ Applicability string }
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(sarif.Bytes(), &sd))
	var fixes []string
	for _, r := range sd.Runs[0].Results {
		for _, f := range r.Fixes {
			fixes = append(fixes, f.Properties.Applicability+": "+f.Description.Text)
		}
	}
	assert.ElementsMatch(t, []string{
		"safe: Add events.",
		"unsafe: Unsafe fix (proxylint --fix applies it only with --unsafe-fixes): Remove non_idempotent.",
	}, fixes)
}
