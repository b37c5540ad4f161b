// Package report writes findings for people and machines: compiler-style
// text, a stable JSON document, SARIF 2.1.0 and GitHub workflow commands.
// Reporters know findings and source files, nothing about proxies.
package report

import (
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// Input is everything a reporter needs.
type Input struct {
	Findings []rules.Finding
	// Files are the sources read, to quote the lines findings point at.
	Files []*model.File
	// Rules are the registered rules (SARIF lists them all).
	Rules []*rules.Rule
	// Tool version, for documents that carry it.
	Version string
	// Dir is the working directory: file paths are reported relative to
	// it where possible.
	Dir string
	// Root is the repository root: SARIF and GitHub output name files
	// relative to it (formats.go); empty means Dir.
	Root string
	// Targets name the releases the configurations were linted for, one
	// per product linted ("nginx 1.18 or newer").
	Targets []string
	// Read says what the run read: configuration files named or found,
	// files pulled in by includes, and includes not followed (each a
	// finding that says why).
	Read ReadStats
	// Verbose asks the text report to say what was read even when it
	// shows no finding.
	Verbose bool
	// FailOn is the severity at which a finding fails the run (0: every
	// finding does): the JUnit report fails those test cases and passes
	// the others.
	FailOn model.Severity
	// Quiet leaves out of the text and github reports everything but
	// the findings: what was read, the targets and the summary.
	Quiet bool
	// Known counts findings hidden by a baseline.
	Known int
	// Skipped counts the files directory walks left out (not
	// configurations, excluded, not regular files).
	Skipped int
	// Diagnostics are the loaders' problems; the fatal ones (a file that
	// could not be loaded) make SARIF's invocation unsuccessful.
	Diagnostics []model.Diagnostic

	sources map[string]string
	lines   map[string][]int
	// rels caches RelPath: a report names a few files many times.
	rels map[string]string
	// norm caches each flagged line's text as fingerprints see it, so
	// that many findings on one long line cost one pass over it.
	norm map[model.Pos]string
	// runes indexes the code points of long lines snippets are cut from.
	runes map[model.Pos]*lineIndex
	// fps caches Fingerprints, parallel to Findings.
	fps []string
}

// source is the text of a file, converted once so that lines are slices
// of it rather than copies.
func (in *Input) source(path string) (string, bool) {
	if in.sources == nil {
		in.sources = make(map[string]string, len(in.Files))
		for _, f := range in.Files {
			if f.Source == nil {
				continue
			}
			// A file included many times is one source. The string
			// shares the file's bytes rather than copying them (the
			// whole configuration, 3.9 MB on a 2000-server tree): a
			// loaded file's Source is never written, and the parsed
			// tree's strings share the same bytes already.
			src := unsafe.String(unsafe.SliceData(f.Source), len(f.Source))
			if prev, ok := in.sources[f.Path]; !ok || prev != src {
				in.sources[f.Path] = src
			}
		}
	}
	src, ok := in.sources[path]
	return src, ok
}

// Line returns line n (1-based) of file path without its line ending, and
// whether the file and line are known.
func (in *Input) Line(path string, n int) (string, bool) {
	src, ok := in.source(path)
	if !ok || n < 1 {
		return "", false
	}
	starts := in.lineStarts(path, src)
	if n > len(starts) {
		return "", false
	}
	line := src[starts[n-1]:]
	if j := strings.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	return strings.TrimSuffix(line, "\r"), true
}

// lineStarts indexes the offsets at which the lines of a file start, once
// per file.
func (in *Input) lineStarts(path string, src string) []int {
	if in.lines == nil {
		in.lines = map[string][]int{}
	}
	if starts, ok := in.lines[path]; ok {
		return starts
	}
	// Each line's end found by strings.IndexByte, which looks at many
	// bytes at a time, rather than byte by byte.
	starts := make([]int, 1, 1+strings.Count(src, "\n"))
	for i := 0; ; {
		j := strings.IndexByte(src[i:], '\n')
		if j < 0 || i+j+1 >= len(src) {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	in.lines[path] = starts
	return starts
}

// RelPath expresses path relative to the working directory when it lies
// below it, with forward slashes.
func (in *Input) RelPath(path string) string {
	if path == "" {
		return path
	}
	if rel, ok := in.rels[path]; ok {
		return rel
	}
	if in.rels == nil {
		in.rels = map[string]string{}
	}
	rel := in.relPath(path)
	in.rels[path] = rel
	return rel
}

func (in *Input) relPath(path string) string {
	if in.Dir != "" && filepath.IsAbs(path) {
		if rel, err := filepath.Rel(in.Dir, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			path = rel
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}

// Counts tallies findings by severity, suppressed ones apart.
type Counts struct {
	Errors, Warnings, Notes, Suppressed int
}

// Count tallies the findings.
func Count(fs []rules.Finding) Counts {
	var c Counts
	for _, f := range fs {
		switch {
		case f.Suppression != nil:
			c.Suppressed++
		case f.Severity == model.Error:
			c.Errors++
		case f.Severity == model.Warning:
			c.Warnings++
		default:
			c.Notes++
		}
	}
	return c
}

// Fingerprints identifies each finding in a way that survives unrelated
// edits: a hash of the rule, the file, the flagged line's text without its
// comment and with blanks collapsed, and the index of that (rule, file,
// text) among the findings, never the line number. Adding a comment (a
// suppression's reason, say) to the line keeps the identity.
func Fingerprints(in *Input) []string {
	return in.fingerprints()
}

// FingerprintsOf computes the fingerprints of findings in the given order,
// quoting lines from files; dir is the directory paths are relative to.
func FingerprintsOf(files []*model.File, dir string, fs []rules.Finding) []string {
	in := &Input{Findings: fs, Files: files, Dir: dir}
	return in.compute()
}

func (in *Input) fingerprints() []string {
	if in.fps != nil && len(in.fps) == len(in.Findings) {
		return in.fps
	}
	given := len(in.Findings) > 0
	for _, f := range in.Findings {
		given = given && f.Fingerprint != ""
	}
	if given {
		// Fingerprinted by the pipeline, before a baseline left some out.
		out := make([]string, len(in.Findings))
		for i, f := range in.Findings {
			out[i] = f.Fingerprint
		}
		in.fps = out
		return out
	}
	in.fps = in.compute()
	return in.fps
}

func (in *Input) compute() []string {
	out := make([]string, len(in.Findings))
	seen := map[string]int{}
	// Many findings on one long line share its text: the key and the
	// hash's state after it are made once per rule and line.
	type lineKey struct {
		rule, file string
		line       int
	}
	type keyed struct {
		key   string
		state fnv128a
	}
	keys := map[lineKey]keyed{}
	var sum [32]byte
	for i, f := range in.Findings {
		lk := lineKey{f.Rule, f.Pos.File, int(f.Pos.Line)}
		k, ok := keys[lk]
		if !ok {
			text := in.normalLine(f.Pos.File, int(f.Pos.Line))
			k.key = f.Rule + "\x00" + in.RelPath(f.Pos.File) + "\x00" + text
			// FNV-1a (128 bits): stable across runs and platforms,
			// and identity, not secrecy, is what a fingerprint needs.
			k.state = newFNV128a().writeString(k.key)
			keys[lk] = k
		}
		n := seen[k.key]
		seen[k.key] = n + 1
		var num [24]byte
		h := k.state.writeString("\x00").write(strconv.AppendInt(num[:0], int64(n), 10))
		hex.Encode(sum[:], h.sum(num[:0]))
		out[i] = string(sum[:])
	}
	return out
}

// normalLine is line n of path as fingerprints see it: without its
// comment, blanks collapsed.
func (in *Input) normalLine(path string, n int) string {
	key := model.Pos{File: path, Line: int32(n)}
	if text, ok := in.norm[key]; ok {
		return text
	}
	text, _ := in.Line(path, n)
	text = strings.Join(strings.Fields(stripComment(text)), " ")
	if in.norm == nil {
		in.norm = map[model.Pos]string{}
	}
	in.norm[key] = text
	return text
}

// stripComment removes a trailing "#" comment from a line of nginx or YAML:
// a "#" outside quotes that starts the line or follows a blank.
func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i]
		}
	}
	return line
}

// ReadStats count what a run read.
type ReadStats struct {
	Files       int `json:"files"`
	Included    int `json:"included"`
	NotFollowed int `json:"includes_not_followed"`
}

func (r ReadStats) String() string {
	s := fmt.Sprintf("%d %s", r.Files, plural(r.Files, "file", "files"))
	var parts []string
	if r.Included > 0 {
		parts = append(parts, fmt.Sprintf("%d through includes", r.Included))
	}
	if r.NotFollowed > 0 {
		parts = append(parts, fmt.Sprintf("%d %s not followed", r.NotFollowed, plural(r.NotFollowed, "include", "includes")))
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, "; ") + ")"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
