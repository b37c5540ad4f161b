package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// server is the state of one connection: the open documents, the last
// analysis of each unit, what the client can do.
type server struct {
	protocol.UnimplementedServer
	client protocol.Client
	opts   Options
	// ctx is the connection's: what the server sends the client is sent
	// under it, never under a request's context, which ends with the
	// request.
	ctx context.Context

	mu          sync.Mutex
	initialized bool
	shutdown    bool
	caps        clientCaps
	docs        map[string]*document // by absolute path
	// gen counts the changes to the open documents; an analysis made at
	// an older generation is stale.
	gen   uint64
	cache map[string]*analysis // by unit
	timer *time.Timer
	// units holds the unit of each open document at generation unitsGen:
	// finding it walks the document's directory, which a request need not
	// do again until something changes.
	units    map[string]unit
	unitsGen uint64
	// watched holds the stamps of the files and directories the last
	// lint read from the disk (watch.go).
	watched map[string]stamp

	// lintMu runs one analysis at a time.
	lintMu   sync.Mutex
	kick     chan struct{}
	exited   chan struct{}
	exitOnce sync.Once
	stopped  chan struct{}
}

// clientCaps is what the client said it can do.
type clientCaps struct {
	enc encoding
	// documentChanges: workspace edits as versioned document edits.
	documentChanges bool
	// showDocument: the server may ask the client to show a document
	// with a selection.
	showDocument bool
}

// document is an open document: the client's text of it, which the
// loaders read instead of the disk's.
type document struct {
	uri     uri.URI
	path    string // absolute
	real    string // symbolic links resolved, when it exists on the disk
	lang    string
	version int32
	text    []byte
	// kind is what the document was last linted as ("nginx", "envoy",
	// "kubernetes"), so that it is linted as such while an edit leaves it
	// unrecognisable (a YAML syntax error); "" before it ever was.
	kind string
}

func newServer(ctx context.Context, client protocol.Client, opts Options) *server {
	return &server{
		ctx: ctx, client: client, opts: opts,
		docs: map[string]*document{}, cache: map[string]*analysis{},
		kick: make(chan struct{}, 1), exited: make(chan struct{}), stopped: make(chan struct{}),
	}
}

func (s *server) isInitialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized
}

func (s *server) wasShutDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shutdown
}

func (s *server) logf(format string, args ...any) {
	fmt.Fprintf(s.opts.Log, "proxylint lsp: "+format+"\n", args...)
}

// Commands the server executes (workspace/executeCommand).
const (
	// cmdApplyFixes applies every fix of a document: its argument is the
	// document's URI.
	cmdApplyFixes = "proxylint.applyFixes"
	// cmdSelectReason selects the reason of a suppression just inserted,
	// for the user to type over: its arguments are the URI and the range.
	cmdSelectReason = "proxylint.selectReason"
)

func (s *server) Initialize(_ context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	caps := clientCaps{enc: utf16}
	if g := p.Capabilities.General; g != nil && len(g.PositionEncodings) > 0 {
		caps.enc = chooseEncoding(g.PositionEncodings)
	}
	if w := p.Capabilities.Workspace; w != nil && w.WorkspaceEdit != nil && w.WorkspaceEdit.DocumentChanges != nil {
		caps.documentChanges = *w.WorkspaceEdit.DocumentChanges
	}
	if w := p.Capabilities.Window; w != nil && w.ShowDocument != nil {
		caps.showDocument = w.ShowDocument.Support
	}
	if root := workspaceRoot(p); root != "" && s.opts.Chdir {
		if err := os.Chdir(root); err != nil {
			s.logf("cannot work in the workspace's root: %v", err)
		}
	}
	s.mu.Lock()
	s.caps, s.initialized = caps, true
	s.mu.Unlock()

	sync := protocol.TextDocumentSyncKindFull
	yes := true
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding: caps.enc.kind(),
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: &yes, Change: &sync, Save: &protocol.SaveOptions{},
			},
			HoverProvider:      protocol.Boolean(true),
			DefinitionProvider: protocol.Boolean(true),
			CodeActionProvider: &protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindSourceFixAll},
			},
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{Commands: []string{cmdApplyFixes, cmdSelectReason}},
		},
		ServerInfo: protocol.ServerInfo{Name: "proxylint", Version: protocol.NewOptional(s.opts.Version)},
	}, nil
}

