package nginx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/proxylint/proxylint/parsers"
)

// Diagnostic codes the nginx loader reports under.
const (
	CodeSyntax  = "nginx-syntax"
	CodeInclude = "nginx-include"
	CodeLoad    = "load-error"
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
}

// Config is a loaded configuration: the main file with its includes
// expanded in place, every file read, and what went wrong.
type Config struct {
	Main  *File
	Files []*File
	// Context is the block the main file's top level belongs in: "main"
	// for a complete nginx.conf, or what a fragment's contents imply
	// ("http", "server", "location", "upstream"; see InferContext).
	Context     string
	Diagnostics []parsers.Diagnostic
	// Syntax is set when a file could not be parsed: the tree is then
	// incomplete and must not be linted.
	Syntax bool
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
	dir := filepath.Dir(path)
	if opts.Prefix == "" {
		opts.Prefix = dir
	}
	if len(opts.Roots) == 0 {
		opts.Roots = []string{dir}
	}
	l := &loader{opts: opts, cfg: &Config{Context: "main"}}
	for _, r := range opts.Roots {
		if real, err := realPath(r); err == nil {
			l.roots = append(l.roots, real)
		}
	}
	real, err := realPath(path)
	if err == nil {
		err = regularFile(real)
	}
	if err != nil {
		l.fatal(CodeLoad, parsers.Pos{File: path}, fmt.Sprintf("cannot read %s: %v", path, unwrapPathError(err)))
		return l.cfg
	}
	l.open = append(l.open, real)
	f, pending := l.parse(path, real, parentUnknown, 0, parsers.Pos{})
	if f == nil || l.cfg.Syntax {
		l.cfg.Main = f
		return l.cfg
	}
	l.cfg.Main = f
	l.cfg.Context = InferContext(f.Directives)
	l.resolve(pending)
	return l.cfg
}

type loader struct {
	opts  Options
	roots []string
	cfg   *Config
	// open holds the real paths of the files being read, outermost
	// first, to detect include cycles.
	open []string
}

func (l *loader) fatal(code string, pos parsers.Pos, msg string) {
	l.cfg.Diagnostics = append(l.cfg.Diagnostics, parsers.Diagnostic{
		Code: code, Severity: parsers.Error, Pos: pos, Message: msg, Fatal: true,
	})
}

// parse reads and parses one file; from is the include that named it.
func (l *loader) parse(path, real, parent string, depth int, from parsers.Pos) (*File, []pendingInclude) {
	src, err := os.ReadFile(real)
	if err != nil {
		pos := from
		if !pos.IsValid() {
			pos = parsers.Pos{File: path}
		}
		l.fatal(CodeInclude, pos, fmt.Sprintf("cannot read %s: %v", path, unwrapPathError(err)))
		return nil, nil
	}
	f, pending, perr := parseFile(path, src, parent, depth, l.opts.MaxDepth)
	l.cfg.Files = append(l.cfg.Files, f)
	if perr != nil {
		l.cfg.Syntax = true
		l.fatal(CodeSyntax, perr.Pos, perr.Msg)
	}
	return f, pending
}

// resolve reads the files that a file's include directives name, in order,
// and then theirs. It stops at the first syntax error, as nginx does.
func (l *loader) resolve(pending []pendingInclude) {
	for _, p := range pending {
		l.include(p)
		if l.cfg.Syntax {
			return
		}
	}
}

// include resolves an include directive the way ngx_conf_include does and
// parses the files it names in place.
func (l *loader) include(p pendingInclude) {
	d := p.d
	if len(d.Args) != 1 {
		l.fatal(CodeSyntax, d.Pos, fmt.Sprintf("invalid number of arguments in \"include\" directive (%d, want 1)", len(d.Args)))
		l.cfg.Syntax = true
		return
	}
	name := d.Args[0].Value
	at := d.Args[0].Pos
	if p.depth+1 > l.opts.MaxDepth {
		l.fatal(CodeSyntax, at, fmt.Sprintf("blocks and includes nested deeper than %d levels", l.opts.MaxDepth))
		l.cfg.Syntax = true
		return
	}
	paths, ok := l.expand(name, at)
	if !ok {
		return
	}
	for _, path := range paths {
		real, err := realPath(path)
		if err != nil {
			l.fatal(CodeInclude, at, fmt.Sprintf("include %q: %v", name, unwrapPathError(err)))
			continue
		}
		if !l.inRoots(real) {
			l.cfg.Diagnostics = append(l.cfg.Diagnostics, parsers.Diagnostic{
				Code: CodeInclude, Severity: parsers.Note, Pos: at,
				Message: fmt.Sprintf("include %q: %s is outside the linted tree and was not read (widen it with --include-root)", name, path),
			})
			continue
		}
		if err := regularFile(real); err != nil {
			l.fatal(CodeInclude, at, fmt.Sprintf("include %q: %s: %v", name, path, err))
			continue
		}
		if cycle := l.cycle(real); cycle != "" {
			l.fatal(CodeInclude, at, fmt.Sprintf("include cycle: %s", cycle))
			continue
		}
		l.open = append(l.open, real)
		f, pending := l.parse(path, real, p.parent, p.depth+1, at)
		if f != nil {
			d.Included = append(d.Included, f)
			if !l.cfg.Syntax {
				l.resolve(pending)
			}
		}
		l.open = l.open[:len(l.open)-1]
		if l.cfg.Syntax {
			return
		}
	}
}

// expand turns an include argument into the paths to read: a glob's sorted
// matches (none is fine, as for nginx), or the one path. A relative path
// resolves against the prefix; in a fragment, whose prefix is unknown, a
// path missing there is looked for in the parent directories too.
func (l *loader) expand(name string, at parsers.Pos) ([]string, bool) {
	glob := strings.ContainsAny(name, "*?[")
	candidates := []string{name}
	if !filepath.IsAbs(name) {
		candidates = []string{filepath.Join(l.opts.Prefix, name)}
		if l.cfg.Fragment() {
			for dir := filepath.Dir(l.opts.Prefix); ; dir = filepath.Dir(dir) {
				real, err := realPath(dir)
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
			if _, err := os.Lstat(c); err == nil {
				return []string{c}, true
			}
			continue
		}
		matches, err := filepath.Glob(c)
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
	if l.cfg.Fragment() {
		l.cfg.Diagnostics = append(l.cfg.Diagnostics, parsers.Diagnostic{
			Code: CodeInclude, Severity: parsers.Warning, Pos: at,
			Message: fmt.Sprintf("include %q was not found next to this fragment or in the directories above it, so it was not linted; lint the main nginx.conf that includes this file to follow it", name),
		})
		return nil, false
	}
	l.fatal(CodeInclude, at, fmt.Sprintf("include %q: %s does not exist", name, candidates[0]))
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

func (l *loader) inRoots(real string) bool {
	for _, r := range l.roots {
		if real == r || strings.HasPrefix(real, r+string(filepath.Separator)) || r == string(filepath.Separator) {
			return true
		}
	}
	return false
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

// regularFile refuses directories, FIFOs, devices and sockets: reading a
// FIFO would hang, a device would never end.
func regularFile(real string) error {
	fi, err := os.Stat(real)
	if err != nil {
		return unwrapPathError(err)
	}
	switch m := fi.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return errors.New("is a directory")
	default:
		return fmt.Errorf("not a regular file (%s)", m.Type())
	}
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
