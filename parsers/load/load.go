// Package load turns the paths a user names into proxylint's model: it
// finds configuration files in directories, tells nginx from Envoy by their
// structure, runs the loader for each, and assembles one model.Model.
package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/proxylint/proxylint/internal/regular"
	"github.com/proxylint/proxylint/internal/workers"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/envoy"
	"github.com/proxylint/proxylint/parsers/kube"
	"github.com/proxylint/proxylint/parsers/nginx"
)

// Kinds of configuration.
const (
	KindNginx = "nginx"
	KindEnvoy = "envoy"
)

// Options control loading.
type Options struct {
	// Kind forces every file to be read as "nginx" or "envoy"; empty
	// detects it per file.
	Kind string
	// Targets are the releases the configurations are for, one per
	// product at most (nginx or angie, envoy); a product not named gets
	// model.DefaultTarget.
	Targets []model.Target
	// IncludeRoots widen the tree includes may read from, beyond the
	// working directory and the directories of the named paths.
	IncludeRoots []string
	// Exclude skips paths (matched against the path as walked, its
	// absolute form and its base name, with filepath.Match).
	Exclude []string
	// EntryPoints are main configuration files through which the files
	// they include are linted when those are loaded (entry.go).
	EntryPoints []string
	// Directives declares the directives of nginx modules proxylint's
	// tables do not know.
	Directives []nginx.CustomDirective

	// Building, when set, is called before an nginx configuration is
	// checked and its model built, with the bytes of the files read for
	// it, and what it returns is called after: the parse trees and the
	// model are then both in memory, and a program can prepare for that
	// (cmd/proxylint lets the heap grow less while a large one is built).
	Building func(read int64) (done func())
	// NginxRead, when set, is called with every nginx configuration read,
	// after its check and before its model is built (which lets its
	// directives go), and the target it is read for: a report that reads
	// directives (proxylint upgrade's) reads them there. It may be called
	// from several goroutines at once, and must not keep cfg.
	NginxRead func(cfg *nginx.Config, target model.Target)

	// MaxFileSize bounds one file, MaxTotalSize what one run reads and
	// what one nginx configuration expands to through its includes (each
	// inclusion counted), MaxIncludes the include expansions of one nginx
	// configuration; the Default* values when zero.
	MaxFileSize, MaxTotalSize int64
	MaxIncludes               int
	// prefix is the directory relative includes resolve from; empty for
	// the main file's directory.
	prefix string
	// OnSkip, when set, hears of every file a directory walk leaves out,
	// and why.
	OnSkip func(path, reason string)
	// Stdin is standard input, linted where StdinPath is named (stdin.go).
	Stdin *Stdin
	// Overlay holds contents that replace the disk's, by absolute clean
	// path with symbolic links resolved: an editor's unsaved buffers.
	// Every read of such a file, by any loader and through any include,
	// reads these bytes; a named file that only the overlay holds is read
	// as a regular file. Directory walks still list the disk.
	Overlay map[string][]byte
	// OverlayOnly makes the overlay every file there is, as in a browser,
	// which has no file system: nothing is read from the disk, a named
	// path the overlay lacks cannot be read, and an include it lacks is a
	// note saying that its files were not linted.
	OverlayOnly bool

	// envoyKept is the load's own store of a tree DetectDepth parsed
	// (withDefaults makes one for each load).
	envoyKept *envoy.Kept
}

func (o *Options) skip(path, reason string) {
	if o.OnSkip != nil {
		o.OnSkip(path, reason)
	}
}

func (o Options) withDefaults() Options {
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	if o.MaxTotalSize <= 0 {
		o.MaxTotalSize = DefaultMaxTotalSize
	}
	if o.MaxIncludes <= 0 {
		o.MaxIncludes = DefaultMaxIncludes
	}
	if o.envoyKept == nil {
		o.envoyKept = &envoy.Kept{}
	}
	return o
}

func fatal(diags []model.Diagnostic) bool {
	for _, d := range diags {
		if d.Fatal {
			return true
		}
	}
	return false
}

// realRoots are the real paths of the roots a named directory p may lead
// into: the working directory, --include-root, and p itself unless it is
// a symbolic link below the working directory (a committed link to /
// named in a CI script).
func realRoots(roots []string, p string) []string {
	var out []string
	lexicalInside := !filepath.IsAbs(p) && p != ".." && !strings.HasPrefix(filepath.Clean(p), ".."+string(filepath.Separator))
	for _, r := range roots {
		if lexicalInside && r == p {
			continue
		}
		if real := realPath(r); real != "" {
			out = append(out, real)
		}
	}
	return out
}

