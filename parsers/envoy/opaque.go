package envoy

import (
	"strconv"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"
)

// Opaque JSON: google.protobuf.Struct, Value and ListValue. They hold data
// that no schema describes (a TypedStruct's payload, metadata), which
// proxylint reads only when something asks for it; a TypedStruct of a
// million keys is a million Value messages in a map. The direct reader
// checks that such a value is what protojson reads without an error
// (opaqueValid) and sets the field to a message that is built from its
// node only when it is first read (opaqueMessage), by protojson from the
// emitter's JSON as before; unread, it costs the check alone.

const (
	nameStruct    = "google.protobuf.Struct"
	nameValue     = "google.protobuf.Value"
	nameListValue = "google.protobuf.ListValue"
)

// isOpaque reports whether md is one of the opaque JSON types.
func isOpaque(md protoreflect.MessageDescriptor) bool {
	if md == nil {
		return false
	}
	switch md.FullName() {
	case nameStruct, nameValue, nameListValue:
		return true
	}
	return false
}

// opaqueValid reports whether protojson reads the emitter's JSON for n as
// a message of type md (Struct, Value or ListValue) without an error.
// The tree's maps hold each key once (both readers merge or replace a key
// written again), as a Struct's must.
func opaqueValid(n *node, md protoreflect.MessageDescriptor) bool {
	switch md.FullName() {
	case nameStruct:
		return n.kind == kMap && opaqueMap(n, 0)
	case nameListValue:
		return n.kind == kSeq && opaqueSeq(n, 0)
	case nameValue:
		return opaqueAny(n, 0)
	}
	return false
}

// opaqueAny checks a value of any JSON type, as a Value holds it.
func opaqueAny(n *node, depth int) bool {
	if depth > directLimit {
		return false
	}
	switch n.kind {
	case kMap:
		return opaqueMap(n, depth)
	case kSeq:
		return opaqueSeq(n, depth)
	case kScalar:
		kind, s := jsonScalar(n)
		switch kind {
		case jNull, jBool:
			return true
		case jNumber:
			// protojson reads a Value's number as a float64 and refuses
			// one out of its range.
			if !jsonNumber(s) {
				return false
			}
			_, err := strconv.ParseFloat(s, 64)
			return err == nil
		case jString:
			return utf8.ValidString(s)
		}
	}
	return false
}

func opaqueMap(n *node, depth int) bool {
	for i := range n.kids() {
		k := &n.kids()[i]
		if k.dropped {
			continue
		}
		if !utf8.ValidString(k.key.text()) || !opaqueAny(k.val, depth+1) {
			return false
		}
	}
	return true
}

func opaqueSeq(n *node, depth int) bool {
	for i := range n.kids() {
		k := &n.kids()[i]
		if !k.dropped && !opaqueAny(k.val, depth+1) {
			return false
		}
	}
	return true
}

// opaqueField is the value of a field of opaque type md read from n, or
// false when n is not one protojson reads.
func opaqueField(n *node, md protoreflect.MessageDescriptor) (protoreflect.Value, bool) {
	if !opaqueValid(n, md) {
		return protoreflect.Value{}, false
	}
	m := &opaqueMessage{md: md, n: n}
	if crossCheck.on {
		// The package's tests build every one at once, so that a value
		// the check accepts but protojson refuses fails the load's
		// comparison of the two readers.
		if !m.build() {
			return protoreflect.Value{}, false
		}
	}
	return protoreflect.ValueOfMessage(m), true
}

// opaqueMessage is a Struct, Value or ListValue read from node n when it
// is first asked for its fields. The direct reader never changes the
// tree, and it outlives the messages read from it.
type opaqueMessage struct {
	md   protoreflect.MessageDescriptor
	n    *node
	once sync.Once
	m    *compactMessage
	ok   bool
}

// build reads the message from its node (once) and reports whether
// protojson read it without an error.
func (o *opaqueMessage) build() bool {
	o.once.Do(func() {
		m := newCompact(o.md)
		o.ok = directWellKnown(o.n, m)
		if !o.ok {
			m = newCompact(o.md)
		}
		o.m = m
	})
	return o.ok
}

func (o *opaqueMessage) msg() *compactMessage { o.build(); return o.m }

func (o *opaqueMessage) ProtoReflect() protoreflect.Message         { return o }
func (o *opaqueMessage) Interface() protoreflect.ProtoMessage       { return o }
func (o *opaqueMessage) Descriptor() protoreflect.MessageDescriptor { return o.md }
func (o *opaqueMessage) Type() protoreflect.MessageType             { return compactType{o.md} }
func (o *opaqueMessage) New() protoreflect.Message                  { return newCompact(o.md) }
func (o *opaqueMessage) IsValid() bool                              { return true }
func (o *opaqueMessage) GetUnknown() protoreflect.RawFields         { return nil }
func (o *opaqueMessage) SetUnknown(raw protoreflect.RawFields)      { o.msg().SetUnknown(raw) }
func (o *opaqueMessage) ProtoMethods() *protoiface.Methods          { return nil }

func (o *opaqueMessage) Range(f func(protoreflect.FieldDescriptor, protoreflect.Value) bool) {
	o.msg().Range(f)
}
func (o *opaqueMessage) Has(fd protoreflect.FieldDescriptor) bool { return o.msg().Has(fd) }
func (o *opaqueMessage) Clear(fd protoreflect.FieldDescriptor)    { o.msg().Clear(fd) }
func (o *opaqueMessage) Get(fd protoreflect.FieldDescriptor) protoreflect.Value {
	return o.msg().Get(fd)
}
func (o *opaqueMessage) Set(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	o.msg().Set(fd, v)
}
func (o *opaqueMessage) Mutable(fd protoreflect.FieldDescriptor) protoreflect.Value {
	return o.msg().Mutable(fd)
}
func (o *opaqueMessage) NewField(fd protoreflect.FieldDescriptor) protoreflect.Value {
	return o.msg().NewField(fd)
}
func (o *opaqueMessage) WhichOneof(od protoreflect.OneofDescriptor) protoreflect.FieldDescriptor {
	return o.msg().WhichOneof(od)
}
