package nginx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"

	"github.com/proxylint/proxylint/internal/regular"
	"github.com/proxylint/proxylint/internal/workers"
	"github.com/proxylint/proxylint/model"
)

// Diagnostic codes the nginx loader reports under.
const (
	CodeSyntax  = model.CodeNginxSyntax
	CodeInclude = model.CodeNginxInclude
	CodeLoad    = model.CodeLoad
)

// Options control how a configuration is loaded.
type Options struct {
	// Roots are the directories files may be read from; an include that
	// resolves (symbolic links followed) outside all of them is not read.
	// Empty means the main file's directory.
	Roots []string
	// Prefix is the directory relative include paths resolve against, as
	// nginx resolves them against its configuration prefix. Empty means
	// the main file's directory.
	Prefix string
	// MaxDepth bounds the nesting of blocks and includes (DefaultMaxDepth
	// when zero).
	MaxDepth int
	// MaxFileSize bounds one file (DefaultMaxFileSize when zero).
	MaxFileSize int64
	// MaxIncludes bounds how many included files are parsed, and
	// sharedPerParse times as many the inclusions in all; MaxIncludeBytes
	// bounds the bytes include directives pull in, each inclusion counted
	// (DefaultMaxIncludes, DefaultMaxIncludeBytes when zero). A file that
	// includes nothing, included again in the same kind of block at the
	// same depth, is not parsed again but shares the tree of its first
	// inclusion: a snippet included in every location costs its bytes and
	// an inclusion, not a parse, while files that include each other over
	// and over are parsed at every inclusion and stop at MaxIncludes.
	MaxIncludes     int
	MaxIncludeBytes int64
	// FS is read instead of the operating system's file system when set
	// (dump.go).
	FS FS
}

// sharedPerParse is how many inclusions the budget allows for each parse
// it allows: an inclusion that shares an earlier parse costs a small part
// of one, but an empty file included through two files that include it and
// each other thousands of times would otherwise cost memory for every
// inclusion with nothing to stop it.
const sharedPerParse = 100

// Default budgets of one configuration.
const (
	DefaultMaxFileSize     = 64 << 20
	DefaultMaxIncludes     = 10000
	DefaultMaxIncludeBytes = 256 << 20
)

// Config is a loaded configuration: the main file with its includes
// expanded in place, every file read, and what went wrong.
type Config struct {
	Main  *File
	Files []*File
	// Context is the block the main file's top level belongs in: "main"
	// for a complete nginx.conf, or what a fragment's contents imply
	// ("http", "server", "location", "upstream"; see InferContext).
	Context     string
	Diagnostics []model.Diagnostic
	// Syntax is set when a file could not be parsed: the tree is then
	// incomplete and must not be linted.
	Syntax bool
	// Unread lists the include directives whose files were not read.
	Unread []UnreadInclude
	// Template is set when a file read is a template of a configuration
	// rather than one (detect.go): one diagnostic says so.
	Template bool
	// RefusedFrom is set by Check when only the releases of a target
	// range from this one on refuse the configuration (a directive nginx
	// removed inside the range): the refusals are errors that are not
	// fatal, and the configuration is built for the older releases.
	RefusedFrom model.Version
}

// UnreadInclude is an include directive whose files were not read: outside
// the linted tree, or not found next to a fragment.
type UnreadInclude struct {
	Pos  model.Pos
	Name string
	// Parent is the block the include stands in ("http", "server", ...;
	// "*" at the top level of the main file).
	Parent string
}

// UpstreamsUnread reports whether an include that was not read could
// declare upstream blocks, which nginx allows only in the http block: an
// include at the top level or in http, unless it names a MIME types table
// (mime.types, *.types), which holds a types block and nothing else.
func (c *Config) UpstreamsUnread() bool {
	for _, u := range c.Unread {
		if (u.Parent == "http" || u.Parent == parentUnknown || u.Parent == parentMain) && !strings.HasSuffix(u.Name, ".types") {
			return true
		}
	}
	return false
}

// SettingsUnread reports whether an include that was not read could hold
// directives a block inherits (a *.types file holds only types).
func (c *Config) SettingsUnread() bool {
	for _, u := range c.Unread {
		if !strings.HasSuffix(u.Name, ".types") {
			return true
		}
	}
	return false
}

// Fragment reports whether the main file is a piece of a configuration
// rather than a whole nginx.conf.
func (c *Config) Fragment() bool { return c.Context != "main" }

