package rules

import (
	"slices"
	"strings"
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

// TestPathAnalysisIsTheEngines: the request paths are computed by the
// engine on every run, whatever the rules enabled, from the hops the
// options declare; their diagnostics become findings that say what was not
// analysed, and the model keeps only the loaders' diagnostics.
func TestPathAnalysisIsTheEngines(t *testing.T) {
	// Two proxies whose routes pass requests to each other's listener:
	// two paths from each entry, more than a bound of one.
	mk := func(file string, port, next int) *model.Proxy {
		p := &model.Proxy{Product: model.Nginx, Entry: file, Named: true}
		l := &model.Listener{Proxy: p, Addresses: []model.Address{{Host: "127.0.0.1", Port: port}},
			Select: func(l *model.Listener, _ string, _ bool) *model.Route { return l.Routes[0] }}
		u := &model.Upstream{Proxy: p, Name: "next", Servers: []model.Server{
			{Address: model.Address{Host: "127.0.0.1", Port: next}, Literal: true},
			{Address: model.Address{Host: "127.0.0.1", Port: next + 1}, Literal: true},
		}}
		r := &model.Route{Listener: l, Name: "location /", Pos: model.Pos{File: file, Line: 3, Col: 1},
			Forward: &model.Forward{Module: "proxy", URL: "http://next", Upstream: u}}
		l.Routes = []*model.Route{r}
		p.Listeners, p.Upstreams = []*model.Listener{l}, []*model.Upstream{u}
		return p
	}
	entry := mk("edge.conf", 80, 8000)
	inner1, inner2 := mk("a.conf", 8000, 9000), mk("b.conf", 8001, 9000)
	m := &model.Model{Proxies: []*model.Proxy{entry, inner1, inner2}}
	backend := &model.Hop{Kind: model.HopBackend, Name: "uvicorn"}
	opts := &Options{Hops: []*model.Hop{backend}, MaxPaths: 1, Disable: map[string]bool{}}
	for _, r := range All() {
		opts.Disable[r.ID] = true
	}
	got := CheckModel(m, opts)
	if got.Paths == nil || got.Paths.Chain.Backend() != backend || len(got.Paths.Chain.Links) == 0 {
		t.Fatalf("paths %+v", got.Paths)
	}
	if len(m.Diagnostics) != 0 {
		t.Errorf("the model gained diagnostics: %v", m.Diagnostics)
	}
	if len(got.Findings) != 1 || !got.Findings[0].Fatal || got.Findings[0].Pos.File != "edge.conf" ||
		!strings.Contains(got.Findings[0].Message, "more than 1 request paths lead from location /") {
		t.Fatalf("findings %+v", got.Findings)
	}
	if ds := got.Diagnostics(m); len(ds) != 1 || !ds[0].Fatal {
		t.Errorf("diagnostics %v", ds)
	}
}

// TestSharedAnalysesRequired: every rule that reads the request paths,
// the peer counts or the attempt arithmetic names the analysis, so the
// engine computes it once before the rules (a rule that did not would
// panic on its first read).
func TestSharedAnalysesRequired(t *testing.T) {
	need := map[string][]*Analysis{
		"retry-tries-unbounded": {Peers, Attempts},
		"retry-timeout-write":   {WriteRoutes, Peers},
		"retry-amplification":   {RequestPaths, Attempts},
		"upstream-no-keepalive": {RequestPaths},
	}
	for id, as := range need {
		r, ok := Lookup(id)
		if !ok {
			t.Fatalf("no rule %s", id)
		}
		for _, a := range as {
			if !slices.Contains(r.Requires, a) {
				t.Errorf("%s does not require %s", id, a.Name)
			}
		}
	}
}
