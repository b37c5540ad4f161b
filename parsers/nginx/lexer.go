package nginx

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/proxylint/proxylint/model"
)

// maxToken is nginx's NGX_CONF_BUFFER: a parameter (or a comment) that does
// not fit in nginx's 4096-byte read buffer is rejected as "too long".
const maxToken = 4096

// Error is a syntax error at a position.
type Error struct {
	Pos model.Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// stmtKind says how ngx_conf_read_token's counterpart ended.
type stmtKind int

const (
	stmtSimple     stmtKind = iota // arguments terminated by ";"
	stmtBlockStart                 // arguments terminated by "{"
	stmtBlockEnd                   // "}"
	stmtEOF                        // end of the file
)

// statement is what one call of the lexer yields: the words of one
// directive and the character that ended it.
type statement struct {
	kind stmtKind
	args []Arg
	term int // offset of the ";", "{" or "}"
}

// lexer splits a configuration file into statements exactly as nginx's
// ngx_conf_read_token does: the same characters separate, quote, escape and
// comment, and the same inputs are errors. Positions are byte offsets,
// turned into line:column (Unicode code points) on demand.
type lexer struct {
	file     string
	src      []byte
	off      int
	comments []model.Comment

	// text is src as a string, sharing its memory (src is never written
	// to once read): words, comments and Lua code are parts of it rather
	// than copies of their own.
	text string

	// bufStart and bufEnd are the offsets of the first byte and of the end
	// of what nginx's NGX_CONF_BUFFER-byte read buffer would hold at this
	// point. nginx reads a file through that buffer, and what it accepts
	// depends on it: a parameter must fit in it, and the Lua module scans
	// Lua code only as far as the buffer reaches.
	bufStart, bufEnd int

	// scratch collects the words of a statement; words holds the words
	// of the statements read so far (see statement).
	scratch []Arg
	words   []Arg

	// lineStarts[i] is the offset at which line i+1 starts.
	lineStarts []int
	// Position cache: the last offset converted (posOff), on line posLine
	// at column posCol.
	posLine, posOff, posCol int
}

func newLexer(file string, src []byte) *lexer {
	lx := &lexer{file: file, src: src, text: unsafe.String(unsafe.SliceData(src), len(src)), lineStarts: make([]int, 1, 1+bytes.Count(src, []byte{'\n'}))}
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		lx.lineStarts = append(lx.lineStarts, i)
	}
	return lx
}

// pos converts a byte offset to a position. Converting offsets in
// increasing order, as the parser does, costs time proportional to the
// distance between them; any order is correct.
func (lx *lexer) pos(off int) model.Pos {
	off = max(0, min(off, len(lx.src)))
	line := lx.posLine // 1-based; 0 before the first conversion
	if line == 0 || off < lx.posOff {
		line = sort.Search(len(lx.lineStarts), func(i int) bool { return lx.lineStarts[i] > off })
	} else {
		for line < len(lx.lineStarts) && lx.lineStarts[line] <= off {
			line++
		}
	}
	if line == lx.posLine && off >= lx.posOff {
		lx.posCol += utf8.RuneCount(lx.src[lx.posOff:off])
	} else {
		lx.posCol = utf8.RuneCount(lx.src[lx.lineStarts[line-1]:off]) + 1
	}
	lx.posLine, lx.posOff = line, off
	return model.Pos{File: lx.file, Line: int32(line), Col: int32(lx.posCol)}
}

func (lx *lexer) errorf(off int, format string, args ...any) *Error {
	return &Error{Pos: lx.pos(off), Msg: fmt.Sprintf(format, args...)}
}

