package report

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape makes text that comes from the files read (a file name, a
// directive's value, a message quoting one, a source line) safe to print on
// a terminal or in a CI log, so that nothing in a file can start a line of
// its own, a terminal escape sequence or a GitHub Actions workflow command:
//
//   - line breaks and tabs become \n, \r and \t;
//   - other C0 controls, DEL and bytes that are not UTF-8 become \xHH;
//   - C1 controls, Unicode format characters (bidirectional overrides such
//     as U+202E, zero-width characters, the byte order mark) and the line
//     and paragraph separators become \uHHHH (\UHHHHHHHH above U+FFFF);
//   - a "::" that leads the text after blanks, which the Actions runner
//     reads as a command when it starts a line, becomes \x3a:, and "##[",
//     which the runner's legacy syntax finds anywhere in a line, becomes
//     ##\x5b.
//
// Everything else, backslashes included, is left as it is: the escapes
// exist only to make input inert, and text without such characters comes
// out unchanged.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	out, _ := escape(s, "", -1)
	return out
}

// escape is Escape with tabs written as tab instead of \t when tab is not
// empty; col is the number of code points written for the first stop code
// points of s, where a caret under code point stop+1 goes.
func escape(s, tab string, stop int) (out string, col int) {
	var b strings.Builder
	b.Grow(len(s) + 16)
	lead := len(s) - len(strings.TrimLeft(s, " "))
	n := 0
	for i := 0; i < len(s); n++ {
		if n == stop {
			col = utf8.RuneCountInString(b.String())
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case i == lead && strings.HasPrefix(s[i:], "::"):
			b.WriteString(`\x3a`)
		case r == '[' && i >= 2 && s[i-2:i] == "##":
			b.WriteString(`\x5b`)
		case r == '\t' && tab != "":
			b.WriteString(tab)
		default:
			writeRune(&b, r)
		}
		i += size
	}
	out = b.String()
	if stop >= n {
		col = utf8.RuneCountInString(out) + stop - n
	}
	return out, col
}

// writeRune writes r, escaped when it is a control or format character.
func writeRune(b *strings.Builder, r rune) {
	switch {
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r == '\t':
		b.WriteString(`\t`)
	case r < 0x20 || r == 0x7f:
		b.WriteString(`\x`)
		b.WriteString(hex2(byte(r)))
	case unsafeRune(r):
		if r > 0xffff {
			b.WriteString(`\U`)
			b.WriteString(pad(strconv.FormatInt(int64(r), 16), 8))
		} else {
			b.WriteString(`\u`)
			b.WriteString(pad(strconv.FormatInt(int64(r), 16), 4))
		}
	default:
		b.WriteRune(r)
	}
}

// unsafeRune reports a character above ASCII that Escape escapes: C1
// controls, format characters and the line and paragraph separators.
func unsafeRune(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r)
}

// needsEscape reports whether Escape would change s.
func needsEscape(s string) bool {
	if strings.HasPrefix(strings.TrimLeft(s, " "), "::") || strings.Contains(s, "##[") {
		return true
	}
	i := plainASCII(s)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || unsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

// plainASCII returns how many of the leading bytes of s, in whole words
// of eight, are printable ASCII (0x20 to 0x7e), which Escape keeps as
// they are: every file name and quoted line of a report is looked at,
// eight bytes at a time here, and what is left byte by byte.
func plainASCII(s string) int {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		del := w ^ 0x7f*ones
		// A byte of 0x80 or more; one below 0x20; one that is 0x7f
		// (zero in del). Each test is exact for a word whose bytes are
		// all below 0x80, which the first makes sure of.
		if w&high != 0 || (w-0x20*ones)&^w&high != 0 || (del-ones)&^del&high != 0 {
			break
		}
	}
	return i
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

func pad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}
