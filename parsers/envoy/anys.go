package envoy

import (
	"fmt"
	"sort"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The Anys of a configuration: the messages they hold, decoded once per
// load, and a walk that visits each of them.

// unpack decodes the message an Any holds. proto3 has no required fields,
// so the check for them is skipped: it costs time on the first decode of
// every message type.
//
// While a load runs, each Any is decoded once: validation, Envoy's checks
// and the model builder all read the same Anys, and the messages they hold
// are only read.
func unpack(a protoreflect.Message) (protoreflect.Message, error) {
	unpacked.Lock()
	if unpacked.m != nil {
		if r, ok := unpacked.m[a]; ok {
			unpacked.Unlock()
			if r.released {
				// The builder let it go (forgetAnys): reading it again
				// is a mistake in the loader, reported as such.
				panic("an Any read again after the model was built from it")
			}
			return r.m, r.err
		}
	}
	unpacked.Unlock()
	m, err := unmarshalAny(a)
	unpacked.Lock()
	if unpacked.m != nil {
		unpacked.m[a] = unpackResult{m: m, err: err}
	}
	unpacked.Unlock()
	return m, err
}

type unpackResult struct {
	m   protoreflect.Message
	err error
	// released marks an Any whose message was let go (forgetAnys).
	released bool
}

// forgetAnys lets go of the messages the Anys inside m hold, once nothing
// of the load will read them again: the listeners of a bootstrap, once
// their part of the model is built, so that a large configuration's
// messages are not all held while the whole model is built. An Any whose
// payload the load held has no bytes to be read from again, so reading
// one after this panics rather than reading it as empty.
func forgetAnys(m protoreflect.Message) {
	if m == nil || !m.IsValid() {
		return
	}
	if m.Descriptor().FullName() == nameAny {
		unpacked.Lock()
		r, ok := unpacked.m[m]
		unpacked.Unlock()
		if !ok || r.released {
			return
		}
		if r.m != nil {
			forgetAnys(r.m)
		}
		unpacked.Lock()
		if unpacked.m != nil {
			unpacked.m[m] = unpackResult{released: true}
		}
		unpacked.Unlock()
		return
	}
	if rawJSON(m.Descriptor()) {
		return
	}
	for _, fd := range anyFields(m.Descriptor()) {
		if !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		switch {
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				forgetAnys(v.List().Get(i).Message())
			}
		case fd.IsMap():
			v.Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
				forgetAnys(e.Message())
				return true
			})
		default:
			forgetAnys(v.Message())
		}
	}
}

// unmarshalAny decodes the message of an Any, by the type its URL names.
func unmarshalAny(a protoreflect.Message) (protoreflect.Message, error) {
	fields := a.Descriptor().Fields()
	url := a.Get(fields.ByNumber(1)).String()
	value := a.Get(fields.ByNumber(2)).Bytes()
	mt, err := apiTypes().FindMessageByURL(url)
	if err != nil {
		return nil, fmt.Errorf("type %q: %w", url, err)
	}
	m := mt.New()
	if err := (proto.UnmarshalOptions{AllowPartial: true, Resolver: apiTypes()}).Unmarshal(value, m.Interface()); err != nil {
		return nil, err
	}
	return m, nil
}

// unpacked holds the decoded Anys while any load runs.
var unpacked struct {
	sync.Mutex
	loads int
	m     map[protoreflect.Message]unpackResult
}

// holdPayload keeps inner as the message the Any a holds, for the load
// under way, so that unpack returns it without writing it to bytes and
// reading them back: the direct reader builds the message anyway, and a
// load reads Anys only through unpack. Outside a load it reports false, and
// the caller writes the bytes.
func holdPayload(a, inner protoreflect.Message) bool {
	unpacked.Lock()
	defer unpacked.Unlock()
	if unpacked.m == nil {
		return false
	}
	unpacked.m[a] = unpackResult{m: inner}
	return true
}

// writePayloads writes into every Any inside m whose payload the load holds
// (holdPayload) the bytes of that payload, as protojson would have, so that
// m compares equal to the message protojson reads.
func writePayloads(m protoreflect.Message) {
	if m.Descriptor().FullName() == nameAny {
		unpacked.Lock()
		r, held := unpacked.m[m]
		unpacked.Unlock()
		if !held || r.m == nil {
			return
		}
		writePayloads(r.m)
		b, err := anyMarshal.Marshal(r.m.Interface())
		if err == nil {
			m.Set(m.Descriptor().Fields().ByNumber(2), protoreflect.ValueOfBytes(b))
		}
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				writePayloads(v.List().Get(i).Message())
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
				writePayloads(e.Message())
				return true
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			writePayloads(v.Message())
		}
		return true
	})
}

