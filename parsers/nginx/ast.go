// Package nginx reads nginx configuration files the way nginx itself does
// (ngx_conf_read_token and ngx_conf_parse in src/core/ngx_conf_file.c), with
// the start position of every directive and argument, follows include
// directives, and builds proxylint's common model from the result.
package nginx

import (
	"github.com/proxylint/proxylint/model"
)

// Directive is one nginx statement: a name, its arguments and, for block
// directives, the directives inside the block.
type Directive struct {
	Name string // unquoted and unescaped, as nginx looks it up
	Pos  model.Pos
	Args []Arg

	// Block is non-nil for block directives, even when the block is empty.
	Block []*Directive
	// blockAt is the "{" of a block (BlockPos); endAt the closing "}" of
	// a block or the ";" that ends a simple directive (End). Both are in
	// the directive's file, which Pos names once for all three.
	blockAt, endAt lineCol

	// more holds what few directives have (Lua, Included): a parse tree
	// has a Directive for every statement, and the two fields in each
	// took a quarter of it.
	more *directiveMore
}

type directiveMore struct {
	lua      *string
	included []*File
}

// Lua holds the body of a *_by_lua_block directive, which nginx hands to
// the Lua module unparsed; LuaPos says where the body starts. nil for
// other directives.
func (d *Directive) Lua() *string {
	if d.more == nil {
		return nil
	}
	return d.more.lua
}

// Included lists the files an include directive pulled in, in the order
// nginx reads them (sorted glob matches).
func (d *Directive) Included() []*File {
	if d.more == nil {
		return nil
	}
	return d.more.included
}

func (d *Directive) setLua(body *string) {
	if d.more == nil {
		d.more = &directiveMore{}
	}
	d.more.lua = body
}

// include adds f to the files d pulled in.
func (d *Directive) include(f *File) {
	if d.more == nil {
		d.more = &directiveMore{}
	}
	d.more.included = append(d.more.included, f)
}

// lineCol is a position in the file of the directive that holds it; the
// zero value is no position.
type lineCol struct{ line, col int32 }

func at(p model.Pos) lineCol { return lineCol{p.Line, p.Col} }

// in is the position in file, or the zero Pos.
func (lc lineCol) in(file string) model.Pos {
	if lc.line == 0 {
		return model.Pos{}
	}
	return model.Pos{File: file, Line: lc.line, Col: lc.col}
}

// BlockPos is the "{" of a block, or the zero Pos for a simple directive.
func (d *Directive) BlockPos() model.Pos { return d.blockAt.in(d.Pos.File) }

// End is the closing "}" of a block or the ";" that ends a simple
// directive.
func (d *Directive) End() model.Pos { return d.endAt.in(d.Pos.File) }

func (d *Directive) setEnd(p model.Pos) { d.endAt = at(p) }

// LuaPos is where the body of a *_by_lua_block directive starts: just
// after its "{", which is one character wide.
func (d *Directive) LuaPos() model.Pos {
	p := d.BlockPos()
	p.Col++
	return p
}

// IsBlock reports whether the directive has a block (Lua blocks included).
func (d *Directive) IsBlock() bool { return d.Block != nil || d.Lua() != nil }

// Arg is one argument of a directive.
type Arg struct {
	Value string // unquoted and unescaped as nginx does
	// Line and Col are where the argument starts as written (at its
	// quote, if it has one), in its directive's file (Directive.ArgPos):
	// a large configuration has millions of arguments, and a file name
	// in each took a third of their memory. Len is how many bytes the
	// argument takes there, quotes included.
	Line, Col int32
	Len       int32
}

// ArgPos is where argument i of d starts.
func (d *Directive) ArgPos(i int) model.Pos { return d.PosOf(d.Args[i]) }

// PosOf is where a, an argument of d, starts.
func (d *Directive) PosOf(a Arg) model.Pos {
	return model.Pos{File: d.Pos.File, Line: a.Line, Col: a.Col}
}

// ArgValues returns the argument values.
func (d *Directive) ArgValues() []string {
	out := make([]string, len(d.Args))
	for i, a := range d.Args {
		out[i] = a.Value
	}
	return out
}

// File is one parsed configuration file.
type File struct {
	Path string
	// Real is the file's absolute path with symbolic links resolved, as
	// the loader read it (empty for ParseFile).
	Real       string
	Source     []byte
	Directives []*Directive
	Comments   []model.Comment
	// spans is the file's layout, recorded while it was parsed, for its
	// editor (Editor); nil when the parse stopped at an error.
	spans *spans
}

// Editor returns the editor of the file, which edits it from the layout
// recorded while the file was parsed instead of reading it again.
func (f *File) Editor() *Editor {
	return &Editor{path: f.Path, src: f.Source, pre: f.spans}
}