// chooseEncoding picks the client's first position encoding the server
// counts in; UTF-16 when it offers none of them.
func chooseEncoding(offered []protocol.PositionEncodingKind) encoding {
	for _, k := range offered {
		switch k {
		case protocol.PositionEncodingKindUTF16:
			return utf16
		case protocol.PositionEncodingKindUTF8:
			return utf8Bytes
		case protocol.PositionEncodingKindUTF32:
			return utf32
		}
	}
	return utf16
}

// workspaceRoot is the directory of the first workspace folder, else of
// the root URI, else the root path; "" when the client names none.
func workspaceRoot(p *protocol.InitializeParams) string {
	if folders, ok := p.WorkspaceFolders.Get(); ok && len(folders) > 0 {
		if path := filePath(folders[0].URI); path != "" {
			return path
		}
	}
	// Clients of protocol versions before workspace folders (3.6) name
	// only the root.
	if u := p.RootURI; u != nil { //nolint:staticcheck // older clients
		if path := filePath(*u); path != "" {
			return path
		}
	}
	if root, ok := p.RootPath.Get(); ok && filepath.IsAbs(root) { //nolint:staticcheck // older clients
		return filepath.Clean(root)
	}
	return ""
}

// filePath is the absolute path of a file: URI; "" for any other URI.
func filePath(u uri.URI) string {
	if u.Scheme() != "file" {
		return ""
	}
	path := u.FsPath()
	if !filepath.IsAbs(path) {
		return ""
	}
	return filepath.Clean(path)
}

func (s *server) Shutdown(context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	return nil
}

func (s *server) Exit(context.Context) error {
	s.exitOnce.Do(func() { close(s.exited) })
	return nil
}

// stop ends the lint loop and waits for it.
func (s *server) stop() {
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	<-s.stopped
}

func (s *server) DidOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams) error {
	path := filePath(p.TextDocument.URI)
	if path == "" {
		return nil
	}
	d := &document{uri: p.TextDocument.URI, path: path, real: realOrAbs(path), lang: string(p.TextDocument.LanguageID),
		version: p.TextDocument.Version, text: []byte(p.TextDocument.Text)}
	s.mu.Lock()
	if old, ok := s.docs[path]; ok {
		d.kind = old.kind
	}
	s.docs[path] = d
	s.mu.Unlock()
	s.changed(0)
	return nil
}

func (s *server) DidChange(_ context.Context, p *protocol.DidChangeTextDocumentParams) error {
	path := filePath(p.TextDocument.URI)
	s.mu.Lock()
	d, ok := s.docs[path]
	if ok {
		enc := s.caps.enc
		for _, c := range p.ContentChanges {
			switch c := c.(type) {
			case *protocol.TextDocumentContentChangeWholeDocument:
				d.text = []byte(c.Text)
			case *protocol.TextDocumentContentChangePartial:
				t := newText(d.text)
				start, end := t.offset(c.Range.Start, enc), t.offset(c.Range.End, enc)
				if end < start {
					start, end = end, start
				}
				d.text = append(append(append([]byte{}, d.text[:start]...), c.Text...), d.text[end:]...)
			}
		}
		d.version = p.TextDocument.Version
	}
	s.mu.Unlock()
	if ok {
		s.changed(s.opts.Delay)
	}
	return nil
}

func (s *server) DidSave(_ context.Context, p *protocol.DidSaveTextDocumentParams) error {
	path := filePath(p.TextDocument.URI)
	s.mu.Lock()
	d, ok := s.docs[path]
	if ok && p.Text != nil {
		d.text = []byte(*p.Text)
	}
	if ok {
		// A file saved for the first time now has a real path.
		d.real = realOrAbs(path)
	}
	s.mu.Unlock()
	if ok {
		s.changed(0)
	}
	return nil
}

func (s *server) DidClose(_ context.Context, p *protocol.DidCloseTextDocumentParams) error {
	path := filePath(p.TextDocument.URI)
	s.mu.Lock()
	_, ok := s.docs[path]
	delete(s.docs, path)
	s.mu.Unlock()
	if ok {
		// What the closed buffer said no longer counts: the others are
		// linted against the disk again.
		if err := s.client.PublishDiagnostics(s.ctx, &protocol.PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}}); err != nil {
			s.logf("publishing diagnostics: %v", err)
		}
		s.changed(0)
	}
	return nil
}

