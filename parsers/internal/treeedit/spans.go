// Package treeedit edits YAML and JSON files in their own style: the
// model.TreeEditor of the Envoy and Kubernetes loaders. It reads a file's
// spans (where each mapping, list, key and scalar starts and ends, and how
// it is written) the first time it is asked to edit the file, with the
// YAML reader the loaders read it with, so that the positions the loaders
// put in the model name the nodes here; the loaders' trees keep no
// offsets of their own.
package treeedit

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/model"
)

// node is one value of the file: a mapping, a list or a scalar.
type node struct {
	kind model.ValueKind
	// flow is set for a mapping or list written in flow style ("{...}",
	// "[...]"), and for every node inside one.
	flow bool
	// style is a scalar's: 0 plain, '"' or '\'' quoted, '|' or '>' a
	// block scalar.
	style byte
	// line and col are where the reader places the node (1-based, the
	// column in code points); start and end are its bytes, quotes and
	// brackets included.
	line, col  int32
	start, end int
	// placed is false for a node the editor cannot edit: one with an
	// anchor, an alias or a tag, a multi-line plain scalar, a complex
	// key.
	placed bool
	// indent is the byte column of a block mapping's keys or a block
	// list's dashes.
	indent int
	text   string
	parent *node
	// entries are a mapping's fields (key and value) or a list's items
	// (value only).
	entries []entry
	// key is the key of the field whose value this node is.
	key *node
}

type entry struct{ key, val *node }

// spans is the layout of one file.
type spans struct {
	src []byte
	// byPos holds every key and value, ordered by where they start.
	byPos []*node
	docs  []*node
	// json is set when the file is JSON: its first character opens an
	// object or an array.
	json bool
	// tagged is set when a node is written with a YAML tag.
	tagged bool
}

var errUnplaced = errors.New("written with an anchor, an alias, a tag, over several lines or as a mapping without braces in a flow list, which the editor does not edit")

// readSpans reads every document of src.
func readSpans(path string, src []byte) (*spans, error) {
	s := &spans{src: src}
	if i := loneCR(src); i >= 0 {
		line := bytes.Count(src[:i], []byte("\n")) + 1
		return nil, fmt.Errorf("%s:%d: a carriage return not followed by a line feed: YAML reads it as a line break, which the editor does not, so the file is not edited", path, line)
	}
	t := bytes.TrimLeft(src, " \t\r\n\ufeff")
	s.json = len(t) > 0 && (t[0] == '{' || t[0] == '[')
	lines := lineStarts(src)
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if err.Error() == "EOF" {
				break
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(doc.Content) == 0 {
			continue
		}
		b := &builder{s: s, lines: lines}
		n := b.convert(doc.Content[0], nil, false)
		s.docs = append(s.docs, n)
	}
	if s.tagged {
		return nil, fmt.Errorf("%s: a value is written with a YAML tag (\"!...\"), which moves where the reader places it: the file is not edited", path)
	}
	sort.SliceStable(s.byPos, func(i, j int) bool {
		a, b := s.byPos[i], s.byPos[j]
		return a.line < b.line || a.line == b.line && a.col < b.col
	})
	return s, nil
}

func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

type builder struct {
	s     *spans
	lines []int
}

// offset turns the reader's line and column into a byte offset.
func (b *builder) offset(line, col int) int {
	if line < 1 || line > len(b.lines) || col < 1 {
		return -1
	}
	off := b.lines[line-1]
	for c := 1; c < col; c++ {
		if off >= len(b.s.src) || b.s.src[off] == '\n' {
			return -1
		}
		_, size := utf8.DecodeRune(b.s.src[off:])
		off += size
	}
	return off
}

