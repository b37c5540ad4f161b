package rules

import (
	"errors"
	"strings"
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

// TestPipelineListsEachStepOnce: the steps run in the documented order,
// each once.
func TestPipelineListsEachStepOnce(t *testing.T) {
	var names []string
	for _, s := range Pipeline(&model.Model{}, nil, Steps{}) {
		names = append(names, s.Name())
	}
	want := "scope suppressions severity sort fingerprint baseline fixes"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("steps %q, want %q", got, want)
	}
}

func TestScopeStep(t *testing.T) {
	fs := []Finding{{Rule: "a", Pos: model.Pos{File: "in.conf"}}, {Rule: "b", Pos: model.Pos{File: "out.conf"}}, {Rule: "c", Pos: model.Pos{File: "out.conf"}, Unread: true}}
	got := ScopeStep{Keep: func(f string) bool { return f == "in.conf" }}.Run(fs)
	if len(got) != 2 || got[0].Rule != "a" || got[1].Rule != "c" {
		t.Fatalf("got %+v", got)
	}
	if got := (ScopeStep{}).Run([]Finding{{Rule: "a"}}); len(got) != 1 {
		t.Fatalf("no scope kept %+v", got)
	}
}

func TestSeverityStep(t *testing.T) {
	fs := []Finding{{Rule: "a", Severity: model.Warning}, {Rule: "b", Severity: model.Error, Unread: true}, {Rule: "b", Severity: model.Note, Unread: true}}
	got := SeverityStep{Severity: map[string]model.Severity{"a": model.Error, "b": model.Warning}}.Run(fs)
	if got[0].Severity != model.Error || got[1].Severity != model.Error || got[2].Severity != model.Warning {
		t.Fatalf("got %+v", got)
	}
}

func TestSortStep(t *testing.T) {
	p := func(line int32) model.Pos { return model.Pos{File: "f", Line: line, Col: 1} }
	got := SortStep{}.Run([]Finding{{Rule: "b", Pos: p(2)}, {Rule: "a", Pos: p(2)}, {Rule: "a", Pos: p(1)}, {Rule: "a", Pos: p(1)}})
	if len(got) != 3 || got[0].Pos != p(1) || got[1].Rule != "a" || got[2].Rule != "b" {
		t.Fatalf("got %+v", got)
	}
}

func TestFingerprintAndBaselineSteps(t *testing.T) {
	fs := []Finding{{Rule: "a"}, {Rule: "b"}, {Rule: "c", Suppression: &Suppression{}}, {Rule: "d", Unread: true}}
	fs = FingerprintStep{Of: func(fs []Finding) []string { return []string{"1", "2", "3", "4"} }}.Run(fs)
	b := &BaselineStep{Known: func(fp string) bool { return fp != "2" }}
	got := b.Run(fs)
	// "1" is known and hidden; "3" is suppressed and "4" unread: shown.
	if b.Hidden != 1 || len(got) != 3 || got[0].Rule != "b" || got[1].Rule != "c" || got[2].Rule != "d" {
		t.Fatalf("hidden %d, got %+v", b.Hidden, got)
	}
}

func TestFixStep(t *testing.T) {
	fs := []Finding{
		{Rule: "a", Fix: SafeFix("s", []Edit{{File: "f", Start: 0, End: 1, New: "x"}})},
		{Rule: "b", Fix: UnsafeFix("u", []Edit{{File: "f", Start: 2, End: 3, New: "y"}})},
	}
	none := &FixStep{}
	if got := none.Run(fs); len(got) != 2 || none.Set.Applied != 0 {
		t.Fatalf("no threshold selected %+v", none.Set)
	}
	safe, unsafe := Safe, Unsafe
	s := &FixStep{Min: &safe}
	s.Run(fs)
	u := &FixStep{Min: &unsafe}
	u.Run(fs)
	if s.Set.Applied != 1 || s.Set.Unsafe != 1 || u.Set.Applied != 2 {
		t.Fatalf("safe %+v, unsafe %+v", s.Set, u.Set)
	}
	o := RunPipeline(&model.Model{}, nil, fs, Steps{Fixes: &unsafe})
	if o.Fixes.Applied != 2 || len(o.Findings) != 2 {
		t.Fatalf("pipeline %+v", o)
	}
}

// TestBaselineStepRecords: a baseline recorded by the step sees every
// fingerprinted finding, and what it knows is applied at once; a failure
// to record stops the pipeline before the fixes, the findings unchanged.
func TestBaselineStepRecords(t *testing.T) {
	fs := []Finding{{Rule: "a"}, {Rule: "b"}}
	var recorded []string
	steps := Steps{
		Fingerprint: func(fs []Finding) []string { return []string{"1", "2"} },
		Known:       func(string) bool { return false },
		Record: func(fs []Finding) (func(string) bool, error) {
			for _, f := range fs {
				recorded = append(recorded, f.Fingerprint)
			}
			return func(fp string) bool { return fp == "1" }, nil
		},
	}
	o := RunPipeline(nil, nil, fs, steps)
	if o.Err != nil || strings.Join(recorded, ",") != "1,2" || o.Known != 1 || len(o.Findings) != 1 || o.Findings[0].Rule != "b" {
		t.Fatalf("recorded %v, outcome %+v", recorded, o)
	}
	failed := errors.New("disk full")
	safe := Safe
	fs = []Finding{{Rule: "a", Fix: SafeFix("s", []Edit{{File: "f", Start: 0, End: 1, New: "x"}})}}
	o = RunPipeline(nil, nil, fs, Steps{Fixes: &safe, Record: func([]Finding) (func(string) bool, error) { return nil, failed }})
	if !errors.Is(o.Err, failed) || len(o.Findings) != 1 || o.Fixes.Applied != 0 {
		t.Fatalf("outcome %+v", o)
	}
}

// TestPipelineWithoutModel: the run-wide half (no model, no options)
// leaves what each configuration's half decided as it is: no suppression
// is read again, no severity changed, the order kept.
func TestPipelineWithoutModel(t *testing.T) {
	p := func(line int32) model.Pos { return model.Pos{File: "f", Line: line, Col: 1} }
	fs := []Finding{
		{Rule: "a", Severity: model.Note, Pos: p(1), Suppression: &Suppression{Reason: "r"}},
		{Rule: "unused-suppression", Severity: model.Warning, Pos: p(2)},
	}
	o := RunPipeline(nil, nil, append([]Finding{}, fs...), Steps{})
	if len(o.Findings) != 2 || o.Findings[0].Suppression == nil || o.Findings[0].Severity != model.Note || o.Findings[1].Rule != "unused-suppression" {
		t.Fatalf("got %+v", o.Findings)
	}
}
