package envoy

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// parseYAMLFast reads the block YAML that configurations are mostly
// written in straight into the positioned tree, without the general YAML
// reader's token, event and node stages. It handles one document of
// printable ASCII made of block mappings and sequences, single-line plain
// and quoted scalars without escapes, single-line flow collections and
// comments. Anything else — anchors, aliases, tags, merge keys, block or
// multi-line scalars, escapes, several documents, tabs, duplicate keys,
// anything the general reader would refuse — makes it give up (ok is
// false), and the general reader reads the file instead, so what it
// returns is always the tree parseYAML would build.
func parseYAMLFast(src []byte) (doc *node, ok bool) {
	for _, c := range src {
		if c >= 0x7f || (c < 0x20 && c != '\n') {
			return nil, false
		}
	}
	p := &fastParser{src: src, text: sourceText(src), lim: newLimits(len(src))}
	p.nextLine()
	if p.eof {
		return nil, false
	}
	n := p.block(p.ind, 1)
	if p.fail || !p.eof {
		return nil, false
	}
	return n, true
}

// fastParser walks the source line by line. The current line is
// src[ls:le], its content starting at column ind (0-based).
type fastParser struct {
	src  []byte
	text string // src as one string, which the scalars' values share
	slab nodeBlock
	// The entries of the collections being read are gathered on kstack
	// and, once a collection ends, copied to a slice of their own; those
	// of a collection of scalars are cut from kslab, many at a time.
	kstack []kid
	kslab  []kid
	lim    *limits
	ls, le int // current line: start and end (at '\n' or len)
	lineNo int // 1-based number of the current line
	ind    int // indentation of the current line
	next   int // start of the line after the current one
	pos    int // where the last key's colon is
	eof    bool
	fail   bool
}

// nextLine moves to the next line that holds content, skipping blank and
// comment-only lines. A document marker, a directive or a tab makes the
// parser give up.
func (p *fastParser) nextLine() {
	for {
		if p.next >= len(p.src) {
			p.eof = true
			p.ls, p.le = len(p.src), len(p.src)
			return
		}
		p.ls = p.next
		p.lineNo++
		p.le = p.ls
		for p.le < len(p.src) && p.src[p.le] != '\n' {
			p.le++
		}
		p.next = p.le + 1
		i := p.ls
		for i < p.le && p.src[i] == ' ' {
			i++
		}
		if i == p.le || p.src[i] == '#' {
			continue
		}
		if i == p.ls {
			switch p.src[i] {
			case '-', '.':
				if p.le-p.ls >= 3 && (string(p.src[p.ls:p.ls+3]) == "---" || string(p.src[p.ls:p.ls+3]) == "...") {
					p.fail = true
				}
			case '%':
				p.fail = true
			}
		}
		p.ind = i - p.ls
		return
	}
}

// newNode charges the node budget and the depth limit.
func (p *fastParser) newNode(k kind, col, depth int) *node {
	p.lim.used++
	if depth > maxDepth || p.lim.used > p.lim.budget {
		p.fail = true
	}
	n := p.slab.next()
	n.kind, n.line, n.col = k, int32(p.lineNo), int32(col+1)
	return n
}

// kidsFrom takes the entries gathered on the stack from start on as the
// entries of a collection that ends.
//
// Only a collection of scalars takes its entries from the shared block. A
// block lives while any of its entries is reachable, and so does every
// node those entries point to: entries of scalars point only to the nodes
// read just before them, while those of an enclosing collection, which
// ends after all it holds, would keep a resource's whole tree (and,
// through the node blocks it shares with its neighbours, theirs) alive
// after the builder let go of it.
func (p *fastParser) kidsFrom(start int) []kid {
	n := len(p.kstack) - start
	var out []kid
	switch {
	case n == 0:
		return nil
	case n > 64 || !leaves(p.kstack[start:]):
		out = make([]kid, n)
	default:
		if len(p.kslab) < n {
			p.kslab = make([]kid, 512)
		}
		out = p.kslab[:n:n]
		p.kslab = p.kslab[n:]
	}
	copy(out, p.kstack[start:])
	clear(p.kstack[start:])
	p.kstack = p.kstack[:start]
	return out
}

// leaves reports whether the entries' values are all scalars.
func leaves(kids []kid) bool {
	for i := range kids {
		if v := kids[i].val; v == nil || v.kind != kScalar {
			return false
		}
	}
	return true
}

// block reads the block collection whose first line is the current line,
// at indentation ind.
func (p *fastParser) block(ind, depth int) *node {
	c := p.ls + ind
	if p.src[c] == '-' && (c+1 == p.le || p.src[c+1] == ' ') {
		return p.sequence(ind, depth)
	}
	return p.mapping(ind, ind, depth)
}

