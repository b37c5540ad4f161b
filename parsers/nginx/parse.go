package nginx

import (
	"bytes"
	"fmt"

	"github.com/proxylint/proxylint/model"
)

// DefaultMaxDepth bounds the nesting of blocks and includes together.
const DefaultMaxDepth = 512

// pendingInclude is an include directive met while parsing a file, with
// the block it sits in and its nesting depth. Blocks never span files, so
// the loader can read included files after the including file is parsed.
type pendingInclude struct {
	d      *Directive
	parent string
	depth  int
}

// parser turns a file's statements into a directive tree, following
// ngx_conf_parse: a "}" outside a block, a block left open at the end of
// the file, and a block where nginx requires ";" (or the reverse) are
// errors.
type parser struct {
	lx       *lexer
	includes []pendingInclude
	maxDepth int
	// slab holds directives allocated in batches; expect is how many
	// more directives the file may hold (its ";" and "{" count).
	slab   []Directive
	expect int
	// spans records the file's layout for its editor while it is read
	// (File.Editor); nil once something went wrong, and the editor then
	// reads the file again if it is asked to edit it.
	spans *spanBuilder
}

// noteSpan drops the layout being recorded when it could not take a
// statement.
func (p *parser) noteSpan(err error) {
	if err != nil {
		p.spans = nil
	}
}

func (p *parser) newDirective() *Directive {
	if len(p.slab) == cap(p.slab) {
		p.slab = make([]Directive, 0, min(max(p.expect, 1), 256))
	}
	p.expect--
	p.slab = p.slab[:len(p.slab)+1]
	return &p.slab[len(p.slab)-1]
}

// ParseFile parses one file without following includes. parent is the
// block the file is read in ("" for a main configuration file).
func ParseFile(path string, src []byte) (*File, error) {
	// The parsed strings share the source's memory: the caller keeps its
	// buffer to do with as it likes.
	src = bytes.Clone(src)
	f, _, err := parseFile(path, src, parentMain, 0, DefaultMaxDepth)
	if err != nil {
		return f, err
	}
	return f, nil
}

// parseFile parses src, which must not change afterwards: the directives'
// strings share its memory.
func parseFile(path string, src []byte, parent string, depth, maxDepth int) (*File, []pendingInclude, *Error) {
	return parse(path, src, parent, depth, maxDepth, true)
}

// parse is parseFile; layout says whether to record the file's layout for
// its editor (File.Editor).
func parse(path string, src []byte, parent string, depth, maxDepth int, layout bool) (*File, []pendingInclude, *Error) {
	p := &parser{lx: newLexer(path, src), maxDepth: maxDepth, expect: bytes.Count(src, []byte{';'}) + bytes.Count(src, []byte{'{'})}
	if layout {
		if sb, err := newSpanBuilder(path, src); err == nil {
			p.spans = sb
		}
	}
	f := &File{Path: path, Source: src}
	dirs, _, err := p.block(parent, nil, depth)
	f.Directives = dirs
	f.Comments = p.lx.comments
	if err == nil && p.spans != nil {
		if sp, err := p.spans.finish(); err == nil {
			f.spans = sp
		}
	}
	return f, p.includes, err
}

// block parses directives until the "}" that closes the block opened by
// open (nil at the top level of a file) and returns them with the offset of
// that "}".
func (p *parser) block(parent string, open *Directive, depth int) ([]*Directive, int, *Error) {
	handler := handlerBlocks[parent]
	shaped := shapesChildren(parent)
	dirs := []*Directive{}
	for {
		st, err := p.lx.next()
		if err != nil {
			return dirs, 0, err
		}
		switch st.kind {
		case stmtEOF:
			if open != nil {
				return dirs, 0, p.lx.errorf(st.term, "unexpected end of file, expecting \"}\" to close %q opened at line %d", open.Name, open.BlockPos().Line)
			}
			return dirs, st.term, nil
		case stmtBlockEnd:
			if open == nil {
				return dirs, 0, p.lx.errorf(st.term, "unexpected \"}\": no block is open here")
			}
			if p.spans != nil {
				p.noteSpan(p.spans.blockEnd(st.term))
			}
			return dirs, st.term, nil
		}

		d := p.newDirective()
		d.Name, d.Pos, d.Args = st.args[0].Value, model.Pos{File: p.lx.file, Line: st.args[0].Line, Col: st.args[0].Col}, st.args[1:]
		dirs = append(dirs, d)
		isBlock := st.kind == stmtBlockStart
		if handler && isBlock {
			return dirs, 0, p.lx.errorf(st.term, "unexpected \"{\": %q blocks hold values, not blocks", parent)
		}
		if !handler {
			// nginx reports these where it stops reading: at the "{" or
			// ";" that ends the directive.
			mustBlock, mustNot := childShape(d.Name, parent, shaped)
			if mustNot && isBlock {
				return dirs, 0, p.shapeError(d, st.term, "is not terminated by \";\": it takes no block")
			}
			if (mustBlock || isLuaBlock(d.Name)) && !isBlock {
				return dirs, 0, p.shapeError(d, st.term, "has no opening \"{\": it takes a block")
			}
		}
		if !isBlock {
			if p.spans != nil {
				p.noteSpan(p.spans.statement(st))
			}
			d.setEnd(p.lx.pos(st.term))
			if d.Name == "include" {
				p.includes = append(p.includes, pendingInclude{d: d, parent: parent, depth: depth})
			}
			continue
		}

		d.blockAt = at(p.lx.pos(st.term))
		if isLuaBlock(d.Name) {
			body, end, err := p.lx.readLuaBlock(st.term)
			if err != nil {
				return dirs, 0, err
			}
			if p.spans != nil {
				p.noteSpan(p.spans.lua(st, end))
			}
			d.setLua(&body)
			d.setEnd(p.lx.pos(end))
			continue
		}
		if depth+1 > p.maxDepth {
			return dirs, 0, &Error{Pos: d.Pos, Msg: fmt.Sprintf("blocks and includes nested deeper than %d levels", p.maxDepth)}
		}
		if p.spans != nil {
			p.noteSpan(p.spans.statement(st))
		}
		children, end, err := p.block(d.Name, d, depth+1)
		d.Block = children
		if err != nil {
			return dirs, 0, err
		}
		d.setEnd(p.lx.pos(end))
	}
}

// shapeError reports a directive written without the block it takes, or
// with a block it does not take, at the ";" or "{" that ends it.
func (p *parser) shapeError(d *Directive, term int, what string) *Error {
	err := p.lx.errorf(term, "directive %q %s", d.Name, what)
	if d.Pos.Line != err.Pos.Line {
		err.Msg = fmt.Sprintf("directive %q (line %d) %s", d.Name, d.Pos.Line, what)
	}
	return err
}
