package nginx

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/proxylint/proxylint/internal/lazyre"
	"github.com/proxylint/proxylint/model"
)

// Detect reports whether src (possibly only the start of a file) is an
// nginx configuration, by its structure: its statements read as nginx
// reads them, and either its first statement is a directive nginx or a
// known module declares, written with the shape it takes (a block or
// ";"), or its first statement is a directive name that no table holds
// (a module proxylint does not know) and a later statement is one it
// knows, again with its shape. Template placeholders are blanked first,
// so that a template of an nginx configuration is recognised as one (and
// then reported as a template by Load).
//
// A shell script fails here: its first word is not a directive name
// ("PATH=/usr/bin"), or is one written with the wrong shape ("if [ -f x ];
// then" ends with ";" where nginx's "if" takes a block).
func Detect(src []byte) bool {
	if bytes.IndexByte(src, 0) >= 0 || bytes.HasPrefix(src, []byte("#!")) {
		return false
	}
	lx := newLexer("", blankTemplates(src))
	var parents []string
	for n := 0; n < 200; n++ {
		st, err := lx.next()
		if err != nil || st.kind == stmtEOF {
			return false
		}
		if st.kind == stmtBlockEnd {
			if len(parents) == 0 {
				return false
			}
			parents = parents[:len(parents)-1]
			continue
		}
		name := st.args[0].Value
		if n == 0 && !directiveName().MatchString(name) {
			return false
		}
		parent := parentUnknown
		if len(parents) > 0 {
			parent = parents[len(parents)-1]
		}
		isBlock := st.kind == stmtBlockStart
		_, known := lookupDirective(name)
		if known || isLuaBlock(name) {
			mustBlock, mustNot := blockShape(name, parent)
			if (mustBlock || isLuaBlock(name)) && !isBlock || mustNot && isBlock {
				return false
			}
			return true
		}
		if isBlock {
			if handlerBlocks[parent] {
				return false
			}
			parents = append(parents, name)
		}
	}
	return false
}

// Parses reports whether src, the start of a file that may have been cut
// after limit bytes, parses as nginx configuration: a file whose name does
// not say it is one (sites-available/default, /etc/profile) must read as
// one throughout, not only in its first statement ("set -e" is a shell
// command and an nginx directive).
func Parses(src []byte, limit int) bool {
	_, _, err := parse("", blankTemplates(src), parentUnknown, 0, DefaultMaxDepth, false)
	if err == nil {
		return true
	}
	// The start of a longer file ends where it was cut.
	return len(src) >= limit && strings.HasPrefix(err.Msg, "unexpected end of file")
}

// directiveName is what a directive's name looks like: nginx accepts any
// word, but every module names its directives this way.
var directiveName = lazyre.New(`^[a-z][a-z0-9_]*$`)

// A template is a file a tool renders into a configuration: nginx would
// read its placeholders literally and fail on them, or worse, read a
// placeholder without ";" together with the directive after it.
var templateMarks = []struct {
	lit  string
	re   func() *regexp.Regexp // matched at lit, on the rest of its line
	what string
	word bool // only where a word starts, outside quotes
	// unquoted: only outside quotes, anywhere in a word. A "%%name%%"
	// in a quoted string is text nginx passes on as it stands
	// (sub_filter '%%BASE%%' ...); the test templates of nginx's own
	// suite put their placeholders bare ("%%TEST_GLOBALS%%",
	// "127.0.0.1:%%PORT_8081%%").
	unquoted bool
}{
	{"%%", lazyre.New(`^%%[A-Za-z_][A-Za-z0-9_]*%%`), "%%NAME%% placeholders", false, true},
	{"{{", lazyre.New(`^\{\{-?\s*[-.$A-Za-z_"'(!][^\n]*?\}\}`), "{{ }} expressions", false, false},
	{"{%", lazyre.New(`^\{%-?\s*[a-z][^\n]*?%\}`), "{% %} tags", false, false},
	// Documentation samples to be filled in by hand: "server_name
	// <container_name>.*;", "set $upstream_proto <http or https>;". Only
	// a bare word that starts with "<": a regex's named capture "(?<name>"
	// and a quoted "<head>" of sub_filter are not placeholders.
	{"<", lazyre.New(`^<[a-z][a-z0-9_]*(?: [a-z0-9_]+)*>(?:[\s;.:/]|$)`), "<name> placeholders", true, false},
}

