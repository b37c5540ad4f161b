package lsp

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/proxylint/proxylint/cmd/proxylint/internal/config"
	"github.com/proxylint/proxylint/lint"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/kube"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/report"
	"github.com/proxylint/proxylint/rules"
)

// unit is what one run lints for a document: its directory, walked as
// "proxylint DIR" walks it, so that the document is read with the files
// beside and below it (a fragment through the main configuration that
// includes it, the other xDS files, the other manifests), under the
// .proxylint.yaml nearest above it.
type unit struct {
	paths  []string
	config string // the configuration file, "" when there is none
}

func (u unit) key() string { return strings.Join(u.paths, "\x00") + "\x00" + u.config }

// maxUnitFiles bounds the files of a directory walked for a document; a
// larger tree (a home directory, a repository's root with its vendored
// code) is not read on every keystroke, and the document is named alone,
// in the context the loader finds for it (the main configuration that
// includes a fragment).
const maxUnitFiles = 1000

func unitOf(d *document) unit {
	dir := filepath.Dir(d.path)
	// The command line's lookup: the nearest file above the document, up
	// to the repository root.
	cfg, err := config.ForFile(d.path)
	if err != nil {
		cfg = ""
	}
	u := unit{config: cfg, paths: []string{d.path}}
	if walkable(dir) {
		u.paths = []string{dir}
	}
	return u
}

// walkable reports whether dir is a directory to walk for a document: not
// one that holds unrelated files (the root, the temporary directory, the
// home directory) and not larger than maxUnitFiles.
func walkable(dir string) bool {
	shared := []string{string(filepath.Separator), os.TempDir()}
	if home, err := os.UserHomeDir(); err == nil {
		shared = append(shared, home)
	}
	real := realOrAbs(dir)
	for _, s := range shared {
		if real == realOrAbs(s) {
			return false
		}
	}
	n := 0
	tooMany := errors.New("too many files")
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			// An entry that cannot be read is not counted; the loader
			// reports it.
			return nil //nolint:nilerr // counting goes on past it
		case e.IsDir() && p != dir && strings.HasPrefix(e.Name(), "."):
			return filepath.SkipDir
		case !e.IsDir():
			if n++; n > maxUnitFiles {
				return tooMany
			}
		}
		return nil
	})
	return err == nil
}

// analysis is what proxylint found in one unit at one generation of the
// open documents.
type analysis struct {
	gen  uint64
	unit unit
	// cfgErr is the configuration file's problem: nothing was linted.
	cfgErr error
	// runs are the unit's run and the runs of the documents that it did
	// not read and that were linted alone (byDoc says which, by path).
	runs  []*run
	byDoc map[string]*run
}

// run is one run of the pipeline.
type run struct {
	res   lint.Result
	files map[string]*model.File // by real path
	reals map[string]string
}

func newRun(res lint.Result) *run {
	r := &run{res: res, files: map[string]*model.File{}, reals: map[string]string{}}
	for _, f := range res.Model.Files {
		r.files[r.real(f.Path)] = f
	}
	return r
}

