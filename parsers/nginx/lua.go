package nginx

import (
	"bytes"
	"strings"
)

// isLuaBlock reports whether a directive's block is Lua code that the Lua
// module reads itself (content_by_lua_block, set_by_lua_block, ...).
func isLuaBlock(name string) bool { return strings.HasSuffix(name, "_by_lua_block") }

// Lua tokens, as lua-nginx-module's lexer (ngx_http_lua_lex) finds them.
type luaToken int

const (
	luaNone        luaToken = iota
	luaOpen                 // {
	luaClose                // }
	luaLongString           // [=*[ ... ]=*]
	luaLongComment          // --[=*[ ... ]=*]
	luaOther                // ]=*], a line comment or a quoted string
)

// readLuaBlock reads the body of a *_by_lua_block directive, starting right
// after its "{" (at open), the way lua-nginx-module does
// (ngx_http_lua_conf_lua_block_parse and ngx_http_lua_conf_read_lua_token):
// it repeatedly finds the leftmost of "{", "}", a long bracket "[=*[", a
// long comment "--[=*[", a closing long bracket "]=*]", a line comment
// "--..." and a single- or double-quoted string that closes on its line, and
// counts the braces among them.
//
// The Lua module scans only what nginx's read buffer holds, and refills it
// in its own way, so what it accepts depends on the buffer: a long bracket
// whose end lies beyond the buffer, or more than half a buffer of code with
// no token in it, is an error. This function replays that buffer exactly.
//
// It returns the body and the offset of the closing "}". Errors are at the
// line nginx reports them.
func (lx *lexer) readLuaBlock(open int) (string, int, *Error) {
	const half = maxToken / 2
	src := lx.src
	size := len(src)
	level := 1
	bodyStart := lx.off
	pos := lx.off
	// lastOpen is the last "{" read: nginx reports a missing "}" there.
	lastOpen := open
	var memo quoteMemo
	for {
		// One ngx_http_lua_conf_read_lua_token call.
		start, tokStart := pos, pos
		var tok luaToken
		var end int
		for {
			if pos >= lx.bufEnd || (lx.bufEnd-pos < half && lx.bufEnd < size) {
				if lx.bufEnd >= size {
					return "", 0, lx.luaEOF(open, lastOpen)
				}
				if lx.bufEnd-start >= maxToken {
					return "", 0, lx.luaTooLong(tokStart)
				}
				lx.bufStart, lx.bufEnd = start, min(start+maxToken, size)
			}
			var err *Error
			tok, end, err = lx.luaLex(pos, lx.bufEnd, &memo)
			if err != nil {
				return "", 0, err
			}
			if tok != luaNone {
				break
			}
			// No token in the buffer: nginx keeps only the unscanned rest
			// and reads on after it.
			if lx.bufEnd >= size {
				return "", 0, lx.luaEOF(open, lastOpen)
			}
			if lx.bufEnd-pos >= maxToken {
				return "", 0, lx.luaTooLong(tokStart)
			}
			start = pos
			lx.bufStart, pos, lx.bufEnd = pos, lx.bufEnd, min(pos+maxToken, size)
		}
		pos = end
		switch tok {
		case luaOpen:
			level++
			lastOpen = end - 1
		case luaClose:
			level--
			if level == 0 {
				lx.off = end
				return lx.text[bodyStart : end-1], end - 1, nil
			}
		}
	}
}

// quoteMemo remembers, for each quote character, how far a string opened
// by it was scanned without finding its end: a string opened by the same
// quote before that point cannot end before it either (escapes pair up
// the same way from any start), so luaLex need not scan it again.
type quoteMemo struct {
	until, limit [2]int
}

func quoteIndex(q byte) int {
	if q == '"' {
		return 0
	}
	return 1
}

