package envoy

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// messageIdentity is an encoding of m that is equal for two messages of
// one type exactly when their deterministic wire encodings are: the fields
// that are set, in the order of their numbers, each value written so that
// it can be read back (numbers as their bits, strings and lists with their
// length, a message's fields closed by a 0, which no field number is, a
// map's entries in the order of their keys). It reports false where
// proto.Marshal fails, on a string that is not UTF-8.
//
// It takes the place of proto.Marshal for identities: the compact messages
// have no fast path, and Marshal's reflection sorted and allocated for
// every field (a retry policy took more allocations than the rest of its
// route's reading).
func messageIdentity(m protoreflect.Message) (string, bool) {
	w := identityWriters.Get().(*identityWriter)
	defer identityWriters.Put(w)
	w.buf, w.stack, w.bad = w.buf[:0], w.stack[:0], false
	w.message(m)
	if w.bad {
		return "", false
	}
	return string(w.buf), true
}

// identityWriters keeps writers and their buffers between identities
// (Range's callback makes a writer escape to the heap).
var identityWriters = sync.Pool{New: func() any { return &identityWriter{} }}

type identityWriter struct {
	buf   []byte
	stack []setField
	bad   bool
}

type setField struct {
	fd protoreflect.FieldDescriptor
	v  protoreflect.Value
}

func (w *identityWriter) message(m protoreflect.Message) {
	// The fields of the messages being written are kept on one stack.
	start := len(w.stack)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		w.stack = append(w.stack, setField{fd, v})
		return true
	})
	end := len(w.stack)
	slices.SortFunc(w.stack[start:end], func(a, b setField) int { return int(a.fd.Number()) - int(b.fd.Number()) })
	for i := start; i < end; i++ {
		f := w.stack[i]
		w.uvarint(uint64(f.fd.Number()))
		switch {
		case f.fd.IsList():
			l := f.v.List()
			w.uvarint(uint64(l.Len()))
			for i := 0; i < l.Len(); i++ {
				w.value(f.fd, l.Get(i))
			}
		case f.fd.IsMap():
			w.mapEntries(f.fd, f.v.Map())
		default:
			w.value(f.fd, f.v)
		}
	}
	w.stack = w.stack[:start]
	w.uvarint(0)
}

func (w *identityWriter) mapEntries(fd protoreflect.FieldDescriptor, mp protoreflect.Map) {
	type entry struct {
		k protoreflect.MapKey
		v protoreflect.Value
	}
	entries := make([]entry, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		entries = append(entries, entry{k, v})
		return true
	})
	kfd := fd.MapKey()
	slices.SortFunc(entries, func(a, b entry) int { return compareKeys(kfd.Kind(), a.k, b.k) })
	w.uvarint(uint64(len(entries)))
	for _, e := range entries {
		w.value(kfd, e.k.Value())
		w.value(fd.MapValue(), e.v)
	}
}

func compareKeys(k protoreflect.Kind, a, b protoreflect.MapKey) int {
	switch k {
	case protoreflect.StringKind:
		return strings.Compare(a.String(), b.String())
	case protoreflect.BoolKind:
		switch {
		case a.Bool() == b.Bool():
			return 0
		case !a.Bool():
			return -1
		}
		return 1
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		switch x, y := a.Uint(), b.Uint(); {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	switch x, y := a.Int(), b.Int(); {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// value writes one value of field fd (an element, for a list or a map).
func (w *identityWriter) value(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		w.message(v.Message())
	case protoreflect.BoolKind:
		if v.Bool() {
			w.uvarint(1)
		} else {
			w.uvarint(0)
		}
	case protoreflect.EnumKind:
		w.uvarint(uint64(v.Enum()))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		w.uvarint(uint64(v.Int()))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		w.uvarint(v.Uint())
	case protoreflect.FloatKind:
		w.uvarint(uint64(math.Float32bits(float32(v.Float()))))
	case protoreflect.DoubleKind:
		w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(v.Float()))
	case protoreflect.StringKind:
		s := v.String()
		if fd.Syntax() == protoreflect.Proto3 && !utf8.ValidString(s) {
			w.bad = true
		}
		w.uvarint(uint64(len(s)))
		w.buf = append(w.buf, s...)
	case protoreflect.BytesKind:
		b := v.Bytes()
		w.uvarint(uint64(len(b)))
		w.buf = append(w.buf, b...)
	}
}

func (w *identityWriter) uvarint(x uint64) { w.buf = binary.AppendUvarint(w.buf, x) }
