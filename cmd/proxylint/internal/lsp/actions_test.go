package lsp

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// codeActions asks for the actions on line n (0-based) of a document.
func (s *session) codeActions(name string, n uint32) []*protocol.CodeAction {
	s.t.Helper()
	res, err := s.server.CodeAction(s.ctx(), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: s.uri(name)},
		Range:        protocol.Range{Start: protocol.Position{Line: n}, End: protocol.Position{Line: n, Character: 1}},
	})
	require.NoError(s.t, err)
	var out []*protocol.CodeAction
	for _, a := range res {
		ca, ok := a.(*protocol.CodeAction)
		require.True(s.t, ok, "a code action, not a bare command: %#v", a)
		out = append(out, ca)
	}
	return out
}

// applyChanges applies a workspace edit's changes to texts by URI, as a
// client does: each file's edits against its text before any of them.
func applyChanges(t *testing.T, texts map[uri.URI]string, changes map[uri.URI][]protocol.TextEdit) map[uri.URI]string {
	t.Helper()
	out := map[uri.URI]string{}
	for u, edits := range changes {
		src, ok := texts[u]
		require.True(t, ok, "an edit of %s, which the test does not know", u)
		tx := newText([]byte(src))
		type span struct {
			start, end int
			text       string
		}
		var spans []span
		for _, e := range edits {
			spans = append(spans, span{tx.offset(e.Range.Start, utf16), tx.offset(e.Range.End, utf16), e.NewText})
		}
		sort.SliceStable(spans, func(i, j int) bool { return spans[i].start > spans[j].start })
		for _, sp := range spans {
			src = src[:sp.start] + sp.text + src[sp.end:]
		}
		out[u] = src
	}
	return out
}

// The fix of a finding in nginx.conf edits nginx.conf and the fragment
// that proxies to the upstream; the suppression goes on the line above,
// indented as it is.
func TestCodeActionsFixAndSuppress(t *testing.T) {
	root := nginxWorkspace(t)
	s := start(t, root, protocol.ClientCapabilities{})
	s.open("nginx.conf", "nginx")
	s.diagnostics("nginx.conf", 1)

	actions := s.codeActions("nginx.conf", 3)
	var titles []string
	for _, a := range actions {
		titles = append(titles, string(*a.Kind)+": "+a.Title)
	}
	assert.Equal(t, []string{
		`quickfix: Add "keepalive 16;" to upstream "app", with proxy_http_version 1.1 and proxy_set_header Connection "" where it is proxied to`,
		"quickfix: Suppress upstream-no-keepalive on line 4, with a reason",
		"source.fixAll.proxylint: Apply the proxylint fixes of this file (1)",
	}, titles)
	fix := actions[0]
	require.Len(t, fix.Diagnostics, 1)
	code, _ := fix.Diagnostics[0].Code.(protocol.String)
	assert.Equal(t, protocol.String("upstream-no-keepalive"), code)
	assert.True(t, *fix.IsPreferred)
	texts := map[uri.URI]string{s.uri("nginx.conf"): mainConf, s.uri("conf.d/app.conf"): appConf}
	fixed := applyChanges(t, texts, fix.Edit.Changes)
	assert.Equal(t, strings.Replace(mainConf, "        server 127.0.0.1:8080;\n", "        server 127.0.0.1:8080;\n        keepalive 16;\n", 1), fixed[s.uri("nginx.conf")])
	assert.Equal(t, strings.Replace(appConf, "        proxy_pass http://app;\n", "        proxy_pass http://app;\n        proxy_http_version 1.1;\n        proxy_set_header Connection \"\";\n", 1), fixed[s.uri("conf.d/app.conf")])

	suppressed := applyChanges(t, map[uri.URI]string{s.uri("nginx.conf"): mainConf}, actions[1].Edit.Changes)[s.uri("nginx.conf")]
	assert.Equal(t, strings.Replace(mainConf, "    upstream app {\n", "    # proxylint:ignore upstream-no-keepalive -- reason\n    upstream app {\n", 1), suppressed)
	assert.Equal(t, "", actions[1].Command.Command, "no command for a client that cannot show a selection")

	// The suppression, typed into the buffer, suppresses the finding.
	s.change("nginx.conf", 2, strings.Replace(suppressed, "-- reason", "-- the backend closes idle connections itself", 1))
	assert.Equal(t, []string{"log-format-blind 1:0"}, summary(s.diagnostics("nginx.conf", 2)))
}

