package nginx

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// FS is what the loader asks of a file system. Options.FS puts one in place
// of the operating system's: the files of an "nginx -T" dump, or standard
// input standing in for one file.
type FS interface {
	// RealPath is the identity of p: absolute, clean, symbolic links
	// resolved; an error when p does not exist.
	RealPath(p string) (string, error)
	// ReadFile reads the regular file whose real path is real.
	ReadFile(real string) ([]byte, error)
	// Glob lists the paths matching a filepath.Match pattern, sorted.
	Glob(pattern string) ([]string, error)
	// Exists reports whether p names anything.
	Exists(p string) bool
}

// partialFS is an FS that may hold only some of a configuration's files:
// an include it cannot find is reported as a note saying so (Lacks returns
// the note; "" when the file is simply missing), not as an error.
type partialFS interface {
	Lacks(name, path string) string
}

// osFS reads the operating system's file system, regular files of at most
// max bytes.
type osFS struct{ max int64 }

func (osFS) RealPath(p string) (string, error)      { return realPath(p) }
func (o osFS) ReadFile(real string) ([]byte, error) { return readRegular(real, o.max) }
func (osFS) Glob(pattern string) ([]string, error)  { return expandGlob(pattern) }
func (osFS) Exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// sys is the file system the loader reads.
func (l *loader) sys() FS {
	if l.opts.FS != nil {
		return l.opts.FS
	}
	return osFS{max: l.opts.MaxFileSize}
}

// regular checks that the main file can be read as a configuration.
func (l *loader) regular(real string) error {
	if l.opts.FS != nil {
		_, err := l.read(real)
		return err
	}
	return regularFile(real, l.opts.MaxFileSize)
}

// lacks reports, as a note, an include that a partial file system does not
// hold; false when the file system is complete and a missing file is an
// error.
func (l *loader) lacks(name, path string, at model.Pos) bool {
	p, ok := l.opts.FS.(partialFS)
	if !ok {
		return false
	}
	msg := p.Lacks(name, path)
	if msg == "" {
		return false
	}
	l.cfg.Diagnostics = append(l.cfg.Diagnostics, model.Diagnostic{
		Code: CodeInclude, Severity: model.Note, Pos: at, Message: msg,
	})
	return true
}

// MemFS is a file system held in memory: absolute, clean paths to
// contents. With Fallback set, what it does not hold is read from the
// operating system; without it, nothing is.
type MemFS struct {
	Files map[string][]byte
	// Fallback reads what Files lacks from the operating system.
	Fallback bool
	// Origin names where the files came from, for the note about an
	// include that is not among them ("the nginx -T dump").
	Origin string
	// Max bounds a file read from the operating system (Fallback);
	// DefaultMaxFileSize when zero.
	Max int64
}

