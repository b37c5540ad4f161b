package envoy

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/proxylint/proxylint/internal/suggest"
)

// The emitter writes a tree as JSON for protojson, one value per line, and
// remembers for every JSON line which node it came from. protojson reports
// errors as "line:column" of its input; the line map turns them back into
// the YAML or JSON position the user wrote.
//
// It walks the protobuf schema alongside the tree, so that it can
//   - report every misspelled field at once, with a suggestion, instead of
//     protojson's first one only;
//   - recognise google.protobuf.Any values and rewrite those whose type is
//     not in the schema into an xds.type.v3.TypedStruct: the payload is
//     kept and everything around it stays strict.

// lineInfo says where a line of the emitted JSON came from.
type lineInfo struct {
	parent  int   // the line that opened the enclosing container (0 at the root)
	cont    *node // the map or sequence holding this entry; nil at the root
	idx     int   // the entry's index in cont.kids()
	key     *node // the key, for map entries
	val     *node // the value; for a closing line, the container it closes
	valCol  int   // the JSON column where the value starts
	closing bool
	// fd is the field the entry sets, when the schema is known.
	fd protoreflect.FieldDescriptor
}

// schemaError is a problem the emitter found in the input against the
// schema (an unknown field).
type schemaError struct {
	n   *node
	msg string
}

// unknownType is an Any whose type is not in the schema.
type unknownType struct {
	n   *node // the @type value
	url string
}

type emitter struct {
	buf     bytes.Buffer
	lines   []lineInfo
	errs    []schemaError
	unknown []unknownType
	// dump marks a resource of an admin config dump, and version the
	// release that wrote it, if the dump says (see oldField).
	dump    bool
	version string
}

// typedStructURL is what an Any of an unknown type is rewritten to.
const typedStructURL = "type.googleapis.com/xds.type.v3.TypedStruct"

func newEmitter() *emitter {
	return &emitter{lines: make([]lineInfo, 1)}
}

// emitRoot writes the tree rooted at n as a message of type md (nil: any
// JSON).
func (e *emitter) emitRoot(n *node, md protoreflect.MessageDescriptor) []byte {
	e.buf.Reset()
	if want := emittedLines(n) + 16; cap(e.lines) < want {
		// Sized once, not grown line by line: the line map is the
		// reader's largest structure.
		e.lines = make([]lineInfo, 1, want)
	}
	e.lines = e.lines[:1]
	// About 14 bytes a line: sized once rather than doubled to it.
	e.buf.Grow(16 * cap(e.lines))
	e.value(n, md, nil, lineInfo{}, true)
	return e.buf.Bytes()
}

// emittedLines is about how many lines emitRoot writes for n: one per
// scalar, an opening and a closing line per map or sequence.
func emittedLines(n *node) int {
	if n.kind == kScalar {
		return 1
	}
	lines := 2
	for _, k := range n.kids() {
		if !k.dropped {
			lines += emittedLines(k.val)
		}
	}
	return lines
}

func (e *emitter) newline(li lineInfo) int {
	e.lines = append(e.lines, li)
	return len(e.lines) - 1
}

