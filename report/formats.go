package report

import (
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// Format is one way of writing a report on T: its name on the command line
// (--format NAME), its writer, and whether the writer colours its output
// when asked (only for a terminal).
type Format[T any] struct {
	Name  string
	Color bool
	Write func(w io.Writer, in T, color bool) error
}

// Formats is a registry of report formats, in the order --help names them.
type Formats[T any] []Format[T]

// Lookup returns the format called name.
func (r Formats[T]) Lookup(name string) (Format[T], bool) {
	for _, f := range r {
		if f.Name == name {
			return f, true
		}
	}
	return Format[T]{}, false
}

// Names lists the formats' names.
func (r Formats[T]) Names() []string {
	out := make([]string, len(r))
	for i, f := range r {
		out[i] = f.Name
	}
	return out
}

// LintFormats are the formats of a lint run's findings.
var LintFormats = Formats[*Input]{
	{Name: "text", Color: true, Write: Text},
	{Name: "json", Write: func(w io.Writer, in *Input, _ bool) error { return JSON(w, in) }},
	{Name: "sarif", Write: func(w io.Writer, in *Input, _ bool) error { return SARIF(w, in) }},
	{Name: "github", Write: func(w io.Writer, in *Input, _ bool) error { return GitHub(w, in) }},
	{Name: "checkstyle", Write: func(w io.Writer, in *Input, _ bool) error { return Checkstyle(w, in) }},
	{Name: "junit", Write: func(w io.Writer, in *Input, _ bool) error { return JUnit(w, in) }},
	{Name: "gitlab", Write: func(w io.Writer, in *Input, _ bool) error { return GitLab(w, in) }},
}

// rootPath expresses path relative to the repository root (Input.Root),
// with forward slashes, for the formats a CI system reads against its
// checkout (SARIF, GitHub workflow commands): a relative path is first
// taken from the working directory. Without a root, or for a file outside
// it, it is RelPath's.
func (in *Input) rootPath(path string) string {
	if in.Root == "" || path == "" {
		return in.RelPath(path)
	}
	abs := path
	if !filepath.IsAbs(abs) {
		if in.Dir == "" {
			return in.RelPath(path)
		}
		abs = filepath.Join(in.Dir, abs)
	}
	rel, err := filepath.Rel(in.Root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(filepath.Clean(abs))
	}
	return filepath.ToSlash(rel)
}

// rootPosText is a position as "file:line:col" with the file relative to
// the repository root.
func (in *Input) rootPosText(p model.Pos) string {
	q := p
	q.File = in.rootPath(p.File)
	return q.String()
}

// srcRootURI is the absolute file URI of the directory %SRCROOT% stands
// for, ending in "/" as SARIF requires; "" when unknown.
func (in *Input) srcRootURI() string {
	root := in.Root
	if root == "" {
		root = in.Dir
	}
	if root == "" || !filepath.IsAbs(root) {
		return ""
	}
	p := filepath.ToSlash(root)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows drive letters
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// numericVersion is the dotted numeric part of a version, as SARIF
// viewers expect a tool's version ("0.2.0" of "0.2.0" or of the
// pseudo-version "0.2.1-0.20261201120000-962ec51abcde"); "0.0.0" for a
// build that has none, such as a commit built from a checkout.
func numericVersion(v string) string {
	core, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), "+")
	core, _, _ = strings.Cut(core, "-")
	parts := strings.Split(core, ".")
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return "0.0.0"
		}
	}
	return core
}