// statError says why a named path cannot be read, naming the target of a
// dangling symbolic link.
func statError(p string, err error) string {
	if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 && errors.Is(err, fs.ErrNotExist) {
		target, _ := os.Readlink(p)
		return fmt.Sprintf("cannot read %s: a symbolic link to %s, which does not exist", p, target)
	}
	return fmt.Sprintf("cannot read %s: %v", p, unwrap(err))
}

// target is the release configurations of the first of products are read
// for: the one named in Targets, else the first product's default.
func (o Options) target(products ...model.Product) model.Target {
	for _, t := range o.Targets {
		for _, p := range products {
			if t.Product == p {
				return t
			}
		}
	}
	return model.DefaultTarget(products[0])
}

// loader loads one file of a kind into proxies and files of the model.
type loader func(path string, opts Options, roots []string) Result

// Result is what a loader produced for one file.
type Result struct {
	Proxies     []*model.Proxy
	Files       []*model.File
	Diagnostics []model.Diagnostic
	// Includes lists the real paths of the files this one pulled in.
	Includes []string
	// kube is a file of Kubernetes manifests, joined with the others of
	// the run once all are parsed (joinKube).
	kube *kube.Manifest
	// envoy holds the configurations of an Envoy file, read but not yet
	// built: joinEnvoy builds those of every Envoy file of the run
	// together.
	envoy []*envoy.Part
	// template marks an nginx file that is a template (nginx.Config);
	// fragment one that is not a whole configuration; unreadRelative one
	// with a relative include that was not read.
	template, fragment, unreadRelative bool
}

// loaderFor returns the loader of a kind.
func loaderFor(kind string) (loader, bool) {
	switch kind {
	case KindNginx:
		return loadNginx, true
	case KindEnvoy:
		return loadEnvoy, true
	case kindStdin:
		return loadStdin, true
	case KindKube:
		return loadKube, true
	}
	return nil, false
}

// Load reads every configuration under paths.
func Load(paths []string, opts Options) *model.Model {
	m, _ := LoadScoped(paths, opts)
	return m
}