// value writes one entry: `"key": value` (or a bare value) and the lines
// of its contents. md is the message type of n (or of its items), fd the
// field it is the value of, when known.
func (e *emitter) value(n *node, md protoreflect.MessageDescriptor, fd protoreflect.FieldDescriptor, li lineInfo, last bool) {
	start := e.buf.Len()
	if li.key != nil {
		writeString(&e.buf, li.key.text())
		e.buf.WriteString(": ")
	}
	li.val = n
	li.valCol = utf8.RuneCount(e.buf.Bytes()[start:]) + 1
	switch n.kind {
	case kScalar:
		if fd != nil && fd.Kind() == protoreflect.EnumKind && envoyString(n) {
			// Envoy reads enum names case-insensitively.
			writeString(&e.buf, enumName(fd.Enum(), n.text()))
		} else {
			e.buf.WriteString(scalarJSON(n))
		}
		e.endLine(last)
		e.newline(li)
	case kSeq:
		e.buf.WriteString("[\n")
		open := e.newline(li)
		kids := live(n.kids())
		for i, k := range kids {
			e.value(n.kids()[k].val, md, fd, lineInfo{parent: open, cont: n, idx: k}, i == len(kids)-1)
		}
		e.buf.WriteString("]")
		e.endLine(last)
		e.newline(lineInfo{parent: li.parent, cont: li.cont, idx: li.idx, key: li.key, val: n, closing: true})
	case kMap:
		if legacyObjectType(md) {
			// A well-known type written as an object of its fields, as
			// Envoy reads it (legacy.go), goes to protojson in its own
			// form; one Envoy refuses is reported and left unset.
			text, why, at := legacyJSON(n, md)
			if why != "" {
				e.errs = append(e.errs, schemaError{n: at, msg: fieldPrefix(fd) + why})
				text = "null"
			}
			e.buf.WriteString(text)
			e.endLine(last)
			e.newline(li)
			return
		}
		e.buf.WriteString("{\n")
		open := e.newline(li)
		e.members(n, md, open)
		e.buf.WriteString("}")
		e.endLine(last)
		e.newline(lineInfo{parent: li.parent, cont: li.cont, idx: li.idx, key: li.key, val: n, closing: true})
	}
}

func (e *emitter) endLine(last bool) {
	if !last {
		e.buf.WriteByte(',')
	}
	e.buf.WriteByte('\n')
}

func live(kids []kid) []int {
	out := make([]int, 0, len(kids))
	for i, k := range kids {
		if !k.dropped {
			out = append(out, i)
		}
	}
	return out
}

// knownKids returns the live entries of map n that name a field of md
// (or are named except), reporting and dropping the others. With md nil
// every live entry is kept.
func (e *emitter) knownKids(n *node, md protoreflect.MessageDescriptor, except string) []int {
	kids := live(n.kids())
	if md == nil {
		return kids
	}
	kept := kids[:0]
	for _, k := range kids {
		name := n.kids()[k].key.text()
		if (except == "" || name != except) && fieldByName(md, name) == nil {
			if !e.oldField(md, name) {
				e.errs = append(e.errs, schemaError{n: n.kids()[k].key, msg: unknownFieldMsg(md, name)})
			}
			n.drop(k)
			continue
		}
		if why := negativeDuration(fieldByName(md, name), n.kids()[k].val); why != "" {
			e.errs = append(e.errs, schemaError{n: n.kids()[k].val, msg: why})
			n.drop(k)
			continue
		}
		kept = append(kept, k)
	}
	return kept
}

// oldField reports whether a field the schema lacks is one Envoy itself
// wrote into a config dump. Envoy deletes a field by reserving its name
// (the "reserved" statements of envoyproxy/data-plane-api's protos, which
// go-control-plane's descriptors keep), so a reserved name in a dump is a
// field of an older release. When the dump names the release that wrote
// it, any field proxylint's schema lacks is taken as that release's.
func (e *emitter) oldField(md protoreflect.MessageDescriptor, name string) bool {
	if !e.dump {
		return false
	}
	if e.version != "" {
		return true
	}
	rn := md.ReservedNames()
	return rn.Has(protoreflect.Name(name)) || rn.Has(protoreflect.Name(snake(name)))
}

// members writes the entries of map n, read as message md.
func (e *emitter) members(n *node, md protoreflect.MessageDescriptor, open int) {
	if md != nil && md.FullName() == "google.protobuf.Any" {
		e.anyMembers(n, open)
		return
	}
	if md != nil && rawJSON(md) {
		md = nil
	}
	// Unknown fields are found first, so that the last comma is right.
	kids := e.knownKids(n, md, "")
	for i, k := range kids {
		kd := n.kids()[k]
		var fd protoreflect.FieldDescriptor
		if md != nil {
			fd = fieldByName(md, kd.key.text())
		}
		e.field(kd, fd, lineInfo{parent: open, cont: n, idx: k, key: kd.key, fd: fd}, i == len(kids)-1)
	}
}

