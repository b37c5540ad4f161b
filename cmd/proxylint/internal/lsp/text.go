package lsp

import (
	"bytes"
	"sort"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/proxylint/proxylint/model"
)

// encoding is how the client counts the characters of a line: in UTF-16
// code units (the protocol's default), in bytes (UTF-8) or in code points
// (UTF-32).
type encoding int

const (
	utf16 encoding = iota
	utf8Bytes
	utf32
)

func (e encoding) kind() protocol.PositionEncodingKind {
	switch e {
	case utf8Bytes:
		return protocol.PositionEncodingKindUTF8
	case utf32:
		return protocol.PositionEncodingKindUTF32
	}
	return protocol.PositionEncodingKindUTF16
}

// text is a source with the starts of its lines, to turn byte offsets into
// the client's positions and back.
type text struct {
	src    []byte
	starts []int
}

func newText(src []byte) *text {
	t := &text{src: src, starts: []int{0}}
	for i, c := range src {
		if c == '\n' {
			t.starts = append(t.starts, i+1)
		}
	}
	return t
}

// line returns the bytes of line n (0-based) without its line ending.
func (t *text) line(n int) []byte {
	if n < 0 || n >= len(t.starts) {
		return nil
	}
	end := len(t.src)
	if n+1 < len(t.starts) {
		end = t.starts[n+1] - 1
	}
	return bytes.TrimSuffix(t.src[t.starts[n]:end], []byte("\r"))
}

// offset is the byte offset of a client's position; a character past the
// end of its line is the line's end, a line past the end the text's end.
func (t *text) offset(p protocol.Position, enc encoding) int {
	n := int(p.Line)
	if n >= len(t.starts) {
		return len(t.src)
	}
	line := t.line(n)
	want := int(p.Character)
	i, units := 0, 0
	for i < len(line) && units < want {
		r, size := utf8.DecodeRune(line[i:])
		switch enc {
		case utf8Bytes:
			units += size
		case utf32:
			units++
		default:
			units++
			if r >= 0x10000 {
				units++
			}
		}
		i += size
	}
	return t.starts[n] + i
}

// position is the client's position of a byte offset.
func (t *text) position(off int, enc encoding) protocol.Position {
	off = max(0, min(off, len(t.src)))
	n := sort.SearchInts(t.starts, off+1) - 1
	line := t.src[t.starts[n]:off]
	var units int
	switch enc {
	case utf8Bytes:
		units = len(line)
	case utf32:
		units = utf8.RuneCount(line)
	default:
		for len(line) > 0 {
			r, size := utf8.DecodeRune(line)
			units++
			if r >= 0x10000 {
				units++
			}
			line = line[size:]
		}
	}
	return protocol.Position{Line: uint32(n), Character: uint32(units)}
}

// at is the client's position of a model position (1-based line, column
// in code points; column 0 is the start of the line).
func (t *text) at(p model.Pos, enc encoding) protocol.Position {
	if p.Line < 1 {
		return protocol.Position{}
	}
	n := int(p.Line) - 1
	if n >= len(t.starts) {
		return t.position(len(t.src), enc)
	}
	off := t.starts[n]
	line := t.line(n)
	for c := int32(1); c < p.Col && len(line) > 0; c++ {
		_, size := utf8.DecodeRune(line)
		off += size
		line = line[size:]
	}
	return t.position(off, enc)
}

// lineRange is the range of a model position to the end of its line's
// text, trailing blanks left out; the whole first line for a position
// without a line.
func (t *text) lineRange(p model.Pos, enc encoding) protocol.Range {
	start := t.at(p, enc)
	n := int(start.Line)
	line := bytes.TrimRight(t.line(n), " \t")
	end := t.position(t.starts[min(n, len(t.starts)-1)]+len(line), enc)
	if p.Line < 1 {
		start = protocol.Position{Line: 0}
	}
	if end.Character < start.Character {
		end = start
	}
	return protocol.Range{Start: start, End: end}
}

// indent is the blanks that start line n.
func (t *text) indent(n int) string {
	line := t.line(n)
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return string(line[:i])
}

// lineEnding is the line ending the text uses.
func (t *text) lineEnding() string {
	if bytes.Contains(t.src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}
