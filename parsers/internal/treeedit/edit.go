package treeedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/proxylint/proxylint/model"
)

// Case says how the field names of a file are written when its own
// fields do not tell.
type Case uint8

// Cases of field names.
const (
	// AsGiven writes a name as the editor's caller spells it.
	AsGiven Case = iota
	// Camel writes camelCase, as protobuf's JSON mapping and Kubernetes
	// resources do.
	Camel
	// Snake writes snake_case, as Envoy's own configuration examples do.
	Snake
)

// Editor edits one YAML or JSON file (model.TreeEditor). It writes what it
// adds as the file writes its values: in block style with the file's
// indentation step and line endings where the mapping or list is in block
// style, in flow style (with commas where they belong) inside "{...}" and
// "[...]" and in JSON, field names in the case the mapping's own fields
// are written in, strings quoted only where YAML needs it (always in
// JSON). Comments and the rest of the text are kept as written. Safe for
// use by several goroutines.
type Editor struct {
	path string
	src  []byte
	// fallback is the case of names where neither a mapping nor the file
	// tells.
	fallback Case

	once sync.Once
	sp   *spans
	err  error
	// nl is the file's line ending, unit one step of its indentation,
	// seqStep how far a block list under a field is indented beyond
	// the field's key, fileCase the case of the file's field names.
	nl       string
	unit     int
	seqStep  int
	fileCase Case
}

var _ model.TreeEditor = (*Editor)(nil)

// New returns the editor of the file at path whose source is src; names
// are written in fallback case where the file does not tell. src must not
// change while the editor is used.
func New(path string, src []byte, fallback Case) *Editor {
	return &Editor{path: path, src: src, fallback: fallback}
}

// Path is the file the editor edits.
func (e *Editor) Path() string { return e.path }

func (e *Editor) spans() (*spans, error) {
	e.once.Do(func() {
		e.sp, e.err = readSpans(e.path, e.src)
		if e.err == nil {
			e.nl = "\n"
			if i := bytes.IndexByte(e.src, '\n'); i > 0 && e.src[i-1] == '\r' {
				e.nl = "\r\n"
			}
			e.unit, e.seqStep = e.sp.steps()
			e.fileCase = e.sp.fileCase()
		}
	})
	return e.sp, e.err
}

// steps finds the file's indentation step, the most common depth a block
// mapping is indented by under its field, and the step of a block list
// under a field (0 when lists stand at their field's column).
func (s *spans) steps() (unit, seq int) {
	units, seqs := map[int]int{}, map[int]int{}
	for _, n := range s.byPos {
		if !n.placed || n.flow || n.key == nil || n.parent == nil || n.parent.flow {
			continue
		}
		d := n.indent - n.parent.indent
		switch {
		case n.kind == model.MapValue && d > 0:
			units[d]++
		case n.kind == model.ListValue && d >= 0:
			seqs[d]++
		}
	}
	unit, seq = 2, -1
	for d, c := range units {
		if c > units[unit] || c == units[unit] && d < unit {
			unit = d
		}
	}
	for d, c := range seqs {
		if seq < 0 || c > seqs[seq] || c == seqs[seq] && d < seq {
			seq = d
		}
	}
	if seq < 0 {
		seq = unit
	}
	return unit, seq
}

// caseOf says how names are written among keys.
func caseOf(keys []string) Case {
	camel, snake := 0, 0
	for _, k := range keys {
		switch {
		case strings.Contains(k, "_"):
			snake++
		case hasInnerUpper(k):
			camel++
		}
	}
	switch {
	case camel > snake:
		return Camel
	case snake > camel:
		return Snake
	}
	return AsGiven
}

func hasInnerUpper(k string) bool {
	for i := 1; i < len(k); i++ {
		if k[i] >= 'A' && k[i] <= 'Z' && k[i-1] >= 'a' && k[i-1] <= 'z' {
			return true
		}
	}
	return false
}

func (s *spans) fileCase() Case {
	var keys []string
	for _, n := range s.byPos {
		if n.isKey() {
			keys = append(keys, n.text)
		}
	}
	return caseOf(keys)
}

