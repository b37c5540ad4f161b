// Package envoy reads Envoy configurations into proxylint's common model.
//
// The input is YAML or JSON: a bootstrap, an admin /config_dump, or xDS
// resources (Listener, Cluster, RouteConfiguration), with snake_case or
// camelCase keys. It is read in four steps, each keeping positions:
//
//  1. YAML (or JSON) is read into a positioned tree, with aliases bounded
//     by a budget proportional to the input and nesting by a depth limit;
//  2. the tree is read into messages of Envoy's API, built from the
//     descriptors embedded in the program (schema.go) on the first Envoy
//     file a run reads: by the direct reader (direct.go), which sets the
//     fields as protojson would, when the resource reads without an error
//     or a note; else it is written out as JSON, one value per line,
//     remembering for each line the node it came from, and read by
//     protojson, so that every protojson error maps back to the line and
//     column the user wrote;
//  3. Envoy's schema constraints (protoc-gen-validate's rules, read from
//     the descriptors by internal/pgv) are checked on the root and on
//     every Any inside it;
//  4. the messages become the model's listeners (one per HTTP connection
//     manager), routes and upstreams (one per cluster), every value with
//     its position or its default. The builder reads them by field name
//     (msg.go).
//
// Steps 1 to 3 run per file (Read), step 4 once for everything linted
// together (Join): the resources of several files that name each other
// (a listener's RDS route configuration, a route's cluster, an EDS
// cluster's endpoints) are one deployment, built as if they were in one
// file, each with the positions of its own (join.go). LoadBytes does both
// for one file.
//
// Any of an extension type proxylint does not know is kept as a
// TypedStruct and reported as a note; unknown fields are never discarded
// silently, because that would hide typos. The types it knows are those
// of the packages internal/envoyapi lists, whose descriptors _gen/schema
// embeds: the core API and the extensions configurations use most.
package envoy

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/proxylint/proxylint/internal/workers"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/internal/generated"
)

// Diagnostic codes: the IDs of the rules under which the loader reports.
const (
	// CodeSyntax: the file is not YAML or JSON proxylint can read.
	CodeSyntax = model.CodeEnvoySyntax
	// CodeInvalid: Envoy would reject the configuration (unknown field,
	// wrong type, a schema constraint).
	CodeInvalid = model.CodeEnvoyInvalid
	// CodeUnknownExtension: an extension type proxylint does not know.
	CodeUnknownExtension = model.CodeEnvoyUnknownExtension
)

// Options control loading.
type Options struct {
	// Target is the Envoy release the configuration is for; the zero
	// Target means the newest.
	Target model.Target
	// Kept is the load's store of a tree DetectDepth parsed, which Read
	// takes instead of parsing the file again; nil when none is kept.
	Kept *Kept
}

// Result is what loading one file produced.
type Result struct {
	// Proxies holds one proxy per configuration in the file (several only
	// when configurations are wrapped under names); empty from Read.
	Proxies     []*model.Proxy
	File        *model.File
	Diagnostics []model.Diagnostic
	// Parts are the file's configurations, read but not built, from Read:
	// Join builds them with the parts of the other files linted together.
	Parts []*Part
}

// Load reads the Envoy configuration in the file at path.
func Load(path string, opts Options) Result {
	src, err := os.ReadFile(path)
	if err != nil {
		return Result{Diagnostics: []model.Diagnostic{{
			Code: model.CodeLoad, Severity: model.Error, Pos: model.Pos{File: path}, Fatal: true,
			Message: fmt.Sprintf("cannot read %s: %v", path, err),
		}}}
	}
	return LoadBytes(path, src, opts)
}

// LoadBytes reads an Envoy configuration held in memory and builds it on
// its own, as one deployment; path names it in positions.
func LoadBytes(path string, src []byte, opts Options) Result {
	res := Read(path, src, opts)
	proxies, diags := Join(res.Parts)
	res.Parts = nil
	res.Proxies = proxies
	res.Diagnostics = append(res.Diagnostics, diags...)
	return res
}

// GeneratedDump is what model.File.Generated says of an admin
// /config_dump: Envoy's report of what it was given, not where its
// configuration is written.
const GeneratedDump = "an Envoy admin config dump"

