package nginx

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/proxylint/proxylint/model"
)

// Editor edits one nginx configuration file in its own layout
// (model.ConfEditor). It reads the file's spans (span.go) the first time
// it is asked, and writes what it adds as the file writes its directives:
// with the file's indentation unit (tabs or spaces, as many as a nested
// directive is indented by) and line endings (CRLF when the file has
// them), on lines of their own where the block's directives stand on
// lines of their own, and on the same line, inside the braces, in a
// one-line block or a file written on one line. Safe for use by several
// goroutines.
type Editor struct {
	path string
	src  []byte

	// pre is the layout the parser recorded, if any (File.Editor).
	pre  *spans
	once sync.Once
	sp   *spans
	err  error
	// nl is the file's line ending; unit one level of its indentation.
	nl, unit string
}

var _ model.ConfEditor = (*Editor)(nil)

// NewEditor returns the editor of the file at path whose source is src.
// src must not change while the editor is used.
func NewEditor(path string, src []byte) *Editor { return &Editor{path: path, src: src} }

// Path is the file the editor edits.
func (e *Editor) Path() string { return e.path }

func (e *Editor) spans() (*spans, error) {
	e.once.Do(func() {
		if e.pre != nil {
			e.sp, e.pre = e.pre, nil
		} else {
			e.sp, e.err = buildSpans(e.path, e.src)
		}
		if e.err == nil {
			e.nl, e.unit = newlineOf(e.src), indentUnitOf(e.sp)
		}
	})
	return e.sp, e.err
}