// nameIn writes key in the case of mapping m: its own fields', else its
// ancestors', else the file's, else the fallback.
func (e *Editor) nameIn(m *node, key string) string {
	for p := m; p != nil; p = p.parent {
		if p.kind != model.MapValue {
			continue
		}
		keys := make([]string, 0, len(p.entries))
		for _, en := range p.entries {
			keys = append(keys, en.key.text)
		}
		if c := caseOf(keys); c != AsGiven {
			return inCase(key, c)
		}
	}
	if e.fileCase != AsGiven {
		return inCase(key, e.fileCase)
	}
	return inCase(key, e.fallback)
}

func inCase(key string, c Case) string {
	switch c {
	case Camel:
		return camel(key)
	case Snake:
		return snake(key)
	}
	return key
}

// camel is protobuf's JSON name of a snake_case name.
func camel(s string) string {
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

// snake is the snake_case name of a camelCase one.
func snake(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' && i > 0 && s[i-1] >= 'a' && s[i-1] <= 'z' {
			b.WriteByte('_')
			b.WriteByte(c - 'A' + 'a')
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// sameName reports whether a key as written is the name given, in either
// case.
func sameName(written, name string) bool {
	return written == name || written == camel(name) || snake(written) == snake(name)
}

// ---- finding nodes ----

func (e *Editor) check(p model.Pos) (*spans, error) {
	s, err := e.spans()
	if err != nil {
		return nil, err
	}
	if p.File != e.path {
		return nil, fmt.Errorf("%s is not in %s", p, e.path)
	}
	return s, nil
}

// field returns the key at p and its value, or the value that starts at
// p (key nil).
func (e *Editor) field(p model.Pos) (key, val *node, err error) {
	s, err := e.check(p)
	if err != nil {
		return nil, nil, err
	}
	ns := s.at(p)
	for _, n := range ns {
		if n.isKey() {
			return n, n.parent.valueOf(n), nil
		}
	}
	if len(ns) > 0 {
		// A field's value names its field.
		v := ns[len(ns)-1]
		return v.key, v, nil
	}
	return nil, nil, fmt.Errorf("%s: no field or value starts here", p)
}

// collection returns the mapping or list of kind k that starts at p, or
// else the one that is the value of the field whose key starts at p.
func (e *Editor) collection(p model.Pos, k model.ValueKind) (*node, error) {
	s, err := e.check(p)
	if err != nil {
		return nil, err
	}
	ns := s.at(p)
	var found *node
	for _, n := range ns {
		if n.kind == k {
			found = n
			break
		}
	}
	if found == nil {
		for _, n := range ns {
			if v := n.parent.valueOf(n); n.isKey() && v != nil && v.kind == k {
				found = v
				break
			}
		}
	}
	if found != nil {
		if !found.placed {
			return nil, fmt.Errorf("%s: %w", p, errUnplaced)
		}
		return found, nil
	}
	what := "mapping"
	if k == model.ListValue {
		what = "list"
	}
	return nil, fmt.Errorf("%s: no %s starts here", p, what)
}

func (e *Editor) pos(n *node) model.Pos {
	return model.Pos{File: e.path, Line: n.line, Col: n.col}
}

func (e *Editor) describe(key, val *node) model.Node {
	out := model.Node{Pos: e.pos(val), Kind: val.kind, Text: val.text, Flow: val.flow && val.kind >= model.MapValue}
	if key != nil {
		out.Key, out.KeyPos = key.text, e.pos(key)
	}
	return out
}

// Node returns the field at at, or the value that starts there.
func (e *Editor) Node(at model.Pos) (model.Node, bool) {
	k, v, err := e.field(at)
	if err != nil {
		return model.Node{}, false
	}
	return e.describe(k, v), true
}

// Lookup returns the field key of the mapping at mapping.
func (e *Editor) Lookup(mapping model.Pos, key string) (model.Node, bool) {
	m, err := e.collection(mapping, model.MapValue)
	if err != nil {
		return model.Node{}, false
	}
	for _, en := range m.entries {
		if sameName(en.key.text, key) {
			return e.describe(en.key, en.val), true
		}
	}
	return model.Node{}, false
}

// Name returns key as the mapping at mapping writes names.
func (e *Editor) Name(mapping model.Pos, key string) string {
	m, err := e.collection(mapping, model.MapValue)
	if err != nil {
		if _, err := e.spans(); err == nil && e.fileCase != AsGiven {
			return inCase(key, e.fileCase)
		}
		return inCase(key, e.fallback)
	}
	return e.nameIn(m, key)
}

// ---- editing ----

func (e *Editor) edit(start, end int, text string) []model.Edit {
	return []model.Edit{{File: e.path, Start: start, End: end, New: text}}
}

// SetValue replaces the value of the field at at, or the value there.
func (e *Editor) SetValue(at model.Pos, v model.Value) ([]model.Edit, error) {
	k, val, err := e.field(at)
	if err != nil {
		return nil, err
	}
	if !val.placed || k != nil && !k.placed {
		return nil, fmt.Errorf("%s: %w", at, errUnplaced)
	}
	if err := checkValue(v); err != nil {
		return nil, err
	}
	parent := val.parent
	switch {
	case val.flow || parent == nil && isScalar(v):
		text := e.flowValue(v, e.quoteKeys(parent), val)
		if val.start == val.end && val.start > 0 && e.src[val.start-1] == ':' {
			text = " " + text // "{a:}"
		}
		return e.edit(val.start, val.end, text), nil
	case k != nil:
		// A field of a block mapping: everything after its ":".
		colon := e.colonAfter(k)
		if colon < 0 {
			return nil, fmt.Errorf("%s: no \":\" after the key", at)
		}
		return e.edit(colon+1, val.end, e.fieldValue(v, parent.indent, val)), nil
	case parent != nil && parent.kind == model.ListValue:
		// The item's lines stand where its value starts: "-  0" puts them
		// at the fourth column, and a value on the line below the dash
		// ("-\n 0") at its own column, which may be nearer the dash than
		// two. An empty item ("-" alone) gets its value after a space.
		ls := lineStart(e.src, val.start)
		indent := val.start - ls
		empty := val.start > 0 && e.src[val.start-1] == '-'
		if empty {
			indent++
		}
		lead := ""
		if !empty && indent <= parent.indent {
			// A reader may take a value below the dash at the dash's own
			// column ("-\n|"); lines written there would be items of the
			// list. The value moves to where an item's lines belong.
			if strings.Trim(string(e.src[ls:val.start]), " ") != "" {
				return nil, fmt.Errorf("%s: %w", at, errUnplaced)
			}
			lead = strings.Repeat(" ", parent.indent+2-indent)
			indent = parent.indent + 2
		}
		text := lead + e.itemValue(v, indent)
		if empty {
			text = " " + text
		}
		return e.edit(val.start, val.end, text), nil
	}
	return nil, fmt.Errorf("%s: the editor does not replace a whole document", at)
}

// colonAfter is the offset of the ":" after key k.
func (e *Editor) colonAfter(k *node) int {
	src := e.src
	i := k.end
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if i < len(src) && src[i] == ':' {
		return i
	}
	return -1
}

// SetField sets the field key of the mapping at mapping.
func (e *Editor) SetField(mapping model.Pos, key string, v model.Value) ([]model.Edit, error) {
	m, err := e.collection(mapping, model.MapValue)
	if err != nil {
		return nil, err
	}
	for _, en := range m.entries {
		if sameName(en.key.text, key) {
			return e.SetValue(e.pos(en.key), v)
		}
	}
	return e.insertIn(m, len(m.entries), key, v)
}

// InsertField adds a field to a mapping.
func (e *Editor) InsertField(at model.Pos, where model.Where, key string, v model.Value) ([]model.Edit, error) {
	switch where {
	case model.AtStart, model.AtEnd:
		m, err := e.collection(at, model.MapValue)
		if err != nil {
			return nil, err
		}
		i := 0
		if where == model.AtEnd {
			i = len(m.entries)
		}
		return e.insertIn(m, i, key, v)
	case model.Before, model.After:
		k, _, err := e.field(at)
		if err != nil {
			return nil, err
		}
		if k == nil {
			return nil, fmt.Errorf("%s: no field starts here", at)
		}
		m := k.parent
		for i, en := range m.entries {
			if en.key == k {
				if where == model.After {
					i++
				}
				return e.insertIn(m, i, key, v)
			}
		}
	}
	return nil, fmt.Errorf("insert %s: not a place to insert at", where)
}

// Append adds v at the end of the list at list.
func (e *Editor) Append(list model.Pos, v model.Value) ([]model.Edit, error) {
	l, err := e.collection(list, model.ListValue)
	if err != nil {
		return nil, err
	}
	return e.insertIn(l, len(l.entries), "", v)
}

// RemoveField deletes the field at at.
func (e *Editor) RemoveField(at model.Pos) ([]model.Edit, error) {
	k, val, err := e.field(at)
	if err != nil {
		return nil, err
	}
	if k == nil {
		return nil, fmt.Errorf("%s: no field starts here", at)
	}
	m := k.parent
	if !m.placed || !k.placed || !val.placed {
		return nil, fmt.Errorf("%s: %w", at, errUnplaced)
	}
	i := 0
	for j, en := range m.entries {
		if en.key == k {
			i = j
		}
	}
	src := e.src
	if m.flow {
		switch {
		case len(m.entries) == 1:
			return e.edit(m.start+1, m.end-1, ""), nil
		case i+1 < len(m.entries):
			return e.edit(k.start, m.entries[i+1].key.start, ""), nil
		default:
			cut := m.entries[i-1].val.end
			if cut > 0 && src[cut-1] == ':' {
				// The field before ends in ":" ("{a:, b: 1}" holds the key
				// "a:"): the comma stays, or the ":" would become the
				// indicator of a key "a".
				if c := bytes.IndexByte(src[cut:k.start], ','); c >= 0 {
					return e.edit(cut+c+1, val.end, ""), nil
				}
				return nil, fmt.Errorf("%s: %w", at, errUnplaced)
			}
			return e.edit(cut, val.end, ""), nil
		}
	}
	if len(m.entries) == 1 {
		return nil, fmt.Errorf("%s: the field is the only one of its mapping", at)
	}
	if !startsLine(src, k.start) {
		return nil, fmt.Errorf("%s: the field does not start its line", at)
	}
	return e.edit(lineStart(src, k.start), afterLine(src, val.end), ""), nil
}

// startsLine reports whether only blanks stand before off on its line.
func startsLine(src []byte, off int) bool {
	s := lineStart(src, off)
	return len(bytes.TrimLeft(src[s:off], " \t")) == 0
}

// afterLine is the offset just past the line holding off ("\n"
// included), or the end of the file.
func afterLine(src []byte, off int) int {
	e := lineEnd(src, off)
	if e < len(src) {
		return e + 1
	}
	return e
}

// allPlaced reports whether n and everything in it have known places.
func allPlaced(n *node) bool {
	if !n.placed {
		return false
	}
	for _, en := range n.entries {
		if en.key != nil && !en.key.placed || !allPlaced(en.val) {
			return false
		}
	}
	return true
}

// insertIn writes a field (key non-empty) or an item as entry i of
// collection c.
func (e *Editor) insertIn(c *node, i int, key string, v model.Value) ([]model.Edit, error) {
	if !c.placed {
		return nil, errUnplaced
	}
	for _, en := range c.entries {
		if !en.val.placed || en.key != nil && !en.key.placed {
			return nil, errUnplaced
		}
	}
	// What goes after entry i-1 goes after its last line, which only a
	// value placed all the way down tells (a tag or an anchor deep in it
	// leaves its end unknown).
	if i > 0 && i <= len(c.entries) && !allPlaced(c.entries[i-1].val) {
		return nil, errUnplaced
	}
	if err := checkValue(v); err != nil {
		return nil, err
	}
	if c.kind == model.MapValue {
		key = e.nameIn(c, key)
		for _, en := range c.entries {
			if en.key.text == key {
				return nil, fmt.Errorf("the mapping already has the field %q", key)
			}
		}
	}
	if c.flow {
		return e.insertFlow(c, i, key, v), nil
	}
	return e.insertBlock(c, i, key, v), nil
}

// insertBlock writes an entry into a block mapping or list.
func (e *Editor) insertBlock(c *node, i int, key string, v model.Value) []model.Edit {
	src := e.src
	pad := strings.Repeat(" ", c.indent)
	var one string
	if c.kind == model.MapValue {
		one = e.writeKey(key, false) + ":" + e.fieldValue(v, c.indent, nil)
	} else {
		one = "-" + " " + e.itemValue(v, c.indent+2)
	}
	if i < len(c.entries) {
		first := c.entries[i].val
		if c.entries[i].key != nil {
			first = c.entries[i].key
		} else {
			first = &node{start: dashBefore(src, first.start)}
		}
		if startsLine(src, first.start) {
			at := lineStart(src, first.start)
			return e.edit(at, at, pad+one+e.nl)
		}
		// The first field of a list item ("- name: a"): the new field
		// takes its place and it moves to the next line.
		return e.edit(first.start, first.start, one+e.nl+pad)
	}
	last := c.entries[len(c.entries)-1].val
	at := afterLine(src, last.end)
	text := pad + one + e.nl
	if at == len(src) && (at == 0 || src[at-1] != '\n') {
		text = e.nl + pad + one
		if clip := clippedAtEnd(src, last); clip >= 0 {
			// A block scalar that ends the file without a line break
			// reads without one; a line written after it would give it
			// one, unless it strips it ("|-").
			return append(e.edit(clip, clip, "-"), e.edit(at, at, text)...)
		}
	}
	return e.edit(at, at, text)
}

// clippedAtEnd is the offset just past the "|" or ">" of the block scalar
// with the default (clip) chomping that n ends with, or -1: the value's
// line break at the end of the file is then its last.
func clippedAtEnd(src []byte, n *node) int {
	for n != nil && (n.kind == model.MapValue || n.kind == model.ListValue) && !n.flow && len(n.entries) > 0 {
		n = n.entries[len(n.entries)-1].val
	}
	if n == nil || n.style != '|' && n.style != '>' || n.start+1 > len(src) {
		return -1
	}
	for i := n.start + 1; i < len(src) && src[i] != '\n' && src[i] != ' ' && src[i] != '#'; i++ {
		if src[i] == '-' || src[i] == '+' {
			return -1
		}
	}
	return n.start + 1
}

// dashBefore is the offset of the "-" that introduces a block list item
// starting at off.
func dashBefore(src []byte, off int) int {
	i := off - 1
	for i > 0 && (src[i] == ' ' || src[i] == '\t') {
		i--
	}
	if i >= 0 && src[i] == '-' {
		return i
	}
	return off
}

// insertFlow writes an entry into a flow mapping or list.
func (e *Editor) insertFlow(c *node, i int, key string, v model.Value) []model.Edit {
	src := e.src
	quote := e.quoteKeys(c)
	one := e.flowValue(v, quote, nil)
	if c.kind == model.MapValue {
		one = e.writeKey(key, quote) + ": " + one
	}
	if len(c.entries) == 0 {
		return e.edit(c.start+1, c.end-1, one)
	}
	start := func(j int) int {
		if k := c.entries[j].key; k != nil {
			return k.start
		}
		return c.entries[j].val.start
	}
	// Entries on lines of their own: the new one gets a line too.
	multi := startsLine(src, start(0))
	pad := ""
	if multi {
		s := start(0)
		pad = string(src[lineStart(src, s):s])
	}
	if i < len(c.entries) {
		at := start(i)
		if multi {
			ls := lineStart(src, at)
			return e.edit(ls, ls, pad+one+","+e.nl)
		}
		return e.edit(at, at, one+", ")
	}
	end := c.entries[len(c.entries)-1].val.end
	if multi {
		return e.edit(end, end, ","+e.nl+pad+one)
	}
	return e.edit(end, end, ", "+one)
}

// quoteKeys reports whether a flow mapping's keys are written quoted: in
// JSON, or where the mapping's keys are.
func (e *Editor) quoteKeys(c *node) bool {
	if e.sp.json {
		return true
	}
	for p := c; p != nil; p = p.parent {
		if p.kind == model.MapValue && len(p.entries) > 0 {
			return p.entries[0].key.style == '"'
		}
	}
	return false
}

// ---- writing values ----

var errEmpty = errors.New("a mapping field needs a name")

func checkValue(v model.Value) error {
	switch v.Kind {
	case model.StringValue, model.NullValue:
	case model.NumberValue, model.BoolValue:
		if v.Text == "" || strings.ContainsAny(v.Text, " \t\r\n,:[]{}#\"'") {
			return fmt.Errorf("%q is not a number or a boolean", v.Text)
		}
	case model.MapValue:
		for _, f := range v.Fields {
			if f.Key == "" {
				return errEmpty
			}
			if err := checkValue(f.Value); err != nil {
				return err
			}
		}
	case model.ListValue:
		for _, it := range v.Items {
			if err := checkValue(it); err != nil {
				return err
			}
		}
	default:
		return errors.New("a value of no kind")
	}
	return nil
}

func isScalar(v model.Value) bool { return v.Kind < model.MapValue }

// scalarText writes a scalar: in JSON as JSON; in YAML plain where that
// reads back as the same string, else quoted as the value it replaces
// was, else double-quoted.
func (e *Editor) scalarText(v model.Value, flow bool, old *node) string {
	if v.Kind != model.StringValue {
		return v.Text
	}
	if e.sp.json {
		return jsonString(v.Text)
	}
	if old != nil && old.style == '\'' && !strings.ContainsAny(v.Text, "\n\r") {
		return "'" + strings.ReplaceAll(v.Text, "'", "''") + "'"
	}
	if old != nil && old.style == '"' || !plainSafe(v.Text, flow) {
		return jsonString(v.Text)
	}
	return v.Text
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// plainSafe reports whether s written plain reads back as the string s.
func plainSafe(s string, flow bool) bool {
	if s == "" || s != strings.TrimSpace(s) || strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@`") {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") {
		return false
	}
	if flow && strings.ContainsAny(s, ",[]{}") {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~":
		return false
	}
	return !looksNumeric(s)
}

func looksNumeric(s string) bool {
	t := strings.TrimLeft(s, "+-")
	if t == "" {
		return false
	}
	if t[0] >= '0' && t[0] <= '9' || t[0] == '.' {
		for _, c := range t {
			if !strings.ContainsRune("0123456789._xXoO+-abcdefABCDEF", c) {
				return false
			}
		}
		return true
	}
	switch strings.ToLower(t) {
	case ".inf", ".nan":
		return true
	}
	return false
}

// writeKey writes a field name.
func (e *Editor) writeKey(key string, quote bool) string {
	if quote || !plainSafe(key, true) {
		return jsonString(key)
	}
	return key
}

// fieldValue writes v as the value of a field of a block mapping whose
// keys are at column indent: after the ":", a scalar or a flow value on
// the same line, a non-empty mapping or list on the lines below.
func (e *Editor) fieldValue(v model.Value, indent int, old *node) string {
	switch {
	case isScalar(v):
		return " " + e.scalarText(v, false, old)
	case v.Kind == model.MapValue && len(v.Fields) == 0:
		return " {}"
	case v.Kind == model.ListValue && len(v.Items) == 0:
		return " []"
	case v.Kind == model.MapValue:
		var b strings.Builder
		in := indent + e.unit
		for _, f := range v.Fields {
			b.WriteString(e.nl + strings.Repeat(" ", in) + e.writeKey(e.newName(f.Key), false) + ":" + e.fieldValue(f.Value, in, nil))
		}
		return b.String()
	}
	var b strings.Builder
	in := indent + e.seqStep
	for _, it := range v.Items {
		b.WriteString(e.nl + strings.Repeat(" ", in) + "- " + e.itemValue(it, in+2))
	}
	return b.String()
}

// newName writes the name of a field of a new mapping, which has no
// fields of its own to take the case from.
func (e *Editor) newName(key string) string {
	if e.fileCase != AsGiven {
		return inCase(key, e.fileCase)
	}
	return inCase(key, e.fallback)
}

// itemValue writes v after the "- " of a block list item whose content
// is at column indent: a mapping's first field on the dash's line.
func (e *Editor) itemValue(v model.Value, indent int) string {
	switch {
	case v.Kind == model.MapValue && len(v.Fields) > 0:
		var b strings.Builder
		for i, f := range v.Fields {
			if i > 0 {
				b.WriteString(e.nl + strings.Repeat(" ", indent))
			}
			b.WriteString(e.writeKey(e.newName(f.Key), false) + ":" + e.fieldValue(f.Value, indent, nil))
		}
		return b.String()
	case v.Kind == model.ListValue && len(v.Items) > 0:
		var b strings.Builder
		for i, it := range v.Items {
			if i > 0 {
				b.WriteString(e.nl + strings.Repeat(" ", indent))
			}
			b.WriteString("- " + e.itemValue(it, indent+2))
		}
		return b.String()
	}
	return strings.TrimPrefix(e.fieldValue(v, indent, nil), " ")
}

// flowValue writes v on one line in flow style ("{a: 1, b: [x]}"), as
// JSON in a JSON file.
func (e *Editor) flowValue(v model.Value, quote bool, old *node) string {
	switch v.Kind {
	case model.MapValue:
		parts := make([]string, len(v.Fields))
		for i, f := range v.Fields {
			parts[i] = e.writeKey(e.newName(f.Key), quote) + ": " + e.flowValue(f.Value, quote, nil)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case model.ListValue:
		parts := make([]string, len(v.Items))
		for i, it := range v.Items {
			parts[i] = e.flowValue(it, quote, nil)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return e.scalarText(v, true, old)
}