// Read reads and checks an Envoy configuration held in memory, without
// building it: its parts are for Join, with those of the other files of
// the deployment. path names it in positions.
func Read(path string, src []byte, opts Options) (res Result) {
	src = breakLoneCR(src)
	keptSrc, keptDocs, keptWarns, parsed := opts.Kept.take(path, src)
	if parsed {
		src = keptSrc
	}
	res.File = &model.File{Path: path, Source: src, Editor: NewEditor(path, src), Generated: generated.Header(src)}
	// The Anys decoded are kept until the parts are built (Join).
	h := &hold{release: rememberUnpacked()}
	defer func() {
		if len(res.Parts) == 0 {
			h.end()
		}
	}()
	defer func() {
		// No input may crash the run: whatever went wrong is reported at
		// the top of the file, and the other files are still linted.
		if r := recover(); r != nil {
			res.Parts = nil
			res.Diagnostics = append(res.Diagnostics, model.Diagnostic{
				Code: CodeSyntax, Severity: model.Error, Pos: model.Pos{File: path, Line: 1, Col: 1}, Fatal: true,
				Message: fmt.Sprintf("internal error while reading this Envoy configuration: %v\n%s", r, debug.Stack()),
			})
		}
	}()
	target := opts.Target
	if target.Product != model.Envoy {
		target = model.DefaultTarget(model.Envoy)
	}
	if pos, kind, ok := templateAt(path, src); ok {
		res.Diagnostics = append(res.Diagnostics, templateDiagnostic(pos, kind))
		return res
	}
	l := &loader{file: path, target: target, errs: &lookups{}}
	// The first Envoy file of a run builds the schema while its YAML is
	// read, which needs none of it.
	go func() { _, _ = loadSchema() }()
	docs, warns, err := keptDocs, keptWarns, error(nil)
	if !parsed {
		docs, warns, err = readTree(path, src)
	}
	if _, serr := loadSchema(); serr != nil {
		res.Diagnostics = append(res.Diagnostics, model.Diagnostic{
			Code: CodeSyntax, Severity: model.Error, Pos: model.Pos{File: path, Line: 1, Col: 1}, Fatal: true,
			Message: fmt.Sprintf("internal error: proxylint cannot build Envoy's API to read this file: %v", serr),
		})
		return res
	}
	if err != nil {
		l.posErr(err)
		res.Diagnostics = l.diags
		res.File.Comments = comments(path, src)
		return res
	}
	res.File.Comments = comments(path, src)
	warnAt := len(l.diags) // the duplicate-key warnings are l.diags[warnAt:][:len(warns)]
	for _, w := range warns {
		l.diags = append(l.diags, model.Diagnostic{
			Code: CodeInvalid, Severity: model.Warning,
			Pos: model.Pos{File: l.file, Line: int32(w.line), Col: int32(w.col)}, Message: w.msg,
		})
	}
	refuseOneofAgain := func(a oneofAgain) {
		d := &l.diags[warnAt+a.dup]
		if d.Severity == model.Error {
			return
		}
		d.Severity = model.Error
		d.Message = fmt.Sprintf("duplicate key %q (first at line %d): a field of the oneof %s of %s, which Envoy's JSON reader refuses to set twice (\"'%s' has already been set (either directly or as part of a oneof)\")",
			a.first.text(), a.first.line, a.fd.ContainingOneof().Name(), a.fd.ContainingMessage().FullName(), a.first.text())
	}
	groups := map[string]*collection{}
	var order []string
	var ds []decoded
	for _, doc := range docs {
		roots, probs := classify(doc)
		l.report(CodeInvalid, probs)
		for _, r := range roots {
			c, ok := groups[r.group]
			if !ok {
				c = &collection{file: path, errs: l.errs}
				groups[r.group] = c
				order = append(order, r.group)
			}
			if len(warns) > 0 && !r.state {
				if mt, err := findMessageType(r.mt); err != nil {
					l.errs.add(err)
				} else {
					oneofWrittenAgain(r.n, mt.Descriptor(), refuseOneofAgain)
				}
			}
			m := l.decode(r)
			if m == nil {
				continue
			}
			ds = append(ds, decoded{r, m})
			if !r.checkOnly {
				c.add(m, r.n, r.dumped)
				c.dump = c.dump || r.inDump
			}
			if r.inDump {
				res.File.Generated = GeneratedDump
			}
		}
	}
	l.runChecks(ds)
	if d, ok := l.errs.diagnostic(path); ok {
		// The loader asked for what the schema lacks: the file is
		// reported, not built, and the other files are still linted.
		l.diags = append(l.diags, d)
		res.Diagnostics = l.diags
		return res
	}
	for _, g := range order {
		c := groups[g]
		c.finish()
		entry := path
		if g != "" {
			entry = path + " " + g
		}
		res.Parts = append(res.Parts, &Part{c: c, entry: entry, file: path, target: target, hold: h})
	}
	res.Diagnostics = l.diags
	return res
}