// field writes one field of a message. Like Envoy's JSON reader, it takes
// a single value where a list is expected as a list of one.
func (e *emitter) field(kd kid, fd protoreflect.FieldDescriptor, li lineInfo, last bool) {
	switch {
	case fd == nil:
		e.value(kd.val, nil, nil, li, last)
	case fd.IsMap():
		e.mapEntry(kd, valueMessage(fd), li, last)
	case fd.IsList() && kd.val.kind != kSeq && (kd.val.kind != kScalar || kd.val.tag != tagNull):
		start := e.buf.Len()
		writeString(&e.buf, kd.key.text())
		e.buf.WriteString(": ")
		li.val = kd.val
		li.valCol = utf8.RuneCount(e.buf.Bytes()[start:]) + 1
		e.buf.WriteString("[\n")
		open := e.newline(li)
		e.value(kd.val, valueMessage(fd), fd, lineInfo{parent: open, cont: li.cont, idx: li.idx}, true)
		e.buf.WriteString("]")
		e.endLine(last)
		e.newline(lineInfo{parent: li.parent, cont: li.cont, idx: li.idx, key: li.key, val: kd.val, closing: true})
	default:
		e.value(kd.val, valueMessage(fd), fd, li, last)
	}
}

// mapEntry writes one field; for a protobuf map field the values of the
// JSON object are read as the map's value type.
func (e *emitter) mapEntry(kd kid, sub protoreflect.MessageDescriptor, li lineInfo, last bool) {
	if kd.val.kind != kMap {
		e.value(kd.val, sub, nil, li, last)
		return
	}
	n := kd.val
	start := e.buf.Len()
	writeString(&e.buf, kd.key.text())
	e.buf.WriteString(": ")
	li.val = n
	li.valCol = utf8.RuneCount(e.buf.Bytes()[start:]) + 1
	e.buf.WriteString("{\n")
	open := e.newline(li)
	kids := live(n.kids())
	for i, k := range kids {
		e.value(n.kids()[k].val, sub, nil, lineInfo{parent: open, cont: n, idx: k, key: n.kids()[k].key}, i == len(kids)-1)
	}
	e.buf.WriteString("}")
	e.endLine(last)
	e.newline(lineInfo{parent: li.parent, cont: li.cont, idx: li.idx, key: li.key, val: n, closing: true})
}

// anyMembers writes the entries of an Any: its @type and the fields of the
// type it names, or, for a type that is not in the schema, a TypedStruct holding
// them.
func (e *emitter) anyMembers(n *node, open int) {
	_, tv := n.field("@type")
	if tv == nil || tv.kind != kScalar {
		e.rawMembers(n, open) // protojson reports the missing @type
		return
	}
	url := tv.text()
	mt, err := apiTypes().FindMessageByURL(url)
	if err == nil {
		md := mt.Descriptor()
		if rawJSON(md) {
			md = nil
		}
		kids := e.knownKids(n, md, "@type")
		for i, k := range kids {
			kd := n.kids()[k]
			var fd protoreflect.FieldDescriptor
			if md != nil && kd.key.text() != "@type" {
				fd = fieldByName(md, kd.key.text())
			}
			e.field(kd, fd, lineInfo{parent: open, cont: n, idx: k, key: kd.key, fd: fd}, i == len(kids)-1)
		}
		return
	}
	if !n.rewritten {
		n.rewritten = true
		e.unknown = append(e.unknown, unknownType{n: tv, url: url})
	}
	typeIdx := 0
	for i, k := range n.kids() {
		if !k.dropped && k.key.text() == "@type" {
			typeIdx = i
		}
	}
	// {"@type": TypedStruct, "type_url": URL, "value": {the other fields}}
	e.buf.WriteString(`"@type": "` + typedStructURL + "\",\n")
	e.newline(lineInfo{parent: open, cont: n, idx: typeIdx, key: n.kids()[typeIdx].key, val: tv, valCol: 10})
	e.buf.WriteString(`"type_url": `)
	writeString(&e.buf, url)
	e.buf.WriteString(",\n")
	e.newline(lineInfo{parent: open, cont: n, idx: typeIdx, key: n.kids()[typeIdx].key, val: tv, valCol: 13})
	e.buf.WriteString("\"value\": {\n")
	inner := e.newline(lineInfo{parent: open, cont: nil, val: n})
	var kids []int
	for _, k := range live(n.kids()) {
		if n.kids()[k].key.text() != "@type" {
			kids = append(kids, k)
		}
	}
	for i, k := range kids {
		e.value(n.kids()[k].val, nil, nil, lineInfo{parent: inner, cont: n, idx: k, key: n.kids()[k].key}, i == len(kids)-1)
	}
	e.buf.WriteString("}\n")
	e.newline(lineInfo{parent: open, cont: n, val: n, closing: true})
}

