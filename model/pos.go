// Package model holds proxylint's common model of proxy configurations:
// the hops, listeners, routes, upstreams, timeouts and retry policies that
// the rules reason about, whichever proxy the configuration was written for.
//
// The loaders (parsers/nginx, parsers/envoy) build this model and resolve
// every inherited or defaulted value once, so a rule asks a route for its
// effective value and gets the value, where it was set and whether it is the
// proxy's default. Rules never look at syntax.
package model

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Pos is a position in a source file. Line and Col are 1-based; Col counts
// Unicode code points (an invalid UTF-8 byte counts as one). The zero Pos is
// "no position".
type Pos struct {
	File string
	Line int32
	Col  int32
}

// IsValid reports whether p points into a file.
func (p Pos) IsValid() bool { return p.File != "" && p.Line > 0 }

// String formats p as file:line:col, the form compilers use.
func (p Pos) String() string {
	switch {
	case !p.IsValid():
		return p.File
	case p.Col > 0:
		return p.File + ":" + strconv.Itoa(int(p.Line)) + ":" + strconv.Itoa(int(p.Col))
	default:
		return p.File + ":" + strconv.Itoa(int(p.Line))
	}
}

// Before orders positions by file, then line, then column.
func (p Pos) Before(q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// Severity says how serious a finding or a load diagnostic is.
type Severity int

// Severities, from least to most serious.
const (
	Note Severity = iota + 1
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Note:
		return "note"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return "severity(" + strconv.Itoa(int(s)) + ")"
}

// ParseSeverity reads "error", "warning" or "note".
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "note":
		return Note, nil
	case "warning":
		return Warning, nil
	case "error":
		return Error, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning or note)", s)
}

// Diagnostic is a problem a loader met while reading a configuration: a
// syntax error, an include that cannot be read, a schema violation. Code is
// the ID of the rule under which it is reported (for example "nginx-syntax").
// Fatal means the file could not be loaded completely, so the run cannot
// call it clean.
type Diagnostic struct {
	Code     Code
	Severity Severity
	Pos      Pos
	Message  string
	Fatal    bool
}

func (d Diagnostic) Error() string { return d.Pos.String() + ": " + d.Message }

// Offset returns the byte offset in f.Source of position p (its Line and
// Col; p.File is not checked), or -1 when p is not in the source. It is
// the inverse of PosAt.
func (f *File) Offset(p Pos) int {
	if p.Line < 1 || p.Col < 1 {
		return -1
	}
	src := f.Source
	off := 0
	for line := int32(1); line < p.Line; line++ {
		j := bytes.IndexByte(src[off:], '\n')
		if j < 0 {
			return -1
		}
		off += j + 1
	}
	return f.ColumnOffset(off, p.Col)
}

// ColumnOffset returns the byte offset in f.Source of column col (counted
// as Pos counts it) of the line that starts at byte lineStart, or -1 when
// the line is shorter. Offset finds the line's start itself; a caller that
// keeps the starts of the lines finds it faster.
func (f *File) ColumnOffset(lineStart int, col int32) int {
	src, off := f.Source, lineStart
	if off < 0 || col < 1 {
		return -1
	}
	for c := int32(1); c < col; c++ {
		if off >= len(src) || src[off] == '\n' {
			return -1
		}
		_, size := utf8.DecodeRune(src[off:])
		off += size
	}
	if off > len(src) {
		return -1
	}
	return off
}

// PosAt returns the position of byte offset off in f.Source, counting
// columns as Pos does (code points, an invalid byte as one).
//
// The first call indexes the file's lines, so that a report of many
// findings in one large file takes time in proportion to the findings, not
// to their number times the file's size.
func (f *File) PosAt(off int) Pos {
	src := f.Source
	off = max(0, min(off, len(src)))
	starts := f.lineIndex().starts
	// The last line that starts at or before off.
	line := sort.Search(len(starts), func(i int) bool { return int(starts[i]) > off }) - 1
	start := int(starts[line])
	return Pos{File: f.Path, Line: int32(line + 1), Col: int32(utf8.RuneCount(src[start:off]) + 1)}
}

// LineEnding is the line ending the file uses: "\r\n" when any line ends
// so, else "\n".
func (f *File) LineEnding() string {
	if f.lineIndex().crlf {
		return "\r\n"
	}
	return "\n"
}

// lines is what PosAt and LineEnding need of a file's source, made once:
// the offset each line starts at, and whether a line ends in CR LF.
type lines struct {
	starts []int32
	crlf   bool
}

func (f *File) lineIndex() *lines {
	if l := f.index.Load(); l != nil && l.of(f.Source) {
		return l.lines
	}
	src := f.Source
	l := &lines{starts: make([]int32, 1, bytes.Count(src, []byte{'\n'})+1)}
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		if j > 0 && src[i+j-1] == '\r' {
			l.crlf = true
		}
		i += j + 1
		l.starts = append(l.starts, int32(i))
	}
	ix := &indexed{n: len(src), lines: l}
	if len(src) > 0 {
		ix.first = &src[0]
	}
	f.index.Store(ix)
	return l
}

// indexed is a file's line index with the source it was made from: a
// source replaced by another is indexed anew.
type indexed struct {
	first *byte
	n     int
	lines *lines
}

func (ix *indexed) of(src []byte) bool {
	if len(src) == 0 {
		return ix.n == 0
	}
	return ix.n == len(src) && ix.first == &src[0]
}
