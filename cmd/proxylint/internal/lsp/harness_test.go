package lsp

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// testClient is the client's side of a session: it records what the
// server sends and accepts every edit.
type testClient struct {
	protocol.UnimplementedClient
	diags chan *protocol.PublishDiagnosticsParams
	edits chan *protocol.ApplyWorkspaceEditParams
	shown chan *protocol.ShowDocumentParams
}

func (c *testClient) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	c.diags <- p
	return nil
}

func (c *testClient) ApplyEdit(_ context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	c.edits <- p
	return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
}

func (c *testClient) ShowDocument(_ context.Context, p *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	c.shown <- p
	return &protocol.ShowDocumentResult{Success: true}, nil
}

// lockedBuffer collects the server's log, shown when a test fails.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// session is a server over an in-memory pipe and a client talking to it.
type session struct {
	t      *testing.T
	root   string
	server protocol.Server
	client *testClient
	conn   jsonrpc2.Conn
	exit   chan int
	// latest holds the last diagnostics of each document.
	latest map[uri.URI]*protocol.PublishDiagnosticsParams
}

// workspace writes files (relative path to content) into a new
// repository and makes it the working directory, as the server makes the
// workspace's root its own.
func workspace(t testing.TB, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	return root
}

// start runs a server on root and initializes it with caps.
func start(t *testing.T, root string, caps protocol.ClientCapabilities) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	srvSide, clientSide := net.Pipe()
	log := &lockedBuffer{}
	s := &session{t: t, root: root, exit: make(chan int, 1), latest: map[uri.URI]*protocol.PublishDiagnosticsParams{},
		client: &testClient{
			diags: make(chan *protocol.PublishDiagnosticsParams, 1000),
			edits: make(chan *protocol.ApplyWorkspaceEditParams, 10),
			shown: make(chan *protocol.ShowDocumentParams, 10),
		}}
	go func() {
		s.exit <- Serve(ctx, srvSide, Options{Log: log, Delay: 20 * time.Millisecond, Poll: 20 * time.Millisecond})
	}()
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(clientSide), jsonrpc2.WithCodec(codec{}))
	s.conn.Go(ctx, protocol.ClientHandler(s.client, jsonrpc2.MethodNotFoundHandler))
	s.server = protocol.ServerDispatcher(s.conn)
	t.Cleanup(func() {
		cancel()
		_ = clientSide.Close()
		_ = srvSide.Close()
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	init := &protocol.InitializeParams{Capabilities: caps}
	init.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: uri.File(root), Name: "workspace"}})
	res, err := s.server.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ServerInfo.Name != "proxylint" {
		t.Fatalf("initialize answered %+v", res)
	}
	if err := s.server.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *session) uri(name string) uri.URI { return uri.File(filepath.Join(s.root, name)) }

func (s *session) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	s.t.Cleanup(cancel)
	return ctx
}

func (s *session) read(name string) string {
	b, err := os.ReadFile(filepath.Join(s.root, name))
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

// open opens a file of the workspace with its text on the disk, or text.
func (s *session) open(name, lang string, text ...string) {
	s.t.Helper()
	src := s.read(name)
	if len(text) > 0 {
		src = text[0]
	}
	if err := s.server.DidOpen(s.ctx(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: s.uri(name), LanguageID: protocol.LanguageKind(lang), Version: 1, Text: src,
	}}); err != nil {
		s.t.Fatal(err)
	}
}

func (s *session) change(name string, version int32, text string) {
	s.t.Helper()
	if err := s.server.DidChange(s.ctx(), &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: s.uri(name)}, Version: version},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: text}},
	}); err != nil {
		s.t.Fatal(err)
	}
}

// diagnostics waits for the diagnostics of a document at a version, and
// then for the server to go quiet, so that the last ones are returned.
func (s *session) diagnostics(name string, version int32) []protocol.Diagnostic {
	s.t.Helper()
	want := s.uri(name)
	deadline := time.After(20 * time.Second)
	for {
		if p := s.latest[want]; p != nil {
			if v, _ := p.Version.Get(); v == version {
				// Later passes may publish again; take the newest.
				select {
				case p := <-s.client.diags:
					s.latest[p.URI] = p
					continue
				case <-time.After(300 * time.Millisecond):
				}
				return s.latest[want].Diagnostics
			}
		}
		select {
		case p := <-s.client.diags:
			s.latest[p.URI] = p
		case <-deadline:
			s.t.Fatalf("no diagnostics for %s at version %d", name, version)
		}
	}
}

// shutdown ends the session as a client does and returns the server's
// exit code.
func (s *session) shutdown() int {
	s.t.Helper()
	if err := s.server.Shutdown(s.ctx()); err != nil {
		s.t.Fatalf("shutdown: %v", err)
	}
	if err := s.server.Exit(s.ctx()); err != nil {
		s.t.Fatalf("exit: %v", err)
	}
	select {
	case code := <-s.exit:
		return code
	case <-time.After(10 * time.Second):
		s.t.Fatal("the server did not stop after exit")
	}
	return -1
}