// Load reads the configuration whose main file is path and every file it
// includes. It never panics; problems are diagnostics with positions.
func Load(path string, opts Options) *Config {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	if opts.MaxIncludes <= 0 {
		opts.MaxIncludes = DefaultMaxIncludes
	}
	if opts.MaxIncludeBytes <= 0 {
		opts.MaxIncludeBytes = DefaultMaxIncludeBytes
	}
	dir := filepath.Dir(path)
	if opts.Prefix == "" {
		opts.Prefix = dir
	}
	if len(opts.Roots) == 0 {
		opts.Roots = []string{dir}
	}
	l := &loader{
		opts: opts, cfg: &Config{Context: "main"},
		reals: map[string]fsResult[string]{}, reads: map[string]fsResult[[]byte]{},
		exists: map[string]bool{}, globs: map[string]fsResult[[]string]{},
	}
	for _, r := range opts.Roots {
		if real, err := l.realPath(r); err == nil {
			l.roots = append(l.roots, real)
		}
	}
	real, err := l.realPath(path)
	if err == nil {
		err = l.regular(real)
	}
	if err != nil {
		l.fatal(CodeLoad, model.Pos{File: path}, fmt.Sprintf("cannot read %s: %v", path, unwrapPathError(err)))
		return l.cfg
	}
	l.open = append(l.open, real)
	f, pending, perr := l.parse(path, real, parentUnknown, 0, model.Pos{})
	l.cfg.Main = f
	if f == nil {
		return l.cfg
	}
	l.cfg.Context = InferContext(f.Directives)
	l.finish(pending, perr)
	return l.cfg
}

type loader struct {
	opts  Options
	roots []string
	cfg   *Config
	// open holds the real paths of the files being read, outermost
	// first, to detect include cycles.
	open []string

	// What the file system said, by path: files do not change while a
	// configuration loads, and a snippet may be included thousands of
	// times.
	reals  map[string]fsResult[string]
	reads  map[string]fsResult[[]byte]
	exists map[string]bool
	globs  map[string]fsResult[[]string]
	// parsed holds the directives of included files that parsed whole
	// and include nothing themselves, by where they were read: a snippet
	// read again in the same kind of block at the same depth parses to
	// the same tree, which the inclusions share (nothing changes a tree
	// once it is read).
	parsed map[parseKey]*File
	// ahead holds the files of an include that were parsed side by side
	// before the include reads them in order (see parseAhead).
	ahead map[parseKey]parseResult

	// includes counts the included files parsed, inclusions every
	// inclusion, and includeBytes the bytes of every inclusion, against
	// the budgets of Options (inclusions against sharedPerParse times
	// MaxIncludes).
	includes     int
	inclusions   int
	includeBytes int64
}

// parseKey says what a file's parse depends on: its bytes (by its real
// path), the path its positions name, the block it is read in and its
// nesting depth.
type parseKey struct {
	path, real, parent string
	depth              int
}

// parseResult is what parseFile returns.
type parseResult struct {
	f       *File
	pending []pendingInclude
	err     *Error
}

type fsResult[T any] struct {
	v   T
	err error
}

// cached returns m[key], computing it with f the first time.
func cached[T any](m map[string]fsResult[T], key string, f func(string) (T, error)) (T, error) {
	r, ok := m[key]
	if !ok {
		r.v, r.err = f(key)
		m[key] = r
	}
	return r.v, r.err
}

func (l *loader) realPath(p string) (string, error) { return cached(l.reals, p, l.sys().RealPath) }
func (l *loader) read(real string) ([]byte, error)  { return cached(l.reads, real, l.sys().ReadFile) }
func (l *loader) glob(p string) ([]string, error)   { return cached(l.globs, p, l.sys().Glob) }

func (l *loader) exist(p string) bool {
	e, ok := l.exists[p]
	if !ok {
		e = l.sys().Exists(p)
		l.exists[p] = e
	}
	return e
}

func (l *loader) fatal(code model.Code, pos model.Pos, msg string) {
	l.cfg.Diagnostics = append(l.cfg.Diagnostics, model.Diagnostic{
		Code: code, Severity: model.Error, Pos: pos, Message: msg, Fatal: true,
	})
}

