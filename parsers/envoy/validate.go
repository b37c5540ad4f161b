package envoy

import (
	"errors"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/proxylint/proxylint/parsers/envoy/internal/pgv"
)

// Envoy's schema constraints (required fields, ranges, lengths, patterns:
// the protoc-gen-validate rules in its descriptors) are checked the way
// Envoy checks them when it loads a configuration. pgv.ValidateAll
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
	err := pgv.ValidateAll(m.ProtoReflect())
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
			spelled = key.text()
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
	for _, k := range n.kids() {
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
	for _, k := range n.kids() {
		if k.key == nil {
			continue
		}
		if strings.Contains(k.key.text(), "_") {
			return false
		}
		if strings.ToLower(k.key.text()) != k.key.text() {
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
