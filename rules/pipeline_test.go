package rules

import (
	"testing"

	"github.com/proxylint/proxylint/model"
)

// TestPipelineKeepsFatal: a file that could not be read stays reported
// whatever the scope, a suppression comment, a severity override or a
// baseline say; an ordinary finding at the same place is left out by each.
func TestPipelineKeepsFatal(t *testing.T) {
	pos := model.Pos{File: "inc.conf", Line: 1, Col: 1}
	m := &model.Model{Files: []*model.File{{
		Path:     "inc.conf",
		Source:   []byte("# proxylint:ignore-file load-error,log-format-blind -- noise\n"),
		Comments: []model.Comment{{Pos: pos, Text: " proxylint:ignore-file load-error,log-format-blind -- noise"}},
	}}}
	fs := []Finding{
		{Rule: "load-error", Severity: model.Error, Pos: pos, Message: "cannot read inc.conf", Fatal: true, Unread: true},
		{Rule: "log-format-blind", Severity: model.Note, Pos: pos, Message: "ordinary"},
	}
	opts := &Options{Severity: map[string]model.Severity{"load-error": model.Note}}
	steps := Steps{
		InScope:     func(string) bool { return false },
		Fingerprint: func(fs []Finding) []string { return []string{"a", "b"}[:len(fs)] },
		// "a" is the fatal finding, first in report order.
		Known: func(fp string) bool { return fp == "a" },
	}
	got, known := ProcessCounted(m, opts, fs, steps)
	// Out of scope, the ordinary finding is gone, so the comment now
	// suppresses nothing for it.
	if len(got) != 2 || got[0].Rule != "load-error" || got[0].Severity != model.Error || got[0].Suppression != nil ||
		got[1].Rule != "unused-suppression" {
		t.Fatalf("got %+v", got)
	}
	if known != 0 {
		t.Errorf("the baseline hid %d findings; the one it knows is fatal", known)
	}

	// In scope, the ordinary finding is suppressed by the comment and the
	// fatal one is not.
	fs = []Finding{
		{Rule: "load-error", Severity: model.Error, Pos: pos, Message: "cannot read inc.conf", Fatal: true, Unread: true},
		{Rule: "log-format-blind", Severity: model.Note, Pos: pos, Message: "ordinary"},
	}
	got = Process(m, opts, fs, Steps{})
	if len(got) != 2 || got[0].Suppression != nil || got[1].Suppression == nil {
		t.Fatalf("got %+v", got)
	}
}