// newlineOf is the line ending a file uses: CRLF when its first line ends
// so.
func newlineOf(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// indentUnitOf is one level of a file's indentation: what a directive
// that starts its line is indented by beyond the block directive holding
// it, the most common such step among the file's first directives; else a
// tab when a line starts with one; else four spaces.
func indentUnitOf(s *spans) string {
	counts := map[string]int{}
	best, seen := "", 0
	for i := range s.dirs {
		d := &s.dirs[i]
		if d.parent < 0 || seen >= 200 {
			continue
		}
		p := &s.dirs[d.parent]
		if !s.startsLine(int(d.start)) || !s.startsLine(int(p.start)) {
			continue
		}
		in, pin := s.indentOf(int(d.start)), s.indentOf(int(p.start))
		if len(in) <= len(pin) || !strings.HasPrefix(in, pin) {
			continue
		}
		step := in[len(pin):]
		seen++
		counts[step]++
		if counts[step] > counts[best] {
			best = step
		}
	}
	if best != "" {
		return best
	}
	if bytes.Contains(s.src, []byte("\n\t")) {
		return "\t"
	}
	return "    "
}

var errTopLevel = errors.New("the top level of a file has no directive")

// dir returns the directive at p.
func (e *Editor) dir(p model.Pos) (*spans, int32, error) {
	s, err := e.spans()
	if err != nil {
		return nil, 0, err
	}
	if p.File != e.path {
		return nil, 0, fmt.Errorf("%s is not in %s", p, e.path)
	}
	if !p.IsValid() {
		return s, -1, errTopLevel
	}
	d, ok := s.at(p)
	if !ok {
		return nil, 0, fmt.Errorf("%s: no directive starts here", p)
	}
	return s, d, nil
}

// Stmt returns the directive at at.
func (e *Editor) Stmt(at model.Pos) (model.Stmt, bool) {
	s, d, err := e.dir(at)
	if err != nil {
		return model.Stmt{}, false
	}
	return s.stmt(e.path, d), true
}

// Parent returns the block directive that holds the directive at at.
func (e *Editor) Parent(at model.Pos) (model.Stmt, bool) {
	s, d, err := e.dir(at)
	if err != nil || s.dirs[d].parent < 0 {
		return model.Stmt{}, false
	}
	return s.stmt(e.path, s.dirs[d].parent), true
}

// block returns the block directive at p, or -1 for the top level.
func (e *Editor) block(p model.Pos) (*spans, int32, error) {
	s, d, err := e.dir(p)
	if errors.Is(err, errTopLevel) {
		return s, -1, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if s.dirs[d].open == noBlock {
		return nil, 0, fmt.Errorf("%s: %q has no block", p, s.name(d))
	}
	if s.isLua(d) {
		return nil, 0, fmt.Errorf("%s: the block of %q is Lua code", p, s.name(d))
	}
	return s, d, nil
}

// Children lists the directives directly in a block.
func (e *Editor) Children(block model.Pos) ([]model.Stmt, error) {
	s, d, err := e.block(block)
	if err != nil {
		return nil, err
	}
	kids := s.kids(d)
	out := make([]model.Stmt, len(kids))
	for i, k := range kids {
		out[i] = s.stmt(e.path, k)
	}
	return out, nil
}

// Find lists the directives named name anywhere in the file, at any
// depth, in the order they are written (a Lua block's code holds none).
func (e *Editor) Find(name string) ([]model.Stmt, error) {
	s, err := e.spans()
	if err != nil {
		return nil, err
	}
	var out []model.Stmt
	for d := range s.dirs {
		if s.name(int32(d)) == name {
			out = append(out, s.stmt(e.path, int32(d)))
		}
	}
	return out, nil
}

// UsesVariable reports whether an argument of a directive of the file
// uses the variable $name (or ${name}), not one whose name only starts
// with it.
func (e *Editor) UsesVariable(name string) (bool, error) {
	s, err := e.spans()
	if err != nil {
		return false, err
	}
	for d := range s.dirs {
		for _, w := range s.wordsOf(int32(d))[1:] {
			v := s.value(w)
			for i := strings.IndexByte(v, '$'); i >= 0; {
				if n, end, ok := variableAt(v, i); ok && n == name {
					return true, nil
				} else if ok {
					i = end
				} else {
					i++
				}
				k := strings.IndexByte(v[i:], '$')
				if k < 0 {
					break
				}
				i += k
			}
		}
	}
	return false, nil
}

func (e *Editor) edit(start, end int, text string) []model.Edit {
	return []model.Edit{{File: e.path, Start: start, End: end, New: text}}
}

// Insert writes directives in a block or next to a directive.
func (e *Editor) Insert(at model.Pos, where model.Where, ds ...model.Directive) ([]model.Edit, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	for _, d := range ds {
		if err := checkDirective(d); err != nil {
			return nil, err
		}
	}
	switch where {
	case model.Before, model.After:
		s, d, err := e.dir(at)
		if err != nil {
			return nil, err
		}
		return e.insertBy(s, d, where == model.Before, ds), nil
	case model.AtStart, model.AtEnd:
		s, b, err := e.block(at)
		if err != nil {
			return nil, err
		}
		return e.insertIn(s, b, where == model.AtStart, ds), nil
	}
	return nil, fmt.Errorf("insert %s: not a place to insert at", where)
}

// checkDirective refuses what would not read back as the directive meant.
func checkDirective(d model.Directive) error {
	if d.Name == "" {
		if len(d.Args) > 0 || d.Block != nil {
			return errors.New("a directive without a name")
		}
		return nil
	}
	for _, w := range append([]string{d.Name}, d.Args...) {
		if w == "" || strings.ContainsAny(w, "\n\r") && !quoted(w) {
			return fmt.Errorf("directive %q: the word %q cannot be written as one word", d.Name, w)
		}
	}
	for _, k := range d.Block {
		if err := checkDirective(k); err != nil {
			return err
		}
	}
	return nil
}

func quoted(w string) bool {
	return len(w) >= 2 && (w[0] == '"' || w[0] == '\'') && w[len(w)-1] == w[0]
}

// insertBy writes ds before or after directive d.
func (e *Editor) insertBy(s *spans, d int32, before bool, ds []model.Directive) []model.Edit {
	dd := &s.dirs[d]
	start, end := int(dd.start), int(dd.end)
	in := e.childIndent(s, d)
	if before {
		if s.startsLine(start) {
			at := s.lineStart(start)
			return e.edit(at, at, e.lines(ds, in))
		}
		return e.edit(start, start, e.oneLine(ds)+" ")
	}
	if next, alone := s.lineRest(end); alone && s.startsLine(start) {
		if next == len(s.src) && (next == 0 || s.src[next-1] != '\n') {
			return e.edit(next, next, e.nl+strings.TrimSuffix(e.lines(ds, in), e.nl))
		}
		return e.edit(next, next, e.lines(ds, in))
	}
	return e.edit(end, end, " "+e.oneLine(ds))
}

// childIndent is the indentation of directive d's line when d starts it;
// else one level deeper than the block holding d.
func (e *Editor) childIndent(s *spans, d int32) string {
	if start := int(s.dirs[d].start); s.startsLine(start) {
		return s.indentOf(start)
	}
	return e.inside(s, s.dirs[d].parent)
}

// inside is the indentation of the directives of block b written on lines
// of their own: one unit deeper than b's line ("" at the top level).
func (e *Editor) inside(s *spans, b int32) string {
	if b < 0 {
		return ""
	}
	return s.indentOf(int(s.dirs[b].start)) + e.unit
}

// insertIn writes ds at the start or the end of block b (-1: the top
// level).
func (e *Editor) insertIn(s *spans, b int32, atStart bool, ds []model.Directive) []model.Edit {
	kids := s.kids(b)
	if b < 0 {
		switch {
		case len(kids) == 0:
			at := len(s.src)
			text := e.lines(ds, "")
			if at > 0 && s.src[at-1] != '\n' {
				text = e.nl + text
			}
			return e.edit(at, at, text)
		case atStart:
			return e.insertBy(s, kids[0], true, ds)
		default:
			return e.insertBy(s, kids[len(kids)-1], false, ds)
		}
	}
	bd := &s.dirs[b]
	open, closing := int(bd.open), int(bd.end)-1
	if atStart {
		if next, alone := s.lineRest(open + 1); alone {
			// The block's directives start on a line after the "{".
			in := e.inside(s, b)
			if len(kids) > 0 && s.startsLine(int(s.dirs[kids[0]].start)) {
				in = s.indentOf(int(s.dirs[kids[0]].start))
			}
			return e.edit(next, next, e.lines(ds, in))
		}
		text := " " + e.oneLine(ds)
		if c := s.src[open+1]; c != ' ' && c != '\t' {
			text += " "
		}
		return e.edit(open+1, open+1, text)
	}
	if s.startsLine(closing) {
		in := e.inside(s, b)
		if len(kids) > 0 && s.startsLine(int(s.dirs[kids[len(kids)-1]].start)) {
			in = s.indentOf(int(s.dirs[kids[len(kids)-1]].start))
		}
		at := s.lineStart(closing)
		return e.edit(at, at, e.lines(ds, in))
	}
	after := open + 1
	if len(kids) > 0 {
		after = int(s.dirs[kids[len(kids)-1]].end)
	}
	text := " " + e.oneLine(ds)
	if s.src[after] == '}' {
		text += " "
	}
	return e.edit(after, after, text)
}

// lines writes ds one to a line at indentation in.
func (e *Editor) lines(ds []model.Directive, in string) string {
	var b strings.Builder
	for _, d := range ds {
		e.writeLines(&b, d, in)
	}
	return b.String()
}

func (e *Editor) writeLines(b *strings.Builder, d model.Directive, in string) {
	if d.Name == "" {
		b.WriteString(e.nl)
		return
	}
	b.WriteString(in)
	writeWords(b, d)
	if d.Block == nil {
		b.WriteString(";" + e.nl)
		return
	}
	b.WriteString(" {" + e.nl)
	for _, k := range d.Block {
		e.writeLines(b, k, in+e.unit)
	}
	b.WriteString(in + "}" + e.nl)
}

// oneLine writes ds on one line, one after another.
func (e *Editor) oneLine(ds []model.Directive) string {
	var b strings.Builder
	for _, d := range ds {
		if d.Name == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		writeOneLine(&b, d)
	}
	return b.String()
}

func writeOneLine(b *strings.Builder, d model.Directive) {
	writeWords(b, d)
	if d.Block == nil {
		b.WriteByte(';')
		return
	}
	b.WriteString(" {")
	for _, k := range d.Block {
		if k.Name == "" {
			continue
		}
		b.WriteByte(' ')
		writeOneLine(b, k)
	}
	b.WriteString(" }")
}

func writeWords(b *strings.Builder, d model.Directive) {
	b.WriteString(d.Name)
	for _, a := range d.Args {
		b.WriteByte(' ')
		b.WriteString(a)
	}
}

// checkWord refuses an argument that would not read back as one word.
func checkWord(raw string) error {
	if raw == "" {
		return errors.New("an empty argument must be written quoted")
	}
	if !quoted(raw) && strings.ContainsAny(raw, " \t\r\n;{}#\"'") {
		return fmt.Errorf("the argument %q is not one word: quote it", raw)
	}
	return nil
}

// SetArg replaces argument i of the directive at at.
func (e *Editor) SetArg(at model.Pos, i int, raw string) ([]model.Edit, error) {
	s, d, err := e.dir(at)
	if err != nil {
		return nil, err
	}
	if err := checkWord(raw); err != nil {
		return nil, err
	}
	ws := s.wordsOf(d)
	switch {
	case i >= 0 && i < len(ws)-1:
		// A word may touch the one before it ("if ("a")"): keep them
		// apart, and a quoted one from what follows.
		w := ws[i+1]
		if c := s.src[w.start-1]; !isSpace(c) {
			raw = " " + raw
		}
		if int(w.end) < len(s.src) && quoted(raw) {
			if c := s.src[w.end]; !isSpace(c) && c != ';' && c != '{' && c != ')' {
				raw += " "
			}
		}
		return e.edit(int(w.start), int(w.end), raw), nil
	case i == len(ws)-1:
		return e.InsertArg(at, i, raw)
	}
	return nil, fmt.Errorf("%s: %q has no argument %d", at, s.value(ws[0]), i+1)
}

// InsertArg writes raw as argument i of the directive at at.
func (e *Editor) InsertArg(at model.Pos, i int, raw string) ([]model.Edit, error) {
	s, d, err := e.dir(at)
	if err != nil {
		return nil, err
	}
	if err := checkWord(raw); err != nil {
		return nil, err
	}
	ws := s.wordsOf(d)
	if i < 0 || i > len(ws)-1 {
		return nil, fmt.Errorf("%s: %q has no argument %d", at, s.value(ws[0]), i+1)
	}
	end := int(ws[i].end)
	return e.edit(end, end, " "+raw), nil
}

// RemoveArg deletes argument i of the directive at at with the blanks
// before it.
func (e *Editor) RemoveArg(at model.Pos, i int) ([]model.Edit, error) {
	s, d, err := e.dir(at)
	if err != nil {
		return nil, err
	}
	ws := s.wordsOf(d)
	if i < 0 || i >= len(ws)-1 {
		return nil, fmt.Errorf("%s: %q has no argument %d", at, s.value(ws[0]), i+1)
	}
	sep := ""
	if i+2 < len(ws) && ws[i+2].start == ws[i+1].end {
		// The next word touches the removed one (`"")`, which nginx reads
		// as two words after a quoted one): keep them apart.
		sep = " "
	}
	return e.edit(int(ws[i].end), int(ws[i+1].end), sep), nil
}

// Rename replaces the name of the directive at at.
func (e *Editor) Rename(at model.Pos, name string) ([]model.Edit, error) {
	s, d, err := e.dir(at)
	if err != nil {
		return nil, err
	}
	if name == "" || quoted(name) || strings.ContainsAny(name, " \t\r\n;{}#\"'$") {
		return nil, fmt.Errorf("%q is no directive name", name)
	}
	w := s.wordsOf(d)[0]
	return e.edit(int(w.start), int(w.end), name), nil
}

// Remove deletes the directive at at, and its line when nothing else is
// on it.
func (e *Editor) Remove(at model.Pos) ([]model.Edit, error) {
	s, d, err := e.dir(at)
	if err != nil {
		return nil, err
	}
	start, end := int(s.dirs[d].start), int(s.dirs[d].end)
	if next, blank := s.blankRest(end); blank && s.startsLine(start) {
		return e.edit(s.lineStart(start), next, ""), nil
	}
	// Take the blanks after it, or, at the end of its line, before it.
	j := end
	for j < len(s.src) && (s.src[j] == ' ' || s.src[j] == '\t') {
		j++
	}
	if j < len(s.src) && s.src[j] != '\n' && s.src[j] != '\r' && (s.src[j] != '#' || s.startsLine(start)) {
		return e.edit(start, j, ""), nil
	}
	i := start
	for i > 0 && (s.src[i-1] == ' ' || s.src[i-1] == '\t') {
		i--
	}
	return e.edit(i, end, ""), nil
}