func isSpace(ch byte) bool { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' }

// quoteChar renders a character the way nginx's "unexpected "%c"" does.
func quoteChar(ch byte) string {
	if ch < 0x20 || ch >= 0x7f {
		return fmt.Sprintf("\\x%02x", ch)
	}
	return string(ch)
}

// next reads one statement. It follows ngx_conf_read_token state for
// state; the comments name nginx's variables.
func (lx *lexer) next() (statement, *Error) {
	var (
		args         = lx.scratch[:0]
		needSpace    bool
		lastSpace    = true
		sharpComment bool
		variable     bool
		quoted       bool
		sQuoted      bool
		dQuoted      bool
		// start is nginx's start: the first byte of the current word
		// (after its quote), of the current comment, or the byte being
		// looked at between words.
		start        = lx.off
		afterQuote   bool // start is just after an opening quote
		commentStart int
	)
	for {
		off := lx.off
		if off >= lx.bufEnd {
			if off >= len(lx.src) {
				if sharpComment {
					lx.addComment(commentStart, off)
				}
				if len(args) > 0 || !lastSpace {
					if dQuoted || sQuoted {
						return statement{}, lx.errorf(off, "unexpected end of file, expecting \";\" or \"}\": the quoted string opened at %s is not closed", lx.pos(start-1))
					}
					return statement{}, lx.errorf(off, "unexpected end of file, expecting \";\" or \"}\"")
				}
				return statement{kind: stmtEOF, term: off}, nil
			}
			// nginx refills its buffer from start; a word that already
			// fills the whole buffer is too long.
			if off-start >= maxToken {
				if sharpComment {
					return statement{}, lx.errorf(commentStart, "too long comment: nginx reads at most %d bytes of a comment line and rejects a longer one", maxToken)
				}
				switch {
				case dQuoted:
					return statement{}, lx.errorf(start-1, "too long parameter, probably missing the closing \" quote: nginx reads at most %d bytes of a parameter", maxToken)
				case sQuoted:
					return statement{}, lx.errorf(start-1, "too long parameter, probably missing the closing ' quote: nginx reads at most %d bytes of a parameter", maxToken)
				case afterQuote:
					// A quoted string that nginx could not read together
					// with its closing quote and what follows.
					return statement{}, lx.tooLong(start - 1)
				}
				return statement{}, lx.tooLong(start)
			}
			lx.bufStart, lx.bufEnd = start, min(start+maxToken, len(lx.src))
		}
		if !quoted && !needSpace {
			// Runs of bytes that change nothing but the offset: a
			// comment's text, the spaces between words, a word's
			// ordinary bytes. They are passed over in one scan up to the
			// read buffer's end, leaving the state as reading them one
			// by one would.
			var skip *[256]bool
			switch {
			case sharpComment:
				skip = &skipComment
			case lastSpace:
				skip = &skipSpaces
			case dQuoted:
				skip = &skipDoubleQuoted
			case sQuoted:
				skip = &skipSingleQuoted
			case !variable:
				skip = &skipWord
			}
			if skip != nil {
				end, i := lx.bufEnd, off
				for i < end && skip[lx.src[i]] {
					i++
				}
				if i > off {
					if lastSpace && !sharpComment {
						// Each space is where the next word might start.
						start, afterQuote = i-1, false
					}
					lx.off = i
					continue
				}
			}
		}
		ch := lx.src[off]
		lx.off++
		if ch == 0 {
			// nginx reads NUL as an ordinary byte, but no valid
			// configuration contains one: the file is binary or damaged.
			return statement{}, lx.errorf(off, "NUL byte in the configuration: the file is binary or damaged")
		}

		if ch == '\n' && sharpComment {
			sharpComment = false
			lx.addComment(commentStart, off)
		}
		if sharpComment {
			continue
		}
		if quoted {
			quoted = false
			continue
		}

		if needSpace {
			switch {
			case isSpace(ch):
				lastSpace = true
				needSpace = false
				continue
			case ch == ';':
				return lx.statement(stmtSimple, args, off), nil
			case ch == '{':
				return lx.statement(stmtBlockStart, args, off), nil
			case ch == ')':
				lastSpace = true
				needSpace = false
			default:
				return statement{}, lx.errorf(off, "unexpected %q after a quoted string: quoted arguments must be followed by a space, \";\" or \"{\"", quoteChar(ch))
			}
		}

		if lastSpace {
			start, afterQuote = off, false
			if isSpace(ch) {
				continue
			}
			switch ch {
			case ';', '{':
				if len(args) == 0 {
					return statement{}, lx.errorf(off, "unexpected %q", string(ch))
				}
				kind := stmtSimple
				if ch == '{' {
					kind = stmtBlockStart
				}
				return lx.statement(kind, args, off), nil
			case '}':
				if len(args) != 0 {
					return statement{}, lx.errorf(off, "unexpected \"}\": the directive %q is not terminated by \";\"", args[0].Value)
				}
				return statement{kind: stmtBlockEnd, term: off}, nil
			case '#':
				sharpComment = true
				commentStart = off
				continue
			case '\\':
				quoted = true
				lastSpace = false
				continue
			case '"':
				start++
				afterQuote = true
				dQuoted = true
				lastSpace = false
				continue
			case '\'':
				start++
				afterQuote = true
				sQuoted = true
				lastSpace = false
				continue
			case '$':
				variable = true
				lastSpace = false
				continue
			default:
				lastSpace = false
			}
			continue
		}

		if ch == '{' && variable {
			continue
		}
		variable = false
		if ch == '\\' {
			quoted = true
			continue
		}
		if ch == '$' {
			variable = true
			continue
		}

		var quote byte
		switch {
		case dQuoted:
			if ch != '"' {
				continue
			}
			dQuoted, needSpace, quote = false, true, '"'
		case sQuoted:
			if ch != '\'' {
				continue
			}
			sQuoted, needSpace, quote = false, true, '\''
		case isSpace(ch) || ch == ';' || ch == '{':
			lastSpace = true
		default:
			continue
		}
		args = append(args, lx.word(start, off, quote))
		switch ch {
		case ';':
			return lx.statement(stmtSimple, args, off), nil
		case '{':
			return lx.statement(stmtBlockStart, args, off), nil
		}
	}
}

// Bytes next passes over without looking at them one by one, by state:
// whatever would end the state, or change anything but the offset, is not
// among them (NUL is an error everywhere).
var skipComment, skipSpaces, skipDoubleQuoted, skipSingleQuoted, skipWord = byteSet(func(c byte) bool {
	return c != '\n'
}), byteSet(isSpace), byteSet(func(c byte) bool {
	return c != '"' && c != '\\' && c != '$'
}), byteSet(func(c byte) bool {
	return c != '\'' && c != '\\' && c != '$'
}), byteSet(func(c byte) bool {
	return !isSpace(c) && c != ';' && c != '{' && c != '\\' && c != '$'
})

func byteSet(in func(byte) bool) (set [256]bool) {
	for c := 1; c < 256; c++ {
		set[c] = in(byte(c))
	}
	return set
}

// statement ends a statement: its words move from the reused scratch
// slice to a part of the lexer's block of words, which is allocated a few
// hundred words at a time rather than once per statement. Each part is
// capped at its length, so appending to it copies.
func (lx *lexer) statement(kind stmtKind, args []Arg, term int) statement {
	lx.scratch = args[:0]
	n := len(args)
	if cap(lx.words)-len(lx.words) < n {
		// About one word per 16 bytes of what is left of the file.
		lx.words = make([]Arg, 0, max(n, min((len(lx.src)-lx.off)/16, maxWordBlock)))
	}
	at := len(lx.words)
	lx.words = append(lx.words, args...)
	return statement{kind: kind, args: lx.words[at : at+n : at+n], term: term}
}

// maxWordBlock is the most words the lexer allocates at once.
const maxWordBlock = 512

// tooLong reports a word that does not fit in nginx's read buffer, at the
// line nginx reports it: where the word starts.
func (lx *lexer) tooLong(start int) *Error {
	end := min(start+10, len(lx.src))
	return lx.errorf(start, "too long parameter %q...: nginx reads at most %d bytes of a parameter", string(lx.src[start:end]), maxToken)
}

func (lx *lexer) addComment(start, end int) {
	text := lx.src[start+1 : end]
	if n := len(text); n > 0 && text[n-1] == '\r' {
		text = text[:n-1]
	}
	lx.comments = append(lx.comments, model.Comment{Pos: lx.pos(start), Text: lx.text[start+1 : start+1+len(text)]})
}

// word builds the argument spanning src[start:end], unescaping it as nginx
// does: \" \' \\ lose the backslash, \t \r \n become control characters,
// and any other backslash stays.
func (lx *lexer) word(start, end int, quote byte) Arg {
	at, rawEnd := start, end
	if quote != 0 {
		at, rawEnd = start-1, end+1
	}
	// Without escapes the value is a part of the file's text.
	value := lx.text[start:end]
	if strings.IndexByte(value, '\\') >= 0 {
		value = unescape(lx.src[start:end])
	}
	p := lx.pos(at)
	return Arg{Value: value, Line: p.Line, Col: p.Col, Len: int32(rawEnd - at)}
}

func unescape(b []byte) string {
	i := 0
	for i < len(b) && b[i] != '\\' {
		i++
	}
	if i == len(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b))
	sb.Write(b[:i])
	for ; i < len(b); i++ {
		c := b[i]
		if c == '\\' && i+1 < len(b) {
			switch b[i+1] {
			case '"', '\'', '\\':
				i++
				c = b[i]
			case 't':
				i++
				c = '\t'
			case 'r':
				i++
				c = '\r'
			case 'n':
				i++
				c = '\n'
			}
		}
		sb.WriteByte(c)
	}
	return sb.String()
}
