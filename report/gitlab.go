package report

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// The GitLab Code Quality report (artifacts:reports:codequality): a JSON
// array of Code Climate issues, of which GitLab reads description,
// check_name, fingerprint, severity and location (path and lines.begin).
// GitLab keeps one issue per fingerprint, so every issue has its own: the
// finding's (report.Fingerprints), which survives unrelated edits, as the
// merge request widget needs to tell new findings from old ones.
type gitlabIssue struct {
	Type        string         `json:"type"`
	CheckName   string         `json:"check_name"`
	Description string         `json:"description"`
	Categories  []string       `json:"categories"`
	Severity    string         `json:"severity"`
	Fingerprint string         `json:"fingerprint"`
	Location    gitlabLocation `json:"location"`
}

type gitlabLocation struct {
	Path  string      `json:"path"`
	Lines gitlabLines `json:"lines"`
}

type gitlabLines struct {
	Begin int `json:"begin"`
	End   int `json:"end,omitempty"`
}

// GitLab writes the unsuppressed findings as a GitLab Code Quality report:
// files relative to the repository root, as GitLab links them to the
// merge request's diff; a finding about a whole file is on line 1.
// Severities are critical (error), major (warning) and info (note).
func GitLab(w io.Writer, in *Input) error {
	fps := in.fingerprints()
	issues := []gitlabIssue{}
	for i, f := range in.Findings {
		if f.Suppression != nil {
			continue
		}
		msg := f.Message
		if f.Fix.Message != "" {
			label := fixLabel(f.Fix)
			msg += " " + strings.ToUpper(label[:1]) + label[1:] + ": " + f.Fix.Message
		}
		loc := gitlabLocation{Path: jsonName(in.rootPath(f.Pos.File)), Lines: gitlabLines{Begin: max(int(f.Pos.Line), 1)}}
		if f.End.IsValid() && f.End.File == f.Pos.File && int(f.End.Line) > loc.Lines.Begin {
			loc.Lines.End = int(f.End.Line)
		}
		issues = append(issues, gitlabIssue{
			Type: "issue", CheckName: f.Rule, Description: msg, Categories: []string{"Bug Risk"},
			Severity: gitlabSeverity(f.Severity), Fingerprint: fps[i], Location: loc,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(issues)
}

func gitlabSeverity(s model.Severity) string {
	switch s {
	case model.Error:
		return "critical"
	case model.Warning:
		return "major"
	}
	return "info"
}