// parse reads and parses one file; from is the include that named it. It
// returns the file's include directives, which are still to be read, and
// its syntax error, which is still to be reported (see finish).
func (l *loader) parse(path, real, parent string, depth int, from model.Pos) (*File, []pendingInclude, *Error) {
	src, err := l.read(real)
	if err != nil {
		pos := from
		if !pos.IsValid() {
			pos = model.Pos{File: path}
		}
		l.fatal(CodeInclude, pos, fmt.Sprintf("cannot read %s: %v", path, unwrapPathError(err)))
		return nil, nil, nil
	}
	key := parseKey{path: path, real: real, parent: parent, depth: depth}
	if f, ok := l.parsed[key]; ok {
		// A file of its own, sharing the directives and comments.
		f := &File{Path: f.Path, Real: f.Real, Source: f.Source, Directives: f.Directives, Comments: f.Comments}
		l.cfg.Files = append(l.cfg.Files, f)
		return f, nil, nil
	}
	var f *File
	var pending []pendingInclude
	var perr *Error
	if r, ok := l.ahead[key]; ok {
		delete(l.ahead, key)
		f, pending, perr = r.f, r.pending, r.err
	} else {
		f, pending, perr = parseFile(path, src, parent, depth, l.opts.MaxDepth)
	}
	f.Real = real
	l.cfg.Files = append(l.cfg.Files, f)
	if pos, what, ok := templateIn(f); ok {
		l.template(pos, what)
		return nil, nil, nil
	}
	if d, i, ok := envTemplate(f.Directives); ok {
		pos := d.Pos
		if i >= 0 {
			pos = d.ArgPos(i)
		}
		l.template(pos, "${NAME} placeholders where nginx reads no variables")
		return nil, nil, nil
	}
	if d, i, ok := envsubstTemplate(path, f.Directives); ok {
		pos := d.Pos
		if i >= 0 {
			pos = d.ArgPos(i)
		}
		l.template(pos, "${NAME} placeholders of a .template file, which envsubst renders, as the nginx image does with /etc/nginx/templates")
		return nil, nil, nil
	}
	if len(pending) == 0 && perr == nil && depth > 0 {
		if l.parsed == nil {
			l.parsed = map[parseKey]*File{}
		}
		l.parsed[key] = f
	}
	return f, pending, perr
}

// finish reads the files that a file's include directives name, in order,
// and then reports the file's own syntax error, if any. nginx reads an
// included file where the include directive stands, and stops at the first
// error: every include directive the parser collected comes before the
// file's syntax error, so an error in an included file is met first.
func (l *loader) finish(pending []pendingInclude, perr *Error) {
	for _, p := range pending {
		l.include(p)
		if l.cfg.Syntax {
			return
		}
	}
	if perr != nil {
		l.cfg.Syntax = true
		l.fatal(CodeSyntax, perr.Pos, perr.Msg)
	}
}

// include resolves an include directive the way ngx_conf_include does and
// parses the files it names in place.
func (l *loader) include(p pendingInclude) {
	d := p.d
	if len(d.Args) != 1 {
		// At the ";", as nginx reports it.
		l.fatal(CodeSyntax, d.End(), fmt.Sprintf("invalid number of arguments in \"include\" directive (%d, want 1)", len(d.Args)))
		l.cfg.Syntax = true
		return
	}
	name := d.Args[0].Value
	at := d.ArgPos(0)
	if p.depth+1 > l.opts.MaxDepth {
		l.fatal(CodeSyntax, at, fmt.Sprintf("blocks and includes nested deeper than %d levels", l.opts.MaxDepth))
		l.cfg.Syntax = true
		return
	}
	resolved := name
	if !filepath.IsAbs(name) {
		resolved = filepath.Join(l.opts.Prefix, name)
	}
	if (filepath.IsAbs(name) || !l.cfg.Fragment()) && !l.lexicallyInRoots(resolved) {
		// Outside the tree, the file is not looked at, not even to see
		// whether it exists: the result must not depend on the machine
		// that lints.
		l.unread(p, at, fmt.Sprintf("include %q: %s is outside the linted tree and was not read (widen it with --include-root)", name, filepath.Clean(resolved)))
		return
	}
	paths, ok := l.expand(name, at)
	if !ok {
		l.cfg.Unread = append(l.cfg.Unread, UnreadInclude{Pos: at, Name: name, Parent: p.parent})
		return
	}
	l.parseAhead(paths, p)
	for _, path := range paths {
		real, err := l.realPath(path)
		if err != nil {
			l.fatal(CodeInclude, at, fmt.Sprintf("include %q: %v", name, unwrapPathError(err)))
			continue
		}
		if !l.inRoots(real) {
			where := path
			if abs, err := filepath.Abs(path); err == nil && abs != real {
				where = fmt.Sprintf("%s (a symbolic link to %s)", path, real)
			}
			l.unread(p, at, fmt.Sprintf("include %q: %s is outside the linted tree and was not read (widen it with --include-root)", name, where))
			continue
		}
		if _, err := l.read(real); err != nil {
			l.fatal(CodeInclude, at, fmt.Sprintf("include %q: %s: %v", name, path, unwrapPathError(err)))
			continue
		}
		if cycle := l.cycle(real); cycle != "" {
			l.fatal(CodeInclude, at, fmt.Sprintf("include cycle: %s", cycle))
			continue
		}
		if !l.budget(parseKey{path: path, real: real, parent: p.parent, depth: p.depth + 1}, at) {
			return
		}
		l.open = append(l.open, real)
		f, pending, perr := l.parse(path, real, p.parent, p.depth+1, at)
		if f != nil {
			d.include(f)
			l.finish(pending, perr)
		}
		l.open = l.open[:len(l.open)-1]
		if l.cfg.Syntax {
			return
		}
	}
}