func (e *emitter) rawMembers(n *node, open int) {
	kids := live(n.kids())
	for i, k := range kids {
		e.value(n.kids()[k].val, nil, nil, lineInfo{parent: open, cont: n, idx: k, key: n.kids()[k].key}, i == len(kids)-1)
	}
}

// enumName returns the enum value name that s spells, ignoring case, or s.
func enumName(ed protoreflect.EnumDescriptor, s string) string {
	vals := ed.Values()
	if vals.ByName(protoreflect.Name(s)) != nil {
		return s
	}
	for i := 0; i < vals.Len(); i++ {
		if name := string(vals.Get(i).Name()); strings.EqualFold(name, s) {
			return name
		}
	}
	return s
}

// fieldPrefix names a field at the start of a message: "connect_timeout: ".
func fieldPrefix(fd protoreflect.FieldDescriptor) string {
	if fd == nil {
		return ""
	}
	return string(fd.Name()) + ": "
}

// rawJSON reports whether a message has a JSON form of its own (the
// well-known types), so its contents are written as they are.
func rawJSON(md protoreflect.MessageDescriptor) bool {
	if md.ParentFile() == nil {
		return false
	}
	return md.ParentFile().Package() == "google.protobuf"
}

// fieldByName finds a field by its proto name or its JSON name, the two
// spellings protojson (and Envoy) accept.
func fieldByName(md protoreflect.MessageDescriptor, name string) protoreflect.FieldDescriptor {
	fields := md.Fields()
	if fd := fields.ByName(protoreflect.Name(name)); fd != nil {
		return fd
	}
	return fields.ByJSONName(name)
}

// valueMessage is the message type a field's values are read as: the
// field's own message, or a map's value message; nil for scalars.
func valueMessage(fd protoreflect.FieldDescriptor) protoreflect.MessageDescriptor {
	if fd == nil {
		return nil
	}
	if fd.IsMap() {
		return fd.MapValue().Message()
	}
	return fd.Message()
}

// unknownFieldMsg names the misspelled field, the message it is in and the
// nearest field names.
func unknownFieldMsg(md protoreflect.MessageDescriptor, name string) string {
	msg := fmt.Sprintf("unknown field %q in %s", name, md.FullName())
	if rn := md.ReservedNames(); rn.Has(protoreflect.Name(name)) || rn.Has(protoreflect.Name(snake(name))) {
		return msg + ": a field Envoy has removed (its name is reserved in the API)"
	}
	if s := suggestField(md, name); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg
}

// suggestField returns the field of md closest in spelling to name, if it
// is close enough to be a typo.
func suggestField(md protoreflect.MessageDescriptor, name string) string {
	camel := strings.Contains(name, "_") || strings.ToLower(name) == name
	want := strings.ToLower(strings.ReplaceAll(name, "_", ""))
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		spelled := string(fd.Name())
		if !camel {
			spelled = fd.JSONName()
		}
		d := suggest.Distance(want, strings.ToLower(strings.ReplaceAll(string(fd.Name()), "_", "")))
		cs = append(cs, cand{spelled, d})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	if len(cs) == 0 {
		return ""
	}
	limit := 2
	if len(want) > 12 {
		limit = 3
	}
	if cs[0].d <= limit && (len(cs) == 1 || cs[1].d > cs[0].d) {
		return cs[0].name
	}
	return ""
}

