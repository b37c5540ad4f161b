package envoy

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/runtime/protoiface"
)

// The direct reader's messages. dynamicpb keeps a message's fields in a Go
// map, about 400 bytes for a message of one or two fields; the messages of
// a large configuration (a route is half a dozen of them) then outweigh its
// tree and its model together. A compact message keeps the fields it has
// in a slice, in the order they were set: a route's messages take a
// quarter of the room. It implements protoreflect.Message as dynamicpb
// does, so that validation, Envoy's checks, the builder and proto's
// Marshal and Equal read it the same way (the package's tests compare
// what the direct reader builds with what protojson reads into dynamicpb
// messages, proto.Equal).

// compactType is the protoreflect.MessageType of compact messages of one
// descriptor.
type compactType struct {
	md protoreflect.MessageDescriptor
}

func (t compactType) New() protoreflect.Message                  { return newCompact(t.md) }
func (t compactType) Zero() protoreflect.Message                 { return &compactMessage{md: t.md, frozen: true} }
func (t compactType) Descriptor() protoreflect.MessageDescriptor { return t.md }

// compactField is one field that is set: the field's index in its
// message's descriptor (md.Fields().Get(i) is the field) and its value.
// A large configuration has millions of them; the index instead of the
// field's descriptor and its number keeps one at 32 bytes instead of 48.
type compactField struct {
	i int32
	v protoreflect.Value
}

// compactMessage is a message of descriptor md. frozen marks the empty,
// read-only message Get returns for an unset message field (IsValid is
// false, as for dynamicpb's).
type compactMessage struct {
	md     protoreflect.MessageDescriptor
	fields []compactField
	frozen bool
}

func newCompact(md protoreflect.MessageDescriptor) *compactMessage {
	return &compactMessage{md: md}
}

// newCompactFor is a new message of descriptor md to be read from node n,
// with room for as many fields as n has entries, allocated with the
// message when they are few (most messages have one to four fields, and a
// field slice grown one append at a time took a third of a load's
// allocations).
func newCompactFor(md protoreflect.MessageDescriptor, n *node) *compactMessage {
	k := 0
	switch name := md.FullName(); {
	case name == nameAny:
		k = 1 // its type; the payload is held apart while a load runs
	case name == "google.protobuf.Duration" || name == "google.protobuf.Timestamp":
		k = 2
	case rawJSON(md):
		k = 1 // a wrapper's value, a Struct's map
	case n.kind == kMap:
		k = len(n.kids()) - int(n.drops)
	}
	return newCompactSized(md, k)
}

// newCompactSized is a new message with room for k fields.
func newCompactSized(md protoreflect.MessageDescriptor, k int) *compactMessage {
	switch {
	case k <= 0:
		return &compactMessage{md: md}
	case k == 1:
		c := &struct {
			m compactMessage
			f [1]compactField
		}{}
		c.m = compactMessage{md: md, fields: c.f[:0]}
		return &c.m
	case k == 2:
		c := &struct {
			m compactMessage
			f [2]compactField
		}{}
		c.m = compactMessage{md: md, fields: c.f[:0]}
		return &c.m
	case k <= 4:
		c := &struct {
			m compactMessage
			f [4]compactField
		}{}
		c.m = compactMessage{md: md, fields: c.f[:0]}
		return &c.m
	case k <= 8:
		c := &struct {
			m compactMessage
			f [8]compactField
		}{}
		c.m = compactMessage{md: md, fields: c.f[:0]}
		return &c.m
	}
	return &compactMessage{md: md, fields: make([]compactField, 0, k)}
}

func (m *compactMessage) ProtoReflect() protoreflect.Message         { return m }
func (m *compactMessage) Descriptor() protoreflect.MessageDescriptor { return m.md }
func (m *compactMessage) Type() protoreflect.MessageType             { return compactType{m.md} }
func (m *compactMessage) New() protoreflect.Message                  { return newCompact(m.md) }
func (m *compactMessage) Interface() protoreflect.ProtoMessage       { return m }
func (m *compactMessage) IsValid() bool                              { return !m.frozen }
func (m *compactMessage) GetUnknown() protoreflect.RawFields         { return nil }
func (m *compactMessage) ProtoMethods() *protoiface.Methods          { return nil }

func (m *compactMessage) SetUnknown(raw protoreflect.RawFields) {
	if len(raw) > 0 {
		panic(fmt.Sprintf("%s: unknown fields are not kept", m.md.FullName()))
	}
}

func (m *compactMessage) check(fd protoreflect.FieldDescriptor) {
	if cm := fd.ContainingMessage(); cm != m.md && cm.FullName() != m.md.FullName() {
		panic(fmt.Sprintf("%s: field %s of another message", m.md.FullName(), fd.FullName()))
	}
}

