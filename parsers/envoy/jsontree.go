package envoy

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"unicode/utf8"
)

// mergeAgain is the value of a field written a second time, v, after
// first, as protobuf's JSON reader builds it when called, as Envoy calls
// it, with its legacy syntax allowed (protobuf
// src/google/protobuf/json/json.cc, JsonStringToMessage sets
// allow_legacy_syntax; json/internal/parser.cc, ParseField: HasParsed
// with allow_repeated_non_oneof): a message is parsed into the one
// already there, a repeated field's items are added to it, and a
// scalar's last value stands. A null written again is passed over, as the
// reader does before it records a field as seen (parser.cc:1243-1253 at
// e712d276). A oneof's field written twice, which the reader refuses, is
// told apart where the schema is known (oneofWrittenAgain).
func mergeAgain(first, v *node) *node {
	switch {
	case isJSONNull(v):
		return first
	case first.kind == kMap && v.kind == kMap:
		m := *first
		kids := append([]kid(nil), first.kids()...)
		for _, it := range v.kids() {
			merged := false
			for j := range kids {
				if kids[j].key.text() == it.key.text() {
					kids[j].val = mergeAgain(kids[j].val, it.val)
					merged = true
				}
			}
			if !merged {
				kids = append(kids, it)
			}
		}
		m.setKids(kids)
		return &m
	case first.kind == kSeq && v.kind == kSeq:
		m := *first
		m.setKids(append(append([]kid(nil), first.kids()...), v.kids()...))
		return &m
	}
	return v
}

// parseJSON reads a JSON document into a positioned tree, with the keys
// written twice (mergeAgain). JSON is nearly a subset of YAML, but a YAML
// reader reports a broken JSON file at the wrong line; this reader reports
// it where a JSON reader would.
func parseJSON(src []byte) (*node, []posError, error) {
	p := &jsonParser{src: src, text: sourceText(src)}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		p.off = 3
	}
	p.skip()
	n, err := p.value(1)
	if err != nil {
		return nil, nil, err
	}
	p.skip()
	if p.off < len(p.src) {
		return nil, nil, p.errorf("unexpected %s after the end of the JSON document", p.what())
	}
	return n, p.dups, nil
}

type jsonParser struct {
	src []byte
	// text is src as a string: a string without escapes is a substring.
	text string
	off  int
	// dups are the keys written twice in an object, which Envoy reads.
	dups []posError
	// slab holds the nodes to come, allocated many at a time, as the
	// fast YAML reader's are.
	slab nodeBlock
	// at is the position of offset at.off: positions are counted on from
	// the last one asked for, so a document costs one pass however many
	// nodes it has (a minified file is one long line).
	at struct{ off, line, col int }
}

// pos is the 1-based line and the column, in code points, of the current
// offset.
func (p *jsonParser) pos() (int, int) {
	if p.at.line == 0 || p.off < p.at.off {
		p.at.off, p.at.line, p.at.col = 0, 1, 1
	}
	line, col := p.at.line, p.at.col
	i, end := p.at.off, min(p.off, len(p.src))
	for i < end {
		switch c := p.src[i]; {
		case c == '\n':
			line, col = line+1, 1
			i++
		case c < utf8.RuneSelf:
			col++
			i++
		default:
			// As utf8.RuneCount counts: an invalid byte is one.
			_, size := utf8.DecodeRune(p.src[i:end])
			col++
			i += size
		}
	}
	p.at.off, p.at.line, p.at.col = i, line, col
	return line, col
}

func (p *jsonParser) errorf(format string, args ...any) error {
	line, col := p.pos()
	return &posError{line: line, col: col, msg: "JSON: " + fmt.Sprintf(format, args...)}
}

// what describes the byte at the current offset for an error message.
func (p *jsonParser) what() string {
	if p.off >= len(p.src) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.src[p.off:])
	if r == utf8.RuneError {
		return fmt.Sprintf("byte 0x%02x", p.src[p.off])
	}
	return fmt.Sprintf("%q", r)
}

func (p *jsonParser) skip() {
	for p.off < len(p.src) {
		switch p.src[p.off] {
		case ' ', '\t', '\n', '\r':
			p.off++
		default:
			return
		}
	}
}

func (p *jsonParser) newNode(k kind) *node {
	line, col := p.pos()
	n := p.slab.next()
	n.kind, n.line, n.col, n.json = k, int32(line), int32(col), true
	return n
}

func (p *jsonParser) value(depth int) (*node, error) {
	if depth > maxDepth {
		line, col := p.pos()
		return nil, &posError{line: line, col: col, msg: fmt.Sprintf("JSON: nesting deeper than %d levels", maxDepth), deep: true}
	}
	if p.off >= len(p.src) {
		return nil, p.errorf("unexpected end of file: a value is missing")
	}
	switch c := p.src[p.off]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		n := p.newNode(kScalar)
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		n.setText(s)
		n.tag, n.quoted, n.style = tagStr, true, '"'
		return n, nil
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	default:
		for _, lit := range []struct {
			text string
			tag  scalarType
		}{{"true", tagBool}, {"false", tagBool}, {"null", tagNull}} {
			if hasWord(p.src[p.off:], lit.text) {
				n := p.newNode(kScalar)
				n.setText(lit.text)
				n.tag = lit.tag
				p.off += len(lit.text)
				return n, nil
			}
		}
		return nil, p.errorf("unexpected %s: expected a value", p.what())
	}
}

func hasWord(b []byte, w string) bool {
	if len(b) < len(w) || string(b[:len(w)]) != w {
		return false
	}
	if len(b) == len(w) {
		return true
	}
	c := b[len(w)]
	letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	return !letter && (c < '0' || c > '9') && c != '_'
}