// rememberUnpacked keeps decoded Anys until the load ends; the function it
// returns ends it, and forgets them when no other load runs.
func rememberUnpacked() func() {
	unpacked.Lock()
	if unpacked.loads == 0 {
		unpacked.m = map[protoreflect.Message]unpackResult{}
	}
	unpacked.loads++
	unpacked.Unlock()
	return func() {
		unpacked.Lock()
		unpacked.loads--
		if unpacked.loads == 0 {
			unpacked.m = nil
		}
		unpacked.Unlock()
	}
}

// anyVisitor is called for every Any inside a message, with the message it
// holds and the node it was read from.
type anyVisitor func(inner protoreflect.Message, n *node)

// walkAnys finds every Any in m, unpacks it and calls fn, then walks the
// unpacked message too. Anys whose type is not in the schema were rewritten to
// TypedStruct and are skipped: there is nothing to check in them.
func walkAnys(m protoreflect.Message, n *node, fn anyVisitor) {
	for _, fd := range anyFields(m.Descriptor()) {
		if !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		_, fn2 := n.field(string(fd.Name()))
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				visitMessage(l.Get(i).Message(), fn2.item(i), fn)
			}
		case fd.IsMap():
			keys := make([]protoreflect.MapKey, 0, v.Map().Len())
			v.Map().Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
				keys = append(keys, k)
				return true
			})
			sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
			for _, k := range keys {
				visitMessage(v.Map().Get(k).Message(), fn2.get(k.String()), fn)
			}
		default:
			visitMessage(v.Message(), fn2, fn)
		}
	}
}

// anyFields caches, per message type, its fields whose messages can hold
// an Any, in the order they are declared: the fields walkAnys visits, in
// an order that does not depend on how the message stores its fields.
var anyFields = func() func(md protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
	var cache sync.Map // protoreflect.MessageDescriptor → []protoreflect.FieldDescriptor
	return func(md protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
		if v, ok := cache.Load(md); ok {
			return v.([]protoreflect.FieldDescriptor)
		}
		var out []protoreflect.FieldDescriptor
		fields := md.Fields()
		for i := 0; i < fields.Len(); i++ {
			fd := fields.Get(i)
			if sub := valueMessage(fd); sub != nil && mayHoldAny(sub) {
				out = append(out, fd)
			}
		}
		cache.Store(md, out)
		return out
	}
}()

func visitMessage(m protoreflect.Message, n *node, fn anyVisitor) {
	md := m.Descriptor()
	if md.FullName() == nameAny {
		if n == nil || n.rewritten {
			return
		}
		inner, err := unpack(m)
		if err != nil {
			return
		}
		fn(inner, n)
		walkAnys(inner, n, fn)
		return
	}
	if rawJSON(md) {
		return
	}
	walkAnys(m, n, fn)
}

// holdsAny caches, per message type, whether a message of it can hold an
// Any at any depth: walkAnys skips the fields whose type cannot (addresses,
// matchers, durations, ...), most of a configuration's messages.
var holdsAny sync.Map // protoreflect.FullName → bool

// mayHoldAny reports whether a message of type md can hold an Any, itself
// included. The well-known types other than Any hold none that walkAnys
// would visit (visitMessage does not walk them).
func mayHoldAny(md protoreflect.MessageDescriptor) bool {
	if v, ok := holdsAny.Load(md.FullName()); ok {
		return v.(bool)
	}
	seen := map[protoreflect.FullName]bool{}
	found := reachesAny(md, seen)
	if found {
		holdsAny.Store(md.FullName(), true)
	} else {
		// Nothing reachable from md holds an Any, so nothing reachable
		// from any type on the way does either.
		for name := range seen {
			holdsAny.Store(name, false)
		}
	}
	return found
}

func reachesAny(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	name := md.FullName()
	if name == "google.protobuf.Any" {
		return true
	}
	if seen[name] {
		return false
	}
	seen[name] = true
	if v, ok := holdsAny.Load(name); ok {
		return v.(bool)
	}
	if rawJSON(md) {
		return false
	}
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		if sub := valueMessage(fields.Get(i)); sub != nil && reachesAny(sub, seen) {
			return true
		}
	}
	return false
}