func (m *compactMessage) find(fd protoreflect.FieldDescriptor) int {
	n := int32(fd.Index())
	for i := range m.fields {
		if m.fields[i].i == n {
			return i
		}
	}
	return -1
}

// field is a new entry of field fd. Only a message's own fields are kept:
// the index of an extension is its place among its file's extensions, not
// among the message's fields (Envoy's messages, proto3, have none).
func (m *compactMessage) field(fd protoreflect.FieldDescriptor, v protoreflect.Value) compactField {
	if fd.IsExtension() {
		panic(fmt.Sprintf("%s: extension %s is not kept", m.md.FullName(), fd.FullName()))
	}
	return compactField{int32(fd.Index()), v}
}

func (m *compactMessage) Range(f func(protoreflect.FieldDescriptor, protoreflect.Value) bool) {
	fds := m.md.Fields()
	for _, x := range m.fields {
		fd := fds.Get(int(x.i))
		if isEmpty(fd, x.v) {
			continue
		}
		if !f(fd, x.v) {
			return
		}
	}
}

// isEmpty reports whether a stored value reads as unset: a list or map
// without entries (Mutable makes them before anything is added).
func isEmpty(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	switch {
	case fd.IsList():
		return v.List().Len() == 0
	case fd.IsMap():
		return v.Map().Len() == 0
	}
	return false
}

func (m *compactMessage) Has(fd protoreflect.FieldDescriptor) bool {
	m.check(fd)
	i := m.find(fd)
	return i >= 0 && !isEmpty(fd, m.fields[i].v)
}

func (m *compactMessage) Clear(fd protoreflect.FieldDescriptor) {
	m.check(fd)
	if i := m.find(fd); i >= 0 {
		m.fields = append(m.fields[:i], m.fields[i+1:]...)
	}
}

func (m *compactMessage) Get(fd protoreflect.FieldDescriptor) protoreflect.Value {
	m.check(fd)
	if i := m.find(fd); i >= 0 {
		return m.fields[i].v
	}
	switch {
	case fd.IsMap():
		return protoreflect.ValueOfMap(&compactMap{fd: fd, frozen: true})
	case fd.IsList():
		return protoreflect.ValueOfList(&compactList{fd: fd, frozen: true})
	case fd.Message() != nil:
		return protoreflect.ValueOfMessage(&compactMessage{md: fd.Message(), frozen: true})
	}
	return fd.Default()
}

func (m *compactMessage) Set(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	m.check(fd)
	if m.frozen {
		panic(fmt.Sprintf("%s: set on a read-only message", m.md.FullName()))
	}
	// Presence follows proto3: a scalar outside a oneof at its zero
	// value is unset, as dynamicpb has it.
	if !fd.HasPresence() && !fd.IsList() && !fd.IsMap() && zeroScalar(fd, v) {
		m.Clear(fd)
		return
	}
	if od := fd.ContainingOneof(); od != nil {
		for j := 0; j < od.Fields().Len(); j++ {
			if other := od.Fields().Get(j); other.Number() != fd.Number() {
				m.Clear(other)
			}
		}
	}
	if i := m.find(fd); i >= 0 {
		m.fields[i].v = v
		return
	}
	m.fields = append(m.fields, m.field(fd, v))
}

// zeroScalar reports whether v is the zero value of scalar field fd.
func zeroScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return false
	case protoreflect.BoolKind:
		return !v.Bool()
	case protoreflect.EnumKind:
		return v.Enum() == 0
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int() == 0
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return v.Uint() == 0
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f := v.Float()
		return f == 0 && !signbit(f)
	case protoreflect.StringKind:
		return v.String() == ""
	case protoreflect.BytesKind:
		return len(v.Bytes()) == 0
	}
	return false
}

func signbit(f float64) bool { return 1/f < 0 }

func (m *compactMessage) Mutable(fd protoreflect.FieldDescriptor) protoreflect.Value {
	m.check(fd)
	if i := m.find(fd); i >= 0 {
		return m.fields[i].v
	}
	var v protoreflect.Value
	switch {
	case fd.IsMap():
		v = protoreflect.ValueOfMap(&compactMap{fd: fd})
	case fd.IsList():
		v = protoreflect.ValueOfList(&compactList{fd: fd})
	case fd.Message() != nil:
		v = protoreflect.ValueOfMessage(newCompact(fd.Message()))
	default:
		panic(fmt.Sprintf("%s: Mutable of scalar field %s", m.md.FullName(), fd.Name()))
	}
	if od := fd.ContainingOneof(); od != nil {
		for j := 0; j < od.Fields().Len(); j++ {
			if other := od.Fields().Get(j); other.Number() != fd.Number() {
				m.Clear(other)
			}
		}
	}
	m.fields = append(m.fields, m.field(fd, v))
	return v
}

