package envoy

import (
	"encoding/base64"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/proxylint/proxylint/internal/workers"
)

// The direct reader sets the fields of the messages straight from the
// tree, without writing JSON for protojson to read again. It covers the
// configurations that read without an error or a note, which is nearly
// all of them, and gives up on anything else: an unknown field, a value of
// the wrong type, an Any of a type that is not in the schema, a number written in
// a form it does not read itself. Then the emitter and protojson read the
// resource as before, and report what is wrong where it was written.
//
// What it accepts, it reads as protojson reads the JSON the emitter
// writes: the same message (TestDirectMatchesProtojson holds it to that
// over the corpus and the test data). So it follows protojson's rules
// (encoding/protojson/decode.go and well_known_types.go):
//   - a field is named by its JSON name or its proto name, once, and at
//     most one field of a oneof is set;
//   - null leaves a field unset (fields of type google.protobuf.Value and
//     NullValue, where null is a value, make it give up);
//   - a message field given {} is set to an empty message, an Any given {}
//     is an empty Any;
//   - numbers are read from JSON numbers or strings, 64-bit integers from
//     strings too; "NaN", "Infinity" and "-Infinity" are floats;
//   - an Any's message is marshalled deterministically into its value;
//   - the other well-known types (Duration, Struct, Timestamp, ...) are
//     read by protojson itself from the JSON the emitter writes for them;
//     a Duration, Timestamp, FieldMask, ListValue or wrapper written as an
//     object of its fields is read as those fields, as Envoy's reader
//     takes it (legacy.go).
//
// and the emitter's: the scalars typed as Envoy's YAML reader types them
// (scalarJSON), enum names in any case, a single value where a list goes
// taken as a list of one, a negative duration refused.

// directLimit bounds the nesting the direct reader follows; protojson's
// own limit is far above the tree's (maxDepth).
const directLimit = 2 * maxDepth

// decodeDirect reads the tree rooted at n into a new message of type mt,
// or reports false when the resource needs the emitter and protojson. It
// never changes the tree.
func decodeDirect(n *node, mt protoreflect.MessageType) (proto.Message, bool) {
	m := newCompactFor(mt.Descriptor(), n)
	if !directMessage(n, m, 0) {
		return nil, false
	}
	return m.Interface(), true
}

func directMessage(n *node, m protoreflect.Message, depth int) bool {
	if depth > directLimit {
		return false
	}
	md := m.Descriptor()
	switch {
	case md.FullName() == "google.protobuf.Any":
		return directAny(n, m, depth)
	case n.kind == kMap && legacyObjectType(md):
		// A well-known type written as an object of its fields, as
		// Envoy reads it (legacy.go).
		return legacyFields(n, m, depth)
	case isWrapper(md):
		fd := md.Fields().ByNumber(1)
		v, ok := directScalar(n, fd, false)
		if !ok {
			return false
		}
		m.Set(fd, v)
		return true
	case rawJSON(md):
		return directWellKnown(n, m)
	}
	if n.kind != kMap {
		return false
	}
	return directFields(n, m, md, false, depth)
}