// changed records a change to the open documents and lints them after
// delay, unless another change comes first.
func (s *server) changed(delay time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	if s.timer != nil {
		s.timer.Stop()
	}
	s.timer = time.AfterFunc(delay, func() {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	})
}

// lintLoop lints the open documents each time changed says so, until ctx
// ends.
func (s *server) lintLoop(ctx context.Context) {
	defer close(s.stopped)
	poll := time.NewTicker(s.opts.Poll)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
			s.lintOpen(ctx)
		case <-poll.C:
			if s.diskChanged() {
				s.changed(0)
			}
		}
	}
}

// snapshot is the open documents at one generation.
type snapshot struct {
	gen   uint64
	docs  []*document // copies, by path
	units map[string]unit
	enc   encoding
	caps  clientCaps
}

func (s *server) snapshot() snapshot {
	s.mu.Lock()
	snap := snapshot{gen: s.gen, enc: s.caps.enc, caps: s.caps, units: s.units}
	for _, d := range s.docs {
		c := *d
		snap.docs = append(snap.docs, &c)
	}
	fresh := s.units != nil && s.unitsGen == s.gen
	s.mu.Unlock()
	sort.Slice(snap.docs, func(i, j int) bool { return snap.docs[i].path < snap.docs[j].path })
	if !fresh {
		snap.units = map[string]unit{}
		for _, d := range snap.docs {
			snap.units[d.path] = unitOf(d)
		}
		s.mu.Lock()
		if s.gen == snap.gen {
			s.units, s.unitsGen = snap.units, snap.gen
		}
		s.mu.Unlock()
	}
	return snap
}

// unit is the unit of an open document of the snapshot.
func (snap snapshot) unit(d *document) unit {
	if u, ok := snap.units[d.path]; ok {
		return u
	}
	return unitOf(d)
}

// overlay is the open documents' texts by real path, for the loaders.
func (snap snapshot) overlay() map[string][]byte {
	m := make(map[string][]byte, len(snap.docs))
	for _, d := range snap.docs {
		m[d.real] = d.text
	}
	return m
}

func (snap snapshot) doc(path string) *document {
	for _, d := range snap.docs {
		if d.path == path {
			return d
		}
	}
	return nil
}

// lintOpen lints every open document and publishes what was found.
func (s *server) lintOpen(ctx context.Context) {
	defer func() {
		if r := recover(); r != nil {
			s.logf("linting failed: %v", r)
		}
	}()
	before := s.watchedNow()
	snap := s.snapshot()
	var analyses []*analysis
	defer func() { s.watch(snap, analyses, before) }()
	for _, d := range snap.docs {
		if ctx.Err() != nil {
			return
		}
		a := s.analysisOf(snap, d)
		analyses = append(analyses, a)
		diags := a.diagnostics(d, snap.enc)
		if err := s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{
			URI: d.uri, Version: protocol.NewOptional(d.version), Diagnostics: diags,
		}); err != nil {
			s.logf("publishing diagnostics: %v", err)
			return
		}
	}
}

// current is the analysis of the document at path as the client has it
// now, and the snapshot it was made from; nil when the document is not
// open.
func (s *server) current(path string) (*analysis, *document, snapshot) {
	snap := s.snapshot()
	d := snap.doc(path)
	if d == nil {
		return nil, nil, snap
	}
	return s.analysisOf(snap, d), d, snap
}

// analysisOf is the analysis of d's unit at the snapshot's generation,
// made now unless one is at hand.
func (s *server) analysisOf(snap snapshot, d *document) *analysis {
	u := snap.unit(d)
	s.lintMu.Lock()
	defer s.lintMu.Unlock()
	s.mu.Lock()
	a, ok := s.cache[u.key()]
	s.mu.Unlock()
	if !ok || a.gen < snap.gen {
		a = analyze(u, snap)
		s.mu.Lock()
		if old, ok := s.cache[u.key()]; !ok || old.gen <= a.gen {
			s.cache[u.key()] = a
		}
		for _, od := range snap.docs {
			if k := a.kindOf(od); k != "" {
				if live, ok := s.docs[od.path]; ok {
					live.kind = k
				}
			}
		}
		s.mu.Unlock()
	}
	return a
}

// realOrAbs is the real path of the file at path, or path itself when it
// does not exist on the disk.
func realOrAbs(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}
