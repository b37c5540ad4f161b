package envoy

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	yaml "go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/internal/lazyre"
)

// kind is the shape of a node of the positioned tree.
type kind uint8

const (
	kMap kind = iota + 1
	kSeq
	kScalar
)

// node is one value of the input, YAML or JSON, with where it starts. The
// tree is what every later step reads positions from: the JSON emitter, the
// error mapping and the model builder.
//
// Aliases share the anchored node, so a value written once has one position
// however often it is used.
type node struct {
	// A large configuration has a node for every key and value: the
	// fields are ordered and sized to keep one at 32 bytes, a size class
	// of the heap (TestTreeNodeSizes).
	line int32
	col  int32

	// p and n hold a scalar's text or a collection's entries, never both:
	// a scalar has no entries and a map or a sequence no text. For a
	// scalar they are the text as written (unquoted), read by text() and
	// set by setText; for a map (key and value) or a sequence (value
	// only) they are the entries, n of them from p, read by kids() and set
	// whole by setKids. kind, set when the node is made and never changed,
	// says which: every reader sets it before the text or the entries.
	p unsafe.Pointer
	n int32
	// drops counts the kids dropped (see drop).
	drops int32

	kind kind
	// tag is the type a scalar resolves to; quoted marks a quoted scalar,
	// which is always a string.
	tag    scalarType
	quoted bool
	style  byte // 0 plain, '"' or '\'' quoted, '|' literal, '>' folded
	json   bool // read from JSON: numbers are already valid JSON

	// rewritten marks an Any whose type proxylint does not know: it is
	// emitted as a TypedStruct, so its payload is kept but not checked.
	rewritten bool
}

// scalarType is the JSON type a scalar resolves to.
type scalarType uint8

const (
	tagNone scalarType = iota // not a scalar
	tagStr
	tagInt
	tagFloat
	tagBool
	tagNull
)

// kid is an entry of a map or a sequence. dropped entries are left out of
// the JSON after a decoding error so that the rest can be read.
type kid struct {
	key     *node
	val     *node
	dropped bool
	// again, in JSON, is 1 + the index of the duplicate-key warning of a
	// key written again in the same object with a value that is not null
	// (see oneofWrittenAgain); 0 for a key written once.
	again int32
}

// nodeBlock is where a reader takes the nodes of its tree from: a block
// of them allocated at once, not an allocation a node.
type nodeBlock []node

// next is a new node.
func (b *nodeBlock) next() *node {
	if len(*b) == 0 {
		*b = make([]node, 256)
	}
	n := &(*b)[0]
	*b = (*b)[1:]
	return n
}

// kids are the entries of a map or a sequence, nil for a scalar. The
// slice shares the node's entries (an entry changed through it is changed
// in the node); it has no room past its length, so an append to it copies.
func (n *node) kids() []kid {
	if n.kind == kScalar {
		return nil
	}
	return unsafe.Slice((*kid)(n.p), n.n)
}

// setKids makes kids the node's entries. A collection is built in a slice
// of its own and set once whole, so that its appends stay amortised.
func (n *node) setKids(kids []kid) {
	if n.kind == kScalar {
		panic("entries set on a scalar")
	}
	if len(kids) > math.MaxInt32 {
		panic("a collection of more than 2^31-1 entries")
	}
	n.p, n.n = nil, int32(len(kids))
	if len(kids) > 0 {
		n.p = unsafe.Pointer(&kids[0])
	}
}

// text is a scalar's text as written (unquoted), "" for a map or a
// sequence.
func (n *node) text() string {
	if n.kind != kScalar {
		return ""
	}
	return unsafe.String((*byte)(n.p), n.n)
}

// setText makes s the text of a scalar. The node shares the bytes of s.
func (n *node) setText(s string) {
	if n.kind != kScalar {
		panic("text set on a node that is not a scalar")
	}
	if len(s) > math.MaxInt32 {
		panic("a scalar of more than 2^31-1 bytes")
	}
	n.p, n.n = nil, int32(len(s))
	if len(s) > 0 {
		n.p = unsafe.Pointer(unsafe.StringData(s))
	}
}

// drop leaves entry i out of the JSON from now on.
func (n *node) drop(i int) {
	if kids := n.kids(); !kids[i].dropped {
		kids[i].dropped = true
		n.drops++
	}
}

// get returns the value of key name (snake_case or its camelCase JSON
// spelling) in a map, or nil.
func (n *node) get(name string) *node {
	_, v := n.field(name)
	return v
}

// field returns the key and value nodes of name in a map.
func (n *node) field(name string) (key, val *node) {
	if n == nil || n.kind != kMap {
		return nil, nil
	}
	for _, k := range n.kids() {
		if !k.dropped && (k.key.text() == name || isJSONName(k.key.text(), name)) {
			return k.key, k.val
		}
	}
	return nil, nil
}