// sequence reads "- item" lines at indentation ind.
func (p *fastParser) sequence(ind, depth int) *node {
	n := p.newNode(kSeq, ind, depth)
	start := len(p.kstack)
	defer func() { n.setKids(p.kidsFrom(start)) }()
	for !p.fail && !p.eof && p.ind == ind {
		c := p.ls + ind
		if p.src[c] != '-' || (c+1 != p.le && p.src[c+1] != ' ') {
			break
		}
		i := c + 1
		for i < p.le && p.src[i] == ' ' {
			i++
		}
		if i == p.le || p.src[i] == '#' {
			// "-" alone, its item on the lines below: rare, left to
			// the general reader.
			p.fail = true
			return n
		}
		col := i - p.ls
		if p.src[i] == '-' && (i+1 == p.le || p.src[i+1] == ' ') {
			p.fail = true // "- - x"
			return n
		}
		var v *node
		if p.isKeyLine(i) {
			// "- key: value": a mapping whose keys line up with key.
			v = p.mapping(col, col, depth+1)
		} else {
			v = p.inlineValue(i, depth+1)
			p.nextLine()
		}
		p.kstack = append(p.kstack, kid{val: v})
	}
	if !p.fail && !p.eof && p.ind > ind {
		p.fail = true
	}
	return n
}

// isKeyLine reports whether the text from i on starts with a key and its
// colon.
func (p *fastParser) isKeyLine(i int) bool {
	switch p.src[i] {
	case '"', '\'':
		q := p.src[i]
		for j := i + 1; j < p.le; j++ {
			if p.src[j] == q {
				j++
				for j < p.le && p.src[j] == ' ' {
					j++
				}
				return j < p.le && p.src[j] == ':'
			}
		}
		return false
	case '[', '{':
		return false
	}
	for j := i; j < p.le; j++ {
		if p.src[j] == ':' && (j+1 == p.le || p.src[j+1] == ' ') {
			return true
		}
		if p.src[j] == '#' && j > i && p.src[j-1] == ' ' {
			return false
		}
	}
	return false
}

// mapping reads "key: value" lines at indentation ind; the first key
// starts at column first of the current line (after "- " in a sequence).
func (p *fastParser) mapping(ind, first, depth int) *node {
	n := p.newNode(kMap, first, depth)
	start := len(p.kstack)
	defer func() { n.setKids(p.kidsFrom(start)) }()
	i := p.ls + first
	for !p.fail && !p.eof {
		if i < 0 {
			if p.ind != ind {
				break
			}
			i = p.ls + ind
		}
		k := p.key(i, depth+1)
		if p.fail {
			return n
		}
		for _, e := range p.kstack[start:] {
			if e.key.text() == k.text() {
				p.fail = true // the general reader reports it
				return n
			}
		}
		// After the colon: a value on this line, or a block below.
		j := p.pos + 1
		for j < p.le && p.src[j] == ' ' {
			j++
		}
		var v *node
		if j == p.le || p.src[j] == '#' {
			p.nextLine()
			switch {
			case p.fail:
				return n
			case !p.eof && p.ind > ind:
				v = p.block(p.ind, depth+1)
			case !p.eof && p.ind == ind && p.src[p.ls+ind] == '-' && (p.ls+ind+1 == p.le || p.src[p.ls+ind+1] == ' '):
				v = p.sequence(ind, depth+1)
			default:
				// An empty value: left to the general reader, which
				// knows where to place the null.
				p.fail = true
				return n
			}
		} else {
			v = p.inlineValue(j, depth+1)
			p.nextLine()
		}
		p.kstack = append(p.kstack, kid{key: k, val: v})
		i = -1
	}
	if !p.fail && !p.eof && p.ind > ind {
		p.fail = true
	}
	return n
}

// key reads a mapping key starting at i and leaves p.pos at its colon.
func (p *fastParser) key(i, depth int) *node {
	col := i - p.ls
	switch p.src[i] {
	case '"', '\'':
		k, end := p.quoted(i, depth)
		if k == nil {
			return nil
		}
		for end < p.le && p.src[end] == ' ' {
			end++
		}
		if end >= p.le || p.src[end] != ':' || (end+1 < p.le && p.src[end+1] != ' ') {
			p.fail = true
			return nil
		}
		p.pos = end
		return k
	}
	if !plainStart(p.src, i, p.le) {
		p.fail = true
		return nil
	}
	j := i
	for ; j < p.le; j++ {
		c := p.src[j]
		if c == ':' && (j+1 == p.le || p.src[j+1] == ' ') {
			break
		}
		if c == '#' && p.src[j-1] == ' ' {
			p.fail = true
			return nil
		}
	}
	if j == p.le {
		p.fail = true
		return nil
	}
	e := j
	for e > i && p.src[e-1] == ' ' {
		e--
	}
	text := p.text[i:e]
	if text == "<<" || e-i > 1024 {
		p.fail = true
		return nil
	}
	k := p.newNode(kScalar, col, depth)
	k.setText(text)
	k.tag = plainTag(text)
	p.pos = j
	return k
}