// templateSpans lists the [start, end) offsets of the placeholders of
// mark i in src. The literal start of each is found first: a large file
// without placeholders costs one scan per mark.
func templateSpans(src []byte, i int) [][2]int {
	m := templateMarks[i]
	var out [][2]int
	for off := 0; ; {
		j := bytes.Index(src[off:], []byte(m.lit))
		if j < 0 {
			return out
		}
		start := off + j
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		if loc := m.re().FindIndex(src[start:end]); loc != nil && (!m.word || wordStart(src, start)) && (!m.unquoted || !quotedAt(src, start)) {
			if m.word { // the character after the placeholder is not its own
				loc[1] = bytes.LastIndexByte(src[start:start+loc[1]], '>') + 1
			}
			out = append(out, [2]int{start, start + loc[1]})
			off = start + loc[1]
		} else {
			off = start + len(m.lit)
		}
	}
}

// blankTemplates returns src with every template placeholder replaced by
// spaces, or src itself when it has none.
func blankTemplates(src []byte) []byte {
	var out []byte
	for i := range templateMarks {
		for _, l := range templateSpans(src, i) {
			if out == nil {
				out = bytes.Clone(src)
			}
			for k := l[0]; k < l[1]; k++ {
				out[k] = ' '
			}
		}
	}
	if out == nil {
		return src
	}
	return out
}

// templateIn finds the first template placeholder in a parsed file,
// outside comments and outside Lua code (a Lua template library has its
// own "{% %}"), and says what kind it is.
func templateIn(f *File) (model.Pos, string, bool) {
	var lx *lexer
	var lua [][2]model.Pos
	first, what := model.Pos{}, ""
	for i, m := range templateMarks {
		for _, l := range templateSpans(f.Source, i) {
			if inComment(f.Source, l[0]) {
				continue
			}
			if lx == nil {
				lx = newLexer(f.Path, f.Source)
				lua = luaBodies(f.Directives, nil)
			}
			pos := lx.pos(l[0])
			if inside(pos, lua) {
				continue
			}
			if what == "" || before(pos, first) {
				first, what = pos, m.what
			}
			break
		}
	}
	return first, what, what != ""
}

// luaBodies lists where the Lua code of *_by_lua_block directives stands.
func luaBodies(dirs []*Directive, out [][2]model.Pos) [][2]model.Pos {
	for _, d := range dirs {
		if d.Lua() != nil {
			out = append(out, [2]model.Pos{d.LuaPos(), d.End()})
		}
		out = luaBodies(d.Block, out)
	}
	return out
}

func before(a, b model.Pos) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }

func inside(p model.Pos, ranges [][2]model.Pos) bool {
	for _, r := range ranges {
		if !before(p, r[0]) && before(p, r[1]) {
			return true
		}
	}
	return false
}

// HasTemplate reports whether src holds template placeholders outside
// comments.
func HasTemplate(src []byte) bool {
	for i := range templateMarks {
		for _, l := range templateSpans(src, i) {
			if !inComment(src, l[0]) {
				return true
			}
		}
	}
	return false
}

// wordStart reports whether offset off of src starts a bare word: after
// white space, outside quotes.
func wordStart(src []byte, off int) bool {
	if off == 0 || !isSpace(src[off-1]) {
		return false
	}
	_, quoted := lineState(src, off)
	return !quoted
}

// quotedAt reports whether offset off of src lies inside quotes.
func quotedAt(src []byte, off int) bool {
	_, quoted := lineState(src, off)
	return quoted
}

