package rules

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// What the fixes of several rules share: a fixer collects the edits of
// one fix from the editors of the files it changes (model/edit.go), and
// answers the questions the fixes ask of the syntax. Each rule's own fix
// is in the rule's file.

// fixer builds the edits of one fix on the files of a model. Each method
// checks what it edits and, when it is not what the fix expects, marks
// the fix failed: a fix is made whole or not at all.
type fixer struct {
	m       *model.Model
	sources *sourceIndex
	edits   []Edit
	failed  bool
}

func newFixer(pass *Pass) *fixer {
	sources := pass.sources
	if sources == nil {
		sources = newSourceIndex(pass.Model.Files)
	}
	return &fixer{m: pass.Model, sources: sources}
}

// result returns the edits, or nil when any step failed.
func (x *fixer) result() []Edit {
	if x.failed || len(x.edits) == 0 {
		return nil
	}
	return x.edits
}

func (x *fixer) fail() { x.failed = true }

// file returns the source file of p, which a fix may edit: never a
// generated one (writtenElsewhere says where its change belongs).
func (x *fixer) file(p model.Pos) *model.File {
	if x.failed || !p.IsValid() || x.m == nil {
		x.fail()
		return nil
	}
	if f := x.sources.file(p.File); f != nil && f.Generated == "" {
		return f
	}
	x.fail()
	return nil
}

// statement is a simple nginx directive as the file has it, with the
// editor of its file.
type statement struct {
	ed model.ConfEditor
	model.Stmt
}

// conf returns the nginx editor of the file holding p.
func (x *fixer) conf(p model.Pos) model.ConfEditor {
	f := x.file(p)
	if f == nil {
		return nil
	}
	ed, ok := f.Conf()
	if !ok {
		x.fail()
		return nil
	}
	return ed
}

// tree returns the YAML or JSON editor of the file holding p.
func (x *fixer) tree(p model.Pos) model.TreeEditor {
	f := x.file(p)
	if f == nil {
		return nil
	}
	ed, ok := f.Tree()
	if !ok {
		x.fail()
		return nil
	}
	return ed
}

// nginxStatement returns the simple directive named name at p (where its
// name or one of its arguments starts).
func (x *fixer) nginxStatement(p model.Pos, name string) *statement {
	ed := x.conf(p)
	if ed == nil {
		return nil
	}
	st, ok := ed.Stmt(p)
	if !ok || st.Name != name || st.Block {
		x.fail()
		return nil
	}
	return &statement{ed: ed, Stmt: st}
}

// take adds the edits an editor made, or fails the fix.
func (x *fixer) take(edits []Edit, err error) {
	if err != nil {
		x.fail()
		return
	}
	x.edits = append(x.edits, edits...)
}

// directive is an nginx directive to write, its arguments as written.
func directive(name string, args ...string) model.Directive {
	return model.Directive{Name: name, Args: args}
}

// insertAfter writes directives after statement s, in its block.
func (x *fixer) insertAfter(s *statement, ds ...model.Directive) {
	if s == nil || x.failed {
		x.fail()
		return
	}
	x.take(s.ed.Insert(s.Pos, model.After, ds...))
}

// insertBefore writes directives before the directive at p.
func (x *fixer) insertBefore(ed model.ConfEditor, p model.Pos, ds ...model.Directive) {
	if ed == nil || x.failed {
		x.fail()
		return
	}
	x.take(ed.Insert(p, model.Before, ds...))
}

// setArg replaces argument i (0-based, after the name) of s with raw, as
// written; i == len(s.Args) adds one at the end.
func (x *fixer) setArg(s *statement, i int, raw string) {
	if s == nil || x.failed {
		x.fail()
		return
	}
	x.take(s.ed.SetArg(s.Pos, i, raw))
}