// isJSONName reports whether s is jsonName(name), without building it.
func isJSONName(s, name string) bool {
	if len(s) >= len(name) || strings.IndexByte(name, '_') < 0 {
		return false
	}
	j := 0
	up := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' {
			up = true
			continue
		}
		if up && 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		up = false
		if j >= len(s) || s[j] != c {
			return false
		}
		j++
	}
	return j == len(s)
}

// items lists the entries of a sequence that were not dropped. A single
// value where a list is expected is a list of one, as Envoy reads it.
func (n *node) items() []*node {
	if n == nil {
		return nil
	}
	if n.kind != kSeq {
		return []*node{n}
	}
	out := make([]*node, 0, len(n.kids()))
	for _, k := range n.kids() {
		if !k.dropped {
			out = append(out, k.val)
		}
	}
	return out
}

// item returns the i-th entry of a sequence as the decoder saw it (dropped
// entries skipped), or nil.
func (n *node) item(i int) *node {
	if n == nil {
		return nil
	}
	if n.kind != kSeq {
		if i == 0 {
			return n
		}
		return nil
	}
	if n.drops == 0 {
		if i < 0 || i >= len(n.kids()) {
			return nil
		}
		return n.kids()[i].val
	}
	for _, k := range n.kids() {
		if k.dropped {
			continue
		}
		if i == 0 {
			return k.val
		}
		i--
	}
	return nil
}

// str returns a scalar's text, or "".
func (n *node) str() string {
	if n == nil || n.kind != kScalar {
		return ""
	}
	return n.text()
}

// jsonName is the protobuf JSON name of a snake_case field name.
func jsonName(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var b strings.Builder
	up := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_':
			up = true
		case up && 'a' <= c && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
			up = false
		default:
			b.WriteByte(c)
			up = false
		}
	}
	return b.String()
}

// posError is an error at a place in the input.
type posError struct {
	line, col int
	msg       string
	// deep marks the error of a document nested deeper than maxDepth.
	deep bool
}

func (e *posError) Error() string { return fmt.Sprintf("%d:%d: %s", e.line, e.col, e.msg) }

// Limits on what the tree may grow to. Aliases let a few hundred bytes of
// YAML stand for billions of nodes; the budget stops that in proportion to
// the input size, and the depth limit stops nesting long before any stack
// is in danger. Real Envoy configurations nest about 40 levels deep (a
// retry header matcher inside a config dump).
const (
	maxDepth      = 200
	nodesPerByte  = 4
	minNodeBudget = 10000
)

// limits tracks the expansion budget while a tree is built.
type limits struct {
	budget int
	used   int
}

func newLimits(size int) *limits {
	return &limits{budget: minNodeBudget + nodesPerByte*size}
}

// parseYAML reads every document of src into trees: most configurations
// through the fast reader of the common block style, the rest through the
// general YAML reader.
func parseYAML(src []byte) ([]*node, []posError, error) {
	if n, ok := parseYAMLFast(src); ok {
		return []*node{n}, nil, nil
	}
	return parseYAMLGeneral(src)
}

// parseYAMLGeneral reads every document of src with the YAML reader.
func parseYAMLGeneral(src []byte) (docs []*node, warns []posError, err error) {
	defer func() {
		if r := recover(); r != nil {
			docs, warns, err = nil, nil, &posError{line: 1, col: 1, msg: fmt.Sprintf("the YAML reader failed: %v", r)}
		}
	}()
	lim := newLimits(len(src))
	last := bytes.LastIndexByte(src, '\n')
	endLine, endCol := int32(bytes.Count(src, []byte("\n"))+1), int32(utf8.RuneCount(src[last+1:])+1)
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if err.Error() == "EOF" {
				break
			}
			return nil, nil, yamlError(err, src)
		}
		if len(doc.Content) == 0 {
			continue
		}
		c := &converter{lim: lim, anchors: map[*yaml.Node]*node{}, sizes: map[*yaml.Node]expansion{}, endLine: endLine, endCol: endCol}
		n, err := c.convert(doc.Content[0], 1)
		if err != nil {
			return nil, nil, err
		}
		docs = append(docs, n)
		warns = append(warns, c.dups...)
	}
	return docs, warns, nil
}

var yamlLineRE = lazyre.New(`^yaml: line (\d+): (.*)$`)

// yamlError turns the YAML reader's error into a positioned one. The
// reader gives lines but no columns; errors without a line (control
// characters, bad encodings) are placed where the offending byte is.
func yamlError(err error, src []byte) error {
	msg := err.Error()
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &posError{line: line, col: firstCol(src, line), msg: "YAML: " + m[2]}
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	line, col := 1, 1
	for i, r := range string(src) {
		if r == utf8.RuneError || (r < 0x20 && r != '\n' && r != '\t' && r != '\r') || r == 0x7f {
			line, col = lineCol(src, i)
			break
		}
	}
	return &posError{line: line, col: col, msg: "YAML: " + msg}
}