// luaLex finds the leftmost Lua token in src[pos:limit] and returns it with
// its end offset, or luaNone. A long bracket must close before limit.
func (lx *lexer) luaLex(pos, limit int, memo *quoteMemo) (luaToken, int, *Error) {
	w := lx.src[:limit]
	for i := pos; i < limit; i++ {
		switch ch := w[i]; ch {
		case 0:
			return luaNone, 0, lx.errorf(i, "NUL byte in the configuration: the file is binary or damaged")
		case '{':
			return luaOpen, i + 1, nil
		case '}':
			return luaClose, i + 1, nil
		case '[':
			if n := longBracket(w[i:], '['); n > 0 {
				end, err := lx.closeLongBracket(i, i+n, n-2, limit)
				return luaLongString, end, err
			}
		case ']':
			if n := longBracket(w[i:], ']'); n > 0 {
				return luaOther, i + n, nil
			}
		case '-':
			if i+1 < limit && w[i+1] == '-' {
				if n := longBracket(w[i+2:], '['); n > 0 {
					end, err := lx.closeLongBracket(i, i+2+n, n-2, limit)
					return luaLongComment, end, err
				}
				end := limit
				if nl := bytes.IndexByte(w[i:], '\n'); nl >= 0 {
					end = i + nl
				}
				return luaOther, end, nil
			}
		case '"', '\'':
			q := quoteIndex(ch)
			if i < memo.until[q] && memo.limit[q] == limit {
				continue
			}
			end, failed := luaQuoted(w, i)
			if end > 0 {
				return luaOther, end, nil
			}
			memo.until[q], memo.limit[q] = failed, limit
		}
	}
	return luaNone, 0, nil
}

// longBracket matches "[=*[" (or "]=*]" when bracket is ']') at the start
// of b and returns its length, or 0.
func longBracket(b []byte, bracket byte) int {
	if len(b) == 0 || b[0] != bracket {
		return 0
	}
	j := 1
	for j < len(b) && b[j] == '=' {
		j++
	}
	if j < len(b) && b[j] == bracket {
		return j + 1
	}
	return 0
}

// closeLongBracket finds the "]=*]" with level equals signs that closes a
// long bracket opened at open, between from and limit, and returns the
// offset just after it.
func (lx *lexer) closeLongBracket(open, from, level, limit int) (int, *Error) {
	closer := "]" + strings.Repeat("=", level) + "]"
	k := bytes.Index(lx.src[from:limit], []byte(closer))
	if k < 0 {
		msg := "the Lua code block has no closing long bracket %q for the one opened here"
		if limit < len(lx.src) {
			msg += " within the %d bytes nginx reads at a time"
			return 0, lx.errorf(open, msg, closer, maxToken)
		}
		return 0, lx.errorf(open, msg, closer)
	}
	return from + k + len(closer), nil
}

// luaQuoted returns the end of the Lua string starting at w[i] if it
// closes on its line (a backslash escapes any character but a newline),
// or 0 and where the scan failed.
func luaQuoted(w []byte, i int) (end, failed int) {
	q := w[i]
	for j := i + 1; j < len(w); j++ {
		switch w[j] {
		case q:
			return j + 1, 0
		case '\n':
			return 0, j
		case '\\':
			if j+1 >= len(w) || w[j+1] == '\n' {
				return 0, j
			}
			j++
		}
	}
	return 0, len(w)
}

func (lx *lexer) luaEOF(open, lastOpen int) *Error {
	if lastOpen == open {
		return lx.errorf(lastOpen, "unexpected end of file: the Lua code block opened here is not closed by \"}\"")
	}
	return lx.errorf(lastOpen, "unexpected end of file: the Lua code block opened at line %d is not closed by \"}\" (the last \"{\" read in it is here)", lx.pos(open).Line)
}

func (lx *lexer) luaTooLong(at int) *Error {
	return lx.errorf(at, "too long stretch of Lua code without a brace, string or comment: nginx's Lua module reads %d bytes at a time and cannot scan it", maxToken)
}
