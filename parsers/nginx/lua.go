package nginx

import (
	"bytes"
	"strings"
)

// isLuaBlock reports whether a directive's block is Lua code that the Lua
// module reads itself (content_by_lua_block, set_by_lua_block, ...).
func isLuaBlock(name string) bool { return strings.HasSuffix(name, "_by_lua_block") }

// readLuaBlock reads the body of a *_by_lua_block directive, starting right
// after its "{", the way lua-nginx-module does (ngx_http_lua_conf_read_lua_token
// and its generated lexer): it scans for the leftmost of "{", "}", a long
// bracket "[=*[", a long comment "--[=*[", a line comment "--...", or a
// single- or double-quoted string that closes on the same line, and counts
// braces outside strings and comments. It returns the body and the offset
// of the closing "}".
func (lx *lexer) readLuaBlock(open int) (string, int, *Error) {
	src := lx.src
	level := 1
	bodyStart := lx.off
	i := lx.off
	for i < len(src) {
		switch ch := src[i]; ch {
		case 0:
			return "", 0, lx.errorf(i, "NUL byte in the configuration: the file is binary or damaged")
		case '{':
			level++
			i++
		case '}':
			level--
			if level == 0 {
				lx.off = i + 1
				return string(src[bodyStart:i]), i, nil
			}
			i++
		case '[':
			if n, ok := longBracketOpen(src[i:]); ok {
				end, err := lx.closeLongBracket(i, i+n, n-2)
				if err != nil {
					return "", 0, err
				}
				i = end
				continue
			}
			i++
		case '-':
			if i+1 < len(src) && src[i+1] == '-' {
				if n, ok := longBracketOpen(src[i+2:]); ok {
					end, err := lx.closeLongBracket(i, i+2+n, n-2)
					if err != nil {
						return "", 0, err
					}
					i = end
					continue
				}
				nl := bytes.IndexByte(src[i:], '\n')
				if nl < 0 {
					i = len(src)
				} else {
					i += nl
				}
				continue
			}
			i++
		case '"', '\'':
			i = luaQuoted(src, i)
		default:
			i++
		}
	}
	return "", 0, lx.errorf(open, "unexpected end of file, expecting terminating characters for the Lua code block opened here")
}

// longBracketOpen matches "[=*[" at the start of b and returns its length.
func longBracketOpen(b []byte) (int, bool) {
	if len(b) == 0 || b[0] != '[' {
		return 0, false
	}
	j := 1
	for j < len(b) && b[j] == '=' {
		j++
	}
	if j < len(b) && b[j] == '[' {
		return j + 1, true
	}
	return 0, false
}

// closeLongBracket finds the "]=*]" with level equals signs that closes a
// long bracket opened at open, searching from from, and returns the offset
// just after it.
func (lx *lexer) closeLongBracket(open, from, level int) (int, *Error) {
	closer := "]" + strings.Repeat("=", level) + "]"
	k := bytes.Index(lx.src[from:], []byte(closer))
	if k < 0 {
		return 0, lx.errorf(open, "Lua code block missing the closing long bracket %q", closer)
	}
	return from + k + len(closer), nil
}

// luaQuoted skips a Lua string starting at i if it closes on the same line
// (backslash escapes any character but a newline); otherwise the quote is
// an ordinary character, as in lua-nginx-module's lexer.
func luaQuoted(src []byte, i int) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case q:
			return j + 1
		case '\n':
			return i + 1
		case '\\':
			if j+1 < len(src) && src[j+1] != '\n' {
				j++
			} else {
				return i + 1
			}
		}
	}
	return i + 1
}