// firstCol is the column of the first non-blank character of a line, so a
// line-only error still points at text.
func firstCol(src []byte, line int) int {
	start := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[start:], '\n')
		if i < 0 {
			return 1
		}
		start += i + 1
	}
	col := 1
	for _, r := range string(lineAt(src, start)) {
		if r != ' ' && r != '\t' {
			return col
		}
		col++
	}
	return 1
}

func lineAt(src []byte, start int) []byte {
	rest := src[start:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		return rest[:i]
	}
	return rest
}

// lineCol converts a byte offset into a 1-based line and a column counted
// in code points.
func lineCol(src []byte, off int) (int, int) {
	if off > len(src) {
		off = len(src)
	}
	b := src[:off]
	line := bytes.Count(b, []byte{'\n'}) + 1
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return line, utf8.RuneCount(b) + 1
}

// expansion is the size of a YAML subtree with its aliases expanded.
type expansion struct {
	nodes int
	depth int
}

type converter struct {
	lim     *limits
	anchors map[*yaml.Node]*node
	sizes   map[*yaml.Node]expansion
	// dups are the keys written twice in a mapping (mapping).
	dups []posError
	// endLine and endCol are where the input ends. The YAML reader puts an
	// empty value after the last line break, on a line a file that does
	// not end with one does not have ("---" alone, "a:" at the very end);
	// such a node is placed at the end of the input instead.
	endLine, endCol int32
}

func (c *converter) convert(y *yaml.Node, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, &posError{line: y.Line, col: y.Column, msg: fmt.Sprintf("nesting deeper than %d levels", maxDepth), deep: true}
	}
	if y.Kind == yaml.AliasNode {
		return c.alias(y, depth)
	}
	if n, ok := c.anchors[y]; ok {
		return n, nil
	}
	c.lim.used++
	if c.lim.used > c.lim.budget {
		return nil, c.tooBig(y)
	}
	n := &node{line: int32(y.Line), col: int32(y.Column)}
	if n.line > c.endLine || (n.line == c.endLine && n.col > c.endCol) {
		n.line, n.col = c.endLine, c.endCol
	}
	switch y.Kind {
	case yaml.ScalarNode:
		n.kind = kScalar
		n.setText(y.Value)
		n.quoted = y.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
		n.tag = scalarTag(y)
		n.style = scalarStyle(y.Style)
	case yaml.SequenceNode:
		n.kind = kSeq
		kids := make([]kid, 0, len(y.Content))
		for _, it := range y.Content {
			v, err := c.convert(it, depth+1)
			if err != nil {
				return nil, err
			}
			kids = append(kids, kid{val: v})
		}
		n.setKids(kids)
	case yaml.MappingNode:
		n.kind = kMap
		if err := c.mapping(n, y, depth); err != nil {
			return nil, err
		}
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			n.kind, n.tag = kScalar, tagNull
			break
		}
		return c.convert(y.Content[0], depth)
	default:
		return nil, &posError{line: y.Line, col: y.Column, msg: "unsupported YAML node"}
	}
	if y.Anchor != "" {
		c.anchors[y] = n
	}
	return n, nil
}

// alias resolves *name to the node its anchor built, charging the budget
// for every node the alias stands for.
func (c *converter) alias(y *yaml.Node, depth int) (*node, error) {
	target := y.Alias
	if target == nil {
		return nil, &posError{line: y.Line, col: y.Column, msg: "alias to an unknown anchor"}
	}
	size := c.size(target)
	if size.nodes == math.MaxInt32 && size.depth == maxDepth+1 {
		return nil, &posError{line: y.Line, col: y.Column, msg: fmt.Sprintf("alias *%s refers to the value that contains it", y.Value)}
	}
	if depth+size.depth > maxDepth {
		return nil, &posError{line: y.Line, col: y.Column, msg: fmt.Sprintf("alias *%s nests deeper than %d levels", y.Value, maxDepth), deep: true}
	}
	c.lim.used += size.nodes
	if c.lim.used > c.lim.budget {
		return nil, c.tooBig(y)
	}
	n, ok := c.anchors[target]
	if !ok {
		// An alias inside its own anchor's value: YAML forbids it, and
		// the reader reports it; guard anyway.
		return nil, &posError{line: y.Line, col: y.Column, msg: fmt.Sprintf("alias *%s refers to its own value", y.Value)}
	}
	return n, nil
}

func (c *converter) tooBig(y *yaml.Node) error {
	return &posError{line: y.Line, col: y.Column, msg: fmt.Sprintf(
		"aliases expand this document beyond %d values (%d per input byte); proxylint stops here rather than expand it", c.lim.budget, nodesPerByte)}
}