// inlineValue reads the value that starts at i and takes the rest of the
// line: a flow collection, a quoted or a plain scalar.
func (p *fastParser) inlineValue(i, depth int) *node {
	var v *node
	var end int
	switch p.src[i] {
	case '[', '{':
		v, end = p.flow(i, depth)
	case '"', '\'':
		v, end = p.quoted(i, depth)
	default:
		if !plainStart(p.src, i, p.le) {
			p.fail = true
			return nil
		}
		e := i
		for j := i; j < p.le; j++ {
			c := p.src[j]
			if c == ':' && (j+1 == p.le || p.src[j+1] == ' ') {
				p.fail = true // "a: b: c"
				return nil
			}
			if c == '#' && p.src[j-1] == ' ' {
				break
			}
			if c != ' ' {
				e = j + 1
			}
		}
		v = p.plain(i, e, depth)
		end = e
	}
	if p.fail {
		return nil
	}
	p.rest(end)
	return v
}

// rest checks that only blanks and a comment follow position i.
func (p *fastParser) rest(i int) {
	for i < p.le && p.src[i] == ' ' {
		i++
	}
	if i < p.le && (p.src[i] != '#' || p.src[i-1] != ' ') {
		p.fail = true
	}
}

// plainTag is scalarTag of a plain scalar. The YAML reader looks at the
// first character before anything else: unless it is a digit, a sign, a
// dot, a tilde or one of the letters that begin true, false, null, yes,
// no, on and off, the scalar is a string, and asking costs an allocation
// per key and value.
func plainTag(text string) scalarType {
	if text != "" && !strings.ContainsRune("+-.0123456789yYnNtTfFoO~", rune(text[0])) {
		return tagStr
	}
	if t, ok := digitsTag(text); ok {
		return t
	}
	if text != "" && strings.IndexByte("yYnNtTfFoO~", text[0]) >= 0 {
		// The YAML reader looks these up in its table of words and
		// takes anything else for a string (keys such as name, type,
		// timeout and filters), after boxing the string it returns.
		switch text {
		case "true", "True", "TRUE", "false", "False", "FALSE":
			return tagBool
		case "~", "null", "Null", "NULL":
			return tagNull
		}
		return tagStr
	}
	return scalarTag(&yaml.Node{Kind: yaml.ScalarNode, Value: text})
}

// digitsTag answers for the plain scalars starting with a digit that
// configurations are full of, as the YAML reader would, without the
// conversions it tries and the error values they allocate: a port or a
// count (decimal digits: an int), a duration (5s, 30m, 1h: no number or
// timestamp holds s, m or h) and an address (two dots or more and no '-':
// neither a number nor a timestamp). ok is false for anything else.
func digitsTag(s string) (t scalarType, ok bool) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return tagNone, false
	}
	dots := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
		case c == '.':
			dots++
		case c == 's' || c == 'm' || c == 'h':
			return tagStr, true
		default:
			return tagNone, false
		}
	}
	switch {
	case dots == 0 && (s[0] != '0' || len(s) == 1) && len(s) <= 18:
		return tagInt, true
	case dots >= 2:
		return tagStr, true
	}
	return tagNone, false
}

// plain makes a plain scalar of src[i:e].
func (p *fastParser) plain(i, e, depth int) *node {
	n := p.newNode(kScalar, i-p.ls, depth)
	n.setText(p.text[i:e])
	n.tag = plainTag(p.text[i:e])
	return n
}

// quoted reads a quoted scalar without escapes that ends on its line; end
// is just past the closing quote.
func (p *fastParser) quoted(i, depth int) (n *node, end int) {
	q := p.src[i]
	j := i + 1
	escaped := false
	for j < p.le && p.src[j] != q {
		if p.src[j] == '\\' && q == '"' {
			if j+1 == p.le || unescape(p.src[j+1]) == 0 {
				p.fail = true
				return nil, 0
			}
			escaped = true
			j++
		}
		j++
	}
	if j == p.le || (q == '\'' && j+1 < p.le && p.src[j+1] == '\'') {
		p.fail = true
		return nil, 0
	}
	n = p.newNode(kScalar, i-p.ls, depth)
	if escaped {
		b := make([]byte, 0, j-i)
		for k := i + 1; k < j; k++ {
			if p.src[k] == '\\' {
				k++
				b = append(b, unescape(p.src[k]))
				continue
			}
			b = append(b, p.src[k])
		}
		n.setText(string(b))
	} else {
		n.setText(p.text[i+1 : j])
	}
	n.quoted = true
	n.tag = tagStr
	n.style = q
	return n, j + 1
}