// manyKeys is the number of keys from which an object's keys are looked
// up in a map rather than one by one.
const manyKeys = 16

func (p *jsonParser) object(depth int) (*node, error) {
	n := p.newNode(kMap)
	p.off++ // {
	p.skip()
	if p.off < len(p.src) && p.src[p.off] == '}' {
		p.off++
		return n, nil
	}
	// The keys seen: the kids themselves while they are few, a map once
	// they are many (an object of a million keys). The map is keyed by
	// the keys' hashes, a third smaller than by the strings; it holds the
	// first key of each hash, and a key whose hash another holds is
	// looked for among the kids.
	var seen map[uint64]*node
	var seed maphash.Seed
	var kids []kid
	for {
		p.skip()
		if p.off >= len(p.src) || p.src[p.off] != '"' {
			return nil, p.errorf("unexpected %s: expected a key in double quotes", p.what())
		}
		k := p.newNode(kScalar)
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		k.setText(s)
		k.tag, k.quoted = tagStr, true
		var prev *node
		if seen == nil && len(kids) >= manyKeys {
			seed = maphash.MakeSeed()
			seen = make(map[uint64]*node, 2*len(kids))
			for _, kd := range kids {
				if h := maphash.String(seed, kd.key.text()); seen[h] == nil {
					seen[h] = kd.key
				}
			}
		}
		if seen != nil {
			h := maphash.String(seed, s)
			switch first := seen[h]; {
			case first == nil:
				seen[h] = k
			case first.text() == s:
				prev = first
			default:
				for _, kd := range kids {
					if kd.key.text() == s {
						prev = kd.key
						break
					}
				}
			}
		} else {
			for _, kd := range kids {
				if kd.key.text() == s {
					prev = kd.key
					break
				}
			}
		}
		dup := prev != nil
		p.skip()
		if p.off >= len(p.src) || p.src[p.off] != ':' {
			return nil, p.errorf("unexpected %s: expected ':' after the key", p.what())
		}
		p.off++
		p.skip()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if dup {
			p.dups = append(p.dups, posError{line: int(k.line), col: int(k.col), msg: fmt.Sprintf("duplicate key %q (first at line %d): Envoy's JSON reader takes the field again, merging an object into the first, adding a list's items to it, and keeping the last value of anything else", s, prev.line)})
			for j := range kids {
				if kids[j].key == prev {
					if kids[j].again == 0 && !isJSONNull(kids[j].val) && !isJSONNull(v) {
						kids[j].again = int32(len(p.dups))
					}
					kids[j].val = mergeAgain(kids[j].val, v)
				}
			}
		} else {
			kids = append(kids, kid{key: k, val: v})
		}
		p.skip()
		if p.off < len(p.src) && p.src[p.off] == ',' {
			p.off++
			continue
		}
		if p.off < len(p.src) && p.src[p.off] == '}' {
			p.off++
			n.setKids(kids)
			return n, nil
		}
		return nil, p.errorf("unexpected %s: expected ',' or '}' after an object member", p.what())
	}
}

func (p *jsonParser) array(depth int) (*node, error) {
	n := p.newNode(kSeq)
	p.off++ // [
	p.skip()
	if p.off < len(p.src) && p.src[p.off] == ']' {
		p.off++
		return n, nil
	}
	var kids []kid
	for {
		p.skip()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		kids = append(kids, kid{val: v})
		p.skip()
		if p.off < len(p.src) && p.src[p.off] == ',' {
			p.off++
			continue
		}
		if p.off < len(p.src) && p.src[p.off] == ']' {
			p.off++
			n.setKids(kids)
			return n, nil
		}
		return nil, p.errorf("unexpected %s: expected ',' or ']' after an array element", p.what())
	}
}

// str reads a JSON string and decodes its escapes.
func (p *jsonParser) str() (string, error) {
	start := p.off
	p.off++ // opening quote
	escaped := false
	for p.off < len(p.src) {
		c := p.src[p.off]
		switch {
		case c == '\\':
			escaped = true
			p.off += 2
			continue
		case c == '"':
			p.off++
			raw := p.src[start:p.off]
			if !escaped && utf8.Valid(raw) {
				return p.text[start+1 : p.off-1], nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				p.off = start
				return "", p.errorf("invalid string: %v", err)
			}
			return s, nil
		case c < 0x20:
			return "", p.errorf("control character %q inside a string (a newline in a string must be written \\n)", rune(c))
		}
		p.off++
	}
	p.off = start
	return "", p.errorf("string never closed")
}

func (p *jsonParser) number() (*node, error) {
	n := p.newNode(kScalar)
	start := p.off
	digits := func() int {
		k := 0
		for p.off < len(p.src) && '0' <= p.src[p.off] && p.src[p.off] <= '9' {
			p.off++
			k++
		}
		return k
	}
	if p.src[p.off] == '-' {
		p.off++
	}
	if digits() == 0 {
		return nil, p.errorf("unexpected %s: expected a digit", p.what())
	}
	n.tag = tagInt
	if p.off < len(p.src) && p.src[p.off] == '.' {
		p.off++
		n.tag = tagFloat
		if digits() == 0 {
			return nil, p.errorf("unexpected %s: expected a digit after the decimal point", p.what())
		}
	}
	if p.off < len(p.src) && (p.src[p.off] == 'e' || p.src[p.off] == 'E') {
		p.off++
		n.tag = tagFloat
		if p.off < len(p.src) && (p.src[p.off] == '+' || p.src[p.off] == '-') {
			p.off++
		}
		if digits() == 0 {
			return nil, p.errorf("unexpected %s: expected a digit in the exponent", p.what())
		}
	}
	n.setText(string(p.src[start:p.off]))
	return n, nil
}
