package rules

import (
	"testing"

	"github.com/proxylint/proxylint/model"
)

// TestAnalysesRunOncePerRun: an analysis two rules require is computed
// once, before them, and each reads its result; one a rule does not
// require is a programming error.
func TestAnalysesRunOncePerRun(t *testing.T) {
	runs := 0
	count := &Analysis{Name: "count", Run: func(a *AnalysisPass) any { runs++; return len(a.Model.Proxies) }}
	other := &Analysis{Name: "other", Run: func(*AnalysisPass) any { return nil }}
	got := map[string]any{}
	rule := func(id string) *Rule {
		return &Rule{ID: id, Requires: []*Analysis{count}, Check: func(p *Pass) { got[p.Rule.ID] = p.ResultOf(count) }}
	}
	a, b := rule("a"), rule("b")
	m := &model.Model{Proxies: []*model.Proxy{{}, {}}}
	results := runAnalyses(m, &Options{}, []*Rule{a, b, {ID: "c"}})
	for _, r := range []*Rule{a, b} {
		r.Check(&Pass{Rule: r, Model: m, results: results})
	}
	if runs != 1 || got["a"] != 2 || got["b"] != 2 {
		t.Fatalf("runs %d, results %v", runs, got)
	}
	defer func() {
		if recover() == nil {
			t.Error("a rule read an analysis it does not require")
		}
	}()
	(&Pass{Rule: a, Model: m, results: results}).ResultOf(other)
}
