package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/proxylint/proxylint/internal/lazyre"
	"github.com/proxylint/proxylint/rules"
)

// kindFixAll is the kind of the action that applies every fix of a
// document.
const kindFixAll = protocol.CodeActionKindSourceFixAll + ".proxylint"

// reasonPlaceholder stands for the reason in a suppression the server
// inserts; the client is asked to select it for the user to type over.
const reasonPlaceholder = "reason"

func (s *server) CodeAction(_ context.Context, p *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	a, d, snap := s.current(filePath(p.TextDocument.URI))
	if a == nil || a.byDoc[d.path] == nil {
		return nil, nil
	}
	r := a.byDoc[d.path]
	t := newText(d.text)
	first, last := int32(p.Range.Start.Line)+1, int32(p.Range.End.Line)+1
	quickfix := protocol.CodeActionKindQuickFix
	var out []protocol.CommandOrCodeAction
	var fixable []rules.Finding
	for _, f := range r.findingsIn(d) {
		if f.Suppression != nil {
			continue
		}
		if f.Fix.Applies(rules.Unsafe) {
			fixable = append(fixable, f)
		}
		if f.Pos.Line < first || f.Pos.Line > last || !wants(p.Context.Only, quickfix) {
			continue
		}
		diag := r.diagnostic(f, t, snap.enc)
		if f.Fix.Applies(rules.Unsafe) {
			if edit := s.workspaceEdit(r, f.Fix.Edits, snap); edit != nil {
				preferred := f.Fix.Applicability == rules.Safe
				out = append(out, &protocol.CodeAction{
					Title: fixTitle(f), Kind: &quickfix, Diagnostics: []protocol.Diagnostic{diag},
					IsPreferred: &preferred, Edit: edit,
				})
			}
		}
		if act := s.suppressAction(f, d, t, diag, snap); act != nil {
			out = append(out, act)
		}
	}
	if len(fixable) > 0 && wants(p.Context.Only, kindFixAll) {
		// As --fix: the safe fixes only.
		set := rules.SelectFixes(fixable, rules.Safe)
		var edits []rules.Edit
		for _, es := range set.Edits {
			edits = append(edits, es...)
		}
		if edit := s.workspaceEdit(r, edits, snap); edit != nil {
			kind := kindFixAll
			out = append(out, &protocol.CodeAction{
				Title: fmt.Sprintf("Apply the proxylint fixes of this file (%d)", set.Applied), Kind: &kind, Edit: edit,
			})
		}
	}
	return out, nil
}

// wants reports whether an action of kind is among those asked for (all
// when only is empty): a kind asked for covers its sub-kinds.
func wants(only []protocol.CodeActionKind, kind protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if kind == o || strings.HasPrefix(string(kind), string(o)+".") {
			return true
		}
	}
	return false
}

// fixTitle is the title of a fix's action: the fix, which says what its
// edits do. Fixes that carry how safe they are get their label here, in
// one place: an unsafe one as "… (unsafe)", and only a safe one is
// preferred.
func fixTitle(f rules.Finding) string {
	title := f.Fix.Message
	if title == "" {
		title = "apply the fix of " + f.Rule
	}
	if f.Fix.Applicability == rules.Unsafe {
		title += " (unsafe)"
	}
	r, size := utf8.DecodeRuneInString(title)
	return string(unicode.ToUpper(r)) + title[size:]
}

// workspaceEdit turns the edits of fixes (byte offsets in the run's
// sources) into the client's edit: versioned document edits when the
// client takes them, so that it refuses an edit of a text that changed
// since. nil when a file edited is not among the run's.
func (s *server) workspaceEdit(r *run, edits []rules.Edit, snap snapshot) *protocol.WorkspaceEdit {
	type fileEdits struct {
		u       uri.URI
		version *int32
		edits   []protocol.TextEdit
	}
	var order []string
	byFile := map[string]*fileEdits{}
	for _, e := range edits {
		f := r.file(e.File)
		if f == nil {
			return nil
		}
		real := r.real(e.File)
		fe, ok := byFile[real]
		if !ok {
			fe = &fileEdits{u: uri.File(absPath(e.File))}
			for _, d := range snap.docs {
				if d.real == real {
					v := d.version
					fe.u, fe.version = d.uri, &v
				}
			}
			byFile[real] = fe
			order = append(order, real)
		}
		t := newText(f.Source)
		fe.edits = append(fe.edits, protocol.TextEdit{
			Range:   protocol.Range{Start: t.position(e.Start, snap.enc), End: t.position(e.End, snap.enc)},
			NewText: e.New,
		})
	}
	if len(order) == 0 {
		return nil
	}
	w := &protocol.WorkspaceEdit{}
	if snap.caps.documentChanges {
		for _, real := range order {
			fe := byFile[real]
			de := &protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
				TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: fe.u}, Version: fe.version,
			}}
			for i := range fe.edits {
				de.Edits = append(de.Edits, &fe.edits[i])
			}
			w.DocumentChanges = append(w.DocumentChanges, de)
		}
		return w
	}
	w.Changes = map[uri.URI][]protocol.TextEdit{}
	for _, real := range order {
		w.Changes[byFile[real].u] = byFile[real].edits
	}
	return w
}