// flow reads a flow collection that ends on its line.
func (p *fastParser) flow(i, depth int) (n *node, end int) {
	open := p.src[i]
	closer := byte(']')
	k := kSeq
	if open == '{' {
		closer, k = '}', kMap
	}
	coll := p.newNode(k, i-p.ls, depth)
	n = coll
	start := len(p.kstack)
	defer func() { coll.setKids(p.kidsFrom(start)) }()
	j := p.skipSpaces(i + 1)
	if j < p.le && p.src[j] == closer {
		return n, j + 1
	}
	for !p.fail {
		var kn, v *node
		if k == kMap {
			kn, j = p.flowScalar(j, depth+1, true)
			if p.fail {
				return nil, 0
			}
			if kn.text() == "<<" && kn.style == 0 {
				p.fail = true
				return nil, 0
			}
			for _, e := range p.kstack[start:] {
				if e.key.text() == kn.text() {
					p.fail = true
					return nil, 0
				}
			}
			j = p.skipSpaces(j)
			if j >= p.le || p.src[j] != ':' || (j+1 < p.le && p.src[j+1] != ' ') {
				p.fail = true
				return nil, 0
			}
			j = p.skipSpaces(j + 1)
		}
		if j >= p.le {
			p.fail = true
			return nil, 0
		}
		switch p.src[j] {
		case '[', '{':
			v, j = p.flow(j, depth+1)
		default:
			v, j = p.flowScalar(j, depth+1, false)
		}
		if p.fail {
			return nil, 0
		}
		p.kstack = append(p.kstack, kid{key: kn, val: v})
		j = p.skipSpaces(j)
		if j >= p.le {
			p.fail = true
			return nil, 0
		}
		switch p.src[j] {
		case closer:
			return n, j + 1
		case ',':
			j = p.skipSpaces(j + 1)
			if j >= p.le || p.src[j] == closer || p.src[j] == ',' {
				p.fail = true // a trailing or doubled comma
				return nil, 0
			}
		default:
			p.fail = true
			return nil, 0
		}
	}
	return nil, 0
}

func (p *fastParser) skipSpaces(j int) int {
	for j < p.le && p.src[j] == ' ' {
		j++
	}
	return j
}

// flowScalar reads a scalar inside a flow collection: quoted, or plain up
// to a comma, a closing bracket, or (for a key) a colon.
func (p *fastParser) flowScalar(i, depth int, isKey bool) (*node, int) {
	if i >= p.le {
		p.fail = true
		return nil, 0
	}
	if c := p.src[i]; c == '"' || c == '\'' {
		return p.quoted(i, depth)
	}
	// In a flow collection "?" and ":" are indicators even before a
	// non-blank: left to the general reader.
	if !plainStart(p.src, i, p.le) || p.src[i] == ':' || p.src[i] == '?' {
		p.fail = true
		return nil, 0
	}
	e := i
	j := i
	for ; j < p.le; j++ {
		c := p.src[j]
		if c == ',' || c == ']' || c == '}' {
			break
		}
		if c == ':' && (j+1 == p.le || p.src[j+1] == ' ' || p.src[j+1] == ',' || p.src[j+1] == ']' || p.src[j+1] == '}') {
			if !isKey {
				p.fail = true
				return nil, 0
			}
			break
		}
		if c == '[' || c == '{' || (c == '#' && p.src[j-1] == ' ') {
			p.fail = true
			return nil, 0
		}
		if c != ' ' {
			e = j + 1
		}
	}
	if isKey && (j >= p.le || p.src[j] != ':') {
		p.fail = true
		return nil, 0
	}
	return p.plain(i, e, depth), e
}

// plainStart reports whether a plain scalar may start at i: not with an
// indicator YAML gives another meaning.
func plainStart(src []byte, i, le int) bool {
	switch src[i] {
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	case '-', '?', ':':
		return i+1 < le && src[i+1] != ' '
	}
	return true
}

// unescape is the character a one-letter escape of a double-quoted scalar
// stands for, or 0 for an escape the fast reader leaves to the YAML reader.
func unescape(c byte) byte {
	switch c {
	case '"', '\\':
		return c
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	}
	return 0
}
