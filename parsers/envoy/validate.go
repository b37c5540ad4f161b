package envoy

import (
	"errors"
	"sort"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
)

// Envoy's schema constraints (required fields, ranges, lengths, patterns:
// the protoc-gen-validate rules in its descriptors) are checked the way
// Envoy checks them when it loads a configuration. validateAll (pgv.go)
// reports them as the generated ValidateAll methods do, with paths of Go
// field names ("FilterChains[0]" → cause "Filters[1]" → ...); validation
// walks that chain of causes down the schema and the tree together to
// find the line.

type validationError interface {
	Field() string
	Reason() string
	Cause() error
	Key() bool
}

type multiError interface {
	AllErrors() []error
}

// validate checks m (read from n) against its descriptor's rules and
// reports every violation at its position. The rules are read from the
// descriptors rather than run through the generated ValidateAll methods,
// so the same check works on messages without generated code.
func validate(m proto.Message, n *node) []problem {
	err := validateAll(m.ProtoReflect())
	if err == nil {
		return nil
	}
	var out []problem
	violations(err, m.ProtoReflect().Descriptor(), n, "", &out)
	return out
}

func violations(err error, md protoreflect.MessageDescriptor, n *node, path string, out *[]problem) {
	var me multiError
	if errors.As(err, &me) {
		for _, e := range me.AllErrors() {
			violations(e, md, n, path, out)
		}
		return
	}
	var ve validationError
	if !errors.As(err, &ve) {
		*out = append(*out, problem{n: n, msg: strings.TrimPrefix(path+": "+err.Error(), ": ")})
		return
	}
	name, sub, hasSub := splitField(ve.Field())
	fd, od := findField(md, name)
	key, val := (*node)(nil), (*node)(nil)
	spelled := snake(name)
	if fd != nil {
		spelled = string(fd.Name())
		key, val = n.field(spelled)
		if key != nil {
			spelled = key.value
		}
	}
	here := joinPath(path, spelled)
	at := n // a missing field is reported at the block that lacks it
	if key != nil {
		at = key
	}
	inner := val // the block the cause's fields are in
	if hasSub {
		here += "[" + sub + "]"
		var elem, elemKey *node
		if fd != nil && fd.IsMap() {
			elemKey, elem = val.field(sub)
		} else if i, err := strconv.Atoi(sub); err == nil {
			elem = val.item(i)
		}
		inner = elem
		switch {
		case ve.Key() && elemKey != nil:
			at = elemKey
		case elem != nil:
			at = elem
		}
	}
	if c := ve.Cause(); c != nil && fd != nil && strings.HasPrefix(ve.Reason(), "embedded message failed validation") {
		if md2 := valueMessage(fd); md2 != nil && inner != nil {
			violations(c, md2, inner, here, out)
			return
		}
	}
	if key == nil && hasDropped(n) {
		// A field missing because a decoding error left it out: the
		// decoding error is the one to fix.
		return
	}
	reason := ve.Reason()
	if od != nil && reason == "value is required" {
		reason = "one of " + oneofNames(od, n) + " is required"
	}
	if c := ve.Cause(); c != nil && !strings.HasPrefix(reason, "embedded message failed validation") {
		reason += ": " + c.Error()
	}
	*out = append(*out, problem{n: at, msg: here + ": " + reason})
}

func hasDropped(n *node) bool {
	if n == nil {
		return false
	}
	for _, k := range n.kids {
		if k.dropped {
			return true
		}
	}
	return false
}

// splitField splits "FilterChains[0]" into "FilterChains" and "0".
func splitField(f string) (name, sub string, ok bool) {
	i := strings.IndexByte(f, '[')
	if i < 0 || !strings.HasSuffix(f, "]") {
		return f, "", false
	}
	return f[:i], f[i+1 : len(f)-1], true
}

