package envoy

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/proxylint/proxylint/internal/lazyre"
)

// maxDecodeErrors bounds how many protojson errors one resource may
// report: each is found by one more decoding pass.
const maxDecodeErrors = 20

// problem is an error or note about a place in the tree.
type problem struct {
	n     *node
	msg   string
	fatal bool // the value was left out, so the model misses it
}

// decode reads the tree rooted at n into a new message of type mt. Every
// error protojson reports is mapped back to its node; the offending entry
// is left out and the rest is decoded again, so one pass reports every
// misspelled field and every bad value. decode returns nil when the
// resource could not be read at all.
func decode(n *node, mt protoreflect.MessageType) (proto.Message, []problem, []unknownType) {
	return decodeRoot(n, mt, false, "")
}

// decodeRoot is decode for a resource of a config dump (dump), written by
// Envoy version when it is known.
func decodeRoot(n *node, mt protoreflect.MessageType, dump bool, version string) (proto.Message, []problem, []unknownType) {
	if crossCheck.on {
		m, probs, unknown, _, _ := compareDirect(n, mt, dump, version)
		return m, probs, unknown
	}
	if m, ok := decodeDirect(n, mt); ok {
		return m, nil, nil
	}
	return decodeJSON(n, mt, dump, version)
}

// decodeJSON is decodeRoot through JSON: the emitter writes the tree as
// JSON, protojson reads it, and each error is placed at its node.
func decodeJSON(n *node, mt protoreflect.MessageType, dump bool, version string) (proto.Message, []problem, []unknownType) {
	e := newEmitter()
	e.dump, e.version = dump, version
	var probs []problem
	for range maxDecodeErrors + 1 {
		data := e.emitRoot(n, mt.Descriptor())
		for _, se := range e.errs {
			probs = append(probs, problem{n: se.n, msg: se.msg, fatal: true})
		}
		e.errs = e.errs[:0]
		msg := mt.New().Interface()
		// proto3 has no required fields: skip the check for them.
		err := protojson.UnmarshalOptions{AllowPartial: true, Resolver: apiTypes()}.Unmarshal(data, msg)
		if err == nil {
			return msg, probs, e.unknown
		}
		line, col, text := splitProtoError(err)
		if line <= 0 || line >= len(e.lines) {
			probs = append(probs, problem{n: n, msg: text, fatal: true})
			return nil, probs, e.unknown
		}
		li := e.lines[line]
		at := li.val
		if li.key != nil && !li.closing && col < li.valCol {
			at = li.key
		}
		probs = append(probs, problem{n: at, msg: decodeMessage(text, li), fatal: true})
		if li.cont == nil {
			return nil, probs, e.unknown
		}
		li.cont.drop(li.idx)
	}
	probs = append(probs, problem{n: n, msg: "too many errors; stopped reading this resource", fatal: true})
	return nil, probs, e.unknown
}

// protoErrRE is compiled on first use: nothing is done at start-up for
// runs that meet no error.
var protoErrRE = lazyre.New(`\(line (\d+):(\d+)\):\s*`)

// splitProtoError takes protojson's "proto: (line L:C): message" apart.
// protojson randomly puts a non-breaking space after "proto:" so that
// nobody matches its messages exactly; only the position is parsed.
func splitProtoError(err error) (line, col int, text string) {
	s := err.Error()
	s = strings.TrimPrefix(s, "proto:")
	s = strings.TrimLeft(s, " \u00a0")
	s = strings.TrimPrefix(s, "syntax error ")
	if m := protoErrRE().FindStringSubmatchIndex(s); m != nil {
		line, _ = strconv.Atoi(s[m[2]:m[3]])
		col, _ = strconv.Atoi(s[m[4]:m[5]])
		s = s[:m[0]] + s[m[1]:]
	}
	return line, col, strings.TrimSpace(s)
}

// scalarKind is the type protojson names in "invalid value for KIND field
// NAME", as the value to write ("true or false" for a bool, "a single
// uint32" for a number).
func scalarKind(head string) string {
	kind, _, _ := strings.Cut(strings.TrimPrefix(head, "invalid value for "), " ")
	if kind == "bool" {
		return "true or false"
	}
	return "a single " + kind
}

// decodeMessage rewords a protojson message with the field as the user
// wrote it.
func decodeMessage(text string, li lineInfo) string {
	// protojson names only the first character of an object or a list
	// given where a scalar belongs ("invalid value for bool field value:
	// {"); say what it was.
	if head, ok := strings.CutSuffix(text, ": {"); ok && strings.HasPrefix(head, "invalid value for ") {
		text = head + ": an object, where " + scalarKind(head) + " belongs"
	} else if head, ok := strings.CutSuffix(text, ": ["); ok && strings.HasPrefix(head, "invalid value for ") {
		text = head + ": a list, where " + scalarKind(head) + " belongs"
	}
	if li.key != nil && !strings.Contains(text, li.key.text()) {
		text = li.key.text() + ": " + text
	}
	if li.fd != nil && li.fd.Enum() != nil && !li.closing {
		var names []string
		vals := li.fd.Enum().Values()
		for i := 0; i < vals.Len(); i++ {
			names = append(names, string(vals.Get(i).Name()))
		}
		text += "; the values are " + strings.Join(names, ", ")
	}
	return text
}