func (b *builder) convert(y *yaml.Node, parent *node, flow bool) *node {
	n := &node{line: int32(y.Line), col: int32(y.Column), parent: parent, text: y.Value, placed: true}
	n.start = b.offset(y.Line, y.Column)
	if n.start >= 0 && n.start < len(b.s.src) && b.s.src[n.start] == '!' {
		// A node written with a tag (even the lone "!", which the reader
		// does not mark as tagged) is placed at its tag, and the nodes
		// around it lose their columns: the file is not edited.
		b.s.tagged = true
	}
	if n.start < 0 || y.Anchor != "" || y.Style&yaml.TaggedStyle != 0 || y.Kind == yaml.AliasNode {
		n.placed = false
		n.start = max(n.start, 0)
	}
	b.s.byPos = append(b.s.byPos, n)
	src := b.s.src
	switch y.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		n.kind = model.MapValue
		if y.Kind == yaml.SequenceNode {
			n.kind = model.ListValue
		}
		n.flow = flow || y.Style&yaml.FlowStyle != 0
		// A mapping without braces ("[a: 1]", a single pair in a flow
		// list) has no place a second field could go: it is not edited.
		if n.placed && n.flow && src[n.start] != '{' && src[n.start] != '[' {
			n.placed = false
		}
		if n.placed && !n.flow {
			n.indent = n.start - lineStart(src, n.start)
		}
		if y.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(y.Content); i += 2 {
				k := b.convert(y.Content[i], n, n.flow)
				v := b.convert(y.Content[i+1], n, n.flow)
				v.key = k
				if v.start == v.end && v.start <= k.end {
					v.placed = false // no ":" between them
				}
				if y.Content[i].Kind != yaml.ScalarNode || y.Content[i].ShortTag() == "!!merge" {
					n.placed = false
					// What a merge key ("<<") or a complex key brings in is
					// not a field of its own: no edit goes into it.
					unplace(k)
					unplace(v)
				}
				n.entries = append(n.entries, entry{key: k, val: v})
			}
		} else {
			for _, it := range y.Content {
				n.entries = append(n.entries, entry{val: b.convert(it, n, n.flow)})
			}
		}
		switch {
		case !n.placed:
		case n.flow:
			n.end = matchBracket(src, n.start)
			if n.end < 0 {
				n.placed = false
			}
		case len(n.entries) > 0:
			n.end = n.entries[len(n.entries)-1].val.end
		default:
			n.placed = false
		}
	case yaml.ScalarNode:
		n.kind = scalarKind(y)
		n.flow = flow
		if n.placed {
			b.scalar(n, y)
		}
	default:
		n.placed = false
	}
	return n
}

func scalarKind(y *yaml.Node) model.ValueKind {
	if y.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return model.StringValue
	}
	switch y.ShortTag() {
	case "!!null":
		return model.NullValue
	case "!!bool":
		return model.BoolValue
	case "!!int", "!!float":
		return model.NumberValue
	}
	return model.StringValue
}

// scalar finds where scalar n ends.
func (b *builder) scalar(n *node, y *yaml.Node) {
	src := b.s.src
	switch {
	case y.Style&yaml.DoubleQuotedStyle != 0:
		n.style = '"'
		n.end = closeQuote(src, n.start, '"')
	case y.Style&yaml.SingleQuotedStyle != 0:
		n.style = '\''
		n.end = closeQuote(src, n.start, '\'')
	case y.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		n.style = src[n.start]
		n.end = b.blockScalarEnd(n)
	case y.Value == "" && y.ShortTag() == "!!null":
		// Nothing written: the value is empty where the reader puts it,
		// which must be just after the ":" of its key or the "-" of its
		// item (a key written alone in a flow mapping has none).
		n.end = n.start
		if n.start == 0 || src[n.start-1] != ':' && src[n.start-1] != '-' {
			// Not where an empty value stands (a tag alone, "!", is
			// written there): not edited, and in a block its text ends
			// with its lines.
			n.placed = false
			if !n.flow {
				n.end = b.blockScalarEnd(n)
			}
		}
	default:
		if n.start+len(y.Value) > len(src) || string(src[n.start:n.start+len(y.Value)]) != y.Value {
			// Written otherwise than read: a plain scalar over several
			// lines ("0\n  0" reads "0 0"). It is not edited, but in a
			// block its lines still end where a block scalar's would, so
			// that what comes after it is placed after them.
			n.end, n.placed = n.start, false
			if !n.flow {
				n.end = b.blockScalarEnd(n)
			}
			return
		}
		n.end = n.start + len(y.Value)
	}
	if n.end < 0 {
		n.end, n.placed = n.start, false
	}
}