// directFields sets the fields of m from the entries of map n; with
// skipType, "@type" is the Any's and not a field.
func directFields(n *node, m protoreflect.Message, md protoreflect.MessageDescriptor, skipType bool, depth int) bool {
	fields := md.Fields()
	if fields.Len() > 256 || md.Oneofs().Len() > 256 {
		return false
	}
	var seen, seenOneof [4]uint64
	for _, k := range n.kids() {
		if k.dropped {
			continue
		}
		name := k.key.text()
		if skipType && name == "@type" {
			continue
		}
		fd := fields.ByJSONName(name)
		if fd == nil {
			fd = fields.ByTextName(name)
		}
		if fd == nil || fieldByName(md, name) != fd || negativeDuration(fd, k.val) != "" {
			return false
		}
		if i := fd.Index(); seen[i/64]&(1<<(i%64)) != 0 {
			return false
		} else {
			seen[i/64] |= 1 << (i % 64)
		}
		v := k.val
		if isJSONNull(v) {
			if isKnownValue(fd) || isNullValue(fd) {
				return false
			}
			continue
		}
		switch {
		case fd.IsList():
			if v.kind == kScalar && v.tag == tagNull {
				return false
			}
			l := m.Mutable(fd).List()
			if cl, ok := l.(*compactList); ok && cl.vals == nil && v.kind == kSeq {
				cl.vals = make([]protoreflect.Value, 0, len(v.kids())-int(v.drops))
			}
			if v.kind != kSeq {
				if !directElem(v, fd, l, depth) {
					return false
				}
				continue
			}
			if fd.Message() != nil && depth <= sideBySideDepth && len(v.kids()) >= sideBySideItems {
				if !directElems(v, fd, l, depth) {
					return false
				}
				continue
			}
			for _, it := range v.kids() {
				if !it.dropped && !directElem(it.val, fd, l, depth) {
					return false
				}
			}
		case fd.IsMap():
			if v.kind != kMap || !directMap(v, fd, m.Mutable(fd).Map(), depth) {
				return false
			}
		default:
			if od := fd.ContainingOneof(); od != nil {
				i := od.Index()
				if seenOneof[i/64]&(1<<(i%64)) != 0 {
					return false
				}
				seenOneof[i/64] |= 1 << (i % 64)
			}
			if isOpaque(fd.Message()) {
				if ov, ok := opaqueField(v, fd.Message()); ok {
					m.Set(fd, ov)
					continue
				}
			}
			if fd.Message() != nil {
				sub := protoreflect.ValueOfMessage(newCompactFor(fd.Message(), v))
				if !directMessage(v, sub.Message(), depth+1) {
					return false
				}
				m.Set(fd, sub)
				continue
			}
			val, ok := directScalar(v, fd, true)
			if !ok {
				return false
			}
			m.Set(fd, val)
		}
	}
	return true
}

// directElem appends item n to list l of field fd.
func directElem(n *node, fd protoreflect.FieldDescriptor, l protoreflect.List, depth int) bool {
	if isJSONNull(n) {
		return false
	}
	if isOpaque(fd.Message()) {
		if ov, ok := opaqueField(n, fd.Message()); ok {
			l.Append(ov)
			return true
		}
	}
	if fd.Message() != nil {
		el := protoreflect.ValueOfMessage(newCompactFor(fd.Message(), n))
		if !directMessage(n, el.Message(), depth+1) {
			return false
		}
		l.Append(el)
		return true
	}
	v, ok := directScalar(n, fd, true)
	if !ok {
		return false
	}
	l.Append(v)
	return true
}

// A long list of messages near the root (a bootstrap's listeners and
// clusters, a route table's virtual hosts) is read on all cores: each
// element is a message of its own, and reading one touches nothing the
// others read but the tree, which the direct reader never changes.
const (
	sideBySideDepth = 4
	sideBySideItems = 16
)

// directElems appends the items of sequence n to list l of field fd, a
// list of messages, reading them side by side.
func directElems(n *node, fd protoreflect.FieldDescriptor, l protoreflect.List, depth int) bool {
	items := make([]*node, 0, len(n.kids()))
	for _, it := range n.kids() {
		if it.dropped {
			continue
		}
		if isJSONNull(it.val) {
			return false
		}
		items = append(items, it.val)
	}
	elems := make([]protoreflect.Value, len(items))
	for i := range elems {
		elems[i] = protoreflect.ValueOfMessage(newCompactFor(fd.Message(), items[i]))
	}
	var failed atomic.Bool
	workers.Each(len(items), runtime.GOMAXPROCS(0), func(i int) {
		if !failed.Load() && !directMessage(items[i], elems[i].Message(), depth+1) {
			failed.Store(true)
		}
	})
	if failed.Load() {
		return false
	}
	for _, e := range elems {
		l.Append(e)
	}
	return true
}