// parseAhead parses the files an include names (a glob's matches) side
// by side on the available cores, before include reads them in order; parse
// then takes each tree from l.ahead as if it had parsed the file there, so
// the result is the same as reading them one after the other. Only files
// that include would parse are parsed ahead: readable, inside the tree, not
// already shared, and within what is left of the budgets.
func (l *loader) parseAhead(paths []string, p pendingInclude) {
	k := runtime.GOMAXPROCS(0)
	if len(paths) < 2 || k < 2 {
		return
	}
	type job struct {
		key parseKey
		src []byte
	}
	var jobs []job
	includes, inclusions, size := l.includes, l.inclusions, l.includeBytes
	for _, path := range paths {
		real, err := l.realPath(path)
		if err != nil || !l.inRoots(real) {
			continue
		}
		src, err := l.read(real)
		if err != nil {
			continue
		}
		key := parseKey{path: path, real: real, parent: p.parent, depth: p.depth + 1}
		_, shared := l.parsed[key]
		if !shared {
			includes++
		}
		inclusions++
		size += int64(len(src))
		if includes > l.opts.MaxIncludes || inclusions > sharedPerParse*l.opts.MaxIncludes || size > l.opts.MaxIncludeBytes {
			break
		}
		if shared {
			continue
		}
		jobs = append(jobs, job{key, src})
	}
	if len(jobs) < 2 {
		return
	}
	results := make([]parseResult, len(jobs))
	workers.Each(len(jobs), k, func(i int) {
		j := jobs[i]
		f, pending, perr := parseFile(j.key.path, j.src, j.key.parent, j.key.depth, l.opts.MaxDepth)
		results[i] = parseResult{f, pending, perr}
	})
	if l.ahead == nil {
		l.ahead = map[parseKey]parseResult{}
	}
	for i, j := range jobs {
		l.ahead[j.key] = results[i]
	}
}

// budget counts one more inclusion of the file key names, and reports at
// the include directive and stops the configuration when it exceeds the
// budget on included files parsed, on inclusions or on the bytes of all
// inclusions: files that include each other's neighbours several times over
// expand exponentially. An inclusion that shares an earlier parse
// (l.parsed) counts as an inclusion and by its bytes, not as a parse.
func (l *loader) budget(key parseKey, at model.Pos) bool {
	src, _ := l.read(key.real)
	if _, shared := l.parsed[key]; !shared {
		l.includes++
	}
	l.inclusions++
	l.includeBytes += int64(len(src))
	var msg string
	switch {
	case l.includes > l.opts.MaxIncludes:
		msg = fmt.Sprintf("more than %d included files parsed (inclusions that share an earlier parse not counted); the configuration was not read further (raise the limit with --max-includes)", l.opts.MaxIncludes)
	case l.inclusions > sharedPerParse*l.opts.MaxIncludes:
		msg = fmt.Sprintf("more than %d inclusions (%d for each included file --max-includes allows to be parsed); the configuration was not read further (raise the limit with --max-includes)", sharedPerParse*l.opts.MaxIncludes, sharedPerParse)
	case l.includeBytes > l.opts.MaxIncludeBytes:
		msg = fmt.Sprintf("includes expand to more than %d bytes (each inclusion counted); the configuration was not read further (raise the limit with --max-total-size)", l.opts.MaxIncludeBytes)
	default:
		return true
	}
	l.fatal(CodeInclude, at, msg)
	l.cfg.Syntax = true
	return false
}