// httpLevel returns the editor and the position of the directive before
// which a directive of the http block can be inserted: the first server
// block of the proxy, so that every fix that adds to the http block adds
// at one place. It fails when the proxy has no server block whose
// surroundings are known.
func (x *fixer) httpLevel(p *model.Proxy, r *model.Route) (model.ConfEditor, model.Pos) {
	if x.failed || p == nil || len(p.Listeners) == 0 || (p.Context != "main" && p.Context != "http") {
		x.fail()
		return nil, model.Pos{}
	}
	pos := p.Listeners[0].Pos
	ed := x.conf(pos)
	if ed == nil {
		return nil, model.Pos{}
	}
	st, ok := ed.Stmt(pos)
	if !ok || st.Name != "server" || !st.Block || st.Pos != pos {
		x.fail()
		return nil, model.Pos{}
	}
	// The server block must be in the http block of this file, or at the
	// top of the entry file of an http-level fragment.
	parent, in := ed.Parent(pos)
	inHTTP := in && parent.Name == "http"
	if inHTTP {
		_, nested := ed.Parent(parent.Pos)
		inHTTP = !nested
	}
	httpFragment := !in && p.Context == "http" && pos.File == p.Entry
	if !inHTTP && !httpFragment {
		x.fail()
		return nil, model.Pos{}
	}
	// The route's own server must be in that http block.
	rp := r.Listener.Pos
	if rp.File != pos.File {
		x.fail()
		return nil, model.Pos{}
	}
	rParent, rIn := ed.Parent(rp)
	if _, ok := ed.Stmt(rp); !ok || rIn != in || in && rParent.Pos != parent.Pos {
		x.fail()
		return nil, model.Pos{}
	}
	return ed, pos
}

// sameBlock reports whether the directives at a and b are in one block.
func sameBlock(ed model.ConfEditor, a, b model.Pos) bool {
	pa, ina := ed.Parent(a)
	pb, inb := ed.Parent(b)
	return ina == inb && (!ina || pa.Pos == pb.Pos)
}

// setAnywhere reports whether any nginx file of the run has a directive
// named name: a directive a fix adds to a block replaces every one of its
// name that the block inherits, and what includes the block may be in
// another file.
func (x *fixer) setAnywhere(name string) bool {
	return x.sources.anyConf(name, func(ed model.ConfEditor) (bool, error) {
		ds, err := ed.Find(name)
		return len(ds) > 0, err
	})
}

// variableUsed reports whether any nginx file of the run uses the
// variable $name.
func (x *fixer) variableUsed(name string) bool {
	return x.sources.anyConf("$"+name, func(ed model.ConfEditor) (bool, error) {
		return ed.UsesVariable(name)
	})
}

// ---- generated files ----

// generatedBy says what wrote the file of p when its loader can tell that
// it is not where the configuration is written (model.File.Generated:
// an Envoy admin config dump); "" for a file written by hand.
func generatedBy(pass *Pass, p model.Pos) string {
	sources := pass.sources
	if sources == nil {
		sources = newSourceIndex(pass.Model.Files)
	}
	if f := sources.file(p.File); f != nil {
		return f.Generated
	}
	return ""
}

// istioRoute reports whether an Envoy route forwards to a cluster that
// istiod named: "outbound|PORT|SUBSET|HOST" or "inbound|...", as its
// BuildSubsetKey writes them (pilot/pkg/model/service.go). Its routes are
// then written in Istio's resources, not in Envoy's.
func istioRoute(r *model.Route) bool {
	if r.Forward == nil {
		return false
	}
	u := r.Forward.URL
	return strings.Count(u, "|") == 3 && (strings.HasPrefix(u, "outbound|") || strings.HasPrefix(u, "inbound|"))
}

// writtenElsewhere is the fix of a finding in a generated file: advice
// that says what to change, and where the configuration is written. An
// edit of the generated file would change nothing that runs.
func writtenElsewhere(gen string, pos model.Pos, change, where string) Fix {
	if !strings.Contains(gen, "config dump") {
		// Written by a generator, not reported by Envoy.
		return generatedFix(gen, pos, change, where)
	}
	f := Advice(fmt.Sprintf("%s is %s, a report of what Envoy was given, so an edit there changes nothing that runs: %s where the configuration is written, %s",
		filepath.Base(pos.File), gen, change, where))
	f.placed = true
	return f
}