// directMap sets the entries of map field fd from map n. Only maps with
// string keys are read; the emitter writes the values without the field,
// so enum names are not matched ignoring case there.
func directMap(n *node, fd protoreflect.FieldDescriptor, mp protoreflect.Map, depth int) bool {
	if fd.MapKey().Kind() != protoreflect.StringKind {
		return false
	}
	vfd := fd.MapValue()
	for _, k := range n.kids() {
		if k.dropped {
			continue
		}
		if !utf8.ValidString(k.key.text()) || isJSONNull(k.val) {
			return false
		}
		mk := protoreflect.ValueOfString(k.key.text()).MapKey()
		if mp.Has(mk) {
			return false
		}
		if isOpaque(vfd.Message()) {
			if ov, ok := opaqueField(k.val, vfd.Message()); ok {
				mp.Set(mk, ov)
				continue
			}
		}
		if vfd.Message() != nil {
			v := protoreflect.ValueOfMessage(newCompactFor(vfd.Message(), k.val))
			if !directMessage(k.val, v.Message(), depth+1) {
				return false
			}
			mp.Set(mk, v)
			continue
		}
		v, ok := directScalar(k.val, vfd, false)
		if !ok {
			return false
		}
		mp.Set(mk, v)
	}
	return true
}

// anyMarshal is how protojson marshals an Any's message.
var anyMarshal = proto.MarshalOptions{AllowPartial: true, Deterministic: true}

// directAny reads an Any of a linked type.
func directAny(n *node, m protoreflect.Message, depth int) bool {
	if n.kind != kMap {
		return false
	}
	var tv *node
	entries := 0
	for _, k := range n.kids() {
		if k.dropped {
			continue
		}
		entries++
		if k.key.text() == "@type" {
			if tv != nil {
				return false
			}
			tv = k.val
		}
	}
	if entries == 0 {
		return true // {} is an empty Any
	}
	if tv == nil || tv.kind != kScalar {
		return false
	}
	kind, url := jsonScalar(tv)
	if kind != jString || !utf8.ValidString(url) {
		return false
	}
	mt, err := apiTypes().FindMessageByURL(url)
	if err != nil {
		return false
	}
	if rawJSON(mt.Descriptor()) {
		// A well-known type's JSON goes under "value" ({"@type": ...
		// StringValue, "value": "x"}, as matchers' actions hold it):
		// protojson reads the Any.
		return directWellKnown(n, m)
	}
	em := newCompactSized(mt.Descriptor(), entries-1) // its fields, without "@type"
	if !directFields(n, em, mt.Descriptor(), true, depth+1) {
		return false
	}
	fds := m.Descriptor().Fields()
	m.Set(fds.ByNumber(1), protoreflect.ValueOfString(url))
	if holdPayload(m, em) {
		return true // the load reads em itself, not its bytes
	}
	b, err := anyMarshal.Marshal(em.Interface())
	if err != nil {
		return false
	}
	m.Set(fds.ByNumber(2), protoreflect.ValueOfBytes(b))
	return true
}

// directWellKnown reads a well-known type with a JSON form of its own
// (Duration, Struct, Value, Timestamp, FieldMask, ...) by handing protojson
// the JSON the emitter writes for it.
func directWellKnown(n *node, m protoreflect.Message) bool {
	if md := m.Descriptor(); n.kind == kScalar && md.FullName() == "google.protobuf.Duration" {
		// The most common of them, read here: protojson would take a
		// decoder and an error value for each.
		kind, text := jsonScalar(n)
		if kind != jString {
			return false
		}
		secs, nanos, ok := parseDurationJSON(text)
		if !ok {
			return false
		}
		m.Set(md.Fields().ByNumber(1), protoreflect.ValueOfInt64(secs))
		m.Set(md.Fields().ByNumber(2), protoreflect.ValueOfInt32(nanos))
		return true
	}
	var data []byte
	if n.kind == kScalar {
		data = []byte(scalarJSON(n))
	} else {
		e := &emitter{}
		e.value(n, nil, nil, lineInfo{}, true)
		data = e.buf.Bytes()
	}
	return protojson.UnmarshalOptions{AllowPartial: true, Resolver: apiTypes()}.Unmarshal(data, m.Interface()) == nil
}