func (m *compactMessage) NewField(fd protoreflect.FieldDescriptor) protoreflect.Value {
	m.check(fd)
	switch {
	case fd.IsMap():
		return protoreflect.ValueOfMap(&compactMap{fd: fd})
	case fd.IsList():
		return protoreflect.ValueOfList(&compactList{fd: fd})
	case fd.Message() != nil:
		return protoreflect.ValueOfMessage(newCompact(fd.Message()))
	}
	return fd.Default()
}

func (m *compactMessage) WhichOneof(od protoreflect.OneofDescriptor) protoreflect.FieldDescriptor {
	fds := m.md.Fields()
	for _, x := range m.fields {
		if fd := fds.Get(int(x.i)); fd.ContainingOneof() == od {
			return fd
		}
	}
	return nil
}

// compactList is a repeated field's list.
type compactList struct {
	fd     protoreflect.FieldDescriptor
	vals   []protoreflect.Value
	frozen bool
}

func (l *compactList) Len() int                        { return len(l.vals) }
func (l *compactList) Get(i int) protoreflect.Value    { return l.vals[i] }
func (l *compactList) Set(i int, v protoreflect.Value) { l.vals[i] = v }
func (l *compactList) Truncate(n int)                  { l.vals = l.vals[:n] }
func (l *compactList) IsValid() bool                   { return !l.frozen }
func (l *compactList) Append(v protoreflect.Value)     { l.mustWrite(); l.vals = append(l.vals, v) }
func (l *compactList) NewElement() protoreflect.Value  { return newElement(l.fd) }
func (l *compactList) AppendMutable() protoreflect.Value {
	if l.fd.Message() == nil {
		panic(fmt.Sprintf("%s: AppendMutable of a scalar list", l.fd.FullName()))
	}
	v := l.NewElement()
	l.Append(v)
	return v
}

func (l *compactList) mustWrite() {
	if l.frozen {
		panic(fmt.Sprintf("%s: append to a read-only list", l.fd.FullName()))
	}
}

// newElement is a new value of a list's or map's elements.
func newElement(fd protoreflect.FieldDescriptor) protoreflect.Value {
	if md := fd.Message(); md != nil {
		return protoreflect.ValueOfMessage(newCompact(md))
	}
	switch fd.Kind() {
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(nil)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(fd.Enum().Values().Get(0).Number())
	}
	return fd.Default()
}

// compactMap is a map field's map.
type compactMap struct {
	fd     protoreflect.FieldDescriptor
	m      map[any]mapEntry
	frozen bool
}

type mapEntry struct {
	k protoreflect.MapKey
	v protoreflect.Value
}

func (mp *compactMap) Len() int      { return len(mp.m) }
func (mp *compactMap) IsValid() bool { return !mp.frozen }

func (mp *compactMap) Range(f func(protoreflect.MapKey, protoreflect.Value) bool) {
	for _, e := range mp.m {
		if !f(e.k, e.v) {
			return
		}
	}
}

func (mp *compactMap) Has(k protoreflect.MapKey) bool {
	_, ok := mp.m[k.Interface()]
	return ok
}

func (mp *compactMap) Clear(k protoreflect.MapKey) { delete(mp.m, k.Interface()) }

func (mp *compactMap) Get(k protoreflect.MapKey) protoreflect.Value {
	if e, ok := mp.m[k.Interface()]; ok {
		return e.v
	}
	return protoreflect.Value{}
}

func (mp *compactMap) Set(k protoreflect.MapKey, v protoreflect.Value) {
	if mp.frozen {
		panic(fmt.Sprintf("%s: set in a read-only map", mp.fd.FullName()))
	}
	if mp.m == nil {
		mp.m = map[any]mapEntry{}
	}
	mp.m[k.Interface()] = mapEntry{k, v}
}

func (mp *compactMap) Mutable(k protoreflect.MapKey) protoreflect.Value {
	if e, ok := mp.m[k.Interface()]; ok {
		return e.v
	}
	if mp.fd.MapValue().Message() == nil {
		panic(fmt.Sprintf("%s: Mutable of a scalar map value", mp.fd.FullName()))
	}
	v := mp.NewValue()
	mp.Set(k, v)
	return v
}

func (mp *compactMap) NewValue() protoreflect.Value { return newElement(mp.fd.MapValue()) }

var _ proto.Message = (*compactMessage)(nil)
