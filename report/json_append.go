package report

import (
	"encoding/base64"
	"strconv"
	"unicode/utf8"
)

// appendFinding appends f as the indenter at prefix (spaces) writes it (what
// json.Encoder with two-space indentation writes for a finding of the
// findings list), without reflection or a second pass over the bytes:
// the findings are nearly all of a report, and marshalling each one took
// half of the JSON writer's time. TestAppendFindingAsMarshal holds the two
// equal.
func appendFinding(dst []byte, f *jsonFinding, prefix string) []byte {
	o := jsonObject{dst: dst, indent: len(prefix) + len(indentUnit)}
	o.dst = append(o.dst, '{')
	o.str("rule", f.Rule)
	o.str("severity", f.Severity)
	o.str("message", f.Message)
	o.str("file", f.File)
	o.bytes("file_base64", f.FileBase64)
	o.int("line", f.Line)
	o.int("column", f.Column)
	o.intOmit("end_line", f.EndLine)
	o.intOmit("end_column", f.EndColumn)
	o.list("related", len(f.Related), func(e jsonObject, i int) jsonObject {
		r := &f.Related[i]
		e.strOmit("file", r.File)
		e.bytes("file_base64", r.FileBase64)
		e.intOmit("line", r.Line)
		e.intOmit("column", r.Column)
		e.str("message", r.Message)
		return e
	})
	o.strOmit("fix", f.Fix)
	o.strOmit("fix_applicability", f.FixApplies)
	o.list("fix_edits", len(f.FixEdits), func(e jsonObject, i int) jsonObject {
		x := &f.FixEdits[i]
		e.str("file", x.File)
		e.bytes("file_base64", x.FileBase64)
		e.int("start", x.Start)
		e.int("end", x.End)
		e.int("start_line", x.StartLine)
		e.int("start_column", x.StartColumn)
		e.int("end_line", x.EndLine)
		e.int("end_column", x.EndColumn)
		e.str("text", x.Text)
		return e
	})
	o.str("fingerprint", f.Fingerprint)
	if s := f.Suppressed; s != nil {
		o.key("suppressed")
		e := jsonObject{dst: append(o.dst, '{'), indent: o.indent + len(indentUnit)}
		e.str("file", s.File)
		e.bytes("file_base64", s.FileBase64)
		e.int("line", s.Line)
		e.str("reason", s.Reason)
		o.dst = e.end()
	}
	return o.end()
}

// jsonObject appends the members of an indented object whose "{" is
// written: each on its own line, indent spaces in.
type jsonObject struct {
	dst    []byte
	indent int
	n      int // members so far
}

// jsonSpaces is where indents are cut from; an indent deeper than it
// (never written: findings nest three levels) is built.
const jsonSpaces = "                                "

func appendSpaces(dst []byte, n int) []byte {
	for n > len(jsonSpaces) {
		dst = append(dst, jsonSpaces...)
		n -= len(jsonSpaces)
	}
	return append(dst, jsonSpaces[:n]...)
}

func (o *jsonObject) key(name string) {
	if o.n > 0 {
		o.dst = append(o.dst, ',')
	}
	o.n++
	o.dst = append(o.dst, '\n')
	o.dst = appendSpaces(o.dst, o.indent)
	o.dst = append(o.dst, '"')
	o.dst = append(o.dst, name...)
	o.dst = append(o.dst, `": `...)
}

func (o *jsonObject) str(name, v string) {
	o.key(name)
	o.dst = appendJSONString(o.dst, v)
}

func (o *jsonObject) strOmit(name, v string) {
	if v != "" {
		o.str(name, v)
	}
}

func (o *jsonObject) int(name string, v int) {
	o.key(name)
	o.dst = strconv.AppendInt(o.dst, int64(v), 10)
}

func (o *jsonObject) intOmit(name string, v int) {
	if v != 0 {
		o.int(name, v)
	}
}

// bytes is a []byte field with omitempty: base64 in a string.
func (o *jsonObject) bytes(name string, v []byte) {
	if len(v) == 0 {
		return
	}
	o.key(name)
	o.dst = append(o.dst, '"')
	o.dst = base64.StdEncoding.AppendEncode(o.dst, v)
	o.dst = append(o.dst, '"')
}

// element starts the i-th object of a list whose "[" is written.
func (o *jsonObject) element(i int) jsonObject {
	if i > 0 {
		o.dst = append(o.dst, ',')
	}
	in := o.indent + len(indentUnit)
	o.dst = append(o.dst, '\n')
	o.dst = appendSpaces(o.dst, in)
	o.dst = append(o.dst, '{')
	return jsonObject{dst: o.dst, indent: in + len(indentUnit)}
}

// list writes the member key, a list of n objects whose members each
// writes (it returns the object it was given, written to), omitted when
// n is 0 (omitempty). The object is passed by value so that it stays on
// the stack.
func (o *jsonObject) list(key string, n int, each func(e jsonObject, i int) jsonObject) {
	if n == 0 {
		return
	}
	o.key(key)
	o.dst = append(o.dst, '[')
	for i := range n {
		e := each(o.element(i), i)
		o.dst = e.end()
	}
	o.endList()
}

// endList closes a list of at least one element.
func (o *jsonObject) endList() {
	o.dst = append(o.dst, '\n')
	o.dst = appendSpaces(o.dst, o.indent)
	o.dst = append(o.dst, ']')
}

// end closes the object: on its own line unless it has no member.
func (o *jsonObject) end() []byte {
	if o.n > 0 {
		o.dst = append(o.dst, '\n')
		o.dst = appendSpaces(o.dst, o.indent-len(indentUnit))
	}
	return append(o.dst, '}')
}

const hexDigits = "0123456789abcdef"

// jsonPlain marks the bytes a JSON string holds as they are: printable
// ASCII but '"', '\\' and the HTML characters.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := byte(0x20); c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString appends s quoted as encoding/json quotes a string by
// default: '"' and '\\' escaped, control characters as \n, \r, \t, \b,
// \f or \u00XX, the HTML characters <, > and & as \u00XX, each byte that
// is not UTF-8 as \ufffd, and the line and paragraph separators U+2028
// and U+2029 as \u2028 and \u2029.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	plain := 0 // s[plain:i] is still to copy as it is
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			dst = append(dst, s[plain:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			plain = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[plain:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[plain:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		plain = i
	}
	dst = append(dst, s[plain:]...)
	return append(dst, '"')
}