func isWrapper(md protoreflect.MessageDescriptor) bool {
	switch md.FullName() {
	case "google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value",
		"google.protobuf.UInt64Value", "google.protobuf.Int32Value", "google.protobuf.UInt32Value",
		"google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue":
		return true
	}
	return false
}

func isKnownValue(fd protoreflect.FieldDescriptor) bool {
	md := fd.Message()
	return md != nil && md.FullName() == "google.protobuf.Value"
}

func isNullValue(fd protoreflect.FieldDescriptor) bool {
	ed := fd.Enum()
	return ed != nil && ed.FullName() == "google.protobuf.NullValue"
}

// jsonKind is the kind of JSON value the emitter writes for a scalar.
type jsonKind uint8

const (
	jNull jsonKind = iota
	jBool
	jNumber
	jString
)

// jsonScalar is scalarJSON's value as a kind and a text (a string's
// contents, unquoted), without writing the JSON.
func jsonScalar(n *node) (jsonKind, string) {
	if n.json {
		switch n.tag {
		case tagInt, tagFloat:
			return jNumber, n.text()
		case tagBool:
			return jBool, n.text()
		case tagNull:
			return jNull, n.text()
		}
	}
	if n.json || n.quoted {
		return jString, n.text()
	}
	if n.tag == tagNull {
		return jNull, "null"
	}
	if b, ok := yamlCppBool(n.text()); ok {
		return jBool, strconv.FormatBool(b)
	}
	if v, ok := yamlCppInt(n.text()); ok {
		if v >= -1<<31 && v <= 1<<31-1 {
			return jNumber, strconv.FormatInt(v, 10)
		}
		return jString, strconv.FormatInt(v, 10)
	}
	return jString, n.text()
}

// isJSONNull reports whether the emitter writes null for n.
func isJSONNull(n *node) bool {
	if n.kind != kScalar {
		return false
	}
	k, _ := jsonScalar(n)
	return k == jNull
}