// readTree reads JSON with the JSON reader (its errors are where a JSON
// reader would put them) and everything else, or JSON the JSON reader
// refuses but YAML accepts, as YAML. warns are the duplicate keys of YAML
// mappings, whose last value Envoy keeps (converter.mapping), and of JSON
// objects, which Envoy reads again (mergeAgain).
func readTree(path string, src []byte) (docs []*node, warns []posError, err error) {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(src, []byte("\xEF\xBB\xBF")), " \t\r\n")
	if len(trimmed) == 0 {
		return nil, nil, &posError{line: 1, col: 1, msg: "the file is empty"}
	}
	looksJSON := trimmed[0] == '{' || trimmed[0] == '['
	if looksJSON {
		n, dups, jerr := parseJSON(src)
		if jerr == nil {
			return []*node{n}, dups, nil
		}
		jsonName := strings.EqualFold(filepath.Ext(path), ".json") || bytes.HasPrefix(trimmed, []byte(`{"`)) || bytes.HasPrefix(trimmed, []byte(`[{"`))
		docs, warns, yerr := parseYAML(src)
		if yerr == nil && len(docs) > 0 && (len(warns) == 0 || !jsonName) {
			return docs, warns, nil
		}
		if jsonName || yerr == nil {
			return nil, nil, jerr
		}
		return nil, nil, yerr
	}
	docs, warns, err = parseYAML(src)
	if err != nil {
		return nil, nil, err
	}
	if len(docs) == 0 {
		return nil, nil, &posError{line: 1, col: 1, msg: "the file holds no YAML document"}
	}
	return docs, warns, nil
}

// loader carries one file's diagnostics.
type loader struct {
	file string
	// errs collects the schema lookups that failed (msg.go).
	errs   *lookups
	target model.Target
	diags  []model.Diagnostic
	ext    extNotes
}

func (l *loader) pos(n *node) model.Pos {
	if n == nil {
		return model.Pos{File: l.file, Line: 1, Col: 1}
	}
	return model.Pos{File: l.file, Line: n.line, Col: n.col}
}

func errorAt(p model.Pos, msg string) model.Diagnostic {
	return model.Diagnostic{Code: CodeInvalid, Severity: model.Error, Pos: p, Message: msg}
}

func noteAt(p model.Pos, msg string) model.Diagnostic {
	return model.Diagnostic{Code: CodeUnknownExtension, Severity: model.Note, Pos: p, Message: msg}
}

func (l *loader) posErr(err error) {
	pe, ok := err.(*posError) //nolint:errorlint // readTree returns *posError unwrapped
	if !ok {
		pe = &posError{line: 1, col: 1, msg: err.Error()}
	}
	l.diags = append(l.diags, model.Diagnostic{
		Code: CodeSyntax, Severity: model.Error, Fatal: true,
		Pos: model.Pos{File: l.file, Line: int32(pe.line), Col: int32(pe.col)}, Message: pe.msg,
	})
}

func (l *loader) report(code model.Code, probs []problem) {
	for _, p := range probs {
		l.diags = append(l.diags, model.Diagnostic{Code: code, Severity: model.Error, Pos: l.pos(p.n), Message: p.msg, Fatal: p.fatal})
	}
}

// decode reads one root, validates it and everything inside its Anys, and
// notes the extensions it could not read.
func (l *loader) decode(r root) proto.Message {
	mt, err := findMessageType(r.mt)
	if err != nil {
		l.errs.add(err)
		return nil
	}
	m, probs, unknown := decodeRoot(r.n, mt, r.inDump, r.version)
	if r.state {
		// Envoy's runtime state in a config dump: read, not judged.
		return m
	}
	l.report(CodeInvalid, probs)
	for _, u := range unknown {
		l.noteUnknown(u)
	}
	if m == nil {
		return nil
	}
	// The root and every message inside its Anys are validated side by
	// side, and their problems reported in the order of the walk.
	type part struct {
		m     protoreflect.Message
		n     *node
		probs []problem
	}
	var parts []part
	collect := func(inner protoreflect.Message, n *node) { parts = append(parts, part{m: inner, n: n}) }
	if m.ProtoReflect().Descriptor().FullName() == nameAny {
		visitMessage(m.ProtoReflect(), r.n, collect)
	} else {
		collect(m.ProtoReflect(), r.n)
		walkAnys(m.ProtoReflect(), r.n, collect)
	}
	workers.Each(len(parts), runtime.GOMAXPROCS(0), func(i int) {
		parts[i].probs = validate(parts[i].m.Interface(), parts[i].n)
	})
	for _, p := range parts {
		l.report(CodeInvalid, p.probs)
	}
	return m
}

// typeName is the message name of a type URL.
func typeName(url string) string {
	if i := strings.LastIndexByte(url, '/'); i >= 0 {
		return url[i+1:]
	}
	return url
}

// breakLoneCR turns a carriage return that no line feed follows into a
// line feed. YAML reads it as a line break, as old Mac files use it; doing
// the same before anything else keeps the lines YAML reports, the lines
// the reports quote, and the comments' lines the same lines.
func breakLoneCR(src []byte) []byte {
	i := bytes.IndexByte(src, '\r')
	if i < 0 {
		return src
	}
	out := append([]byte(nil), src...)
	for ; i < len(out); i++ {
		if out[i] == '\r' && (i+1 == len(out) || out[i+1] != '\n') {
			out[i] = '\n'
		}
	}
	return out
}