// expand turns an include argument into the paths to read: a glob's sorted
// matches (none is fine, as for nginx), or the one path. A relative path
// resolves against the prefix; in a fragment, whose prefix is unknown, a
// path missing there is looked for in the parent directories too.
func (l *loader) expand(name string, at model.Pos) ([]string, bool) {
	glob := strings.ContainsAny(name, "*?[")
	candidates := []string{name}
	if !filepath.IsAbs(name) {
		candidates = []string{filepath.Join(l.opts.Prefix, name)}
		if l.cfg.Fragment() {
			for dir := filepath.Dir(l.opts.Prefix); ; dir = filepath.Dir(dir) {
				real, err := l.realPath(dir)
				if err != nil || !l.inRoots(real) {
					break
				}
				candidates = append(candidates, filepath.Join(dir, name))
				if dir == filepath.Dir(dir) {
					break
				}
			}
		}
	}
	for _, c := range candidates {
		if !glob {
			if l.exist(c) {
				return []string{c}, true
			}
			continue
		}
		matches, err := l.glob(c)
		var unlistable *errUnlistable
		if errors.As(err, &unlistable) {
			l.fatal(CodeInclude, at, fmt.Sprintf("include %q: %v", name, err))
			return nil, false
		}
		if err != nil {
			l.fatal(CodeInclude, at, fmt.Sprintf("include %q: bad pattern: %v", name, err))
			return nil, false
		}
		var out []string
		for _, m := range matches {
			if !hiddenMatch(c, m) {
				out = append(out, m)
			}
		}
		if len(out) > 0 || !l.cfg.Fragment() {
			return out, true
		}
	}
	if glob {
		return nil, true
	}
	if installedFiles[filepath.ToSlash(filepath.Clean(name))] {
		// nginx's packages install these next to nginx.conf; a
		// repository that keeps only its own files leaves them out.
		l.cfg.Diagnostics = append(l.cfg.Diagnostics, model.Diagnostic{
			Code: CodeInclude, Severity: model.Note, Pos: at,
			Message: fmt.Sprintf("include %q is a file nginx's packages install next to nginx.conf, and it is not in the linted tree, so it was not linted", name),
		})
		return nil, false
	}
	if l.cfg.Fragment() {
		l.cfg.Diagnostics = append(l.cfg.Diagnostics, model.Diagnostic{
			Code: CodeInclude, Severity: model.Warning, Pos: at,
			Message: fmt.Sprintf("include %q was not found next to this fragment or in the directories above it, so it was not linted; where the configuration that includes this file is in the tree, name it in entry-points in .proxylint.yaml (or lint it) so that its includes are followed from its directory", name),
		})
		return nil, false
	}
	if !l.lacks(name, candidates[0], at) {
		l.fatal(CodeInclude, at, fmt.Sprintf("include %q: %s does not exist", name, candidates[0]))
	}
	return nil, false
}

// cycle describes the include chain that leads back to real, or "".
func (l *loader) cycle(real string) string {
	for i, o := range l.open {
		if o == real {
			chain := make([]string, 0, len(l.open)-i+1)
			for _, p := range l.open[i:] {
				chain = append(chain, filepath.Base(p))
			}
			chain = append(chain, filepath.Base(real))
			return strings.Join(chain, " -> ")
		}
	}
	return ""
}

// unread notes an include whose file is outside the tree.
func (l *loader) unread(p pendingInclude, at model.Pos, msg string) {
	l.cfg.Unread = append(l.cfg.Unread, UnreadInclude{Pos: at, Name: p.d.Args[0].Value, Parent: p.parent})
	l.cfg.Diagnostics = append(l.cfg.Diagnostics, model.Diagnostic{Code: CodeInclude, Severity: model.Note, Pos: at, Message: msg})
}

// lexicallyInRoots reports whether the absolute path p lies in the tree,
// by its name alone.
func (l *loader) lexicallyInRoots(p string) bool {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	for _, r := range l.opts.Roots {
		if abs, err := filepath.Abs(r); err == nil && (p == abs || strings.HasPrefix(p, abs+string(filepath.Separator)) || abs == string(filepath.Separator)) {
			return true
		}
	}
	return l.inRoots(p)
}