// size measures the expanded size of a subtree, memoised so that nested
// aliases cost linear time to measure.
func (c *converter) size(y *yaml.Node) expansion {
	if s, ok := c.sizes[y]; ok {
		return s
	}
	c.sizes[y] = expansion{nodes: math.MaxInt32, depth: maxDepth + 1} // a cycle counts as too big
	var s expansion
	switch y.Kind {
	case yaml.AliasNode:
		if y.Alias != nil {
			s = c.size(y.Alias)
		}
	default:
		s.nodes = 1
		for _, k := range y.Content {
			ks := c.size(k)
			s.nodes = satAdd(s.nodes, ks.nodes)
			s.depth = max(s.depth, ks.depth)
		}
		s.depth++
	}
	c.sizes[y] = s
	return s
}

func satAdd(a, b int) int {
	if a > math.MaxInt32-b {
		return math.MaxInt32
	}
	return a + b
}

// mapping converts a YAML mapping, applying merge keys (<<). A key
// written twice is kept with its last value, as Envoy keeps it: its YAML
// reader (yaml-cpp) does not refuse a repeated key, and Envoy copies a
// mapping into a protobuf Struct key by key, the last value replacing the
// first (source/common/protobuf/yaml_utility.cc, parseYamlNode); the
// repetition is reported as a warning (dups).
func (c *converter) mapping(n *node, y *yaml.Node, depth int) error {
	seen := map[string]*node{}
	var merges []*node
	var kids []kid
	for i := 0; i+1 < len(y.Content); i += 2 {
		ky, vy := y.Content[i], y.Content[i+1]
		if ky.Kind == yaml.ScalarNode && ky.ShortTag() == "!!merge" {
			v, err := c.convert(vy, depth+1)
			if err != nil {
				return err
			}
			switch v.kind {
			case kMap:
				merges = append(merges, v)
			case kSeq:
				for _, it := range v.items() {
					if it.kind != kMap {
						return &posError{line: int(it.line), col: int(it.col), msg: "a merge key (<<) takes a mapping or a list of mappings"}
					}
					merges = append(merges, it)
				}
			default:
				return &posError{line: int(v.line), col: int(v.col), msg: "a merge key (<<) takes a mapping or a list of mappings"}
			}
			continue
		}
		if ky.Kind != yaml.ScalarNode {
			return &posError{line: ky.Line, col: ky.Column, msg: "a mapping key must be a plain value, not a collection"}
		}
		k, err := c.convert(ky, depth+1)
		if err != nil {
			return err
		}
		if prev, dup := seen[k.text()]; dup {
			c.dups = append(c.dups, posError{line: int(k.line), col: int(k.col), msg: fmt.Sprintf("duplicate key %q (first at line %d): Envoy reads YAML keeping the last value, so the first is ignored", k.text(), prev.line)})
			v, err := c.convert(vy, depth+1)
			if err != nil {
				return err
			}
			seen[k.text()] = k
			for j := range kids {
				if kids[j].key.text() == k.text() {
					kids[j] = kid{key: k, val: v}
				}
			}
			continue
		}
		seen[k.text()] = k
		v, err := c.convert(vy, depth+1)
		if err != nil {
			return err
		}
		kids = append(kids, kid{key: k, val: v})
	}
	// Keys written in the mapping win over merged ones; earlier merges win
	// over later ones (YAML merge key semantics).
	for _, m := range merges {
		for _, e := range m.kids() {
			if e.dropped {
				continue
			}
			if _, ok := seen[e.key.text()]; ok {
				continue
			}
			seen[e.key.text()] = e.key
			kids = append(kids, kid{key: e.key, val: e.val})
		}
	}
	n.setKids(kids)
	return nil
}

// scalarTag resolves a YAML scalar to the JSON type it becomes, under YAML
// 1.2's core schema: "on", "yes" and "no" stay strings.
func scalarTag(y *yaml.Node) scalarType {
	if y.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return tagStr
	}
	switch y.ShortTag() {
	case "!!null":
		return tagNull
	case "!!bool":
		return tagBool
	case "!!int":
		return tagInt
	case "!!float":
		return tagFloat
	}
	return tagStr
}

func scalarStyle(s yaml.Style) byte {
	switch {
	case s&yaml.DoubleQuotedStyle != 0:
		return '"'
	case s&yaml.SingleQuotedStyle != 0:
		return '\''
	case s&yaml.LiteralStyle != 0:
		return '|'
	case s&yaml.FoldedStyle != 0:
		return '>'
	}
	return 0
}

// sourceText is src as a string without copying it: the scalars and
// comments of the tree are substrings of it, so that a file is held once.
// A loader never changes a file's bytes once read (File.Source is what
// was read; breakLoneCR copies before it changes anything).
func sourceText(src []byte) string {
	return unsafe.String(unsafe.SliceData(src), len(src))
}