// LoadScoped reads every configuration under paths, and says which files'
// findings concern the run: all of them, unless a file was linted through
// an entry point that was not named itself (see entry.go).
func LoadScoped(paths []string, opts Options) (*model.Model, *Scope) {
	m := &model.Model{}
	opts = opts.withDefaults()
	roots := includeRoots(append(append([]string{}, paths...), opts.EntryPoints...), opts.IncludeRoots)
	var items []item
	src := opts.source()
	namedExcluded := false
	charts := 0 // Helm chart templates skipped
	for _, p := range paths {
		if p == StdinPath {
			items = append(items, item{opts.Stdin.name(), kindStdin, "", true})
			continue
		}
		_, inMemory := src.overlaid(p)
		if opts.OverlayOnly && !inMemory {
			m.Diagnostics = append(m.Diagnostics, loadError(p, fmt.Sprintf("cannot read %s: %v", p, errNotGiven)))
			continue
		}
		fi, err := os.Stat(p)
		if err != nil && !inMemory {
			m.Diagnostics = append(m.Diagnostics, loadError(p, statError(p, err)))
			continue
		}
		if inMemory || !fi.IsDir() {
			if excludedNamed(p, opts.Exclude) {
				// A deliberate choice, as when a pre-commit hook names a
				// changed file under vendor/: reported as skipped.
				opts.skip(p, "excluded")
				namedExcluded = true
				continue
			}
			if !inMemory && !fi.Mode().IsRegular() {
				m.Diagnostics = append(m.Diagnostics, loadError(p, fmt.Sprintf("cannot read %s: %v", p, regular.Check(fi, 0))))
				continue
			}
			kind, err := src.detect(p, opts.Kind, true, opts.MaxFileSize)
			if err != nil {
				m.Diagnostics = append(m.Diagnostics, loadError(p, err.Error()))
				continue
			}
			if kind == kindChart {
				opts.skip(p, chartReason(p))
				charts++
				continue
			}
			items = append(items, item{p, kind, src.real(p), true})
			continue
		}
		if excluded(p, opts.Exclude) {
			opts.skip(p, "excluded")
			continue
		}
		if real := realPath(p); real != "" && !within(real, realRoots(roots, p)) {
			m.Diagnostics = append(m.Diagnostics, loadError(p, fmt.Sprintf("cannot read %s: a symbolic link to %s, outside the working directory; name %s itself, or widen the tree with --include-root", p, real, real)))
			continue
		}
		files, diags := walk(p, roots, opts.Exclude, opts.OnSkip)
		m.Diagnostics = append(m.Diagnostics, diags...)
		found := 0
		for _, f := range files {
			kind, err := src.detect(f, opts.Kind, false, opts.MaxFileSize)
			switch {
			case err != nil:
				m.Diagnostics = append(m.Diagnostics, loadError(f, err.Error()))
			case kind == "":
				opts.skip(f, "not an nginx or Envoy configuration")
			case kind == kindChart:
				opts.skip(f, chartReason(f))
				charts++
				found++
			default:
				found++
				items = append(items, item{f, kind, realPath(f), false})
			}
		}
		if found == 0 && len(diags) == 0 {
			m.Diagnostics = append(m.Diagnostics, loadError(p, fmt.Sprintf("no nginx or Envoy configuration found in %s", p)))
		}
	}
	if len(items) == 0 && len(paths) > 0 && !namedExcluded && charts == 0 && !fatal(m.Diagnostics) {
		m.Diagnostics = append(m.Diagnostics, loadError(paths[0], fmt.Sprintf("no nginx or Envoy configuration found in %s", strings.Join(paths, ", "))))
	}

	results := loadAll(items, opts, roots)
	included := map[string]bool{}
	for _, r := range results {
		for _, inc := range r.Includes {
			included[inc] = true
		}
	}
	markHardLinks(items, included)
	found, dirs, prefixes := discoverEntryPoints(items, results, included, opts, roots)
	for i, main := range prefixes {
		o := opts
		o.prefix = filepath.Dir(main)
		results[i] = loadNginx(items[i].path, o, append(append([]string{}, roots...), o.prefix))
		results[i].Diagnostics = append(results[i].Diagnostics, prefixNote(items[i].path, main))
		for _, inc := range results[i].Includes {
			included[inc] = true
		}
	}
	epOpts := opts
	epOpts.EntryPoints = append(append([]string{}, opts.EntryPoints...), found...)
	items, results, scope := withEntryPoints(items, results, included, epOpts, append(roots, dirs...))
	markHardLinks(items, included)
	discovered := map[string]bool{}
	for _, ep := range found {
		real := realPath(ep)
		discovered[real] = true
		var epResult *Result
		for i, it := range items {
			if it.real == real && !it.explicit {
				epResult = &results[i]
			}
		}
		fragment := epResult != nil && epResult.fragment
		for i, it := range items {
			if scope == nil || scope.through[it.real] != real {
				continue
			}
			m.Diagnostics = append(m.Diagnostics, throughNote(it.path, ep, fragment))
			if fragment && epResult != nil {
				snippetThrough(epResult, it, results[i])
			}
		}
	}
	for i, it := range items {
		if discovered[it.real] {
			// A main configuration found for a fragment is context: what
			// it says of its other parts is not the run's concern.
			results[i].Diagnostics = inScope(results[i].Diagnostics, scope)
		}
	}
	joinedNamed := joinEnvoy(items, results, included)
	seenFile := map[string]bool{}
	seenEntry := map[string]bool{}
	named := map[*model.Proxy]bool{}
	var kubes []kubeItem
	ranOther := false
	for i, it := range items {
		// A file that another loaded configuration includes is linted
		// through it, in its real context, not a second time alone.
		if included[it.real] || (it.real != "" && seenEntry[it.real]) {
			continue
		}
		seenEntry[it.real] = true
		r := results[i]
		if r.kube != nil {
			kubes = append(kubes, kubeItem{it, r.kube})
			continue
		}
		ranOther = true
		for _, p := range r.Proxies {
			named[p] = it.explicit || joinedNamed[p]
		}
		m.Proxies = append(m.Proxies, r.Proxies...)
		m.Diagnostics = append(m.Diagnostics, r.Diagnostics...)
		for _, f := range r.Files {
			if !seenFile[f.Path] {
				seenFile[f.Path] = true
				m.Files = append(m.Files, f)
			}
		}
	}
	for p, n := range named {
		p.Named = n
	}
	joinKube(m, kubes, charts, ranOther, paths, opts)
	onlyTemplates(m, items, results, paths)
	return m, scope
}

// onlyTemplates reports a run whose directory walks found templates and
// nothing else to lint: each template is a note, and a run that lints
// nothing must not pass.
func onlyTemplates(m *model.Model, items []item, results []Result, paths []string) {
	if len(items) == 0 || fatal(m.Diagnostics) {
		return
	}
	var templates []string
	for i, r := range results {
		if !r.template || items[i].explicit {
			return
		}
		templates = append(templates, items[i].path)
	}
	names := strings.Join(templates, ", ")
	if len(templates) > 3 {
		names = fmt.Sprintf("%s and %d more", strings.Join(templates[:3], ", "), len(templates)-3)
	}
	m.Diagnostics = append(m.Diagnostics, loadError(paths[0], fmt.Sprintf(
		"nothing linted: the only configurations found in %s are templates (%s), which are linted once rendered", strings.Join(paths, ", "), names)))
}