// suppressAction inserts "# proxylint:ignore RULE -- reason" on a line of
// its own above the finding's line, indented as that line is: the form
// that covers the next line in nginx files, Envoy YAML and Kubernetes
// manifests (rules/suppress.go). nil where no comment can go: a finding
// that says something was not read (it cannot be suppressed), one about
// a suppression itself, a JSON file, a line inside a YAML block scalar
// (the comment would become part of its text).
func (s *server) suppressAction(f rules.Finding, d *document, t *text, diag protocol.Diagnostic, snap snapshot) *protocol.CodeAction {
	if f.Unread || f.Fatal || f.Pos.Line < 1 || f.Rule == rules.UnusedSuppression.ID || f.Rule == rules.InvalidSuppression.ID {
		return nil
	}
	if _, ok := rules.Lookup(f.Rule); !ok || !takesComments(d) || inBlockScalar(d, t, int(f.Pos.Line)-1) {
		return nil
	}
	n := int(f.Pos.Line) - 1
	indent := t.indent(n)
	lead := indent + "# proxylint:ignore " + f.Rule + " -- "
	at := protocol.Position{Line: uint32(n)}
	kind := protocol.CodeActionKindQuickFix
	act := &protocol.CodeAction{
		Title:       fmt.Sprintf("Suppress %s on line %d, with a reason", f.Rule, f.Pos.Line),
		Kind:        &kind,
		Diagnostics: []protocol.Diagnostic{diag},
		Edit: s.textEdit(d, protocol.TextEdit{
			Range:   protocol.Range{Start: at, End: at},
			NewText: lead + reasonPlaceholder + t.lineEnding(),
		}, snap),
	}
	if snap.caps.showDocument {
		// The inserted text is ASCII but for the indent, which counts
		// the same in every encoding (blanks).
		sel := protocol.Range{
			Start: protocol.Position{Line: uint32(n), Character: uint32(len(lead))},
			End:   protocol.Position{Line: uint32(n), Character: uint32(len(lead) + len(reasonPlaceholder))},
		}
		act.Command = protocol.Command{Title: "Select the reason", Command: cmdSelectReason, Arguments: []protocol.LSPAny{jsonValue(string(d.uri)), jsonValue(sel)}}
	}
	return act
}

// takesComments reports whether the document's language has "#" comments
// that the loaders read: nginx and YAML, not JSON.
func takesComments(d *document) bool {
	switch strings.ToLower(filepath.Ext(d.path)) {
	case ".json":
		return false
	case ".yaml", ".yml":
		return true
	}
	trimmed := strings.TrimLeft(string(d.text[:min(len(d.text), 256)]), " \t\r\n")
	return !strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "[")
}

// inBlockScalar reports whether line n (0-based) of a YAML document lies
// inside a block scalar: the nearest line above it that is indented less,
// the key or item holding it, ends in "|" or ">" ("key: |", "- >-").
func inBlockScalar(d *document, t *text, n int) bool {
	if ext := strings.ToLower(filepath.Ext(d.path)); ext != ".yaml" && ext != ".yml" {
		return false
	}
	width := len(t.indent(n))
	for i := n - 1; i >= 0; i-- {
		line := string(t.line(i))
		if strings.TrimSpace(line) == "" || len(t.indent(i)) >= width {
			continue
		}
		return blockIndicator().MatchString(line)
	}
	return false
}

var blockIndicator = lazyre.New(`(^|:|-)\s*[|>][0-9+-]*\s*(#.*)?$`)

// textEdit is one edit of an open document.
func (s *server) textEdit(d *document, e protocol.TextEdit, snap snapshot) *protocol.WorkspaceEdit {
	if snap.caps.documentChanges {
		v := d.version
		return &protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{&protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: d.uri}, Version: &v},
			Edits:        []protocol.TextDocumentEditElement{&e},
		}}}
	}
	return &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{d.uri: {e}}}
}

func (s *server) ExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	// The client answers what the command asks of it on this connection:
	// the handler lets the next messages be read meanwhile, and sends
	// under the connection's context, which outlives the request's.
	jsonrpc2.Async(ctx)
	switch p.Command {
	case cmdApplyFixes:
		var u string
		if len(p.Arguments) != 1 || json.Unmarshal(p.Arguments[0], &u) != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, cmdApplyFixes+" takes one argument, the document's URI")
		}
		a, d, snap := s.current(filePath(uri.URI(u)))
		if a == nil || a.byDoc[d.path] == nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, u+" is not an open document proxylint lints")
		}
		r := a.byDoc[d.path]
		set := rules.SelectFixes(r.findingsIn(d), rules.Safe)
		var edits []rules.Edit
		for _, es := range set.Edits {
			edits = append(edits, es...)
		}
		edit := s.workspaceEdit(r, edits, snap)
		if edit == nil {
			return jsonValue(map[string]any{"applied": false, "fixed": 0}), nil
		}
		label := "proxylint: apply the fixes"
		res, err := s.client.ApplyEdit(s.ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: *edit})
		if err != nil {
			return nil, err
		}
		return jsonValue(map[string]any{"applied": res.Applied, "fixed": set.Applied}), nil
	case cmdSelectReason:
		var u string
		var sel protocol.Range
		if len(p.Arguments) != 2 || json.Unmarshal(p.Arguments[0], &u) != nil || json.Unmarshal(p.Arguments[1], &sel) != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, cmdSelectReason+" takes the document's URI and a range")
		}
		focus := true
		_, err := s.client.ShowDocument(s.ctx, &protocol.ShowDocumentParams{URI: uri.URI(u), TakeFocus: &focus, Selection: &sel})
		return nil, err
	}
	return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("unknown command %q (the server's commands are %s and %s)", p.Command, cmdApplyFixes, cmdSelectReason))
}

func jsonValue(v any) protocol.LSPAny {
	b, err := json.Marshal(v)
	if err != nil {
		return protocol.LSPAny("null")
	}
	return protocol.LSPAny(b)
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