// inComment reports whether offset off of src lies in a "#" comment: a
// "#" earlier on its line that starts a word outside quotes.
func inComment(src []byte, off int) bool {
	comment, _ := lineState(src, off)
	return comment
}

// lineState reads the line of offset off up to it and reports whether off
// lies in a "#" comment, or inside quotes.
func lineState(src []byte, off int) (comment, quoted bool) {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	var quote byte
	for i := start; i < off; i++ {
		c := src[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == start || isSpace(src[i-1]) || src[i-1] == ';' || src[i-1] == '{' || src[i-1] == '}'):
			return true, false
		}
	}
	return false, quote != 0
}

// envTemplate finds a ${NAME} placeholder (envsubst, Docker's nginx
// image) where nginx takes the text literally: in a directive name, or in
// a value that must be a number, a size, a time or an address, which
// nginx never expands. It returns the argument (or directive) and false
// when there is none.
func envTemplate(dirs []*Directive) (*Directive, int, bool) {
	for _, d := range dirs {
		if hasEnvPlaceholder(d.Name) {
			return d, -1, true
		}
		// The name is asked about only for an argument with a
		// placeholder, which few have.
		for i, a := range d.Args {
			if hasEnvPlaceholder(a.Value) {
				if literalValues(d.Name) {
					return d, i, true
				}
				break
			}
		}
		if t, i, ok := envTemplate(d.Block); ok {
			return t, i, ok
		}
	}
	return nil, 0, false
}

// envsubstTemplate finds, in a file named *.template (or
// *.stream-template), an environment variable placeholder anywhere: the
// nginx image renders /etc/nginx/templates/*.template into
// /etc/nginx/conf.d with envsubst, which replaces ${NAME} with the value
// of a variable that is set (docker-nginx,
// entrypoint/20-envsubst-on-templates.sh), and nginx reads only the
// result. Upper-case names only: nginx's own variables ($host, ${uri})
// pass through envsubst unless the environment sets them.
func envsubstTemplate(path string, dirs []*Directive) (*Directive, int, bool) {
	base := strings.ToLower(filepath.Base(path))
	if !strings.HasSuffix(base, ".template") && !strings.HasSuffix(base, ".stream-template") {
		return nil, 0, false
	}
	var find func(dirs []*Directive) (*Directive, int, bool)
	find = func(dirs []*Directive) (*Directive, int, bool) {
		for _, d := range dirs {
			if hasEnvPlaceholder(d.Name) {
				return d, -1, true
			}
			for i, a := range d.Args {
				if hasEnvPlaceholder(a.Value) {
					return d, i, true
				}
			}
			if t, i, ok := find(d.Block); ok {
				return t, i, ok
			}
		}
		return nil, 0, false
	}
	return find(dirs)
}

var envPlaceholder = lazyre.New(`\$\{?[A-Z][A-Z0-9_]*\}?`)

// hasEnvPlaceholder reports whether s holds an environment variable
// placeholder; a word without "$" (most of them) skips the expression.
func hasEnvPlaceholder(s string) bool {
	return strings.IndexByte(s, '$') >= 0 && envPlaceholder().MatchString(s)
}

// literalValues reports whether nginx reads a directive's arguments as
// literal numbers, sizes, times or addresses, never expanding variables.
func literalValues(name string) bool {
	switch name {
	case "listen", "worker_processes", "worker_connections", "worker_rlimit_nofile", "keepalive":
		return true
	}
	for _, suffix := range []string{"_timeout", "_size", "_buffers", "_time", "_tries", "_requests", "_connections"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// template reports the file at pos as a template: nginx cannot read it,
// and nothing in it is linted.
func (l *loader) template(pos model.Pos, what string) {
	l.cfg.Template = true
	l.cfg.Syntax = true
	l.fatal(CodeSyntax, pos, fmt.Sprintf("this looks like a template (%s): render it first, or exclude it", what))
}