// snippetThrough records, on the proxies of a fragment that another
// fragment was linted through, that this one was, with the context it
// has alone (model.Proxy.Snippets): what the fragment's own includer sets
// is not known, and a location-level snippet may be included elsewhere
// too.
func snippetThrough(ep *Result, it item, alone Result) {
	if len(alone.Proxies) == 0 || alone.Proxies[0].Context == "main" {
		return
	}
	for _, f := range ep.Files {
		if realPath(f.Path) != it.real {
			continue
		}
		for _, p := range ep.Proxies {
			p.Snippets = append(p.Snippets, model.Snippet{File: f.Path, Context: alone.Proxies[0].Context})
		}
		return
	}
}

// loadAll reads the items in parallel, one file per available core; the
// loaders share no state, and results keep the items' order.
//
// Once the files read reach opts.MaxTotalSize, the items not yet loaded
// are load errors: the run stops reading instead of running out of memory.
func loadAll(items []item, opts Options, roots []string) []Result {
	results := make([]Result, len(items))
	var total atomic.Int64
	one := func(i int) {
		if n := total.Load(); n > opts.MaxTotalSize {
			results[i] = Result{Diagnostics: []model.Diagnostic{loadError(items[i].path, fmt.Sprintf(
				"%s was not read: the files read before it hold %d bytes, more than the %d allowed in one run (raise the limit with --max-total-size)",
				items[i].path, n, opts.MaxTotalSize))}}
			return
		}
		results[i] = loadOne(items[i], opts, roots)
		for _, f := range results[i].Files {
			total.Add(int64(len(f.Source)))
		}
	}
	workers.Each(len(items), runtime.GOMAXPROCS(0), one)
	return results
}

func loadOne(it item, opts Options, roots []string) Result {
	load, ok := loaderFor(it.kind)
	if !ok {
		return Result{Diagnostics: []model.Diagnostic{loadError(it.path, fmt.Sprintf("%s: %s configurations are not supported", it.path, it.kind))}}
	}
	r := load(it.path, opts, roots)
	if !it.explicit {
		walkedTemplate(&r)
	}
	return r
}

func loadError(path, msg string) model.Diagnostic {
	return model.Diagnostic{Code: nginx.CodeLoad, Severity: model.Error, Pos: model.Pos{File: path}, Message: msg, Fatal: true}
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// includeRoots is the linted tree: the working directory, the directories
// named and those holding the files named, and any roots added by flag.
func includeRoots(paths, extra []string) []string {
	var roots []string
	if wd, err := os.Getwd(); err == nil {
		roots = append(roots, wd)
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			roots = append(roots, p)
		} else {
			roots = append(roots, filepath.Dir(p))
		}
	}
	return append(roots, extra...)
}

func excluded(p string, patterns []string) bool {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	for _, pat := range patterns {
		if abs != p && excluded(abs, []string{pat}) {
			return true
		}
		if ok, _ := filepath.Match(pat, p); ok {
			return true
		}
		if ok, _ := filepath.Match(pat, filepath.Base(p)); ok {
			return true
		}
		if strings.HasSuffix(pat, "/**") && strings.HasPrefix(filepath.ToSlash(p)+"/", strings.TrimSuffix(pat, "**")) {
			return true
		}
	}
	return false
}

// detect tells the kind of a file: forced, or by its structure (a
// parsed first statement nginx accepts, a YAML or JSON document of an
// Envoy shape), never by words in it; the name only says which to try
// first. For a file named explicitly an unknown kind is an error, except
// that a *.conf or nginx.conf that is not Envoy is read as nginx, so that
// its syntax error is reported where it stands; for one found in a
// directory it is "" (not a configuration, skipped).
func detect(path, forced string, explicit bool, maxSize int64) (string, error) {
	return source{}.detect(path, forced, explicit, maxSize)
}