func (m *MemFS) dir(p string) bool {
	if p == string(filepath.Separator) {
		return true
	}
	prefix := p + string(filepath.Separator)
	for f := range m.Files {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

func (m *MemFS) abs(p string) string {
	if !filepath.IsAbs(p) {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
	}
	return filepath.Clean(p)
}

// RealPath implements FS.
func (m *MemFS) RealPath(p string) (string, error) {
	a := m.abs(p)
	if _, ok := m.Files[a]; ok || m.dir(a) {
		return a, nil
	}
	if m.Fallback {
		return realPath(p)
	}
	return "", &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
}

// ReadFile implements FS.
func (m *MemFS) ReadFile(real string) ([]byte, error) {
	if src, ok := m.Files[real]; ok {
		return src, nil
	}
	if m.Fallback {
		max := m.Max
		if max <= 0 {
			max = DefaultMaxFileSize
		}
		return readRegular(real, max)
	}
	if m.dir(real) {
		return nil, &fs.PathError{Op: "read", Path: real, Err: fmt.Errorf("is a directory")}
	}
	return nil, &fs.PathError{Op: "open", Path: real, Err: fs.ErrNotExist}
}

// Glob implements FS: the held files that match, with the operating
// system's matches when it falls back to them.
func (m *MemFS) Glob(pattern string) ([]string, error) {
	pat := goPattern(pattern)
	if _, err := filepath.Match(pat, ""); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for f := range m.Files {
		if ok, _ := filepath.Match(pat, f); ok {
			seen[f] = true
			out = append(out, f)
		}
	}
	if m.Fallback {
		more, err := expandGlob(pattern)
		if err != nil {
			return nil, err
		}
		for _, f := range more {
			if !seen[f] {
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// Exists implements FS.
func (m *MemFS) Exists(p string) bool {
	a := m.abs(p)
	if _, ok := m.Files[a]; ok || m.dir(a) {
		return true
	}
	if m.Fallback {
		_, err := os.Lstat(p)
		return err == nil
	}
	return false
}

// Lacks implements partialFS: only a file system that does not fall back
// on the disk can lack a file the configuration names.
func (m *MemFS) Lacks(name, p string) string {
	if m.Fallback {
		return ""
	}
	return fmt.Sprintf("include %q: %s is not in %s, so it was not linted", name, p, m.Origin)
}

// Dump is an "nginx -T" dump split into its files, in the order nginx read
// them: the main file first.
type Dump struct {
	Paths []string
	Files map[string][]byte
}

// dumpHeader starts each file of an "nginx -T" dump:
//
//	# configuration file /etc/nginx/nginx.conf:
var dumpHeader = []byte("# configuration file ")

// IsDump reports whether src has the shape "nginx -T" writes: nginx's own
// messages on standard error when it was captured too ("nginx: the
// configuration file PATH syntax is ok", "nginx: [warn] ..."; written as
// comments, "# nginx: ...", when the dump was saved as a configuration),
// then the header of the first file, "# configuration file PATH:". nginx
// writes every PATH through ngx_conf_full_name, prefixed with the prefix
// directory, which always ends in a slash (src/core/nginx.c,
// ngx_process_options): a PATH without a slash is a comment that happens
// to begin the same way ("# configuration file for the shop:"), and the
// file is a plain configuration.
func IsDump(src []byte) bool {
	for len(src) > 0 {
		line, rest, _ := bytes.Cut(src, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case nginxMessage(line):
			src = rest
			continue
		default:
			_, ok := dumpHeaderPath(line)
			return ok
		}
	}
	return false
}

// nginxMessage reports whether line is one nginx writes to standard error
// before a dump, as it is or commented out.
func nginxMessage(line []byte) bool {
	if c, ok := bytes.CutPrefix(line, []byte("#")); ok {
		line = bytes.TrimLeft(c, " \t")
	}
	return bytes.HasPrefix(line, []byte("nginx: "))
}

// dumpHeaderPath returns the PATH of a line "# configuration file PATH:"
// as nginx writes it (see IsDump); ok is false for any other line.
func dumpHeaderPath(line []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(line, dumpHeader)
	if !ok {
		return "", false
	}
	p, ok := bytes.CutSuffix(rest, []byte(":"))
	if !ok || len(p) == 0 || bytes.IndexByte(p, '/') < 0 || bytes.HasSuffix(p, []byte("/")) {
		return "", false
	}
	for _, c := range p {
		if c < ' ' || c == 0x7f {
			return "", false
		}
	}
	return string(p), true
}

// SplitDump splits an "nginx -T" dump into its files. nginx writes each
// file as a header line, the file's bytes, and a line feed; relative paths
// in headers (nginx -c with a relative name) are taken from the working
// directory, as nginx took them. Lines before the first header that are
// nginx's own messages are skipped.
func SplitDump(src []byte) (*Dump, error) {
	d := &Dump{Files: map[string][]byte{}}
	var cur string
	var body []byte
	flush := func() {
		if cur == "" {
			return
		}
		// The line feed nginx adds after each file.
		body = bytes.TrimSuffix(body, []byte("\n"))
		if _, dup := d.Files[cur]; !dup {
			d.Paths = append(d.Paths, cur)
			d.Files[cur] = body
		}
	}
	for len(src) > 0 {
		line, rest, found := bytes.Cut(src, []byte("\n"))
		bare := bytes.TrimSuffix(line, []byte("\r"))
		if name, ok := dumpHeaderPath(bare); ok {
			flush()
			if !filepath.IsAbs(name) {
				if a, err := filepath.Abs(name); err == nil {
					name = a
				}
			}
			cur, body = filepath.Clean(name), []byte{}
			src = rest
			continue
		}
		if cur != "" {
			body = append(body, line...)
			if found {
				body = append(body, '\n')
			}
		} else if len(bytes.TrimSpace(bare)) > 0 && !nginxMessage(bare) {
			return nil, fmt.Errorf("line 1: not an nginx -T dump: expected %q before %q", strings.TrimSpace(string(dumpHeader))+" PATH:", truncate(string(bare), 60))
		}
		src = rest
	}
	flush()
	if len(d.Paths) == 0 {
		return nil, fmt.Errorf("not an nginx -T dump: no %q line", strings.TrimSpace(string(dumpHeader))+" PATH:")
	}
	return d, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// LoadDump loads the configuration of an "nginx -T" dump named name (for
// messages): the main file is the first one dumped, includes resolve to the
// dumped copies and never to the disk, and positions are the original
// files' paths and lines. An include whose file the dump lacks is a note.
func LoadDump(name string, src []byte, opts Options) *Config {
	d, err := SplitDump(src)
	if err != nil {
		return &Config{Context: "main", Diagnostics: []model.Diagnostic{{
			Code: CodeLoad, Severity: model.Error, Pos: model.Pos{File: name}, Fatal: true,
			Message: fmt.Sprintf("%s: %v", name, err),
		}}}
	}
	opts.FS = &MemFS{Files: d.Files, Origin: "the nginx -T dump (" + name + ")"}
	opts.Roots = []string{string(filepath.Separator)}
	opts.Prefix = ""
	return Load(d.Paths[0], opts)
}
