package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

const mainConf = `events {}
http {
    proxy_read_timeout 30s;
    upstream app {
        server 127.0.0.1:8080;
    }
    include conf.d/*.conf;
}
`

const appConf = `server {
    listen 80;
    location / {
        proxy_pass http://app;
    }
    location /metrics {
        proxy_pass http://127.0.0.1:9100;
    }
}
`

// nginxWorkspace is an nginx.conf that includes a fragment, which
// proxies to an upstream the main file declares.
func nginxWorkspace(t *testing.T) string {
	return workspace(t, map[string]string{"nginx.conf": mainConf, "conf.d/app.conf": appConf})
}

// summary writes diagnostics as "RULE LINE:CHAR" (0-based, as the
// protocol counts), with their related locations.
func summary(diags []protocol.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		code, _ := d.Code.(protocol.String)
		s := fmt.Sprintf("%s %d:%d", code, d.Range.Start.Line, d.Range.Start.Character)
		for _, r := range d.RelatedInformation {
			s += fmt.Sprintf(" -> %s:%d", uriBase(r.Location.URI), r.Location.Range.Start.Line)
		}
		out = append(out, s)
	}
	return out
}

func uriBase(u uri.URI) string {
	p := u.FsPath()
	if i := strings.LastIndex(p, "/conf.d/"); i >= 0 {
		return p[i+1:]
	}
	return p[strings.LastIndex(p, "/")+1:]
}

func message(d protocol.Diagnostic) string {
	m, _ := d.Message.(protocol.String)
	return string(m)
}

// A fragment is linted through the main configuration above it, the main
// configuration with the fragment as the editor has it, and a change is
// seen before it is saved; the disk is not written.
func TestDiagnosticsFollowTheBuffers(t *testing.T) {
	root := nginxWorkspace(t)
	s := start(t, root, protocol.ClientCapabilities{})

	s.open("nginx.conf", "nginx")
	diags := s.diagnostics("nginx.conf", 1)
	assert.Equal(t, []string{
		"log-format-blind 1:0",
		"upstream-no-keepalive 3:4 -> conf.d/app.conf:3",
	}, summary(diags))
	d := diags[1]
	assert.Equal(t, protocol.DiagnosticSeverityWarning, d.Severity)
	assert.Equal(t, uri.URI("https://github.com/proxylint/proxylint/blob/main/rules/docs/upstream-no-keepalive.md"), d.CodeDescription.Href)
	src, _ := d.Source.Get()
	assert.Equal(t, "proxylint", src)
	assert.Contains(t, message(d), `upstream "app" has no keepalive directive`)
	assert.Contains(t, message(d), "\nFix: add \"keepalive 16;\" to upstream \"app\"")
	assert.Equal(t, "used by proxy_pass", d.RelatedInformation[0].Message)

	s.open("conf.d/app.conf", "nginx")
	assert.Equal(t, []string{
		"nginx-include 0:0",
		"upstream-no-keepalive 6:8",
	}, summary(s.diagnostics("conf.d/app.conf", 1)))

	// Two lines added at the top of the fragment, not saved: its finding
	// moves, and so does the place nginx.conf's finding points at.
	s.change("conf.d/app.conf", 2, "# edited\n# twice\n"+appConf)
	assert.Equal(t, []string{"nginx-include 0:0", "upstream-no-keepalive 8:8"}, summary(s.diagnostics("conf.d/app.conf", 2)))
	assert.Equal(t, []string{"log-format-blind 1:0", "upstream-no-keepalive 3:4 -> conf.d/app.conf:5"}, summary(s.diagnostics("nginx.conf", 1)))
	assert.Equal(t, appConf, s.read("conf.d/app.conf"), "the disk is left alone")

	// Closed unsaved: nginx.conf is linted with the disk's fragment again,
	// and the closed document's diagnostics are cleared.
	require.NoError(t, s.server.DidClose(s.ctx(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.uri("conf.d/app.conf")}}))
	assert.Empty(t, s.diagnosticsOf("conf.d/app.conf"))
	assert.Equal(t, []string{"log-format-blind 1:0", "upstream-no-keepalive 3:4 -> conf.d/app.conf:3"}, summary(s.diagnostics("nginx.conf", 1)))

	assert.Equal(t, 0, s.shutdown(), "exit after shutdown")
}

// A file the editor has not open, changed on the disk without a word to
// the server (a fix written across two files, a checkout), is read again:
// the open document's diagnostics follow it, and follow it back.
func TestDiagnosticsFollowTheDisk(t *testing.T) {
	root := nginxWorkspace(t)
	s := start(t, root, protocol.ClientCapabilities{})
	s.open("nginx.conf", "nginx")
	assert.Equal(t, []string{"log-format-blind 1:0", "upstream-no-keepalive 3:4 -> conf.d/app.conf:3"}, summary(s.diagnostics("nginx.conf", 1)))

	frag := filepath.Join(root, "conf.d", "app.conf")
	// As an editor writes with a backup: the old file renamed away, the
	// new one written in its place.
	require.NoError(t, os.Rename(frag, frag+"~"))
	require.NoError(t, os.WriteFile(frag, []byte("# moved\n# down\n"+appConf), 0o644))
	assert.Equal(t, []string{"log-format-blind 1:0", "upstream-no-keepalive 3:4 -> conf.d/app.conf:5"}, summary(s.nextDiagnostics("nginx.conf", func(d []protocol.Diagnostic) bool {
		return len(d) == 2 && d[1].RelatedInformation[0].Location.Range.Start.Line == 5
	})))

	// The fragment gone: nginx.conf proxies nowhere, and has nothing
	// left to report.
	require.NoError(t, os.Remove(frag))
	assert.Empty(t, s.nextDiagnostics("nginx.conf", func(d []protocol.Diagnostic) bool { return len(d) < 2 }))
	assert.Equal(t, 0, s.shutdown())
}

// nextDiagnostics waits for diagnostics of a document that done accepts,
// and returns them.
func (s *session) nextDiagnostics(name string, done func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	s.t.Helper()
	want := s.uri(name)
	deadline := time.After(20 * time.Second)
	for {
		select {
		case p := <-s.client.diags:
			s.latest[p.URI] = p
			if p.URI == want && done(p.Diagnostics) {
				return p.Diagnostics
			}
		case <-deadline:
			var last []protocol.Diagnostic
			if p := s.latest[want]; p != nil {
				last = p.Diagnostics
			}
			s.t.Fatalf("the diagnostics of %s did not change as expected; the last: %v", name, summary(last))
		}
	}
}

// diagnosticsOf waits for the next diagnostics of a document whatever
// their version (a closed document's have none).
func (s *session) diagnosticsOf(name string) []protocol.Diagnostic {
	s.t.Helper()
	want := s.uri(name)
	for {
		p := <-s.client.diags
		s.latest[p.URI] = p
		if p.URI == want {
			return p.Diagnostics
		}
	}
}