// directScalar reads scalar n as field fd's type. enums says the emitter
// passes the field, so that enum names are matched ignoring case.
func directScalar(n *node, fd protoreflect.FieldDescriptor, enums bool) (protoreflect.Value, bool) {
	var none protoreflect.Value
	if n.kind != kScalar {
		return none, false
	}
	kind, s := jsonScalar(n)
	if enums && fd.Kind() == protoreflect.EnumKind && envoyString(n) {
		kind, s = jString, enumName(fd.Enum(), n.text())
	}
	if kind == jString && !utf8.ValidString(s) {
		return none, false
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		if kind == jBool && (s == "true" || s == "false") {
			return protoreflect.ValueOfBool(s == "true"), true
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if v, ok := plainInt(kind, s, 32); ok {
			return protoreflect.ValueOfInt32(int32(v)), true
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if v, ok := plainInt(kind, s, 64); ok {
			return protoreflect.ValueOfInt64(v), true
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if v, ok := plainUint(kind, s, 32); ok {
			return protoreflect.ValueOfUint32(uint32(v)), true
		}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if v, ok := plainUint(kind, s, 64); ok {
			return protoreflect.ValueOfUint64(v), true
		}
	case protoreflect.FloatKind:
		if v, ok := jsonFloat(kind, s, 32); ok {
			return protoreflect.ValueOfFloat32(float32(v)), true
		}
	case protoreflect.DoubleKind:
		if v, ok := jsonFloat(kind, s, 64); ok {
			return protoreflect.ValueOfFloat64(v), true
		}
	case protoreflect.StringKind:
		if kind == jString {
			return protoreflect.ValueOfString(s), true
		}
	case protoreflect.BytesKind:
		if kind == jString {
			enc := base64.StdEncoding
			if strings.ContainsAny(s, "-_") {
				enc = base64.URLEncoding
			}
			if len(s)%4 != 0 {
				enc = enc.WithPadding(base64.NoPadding)
			}
			if b, err := enc.DecodeString(s); err == nil {
				return protoreflect.ValueOfBytes(b), true
			}
		}
	case protoreflect.EnumKind:
		switch kind {
		case jString:
			if ev := fd.Enum().Values().ByName(protoreflect.Name(s)); ev != nil {
				return protoreflect.ValueOfEnum(ev.Number()), true
			}
		case jNumber:
			if v, ok := plainInt(kind, s, 32); ok {
				return protoreflect.ValueOfEnum(protoreflect.EnumNumber(v)), true
			}
		}
	}
	return none, false
}

// plainInt reads an integer written as JSON digits, in a number or a
// string, that fits bits: the form every reader agrees on. Exponents,
// fractions and -0, which protojson also reads, are left to it.
func plainInt(kind jsonKind, s string, bits int) (int64, bool) {
	if (kind != jNumber && kind != jString) || !plainDigits(strings.TrimPrefix(s, "-")) || s == "-0" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, bits)
	return v, err == nil
}

func plainUint(kind jsonKind, s string, bits int) (uint64, bool) {
	if (kind != jNumber && kind != jString) || !plainDigits(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, bits)
	return v, err == nil
}

// plainDigits reports whether s is 0 or digits without a leading zero.
func plainDigits(s string) bool {
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// jsonFloat reads a float as protojson does: a JSON number, or a string
// holding one or "NaN", "Infinity", "-Infinity".
func jsonFloat(kind jsonKind, s string, bits int) (float64, bool) {
	switch kind {
	case jString:
		switch s {
		case "NaN", "Infinity", "-Infinity":
			return 0, false // left to protojson: rare, and NaN is unequal to itself
		}
	case jNumber:
	default:
		return 0, false
	}
	if !jsonNumber(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, bits)
	return v, err == nil
}

// jsonNumber reports whether s is a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	start := i
	if d := digits(); d == 0 || (d > 1 && s[start] == '0') {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// crossCheck makes every resource be read both ways, the result of the
// emitter and protojson kept, and records every resource the direct
// reader accepted but read differently or protojson refused. The
// package's tests turn it on for all of them.
var crossCheck struct {
	on         bool
	mu         sync.Mutex
	direct     int
	viaJSON    int
	mismatches []string
}

// compareDirect reads n both ways. It returns the emitter and protojson's
// result, whether the direct reader accepted n, and, when it did, how its
// message differs from protojson's ("" when it does not).
func compareDirect(n *node, mt protoreflect.MessageType, dump bool, version string) (proto.Message, []problem, []unknownType, bool, string) {
	dm, ok := decodeDirect(n, mt)
	if ok {
		writePayloads(dm.ProtoReflect())
	}
	jm, probs, unknown := decodeJSON(n, mt, dump, version)
	var mismatch string
	switch {
	case !ok:
	case len(probs) > 0:
		mismatch = fmt.Sprintf("%d:%d: read directly, but protojson reports %d:%d %s", n.line, n.col, probs[0].n.line, probs[0].n.col, probs[0].msg)
	case len(unknown) > 0:
		mismatch = fmt.Sprintf("%d:%d: read directly, but %s is not in the schema", n.line, n.col, unknown[0].url)
	case jm == nil || !proto.Equal(dm, jm):
		mismatch = fmt.Sprintf("%d:%d: read directly as %v, by protojson as %v", n.line, n.col, dm, jm)
	}
	crossCheck.mu.Lock()
	if ok {
		crossCheck.direct++
	} else {
		crossCheck.viaJSON++
	}
	if mismatch != "" {
		crossCheck.mismatches = append(crossCheck.mismatches, mismatch)
	}
	crossCheck.mu.Unlock()
	return jm, probs, unknown, ok, mismatch
}