// real is the real path of a path of the model.
func (r *run) real(path string) string {
	if real, ok := r.reals[path]; ok {
		return real
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	real := realOrAbs(abs)
	r.reals[path] = real
	return real
}

// read reports whether the run says anything of the document: it read it,
// or it has a finding in it (a file it could not read, a template).
func (r *run) read(d *document) bool {
	if _, ok := r.files[d.real]; ok {
		return true
	}
	for _, f := range r.res.Findings {
		if f.Pos.File != "" && r.real(f.Pos.File) == d.real {
			return true
		}
	}
	return false
}

// findingsIn are the run's findings in the document.
func (r *run) findingsIn(d *document) []rules.Finding {
	var out []rules.Finding
	for _, f := range r.res.Findings {
		if f.Pos.File != "" && r.real(f.Pos.File) == d.real {
			out = append(out, f)
		}
	}
	return out
}

// file is the model's file at a model path, nil when the run did not read
// it.
func (r *run) file(path string) *model.File { return r.files[r.real(path)] }

func analyze(u unit, snap snapshot) *analysis {
	a := &analysis{gen: snap.gen, unit: u, byDoc: map[string]*run{}}
	cfg, err := readConfig(u.config, snap)
	if err != nil {
		a.cfgErr = err
		return a
	}
	opts := lint.Options{Load: cfg.LoadOptions(), Rules: cfg.RuleOptions()}
	if declared := cfg.DeclaredChain(); declared != nil {
		opts.Rules.Hops = declared.Hops
	}
	opts.Load.Overlay = snap.overlay()
	main := newRun(lint.Run(u.paths, opts))
	a.runs = append(a.runs, main)
	for _, d := range snap.docs {
		if snap.unit(d).key() != u.key() {
			continue
		}
		if main.read(d) {
			a.byDoc[d.path] = main
			continue
		}
		// The walk passed over the document: it is not (or no longer)
		// a configuration it recognises. Named alone, as what it was
		// last linted as, it gets its syntax error where it stands.
		kind := d.kind
		if kind == "" && d.lang == "nginx" {
			kind = load.KindNginx
		}
		if kind == "" && !nginxName(d.path) {
			continue
		}
		o := opts
		o.Load.Kind = kind
		alone := newRun(lint.Run([]string{d.path}, o))
		if alone.read(d) {
			a.runs = append(a.runs, alone)
			a.byDoc[d.path] = alone
		}
	}
	return a
}

// nginxName reports whether the file's name says it is nginx's, so that
// the loader reads it as nginx when it is named (load's detect).
func nginxName(path string) bool {
	base := strings.ToLower(filepath.Base(path))
	ext := filepath.Ext(base)
	return base == "nginx.conf" || ext == ".conf" || ext == ".nginx" || ext == ".vhost"
}

// readConfig reads the configuration file at path, from the editor's
// buffer when it is open; nil when path is "".
func readConfig(path string, snap snapshot) (*config.Config, error) {
	if path == "" {
		return nil, nil
	}
	real := realOrAbs(path)
	for _, d := range snap.docs {
		if d.real == real {
			return config.Parse(path, filepath.Dir(path), d.text)
		}
	}
	return config.Load(path)
}

// kindOf is what the analysis read the document as, "" when it did not
// read it.
func (a *analysis) kindOf(d *document) string {
	r := a.byDoc[d.path]
	if r == nil {
		return ""
	}
	if _, ok := r.files[d.real]; !ok {
		return ""
	}
	switch strings.ToLower(filepath.Ext(d.path)) {
	case ".yaml", ".yml", ".json":
		head := d.text[:min(len(d.text), 64<<10)]
		if kube.Detect(head) || kube.DetectLinked(head) || kube.DetectManifest(head) {
			return load.KindKube
		}
		return load.KindEnvoy
	}
	return load.KindNginx
}

// diagnostics are the document's findings as the client shows them.
func (a *analysis) diagnostics(d *document, enc encoding) []protocol.Diagnostic {
	out := []protocol.Diagnostic{}
	t := newText(d.text)
	if a.cfgErr != nil {
		return append(out, configDiagnostic(a.unit.config, a.cfgErr, d, t, enc))
	}
	r := a.byDoc[d.path]
	if r == nil {
		return out
	}
	for _, f := range r.findingsIn(d) {
		if f.Suppression != nil {
			continue
		}
		out = append(out, r.diagnostic(f, t, enc))
	}
	return out
}

// configDiagnostic says that the configuration file has a problem, where
// it is on the file itself, and at the top of every other document.
func configDiagnostic(path string, err error, d *document, t *text, enc encoding) protocol.Diagnostic {
	var ce *config.Error
	pos := model.Pos{File: path}
	if errors.As(err, &ce) {
		pos.Line, pos.Col = int32(ce.Line), int32(ce.Col)
	}
	diag := protocol.Diagnostic{
		Severity: protocol.DiagnosticSeverityError,
		Source:   protocol.NewOptional("proxylint"),
	}
	if d.real == realOrAbs(path) {
		diag.Range = t.lineRange(pos, enc)
		msg := err.Error()
		if ce != nil {
			msg = ce.Msg
		}
		diag.Message = protocol.String(msg)
		return diag
	}
	diag.Range = t.lineRange(model.Pos{}, enc)
	diag.Message = protocol.String("not linted: " + err.Error())
	diag.RelatedInformation = []protocol.DiagnosticRelatedInformation{{
		Location: protocol.Location{URI: uri.File(path), Range: protocol.Range{Start: protocol.Position{Line: uint32(max(pos.Line-1, 0))}}},
		Message:  "the configuration file",
	}}
	return diag
}

func severity(s model.Severity) protocol.DiagnosticSeverity {
	switch s {
	case model.Error:
		return protocol.DiagnosticSeverityError
	case model.Warning:
		return protocol.DiagnosticSeverityWarning
	}
	return protocol.DiagnosticSeverityInformation
}

// diagnostic is a finding as the client shows it: the rule as its code,
// linked to the rule's documentation, the fix after the message, and the
// other places involved as related information.
func (r *run) diagnostic(f rules.Finding, t *text, enc encoding) protocol.Diagnostic {
	rng := t.lineRange(f.Pos, enc)
	if f.End.IsValid() && f.End.File == f.Pos.File && f.Pos.Before(f.End) {
		rng.End = t.at(f.End, enc)
	}
	msg := f.Message
	if f.Fix.Message != "" {
		msg += "\nFix: " + f.Fix.Message
	}
	diag := protocol.Diagnostic{
		Range:    rng,
		Severity: severity(f.Severity),
		Code:     protocol.String(f.Rule),
		Source:   protocol.NewOptional("proxylint"),
		Message:  protocol.String(msg),
	}
	if _, ok := rules.Lookup(f.Rule); ok {
		diag.CodeDescription = protocol.CodeDescription{Href: uri.URI(report.RuleDocURI(f.Rule))}
	}
	if f.Rule == rules.UnusedSuppression.ID {
		diag.Tags = protocol.NewDiagnosticTags(protocol.DiagnosticTagUnnecessary)
	}
	for _, rel := range f.Related {
		if !rel.Pos.IsValid() {
			continue
		}
		diag.RelatedInformation = append(diag.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: r.location(rel.Pos, enc), Message: rel.Message,
		})
	}
	return diag
}

// location is a model position as the client's location: the line from
// the position to its end.
func (r *run) location(p model.Pos, enc encoding) protocol.Location {
	abs, err := filepath.Abs(p.File)
	if err != nil {
		abs = p.File
	}
	loc := protocol.Location{URI: uri.File(abs)}
	if f := r.file(p.File); f != nil {
		loc.Range = newText(f.Source).lineRange(p, enc)
	} else {
		at := protocol.Position{Line: uint32(max(p.Line-1, 0)), Character: uint32(max(p.Col-1, 0))}
		loc.Range = protocol.Range{Start: at, End: at}
	}
	return loc
}