// A client that takes versioned edits gets them: the open document's
// with its version, the other file's with none. One that can show a
// document is asked to select the reason of a suppression.
func TestCodeActionsVersionedAndSelectingTheReason(t *testing.T) {
	root := nginxWorkspace(t)
	yes := true
	s := start(t, root, protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{DocumentChanges: &yes}},
		Window:    &protocol.WindowClientCapabilities{ShowDocument: &protocol.ShowDocumentClientCapabilities{Support: true}},
	})
	s.open("nginx.conf", "nginx")
	s.change("nginx.conf", 7, mainConf)
	s.diagnostics("nginx.conf", 7)
	actions := s.codeActions("nginx.conf", 3)
	require.Len(t, actions, 3)
	var versions []string
	for _, dc := range actions[0].Edit.DocumentChanges {
		de, ok := dc.(*protocol.TextDocumentEdit)
		require.True(t, ok)
		v := "null"
		if de.TextDocument.Version != nil {
			v = strconv.Itoa(int(*de.TextDocument.Version))
		}
		versions = append(versions, uriBase(de.TextDocument.URI)+"@"+v)
	}
	assert.Equal(t, []string{"nginx.conf@7", "conf.d/app.conf@null"}, versions)

	cmd := actions[1].Command
	require.Equal(t, cmdSelectReason, cmd.Command)
	_, err := s.server.ExecuteCommand(s.ctx(), &protocol.ExecuteCommandParams{Command: cmd.Command, Arguments: cmd.Arguments})
	require.NoError(t, err)
	shown := <-s.client.shown
	assert.Equal(t, s.uri("nginx.conf"), shown.URI)
	assert.Equal(t, protocol.Range{Start: protocol.Position{Line: 3, Character: 48}, End: protocol.Position{Line: 3, Character: 54}}, *shown.Selection,
		`"reason" in "    # proxylint:ignore upstream-no-keepalive -- reason"`)
}

// The command that applies every fix of a document sends the client the
// edit, and the lint after it is clean of what was fixed.
func TestExecuteCommandAppliesTheFixes(t *testing.T) {
	root := nginxWorkspace(t)
	s := start(t, root, protocol.ClientCapabilities{})
	s.open("nginx.conf", "nginx")
	s.diagnostics("nginx.conf", 1)
	arg, _ := json.Marshal(string(s.uri("nginx.conf")))
	res, err := s.server.ExecuteCommand(s.ctx(), &protocol.ExecuteCommandParams{Command: cmdApplyFixes, Arguments: []protocol.LSPAny{arg}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"applied": true, "fixed": 1}`, string(res))
	edit := <-s.client.edits
	label := ""
	if edit.Label != nil {
		label = *edit.Label
	}
	assert.Equal(t, "proxylint: apply the fixes", label)
	fixed := applyChanges(t, map[uri.URI]string{s.uri("nginx.conf"): mainConf, s.uri("conf.d/app.conf"): appConf}, edit.Edit.Changes)
	assert.Contains(t, fixed[s.uri("nginx.conf")], "keepalive 16;")

	s.change("nginx.conf", 2, fixed[s.uri("nginx.conf")])
	s.open("conf.d/app.conf", "nginx", fixed[s.uri("conf.d/app.conf")])
	assert.Equal(t, []string{"log-format-blind 1:0"}, summary(s.diagnostics("nginx.conf", 2)))

	_, err = s.server.ExecuteCommand(s.ctx(), &protocol.ExecuteCommandParams{Command: "proxylint.nothing"})
	assert.ErrorContains(t, err, `unknown command "proxylint.nothing"`)
	_, err = s.server.ExecuteCommand(s.ctx(), &protocol.ExecuteCommandParams{Command: cmdApplyFixes})
	assert.ErrorContains(t, err, "takes one argument")
}

// An unsafe fix is offered as "(unsafe)" and not preferred, and "apply
// every fix" leaves it out, as --fix does without --unsafe-fixes; a safe
// fix is preferred and applied by "apply every fix".
func TestCodeActionsUnsafeFix(t *testing.T) {
	conf := `events {}
http {
    upstream api { server 10.0.0.1:8080; keepalive 16; }
    upstream rpc { server 10.0.0.2:50051; keepalive 16; }
    server {
        listen 80;
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        location / {
            proxy_set_header X-Extra 1;
            proxy_pass http://api;
        }
        location /rpc/ {
            grpc_pass grpc://rpc;
            proxy_read_timeout 1d;
        }
    }
}
`
	root := workspace(t, map[string]string{"nginx.conf": conf})
	s := start(t, root, protocol.ClientCapabilities{})
	s.open("nginx.conf", "nginx")
	s.diagnostics("nginx.conf", 1)

	var unsafe *protocol.CodeAction
	for _, a := range s.codeActions("nginx.conf", 11) {
		if *a.Kind == protocol.CodeActionKindQuickFix && strings.HasSuffix(a.Title, "(unsafe)") {
			unsafe = a
		}
	}
	require.NotNil(t, unsafe, "the unsafe fix of set-header-drops-inherited on line 12")
	assert.False(t, *unsafe.IsPreferred)
	code, _ := unsafe.Diagnostics[0].Code.(protocol.String)
	assert.Equal(t, protocol.String("set-header-drops-inherited"), code)

	var safe, all *protocol.CodeAction
	for _, a := range s.codeActions("nginx.conf", 16) {
		switch {
		case *a.Kind == protocol.CodeActionKindQuickFix && a.Edit != nil && !strings.HasPrefix(a.Title, "Suppress"):
			safe = a
		case *a.Kind == kindFixAll:
			all = a
		}
	}
	require.NotNil(t, safe, "the safe fix of directive-no-effect on line 17")
	assert.True(t, *safe.IsPreferred)
	require.NotNil(t, all)
	fixed := applyChanges(t, map[uri.URI]string{s.uri("nginx.conf"): conf}, all.Edit.Changes)[s.uri("nginx.conf")]
	assert.Contains(t, fixed, "            grpc_read_timeout 1d;\n")
	assert.NotContains(t, fixed, "X-Extra 1;\n            proxy_set_header Host", "the unsafe fix is left out")
}