// detect is detect reading through the overlay.
func (s source) detect(path, forced string, explicit bool, maxSize int64) (string, error) {
	if forced != "" {
		return forced, nil
	}
	if helmChart(path) != "" {
		return kindChart, nil
	}
	head := s.head(path, headSize)
	if nginx.IsDump(head) {
		return KindNginx, nil
	}
	base := strings.ToLower(filepath.Base(path))
	ext := filepath.Ext(base)
	envoyFirst := ext == ".yaml" || ext == ".yml" || ext == ".json"
	if envoyFirst && (kube.Detect(head) || kube.DetectLinked(head)) {
		return KindKube, nil
	}
	var isEnvoy, tooDeep, tried bool
	envoyShape := func() (bool, bool) {
		if !tried {
			tried = true
			isEnvoy, tooDeep = s.looksEnvoy(path, head, maxSize)
		}
		return isEnvoy, tooDeep
	}
	nginxName := base == "nginx.conf" || ext == ".conf" || ext == ".nginx" || ext == ".vhost"
	if envoyFirst {
		// A YAML or JSON file nested deeper than the reader follows is
		// read as Envoy's, whose reader says where it got too deep.
		if ok, deep := envoyShape(); ok || deep {
			return KindEnvoy, nil
		}
		if kube.DetectManifest(head) {
			// Manifests of other kinds, skipped once read (joinKube).
			return KindKube, nil
		}
	}
	if looksNginx(head, nginxName) {
		return KindNginx, nil
	}
	if !envoyFirst {
		if ok, deep := envoyShape(); ok || (deep && !nginxName) {
			return KindEnvoy, nil
		}
	}
	if explicit {
		// Named on the command line: an empty file is an empty nginx
		// configuration (nginx reads it), and a file of statements nginx
		// can read whose first directive no table knows (a naxsi rules
		// file, a private module's) is nginx's too.
		if nginxName || nginx.HasTemplate(head) || len(bytes.TrimSpace(head)) == 0 || nginx.Parses(head, headSize) {
			return KindNginx, nil
		}
		if target, ok := linkText(head); ok {
			return "", fmt.Errorf("%s: the file holds only the path %q: a symbolic link checked out as a plain file (git with core.symlinks off)? Lint the file it points to", path, target)
		}
		return "", fmt.Errorf("%s: cannot tell whether this is an nginx or an Envoy configuration; name the kind with --kind nginx or --kind envoy", path)
	}
	return "", nil
}

// linkText reports whether a file's whole content is one path, as git
// writes a symbolic link on a checkout that does not make links.
func linkText(head []byte) (string, bool) {
	s := string(head)
	if len(s) == 0 || len(s) > 4096 || strings.ContainsAny(s, " \t\n\r;{}\x00") || !strings.Contains(s, "/") {
		return "", false
	}
	return s, true
}

// headSize is how much of a file detection reads.
const headSize = 64 << 10

func readHead(path string, n int) []byte {
	f, err := OpenRegular(path)
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }()
	// A file smaller than n needs a buffer of its size only (and one byte
	// more, to see that it ends there): most files are a few KB, and a
	// 64 KB buffer is 16 pages to clear. A size of 0 may be a file that
	// does not say its size (/proc), read as before.
	if st, err := f.Stat(); err == nil && st.Size() > 0 && st.Size() < int64(n) {
		n = int(st.Size()) + 1
	}
	buf := make([]byte, n)
	k, _ := io.ReadFull(f, buf)
	return buf[:k]
}

// looksNginx reports whether the start of a file reads as nginx
// directives (nginx.Detect); one whose name does not say it is nginx
// (sites-available/default, a script in /etc) must parse throughout.
func looksNginx(head []byte, nginxName bool) bool {
	return nginx.Detect(head) && (nginxName || nginx.Parses(head, headSize))
}

// looksEnvoy reports whether the file parses as a YAML or JSON document of
// an Envoy shape, or is one nested too deep to tell (envoy.DetectDepth),
// reading the whole file when its start fills the head.
func looksEnvoy(path string, head []byte, maxSize int64) (ok, tooDeep bool) {
	return source{}.looksEnvoy(path, head, maxSize)
}

// looksEnvoy is looksEnvoy reading through the overlay.
func (s source) looksEnvoy(path string, head []byte, maxSize int64) (ok, tooDeep bool) {
	if bytes.IndexByte(head, 0) >= 0 || len(bytes.TrimSpace(head)) == 0 {
		return false, false
	}
	src := head
	if len(head) == headSize {
		all, err := s.read(path, maxSize)
		if err != nil {
			return false, false
		}
		src = all
	}
	return envoy.DetectDepth(path, src, s.envoyKept)
}

// inScope keeps the diagnostics about files the run concerns.
func inScope(diags []model.Diagnostic, scope *Scope) []model.Diagnostic {
	var out []model.Diagnostic
	for _, d := range diags {
		if d.Fatal || scope.Contains(d.Pos.File) {
			out = append(out, d)
		}
	}
	return out
}