// scalarJSON writes a scalar as Envoy's YAML reader types it. JSON input
// keeps its own types. For YAML, Envoy converts the document to JSON with
// parseYamlNode (envoyproxy/envoy source/common/protobuf/yaml_utility.cc:
// 45-100), which does not follow a YAML schema:
//   - a quoted or block scalar is a string (node.Tag() == "!", line 52);
//   - ~, null and an empty value are null (YAML::NodeType::Null, line 48);
//   - yaml-cpp's convert<bool> (jbeder/yaml-cpp src/convert.cpp) makes
//     y, n, yes, no, true, false, on and off booleans, in lower case, upper
//     case or capitalised (line 57);
//   - yaml-cpp's convert<int64_t> (include/yaml-cpp/node/convert.h,
//     YAML_DEFINE_CONVERT_STREAMABLE) reads the text with a C++ stream whose
//     base is unset, so 0x10 is 16 and 010 is 8; a value within int32 is a
//     number, a larger one its decimal string (lines 61-74);
//   - everything else, floats included (1.0, 1e3, .inf), is the string as
//     written (line 77), which protobuf's JSON reader then takes for a
//     number field as a number and for a string field as text.
func scalarJSON(n *node) string {
	if n.json && (n.tag == tagInt || n.tag == tagFloat || n.tag == tagBool || n.tag == tagNull) {
		return n.text()
	}
	if n.json || n.quoted {
		return jsonString(n.text())
	}
	if n.tag == tagNull {
		return "null"
	}
	if b, ok := yamlCppBool(n.text()); ok {
		return strconv.FormatBool(b)
	}
	if v, ok := yamlCppInt(n.text()); ok {
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return strconv.FormatInt(v, 10)
		}
		return jsonString(strconv.FormatInt(v, 10))
	}
	return jsonString(n.text())
}

// envoyString reports whether Envoy reads the scalar n as a string.
func envoyString(n *node) bool {
	if n.json || n.quoted {
		return n.tag == tagStr || n.quoted
	}
	if n.tag == tagNull {
		return false
	}
	if _, ok := yamlCppBool(n.text()); ok {
		return false
	}
	_, ok := yamlCppInt(n.text())
	return !ok
}

func jsonString(s string) string {
	var b bytes.Buffer
	writeString(&b, s)
	return b.String()
}

// yamlCppBool reads s as yaml-cpp's convert<bool> does.
func yamlCppBool(s string) (value, ok bool) {
	if s == "" {
		return false, false
	}
	// IsFlexibleCase: all lower case, or a capital followed by all lower
	// or all upper case.
	lower := strings.ToLower(s)
	if s != lower && s != strings.ToUpper(s) && s[1:] != lower[1:] {
		return false, false
	}
	if s != lower && (s[0] < 'A' || s[0] > 'Z') {
		return false, false
	}
	switch lower {
	case "y", "yes", "true", "on":
		return true, true
	case "n", "no", "false", "off":
		return false, true
	}
	return false, false
}

// yamlCppInt reads s as yaml-cpp's convert<int64_t> does: an optional sign,
// then decimal, 0x hexadecimal or 0 octal digits, and nothing else.
func yamlCppInt(s string) (int64, bool) {
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || digits == "" {
		return 0, false
	}
	// Go also reads 0b, 0o and digit separators, which a C++ stream
	// does not.
	if strings.ContainsAny(digits, "_") {
		return 0, false
	}
	if len(digits) > 1 && digits[0] == '0' && strings.ContainsAny(digits[1:2], "bBoO") {
		return 0, false
	}
	if !intDigits(digits) {
		return 0, false // what ParseInt would refuse, without its error value
	}
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// intDigits reports whether s is decimal digits, or 0x and hexadecimal
// digits: the only forms left for ParseInt to read once a sign, 0b, 0o
// and separators are ruled out.
func intDigits(s string) bool {
	hex := len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
	if hex {
		s = s[2:]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if '0' <= c && c <= '9' || hex && ('a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			continue
		}
		return false
	}
	return true
}

// writeString writes s as a JSON string.
func writeString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[(r>>uint(shift))&0xf])
			}
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