func (l *loader) inRoots(real string) bool {
	for _, r := range l.roots {
		if real == r || strings.HasPrefix(real, r+string(filepath.Separator)) || r == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// glob expands a pattern as glob(3) does for nginx: the matches sorted in
// byte order (of the whole path), "[!...]" negates a class, "]" right after
// "[" or "[!" is a member, and a "[" that opens no class is literal.
//
// filepath.Glob passes over directories it cannot read, as glob(3)
// without GLOB_ERR does for nginx, which then reads nothing. A lint that
// read nothing there must not pass, so the directory a pattern lists is
// checked first: one that exists but cannot be listed is an error, not a
// glob matching nothing.
func expandGlob(pattern string) ([]string, error) {
	p := goPattern(pattern)
	if _, err := filepath.Match(p, ""); err != nil {
		return nil, err
	}
	if err := listable(staticDir(p)); err != nil {
		return nil, err
	}
	matches, err := filepath.Glob(p)
	sort.Strings(matches)
	return matches, err
}

// errUnlistable marks a directory a glob cannot list.
type errUnlistable struct {
	dir string
	err error
}

func (e *errUnlistable) Error() string {
	return fmt.Sprintf("cannot list directory %s: %v", e.dir, unwrapPathError(e.err))
}

// staticDir is the directory part of a pattern before its first wildcard.
func staticDir(p string) string {
	i := strings.IndexAny(p, "*?[")
	if i < 0 {
		return filepath.Dir(p)
	}
	return filepath.Dir(p[:i] + "x")
}

// listable reports why dir, which exists, cannot be listed; nil when it
// can or does not exist (a glob then matches nothing, as for nginx).
func listable(dir string) error {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		_, err = f.Readdirnames(1)
		_ = f.Close()
		if err == nil || errors.Is(err, io.EOF) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
	}
	if errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	return &errUnlistable{dir, err}
}

// goPattern translates a glob(3) pattern to filepath.Match syntax.
func goPattern(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\\':
			b.WriteByte(c)
			if i+1 < len(p) {
				i++
				b.WriteByte(p[i])
			}
		case '[':
			j := i + 1
			negate := j < len(p) && (p[j] == '!' || p[j] == '^')
			if negate {
				j++
			}
			first := j
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' && p[j] != '/' {
				j++
			}
			if j >= len(p) || p[j] != ']' {
				b.WriteString(`\[`)
				continue
			}
			b.WriteByte('[')
			if negate {
				b.WriteByte('^')
			}
			for _, m := range []byte(p[first:j]) {
				if m == ']' {
					b.WriteByte('\\')
				}
				b.WriteByte(m)
			}
			b.WriteByte(']')
			i = j
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// hiddenMatch reports whether a glob match is a dot file that glob(3), as
// nginx calls it, would not have matched: a wildcard never matches a
// leading dot.
func hiddenMatch(pattern, match string) bool {
	pp := strings.Split(filepath.ToSlash(pattern), "/")
	mp := strings.Split(filepath.ToSlash(match), "/")
	if len(pp) != len(mp) {
		return false
	}
	for i := range pp {
		if strings.HasPrefix(mp[i], ".") && !strings.HasPrefix(pp[i], ".") {
			return true
		}
	}
	return false
}

func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

func regularFile(real string, max int64) error { return regular.Stat(real, max) }

func readRegular(path string, max int64) ([]byte, error) { return regular.Read(path, max) }

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// installedFiles are the files nginx's packages install in the conf
// directory, by their path relative to it, which is how a relative include
// names them (nginx's conf/ in its source tree: mime.types, the *_params
// files, fastcgi.conf and the charset maps; Debian's nginx-common adds
// proxy_params and two snippets). Only these exact paths: conf/mime.types
// or a fastcgi_params in another directory is no file a package installs,
// and nginx -t fails when it is missing.
var installedFiles = map[string]bool{
	"mime.types": true, "fastcgi_params": true, "fastcgi.conf": true, "uwsgi_params": true,
	"scgi_params": true, "proxy_params": true, "koi-utf": true, "koi-win": true, "win-utf": true,
	"snippets/fastcgi-php.conf": true, "snippets/snakeoil.conf": true,
}