// findField finds the field or oneof whose Go name is goName.
func findField(md protoreflect.MessageDescriptor, goName string) (protoreflect.FieldDescriptor, protoreflect.OneofDescriptor) {
	want := strings.ToLower(goName)
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if strings.ToLower(strings.ReplaceAll(string(fd.Name()), "_", "")) == want {
			return fd, nil
		}
	}
	oneofs := md.Oneofs()
	for i := 0; i < oneofs.Len(); i++ {
		od := oneofs.Get(i)
		if strings.ToLower(strings.ReplaceAll(string(od.Name()), "_", "")) == want {
			return nil, od
		}
	}
	return nil, nil
}

// oneofNames lists a oneof's fields, spelled like the block around them.
func oneofNames(od protoreflect.OneofDescriptor, n *node) string {
	camel := usesCamel(n)
	var names []string
	fields := od.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if camel {
			names = append(names, fd.JSONName())
		} else {
			names = append(names, string(fd.Name()))
		}
	}
	return strings.Join(names, ", ")
}

// usesCamel reports whether a block's keys are written in camelCase.
func usesCamel(n *node) bool {
	if n == nil {
		return false
	}
	for _, k := range n.kids {
		if k.key == nil {
			continue
		}
		if strings.Contains(k.key.value, "_") {
			return false
		}
		if strings.ToLower(k.key.value) != k.key.value {
			return true
		}
	}
	return false
}

// snake turns a Go field name into its proto spelling.
func snake(goName string) string {
	var b strings.Builder
	for i, r := range goName {
		if 'A' <= r && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// unpack decodes the message an Any holds. proto3 has no required fields,
// so the check for them is skipped: it costs time on the first decode of
// every message type.
//
// While a load runs, each Any is decoded once: validation, Envoy's checks
// and the model builder all read the same Anys, and the messages they hold
// are only read.
func unpack(a *anypb.Any) (proto.Message, error) {
	unpacked.Lock()
	if unpacked.m != nil {
		if r, ok := unpacked.m[a]; ok {
			unpacked.Unlock()
			return r.m, r.err
		}
	}
	unpacked.Unlock()
	m, err := anypb.UnmarshalNew(a, proto.UnmarshalOptions{AllowPartial: true})
	unpacked.Lock()
	if unpacked.m != nil {
		unpacked.m[a] = unpackResult{m, err}
	}
	unpacked.Unlock()
	return m, err
}

type unpackResult struct {
	m   proto.Message
	err error
}

// unpacked holds the decoded Anys while any load runs.
var unpacked struct {
	sync.Mutex
	loads int
	m     map[*anypb.Any]unpackResult
}

// rememberUnpacked keeps decoded Anys until the load ends; the function it
// returns ends it, and forgets them when no other load runs.
func rememberUnpacked() func() {
	unpacked.Lock()
	if unpacked.loads == 0 {
		unpacked.m = map[*anypb.Any]unpackResult{}
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
type anyVisitor func(a *anypb.Any, inner proto.Message, n *node)

// walkAnys finds every Any in m, unpacks it and calls fn, then walks the
// unpacked message too. Anys whose type is not linked were rewritten to
// TypedStruct and are skipped: there is nothing to check in them.
func walkAnys(m protoreflect.Message, n *node, fn anyVisitor) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil {
			return true
		}
		if md := valueMessage(fd); md == nil || !mayHoldAny(md) {
			return true
		}
		_, fn2 := n.field(string(fd.Name()))
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				visitMessage(l.Get(i).Message(), fn2.item(i), fn)
			}
		case fd.IsMap():
			if fd.MapValue().Message() == nil {
				return true
			}
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
		return true
	})
}

func visitMessage(m protoreflect.Message, n *node, fn anyVisitor) {
	md := m.Descriptor()
	if md.FullName() == "google.protobuf.Any" {
		if n == nil || n.rewritten {
			return
		}
		a, ok := m.Interface().(*anypb.Any)
		if !ok {
			return
		}
		inner, err := unpack(a)
		if err != nil {
			return
		}
		fn(a, inner, n)
		walkAnys(inner.ProtoReflect(), n, fn)
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
