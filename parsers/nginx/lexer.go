package nginx

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/proxylint/proxylint/parsers"
)

// maxToken is nginx's NGX_CONF_BUFFER: a parameter (or a comment) that does
// not fit in nginx's 4096-byte read buffer is rejected as "too long".
const maxToken = 4096

// Error is a syntax error at a position.
type Error struct {
	Pos parsers.Pos
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
	comments []parsers.Comment

	// lineStarts[i] is the offset at which line i+1 starts.
	lineStarts []int
	// Column cache: colOff/col is the last offset converted on line colLine.
	colLine, colOff, col int
}

func newLexer(file string, src []byte) *lexer {
	lx := &lexer{file: file, src: src, lineStarts: make([]int, 1, 1+bytes.Count(src, []byte{'\n'}))}
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
// increasing order within a line is cheap (the column is cached); any order
// is correct.
func (lx *lexer) pos(off int) parsers.Pos {
	off = min(off, len(lx.src))
	line := sort.Search(len(lx.lineStarts), func(i int) bool { return lx.lineStarts[i] > off })
	start := lx.lineStarts[line-1]
	if lx.colLine == line && lx.colOff <= off {
		lx.col += utf8.RuneCount(lx.src[lx.colOff:off])
	} else {
		lx.col = utf8.RuneCount(lx.src[start:off]) + 1
	}
	lx.colLine, lx.colOff = line, off
	return parsers.Pos{File: lx.file, Line: line, Col: lx.col}
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
		args         []Arg
		needSpace    bool
		lastSpace    = true
		sharpComment bool
		variable     bool
		quoted       bool
		sQuoted      bool
		dQuoted      bool
		start        = lx.off // first byte of the current word (after its quote)
		commentStart int
	)
	for {
		if lx.off >= len(lx.src) {
			if sharpComment {
				lx.addComment(commentStart, len(lx.src))
				if len(lx.src)-commentStart > maxToken {
					return statement{}, lx.tooLong(commentStart, 0)
				}
			}
			if len(args) > 0 || !lastSpace {
				if dQuoted || sQuoted {
					return statement{}, lx.errorf(len(lx.src), "unexpected end of file, expecting \";\" or \"}\" (a quoted string opened at %s is not closed)", lx.pos(start-1).String())
				}
				return statement{}, lx.errorf(len(lx.src), "unexpected end of file, expecting \";\" or \"}\"")
			}
			return statement{kind: stmtEOF, term: len(lx.src)}, nil
		}
		off := lx.off
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
			if off-commentStart >= maxToken {
				return statement{}, lx.tooLong(commentStart, 0)
			}
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
				return statement{kind: stmtSimple, args: args, term: off}, nil
			case ch == '{':
				return statement{kind: stmtBlockStart, args: args, term: off}, nil
			case ch == ')':
				lastSpace = true
				needSpace = false
			default:
				return statement{}, lx.errorf(off, "unexpected %q after a quoted string: quoted arguments must be followed by a space, \";\" or \"{\"", quoteChar(ch))
			}
		}

		if lastSpace {
			start = off
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
				return statement{kind: kind, args: args, term: off}, nil
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
				dQuoted = true
				lastSpace = false
				continue
			case '\'':
				start++
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

		found := false
		var quote byte
		switch {
		case dQuoted:
			if ch == '"' {
				dQuoted, needSpace, found, quote = false, true, true, '"'
			}
		case sQuoted:
			if ch == '\'' {
				sQuoted, needSpace, found, quote = false, true, true, '\''
			}
		case isSpace(ch) || ch == ';' || ch == '{':
			lastSpace = true
			found = true
		}
		if !found {
			continue
		}
		if off-start >= maxToken {
			return statement{}, lx.tooLong(start, quote)
		}
		args = append(args, lx.word(start, off, quote))
		switch ch {
		case ';':
			return statement{kind: stmtSimple, args: args, term: off}, nil
		case '{':
			return statement{kind: stmtBlockStart, args: args, term: off}, nil
		}
	}
}

func (lx *lexer) tooLong(start int, quote byte) *Error {
	if quote != 0 {
		return lx.errorf(start-1, "too long parameter, probably missing terminating %q character", string(quote))
	}
	end := min(start+10, len(lx.src))
	return lx.errorf(start, "too long parameter %q... started", string(lx.src[start:end]))
}

func (lx *lexer) addComment(start, end int) {
	text := lx.src[start+1 : end]
	if n := len(text); n > 0 && text[n-1] == '\r' {
		text = text[:n-1]
	}
	lx.comments = append(lx.comments, parsers.Comment{Pos: lx.pos(start), Text: string(text)})
}

// word builds the argument spanning src[start:end], unescaping it as nginx
// does: \" \' \\ lose the backslash, \t \r \n become control characters,
// and any other backslash stays.
func (lx *lexer) word(start, end int, quote byte) Arg {
	raw := lx.src[start:end]
	at := start
	if quote != 0 {
		at = start - 1
		raw = lx.src[start-1 : end+1]
	}
	return Arg{Value: unescape(lx.src[start:end]), Raw: string(raw), Pos: lx.pos(at), Quote: quote}
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
