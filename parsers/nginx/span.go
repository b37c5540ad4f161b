package nginx

import (
	"bytes"
	"fmt"
	"sort"
	"unicode/utf8"
	"unsafe"

	"github.com/proxylint/proxylint/model"
)

// spans is the byte layout of one file as nginx's reader splits it: every
// directive from its name to the ";" or "}" that ends it, the "{" of its
// block and the block that holds it. The parser records it as it reads a
// file (File.Editor), and an editor without it builds it from the file's
// source the first time it is asked to edit the file, with the same lexer,
// so that it places words exactly where the model's positions say they
// are; the parse tree and the model keep no offsets of their own. It keeps 20 bytes a directive, 8 a word (name or
// argument, with its quotes) and 4 a line, for as long as the editor is
// kept.
type spans struct {
	path  string
	src   []byte
	dirs  []dirSpan
	words []wordSpan
	// lines holds the offset at which each line starts; ascii is set
	// when the file is all ASCII, so that a column is a byte count.
	lines []uint32
	ascii bool
	// lua lists the *_by_lua_block directives, whose blocks are Lua code,
	// in order.
	lua []int32
}

// noBlock marks a directive without a block.
const noBlock = ^uint32(0)

// dirSpan is one directive.
type dirSpan struct {
	// start is where the name starts; end is just past the ";" or the
	// "}" that ends the directive; open is the "{" of a block (noBlock
	// for a simple directive).
	start, end, open uint32
	// parent is the index of the block directive that holds this one, -1
	// at the top level.
	parent int32
	// words[first:] up to the next directive's first are its name and
	// arguments.
	first int32
}

// wordSpan is one word as written: src[start:end], with its quotes.
type wordSpan struct{ start, end uint32 }

// buildSpans reads src as the loader does.
func buildSpans(path string, src []byte) (*spans, error) {
	sb, err := newSpanBuilder(path, src)
	if err != nil {
		return nil, err
	}
	lx := newLexer(path, src)
	for {
		st, err := lx.next()
		if err != nil {
			return nil, err
		}
		switch {
		case st.kind == stmtEOF:
			return sb.finish()
		case st.kind == stmtBlockEnd:
			if err := sb.blockEnd(st.term); err != nil {
				return nil, err
			}
			continue
		case st.kind == stmtBlockStart && isLuaBlock(st.args[0].Value):
			_, end, err := lx.readLuaBlock(st.term)
			if err != nil {
				return nil, err
			}
			if err := sb.lua(st, end); err != nil {
				return nil, err
			}
		default:
			if err := sb.statement(st); err != nil {
				return nil, err
			}
		}
		// The words are not kept: the lexer may write the next
		// statement's over them rather than allocate more.
		lx.words = lx.words[:0]
	}
}

// spanBuilder makes the spans of a file from its statements as the lexer
// yields them: buildSpans lexes the file again for them, the parser hands
// them over as it reads it (parseFile), so that a file the loader read
// need not be lexed twice to be edited.
type spanBuilder struct {
	s     *spans
	stack []int32
	cur   offsetCursor
}

func newSpanBuilder(path string, src []byte) (*spanBuilder, error) {
	if len(src) >= int(noBlock) {
		return nil, fmt.Errorf("%s: the file is too large to edit", path)
	}
	// Every directive ends in ";" or "{": that bounds how many there are
	// (comments aside).
	s := &spans{path: path, src: src, ascii: true, lines: make([]uint32, 1, 1+bytes.Count(src, []byte{'\n'})),
		dirs: make([]dirSpan, 0, bytes.Count(src, []byte{';'})+bytes.Count(src, []byte{'{'}))}
	// About two and a half words a directive in real configurations.
	s.words = make([]wordSpan, 0, cap(s.dirs)*5/2)
	// Newlines found with IndexByte and the ASCII test eight bytes at a
	// time: looking at each byte for both was 1% of a 200-server run.
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		s.lines = append(s.lines, uint32(i))
	}
	s.ascii = isASCII(src)
	return &spanBuilder{s: s, cur: offsetCursor{src: src, line: 1, col: 1}}, nil
}