// blockScalarEnd is the end of the last line of a block scalar ("|" or
// ">"): its lines are those indented deeper than the collection holding
// it, or blank.
func (b *builder) blockScalarEnd(n *node) int {
	src := b.s.src
	own := -1
	if n.parent != nil && !n.parent.flow {
		own = n.parent.indent
	}
	end := lineEnd(src, n.start)
	for i := end + 1; i < len(src); {
		e := lineEnd(src, i)
		line := src[i:e]
		trimmed := bytes.TrimLeft(line, " ")
		if len(bytes.TrimRight(trimmed, "\r")) == 0 {
			i = e + 1
			continue
		}
		if len(line)-len(trimmed) <= own {
			break
		}
		end = e
		i = e + 1
	}
	if end > 0 && end <= len(src) && src[end-1] == '\r' {
		end--
	}
	return end
}

// closeQuote returns the offset just past the quote that closes the one
// at start, or -1.
func closeQuote(src []byte, start int, q byte) int {
	for i := start + 1; i < len(src); i++ {
		switch {
		case q == '"' && src[i] == '\\':
			i++
		case src[i] == q && q == '\'' && i+1 < len(src) && src[i+1] == '\'':
			i++
		case src[i] == q:
			return i + 1
		}
	}
	return -1
}

// unplace marks n and everything in it as not to be edited.
func unplace(n *node) {
	n.placed = false
	for _, en := range n.entries {
		if en.key != nil {
			unplace(en.key)
		}
		unplace(en.val)
	}
}

// matchBracket returns the offset just past the bracket that closes the
// one at start, or -1. It reads the flow collection as the YAML reader
// does: a quote opens a quoted scalar, and "#" a comment, only where a
// token may start; inside a plain scalar ("it's", "a#b") both are text,
// and "#" after a blank or an indicator ("{#}", "[\"a\"#]") is a comment.
func matchBracket(src []byte, start int) int {
	depth := 0
	plain := false // inside a plain scalar
	sep := true    // the byte before ends a token
	for i := start; i < len(src); i++ {
		switch c := src[i]; c {
		case '{', '[':
			depth++
			plain, sep = false, true
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			plain, sep = false, true
		case ',':
			plain, sep = false, true
		case ' ', '\t', '\n', '\r':
			sep = true
		case '#':
			if sep {
				i = lineEnd(src, i) - 1
				continue
			}
			plain, sep = true, false
		case '"', '\'':
			if plain {
				sep = false
				continue
			}
			j := closeQuote(src, i, c)
			if j < 0 {
				return -1
			}
			i = j - 1
			sep = true
		case ':':
			// In a plain scalar, ":" ends it only before a blank or an
			// indicator ("a:b" is one scalar); after a quoted key it is
			// the indicator ("\"a\":#" holds a comment).
			if !plain || i+1 >= len(src) || bytes.IndexByte([]byte(" \t\r\n,[]{}"), src[i+1]) >= 0 {
				plain, sep = false, true
				continue
			}
			sep = false
		default:
			plain, sep = true, false
		}
	}
	return -1
}

// loneCR is the offset of the first "\r" not followed by "\n", or -1.
func loneCR(src []byte) int {
	for i := bytes.IndexByte(src, '\r'); i >= 0; {
		if i+1 >= len(src) || src[i+1] != '\n' {
			return i
		}
		j := bytes.IndexByte(src[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return -1
}

func lineStart(src []byte, off int) int { return bytes.LastIndexByte(src[:off], '\n') + 1 }

// lineEnd is the offset of the "\n" that ends the line holding off, or
// the end of the file.
func lineEnd(src []byte, off int) int {
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(src)
}

// at lists the nodes that start at p, outermost first.
func (s *spans) at(p model.Pos) []*node {
	i := sort.Search(len(s.byPos), func(i int) bool {
		n := s.byPos[i]
		return n.line > p.Line || n.line == p.Line && n.col >= p.Col
	})
	var out []*node
	for ; i < len(s.byPos) && s.byPos[i].line == p.Line && s.byPos[i].col == p.Col; i++ {
		out = append(out, s.byPos[i])
	}
	return out
}

// isKey reports whether n is the key of a field.
func (n *node) isKey() bool {
	if n.parent == nil || n.parent.kind != model.MapValue {
		return false
	}
	for _, e := range n.parent.entries {
		if e.key == n {
			return true
		}
	}
	return false
}

// valueOf returns the value of key k.
func (n *node) valueOf(k *node) *node {
	for _, e := range n.entries {
		if e.key == k {
			return e.val
		}
	}
	return nil
}