// isASCII reports whether every byte of b is below utf8.RuneSelf.
func isASCII(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
			uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// finish returns the spans once the lexer reached the end of the file.
func (b *spanBuilder) finish() (*spans, error) {
	s := b.s
	if len(b.stack) > 0 {
		return nil, fmt.Errorf("%s: a block is not closed", s.path)
	}
	if cap(s.words) > len(s.words)+len(s.words)/4 {
		s.words = append(make([]wordSpan, 0, len(s.words)), s.words...)
	}
	return s, nil
}

// blockEnd notes the "}" at term.
func (b *spanBuilder) blockEnd(term int) error {
	if len(b.stack) == 0 {
		return fmt.Errorf("%s: unexpected \"}\"", b.s.path)
	}
	d := b.stack[len(b.stack)-1]
	b.stack = b.stack[:len(b.stack)-1]
	b.s.dirs[d].end = uint32(term) + 1
	return nil
}

// statement notes a directive that ends in ";" or opens a block.
func (b *spanBuilder) statement(st statement) error {
	ds, err := b.words(st)
	if err != nil {
		return err
	}
	if st.kind == stmtSimple {
		ds.end = uint32(st.term) + 1
	} else {
		ds.open = uint32(st.term)
		b.stack = append(b.stack, int32(len(b.s.dirs)))
	}
	b.s.dirs = append(b.s.dirs, ds)
	return nil
}

// lua notes a *_by_lua_block directive whose body ends at the "}" at end.
func (b *spanBuilder) lua(st statement, end int) error {
	ds, err := b.words(st)
	if err != nil {
		return err
	}
	ds.open, ds.end = uint32(st.term), uint32(end)+1
	b.s.lua = append(b.s.lua, int32(len(b.s.dirs)))
	b.s.dirs = append(b.s.dirs, ds)
	return nil
}

// words notes the words of a directive and returns its span, its end
// and block not yet set.
func (b *spanBuilder) words(st statement) (dirSpan, error) {
	s := b.s
	ds := dirSpan{parent: -1, open: noBlock, first: int32(len(s.words))}
	for _, a := range st.args {
		off := b.cur.offset(a.Line, a.Col)
		if off < 0 {
			return ds, fmt.Errorf("%s: cannot place the word at %s", s.path, model.Pos{File: s.path, Line: a.Line, Col: a.Col})
		}
		s.words = append(s.words, wordSpan{start: uint32(off), end: uint32(off) + uint32(a.Len)})
	}
	ds.start = s.words[ds.first].start
	if len(b.stack) > 0 {
		ds.parent = b.stack[len(b.stack)-1]
	}
	return ds, nil
}

// isLua reports whether d is a *_by_lua_block directive.
func (s *spans) isLua(d int32) bool {
	i := sort.Search(len(s.lua), func(i int) bool { return s.lua[i] >= d })
	return i < len(s.lua) && s.lua[i] == d
}

// at returns the directive whose name or argument starts at p.
func (s *spans) at(p model.Pos) (int32, bool) {
	off := s.offset(p)
	if off < 0 {
		return 0, false
	}
	i := sort.Search(len(s.words), func(i int) bool { return int(s.words[i].start) >= off })
	if i == len(s.words) || int(s.words[i].start) != off {
		return 0, false
	}
	// The directive is the last one whose first word is at or before i.
	d := sort.Search(len(s.dirs), func(d int) bool { return int(s.dirs[d].first) > i }) - 1
	return int32(d), d >= 0
}

// offset is the byte offset of p, or -1.
func (s *spans) offset(p model.Pos) int {
	if p.Line < 1 || int(p.Line) > len(s.lines) || p.Col < 1 {
		return -1
	}
	start := int(s.lines[p.Line-1])
	if s.ascii {
		off := start + int(p.Col) - 1
		if off > len(s.src) || bytes.IndexByte(s.src[start:off], '\n') >= 0 {
			return -1
		}
		return off
	}
	f := model.File{Source: s.src}
	return f.ColumnOffset(start, p.Col)
}

// pos is the position of byte offset off.
func (s *spans) pos(path string, off int) model.Pos {
	line := sort.Search(len(s.lines), func(i int) bool { return int(s.lines[i]) > off })
	start := int(s.lines[line-1])
	col := off - start + 1
	if !s.ascii {
		col = utf8.RuneCount(s.src[start:off]) + 1
	}
	return model.Pos{File: path, Line: int32(line), Col: int32(col)}
}

// wordsOf returns the words of directive d, its name first.
func (s *spans) wordsOf(d int32) []wordSpan {
	end := int32(len(s.words))
	if int(d)+1 < len(s.dirs) {
		end = s.dirs[d+1].first
	}
	return s.words[s.dirs[d].first:end]
}

// offsetCursor turns positions into byte offsets, walking forward from
// the last one it turned: positions asked in increasing order, as the
// lexer yields them, cost one pass over the text.
type offsetCursor struct {
	src       []byte
	off       int
	line, col int32
}

func (c *offsetCursor) offset(line, col int32) int {
	if line < c.line || line == c.line && col < c.col {
		c.off, c.line, c.col = 0, 1, 1
	}
	for c.line < line {
		j := bytes.IndexByte(c.src[c.off:], '\n')
		if j < 0 {
			return -1
		}
		c.off += j + 1
		c.line, c.col = c.line+1, 1
	}
	for c.col < col {
		if c.off >= len(c.src) || c.src[c.off] == '\n' {
			return -1
		}
		_, size := utf8.DecodeRune(c.src[c.off:])
		c.off += size
		c.col++
	}
	return c.off
}

// stmt describes directive d for the model.
func (s *spans) stmt(path string, d int32) model.Stmt {
	ws := s.wordsOf(d)
	st := model.Stmt{
		Pos:   s.pos(path, int(s.dirs[d].start)),
		Args:  make([]string, 0, len(ws)),
		Raw:   make([]string, 0, len(ws)),
		Block: s.dirs[d].open != noBlock,
	}
	for i, w := range ws {
		if i == 0 {
			st.Name = s.value(w)
			continue
		}
		st.Args = append(st.Args, s.value(w))
		st.Raw = append(st.Raw, s.text(w.start, w.end))
	}
	return st
}

// value is a word as nginx reads it: without its quotes, unescaped.
func (s *spans) value(w wordSpan) string {
	start, end := w.start, w.end
	if b := s.src[start:end]; len(b) >= 2 && (b[0] == '"' || b[0] == '\'') && b[len(b)-1] == b[0] {
		start, end = start+1, end-1
	}
	if bytes.IndexByte(s.src[start:end], '\\') >= 0 {
		return unescape(s.src[start:end])
	}
	return s.text(start, end)
}

// text is src[start:end] as a string that shares the source's memory,
// which does not change while the editor is used.
func (s *spans) text(start, end uint32) string {
	if start == end {
		return ""
	}
	return unsafe.String(&s.src[start], int(end-start))
}

// name is the name of directive d.
func (s *spans) name(d int32) string {
	if ws := s.wordsOf(d); len(ws) > 0 {
		return s.value(ws[0])
	}
	return ""
}

// kids lists the directives directly in the block of d, or at the top
// level for d < 0: they follow d, up to its end.
func (s *spans) kids(d int32) []int32 {
	var out []int32
	end := uint32(len(s.src))
	if d >= 0 {
		end = s.dirs[d].end
	}
	for k := d + 1; int(k) < len(s.dirs) && s.dirs[k].start < end; k++ {
		if s.dirs[k].parent == d {
			out = append(out, k)
		}
	}
	return out
}

// ---- the layout around an offset ----

// lineStart is the offset of the start of the line holding off.
func (s *spans) lineStart(off int) int { return bytes.LastIndexByte(s.src[:off], '\n') + 1 }

// startsLine reports whether only blanks stand before off on its line.
func (s *spans) startsLine(off int) bool {
	for i := off - 1; i >= 0; i-- {
		switch s.src[i] {
		case ' ', '\t':
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// indentOf is the blanks that start the line holding off.
func (s *spans) indentOf(off int) string {
	start := s.lineStart(off)
	end := start
	for end < len(s.src) && (s.src[end] == ' ' || s.src[end] == '\t') {
		end++
	}
	return string(s.src[start:end])
}

// lineRest reports whether only blanks and a comment follow off on its
// line, and returns the offset just past the line's end ("\n" included;
// the end of the file when it ends there).
func (s *spans) lineRest(off int) (next int, alone bool) {
	i := off
	for i < len(s.src) && (s.src[i] == ' ' || s.src[i] == '\t' || s.src[i] == '\r') {
		i++
	}
	if i < len(s.src) && s.src[i] != '\n' && s.src[i] != '#' {
		return 0, false
	}
	j := bytes.IndexByte(s.src[i:], '\n')
	if j < 0 {
		return len(s.src), true
	}
	return i + j + 1, true
}

// blankRest reports whether only blanks follow off on its line (no
// comment), with the offset just past the line's end.
func (s *spans) blankRest(off int) (next int, blank bool) {
	next, alone := s.lineRest(off)
	if !alone {
		return 0, false
	}
	for i := off; i < next; i++ {
		if s.src[i] == '#' {
			return 0, false
		}
	}
	return next, true
}
