package envoy

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Opaque JSON (Struct, Value, ListValue) is read directly when protojson
// reads it without an error, and left to protojson otherwise; either way
// the message is protojson's (compareDirect, with the cross-check on,
// builds every opaque message at once).
func TestOpaqueCases(t *testing.T) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName("envoy.config.cluster.v3.Cluster")
	if err != nil {
		t.Fatal(err)
	}
	holdDirectCases(t, mt, []directCase{
		{"name: a\nmetadata: {filter_metadata: {a: {}}}\n", true},
		{"name: a\nmetadata: {filter_metadata: {a: {k: {x: [[], [{}], {y: [1, 2.5, -3e2]}]}}}}\n", true},
		{"name: a\nmetadata: {filter_metadata: {a: {n: 0x1F, q: '1e400', b: yes, t: true, s: \"\\u00e9\"}}}\n", true},
		{"name: a\nmetadata: {filter_metadata: {a: {k: [null, ~, 'x']}}}\n", true},
		{`{"name": "a", "metadata": {"filter_metadata": {"a": {"k": 1e308, "l": [true, null, "x", {"m": -0}]}}}}`, true},
		{`{"name": "a", "metadata": {"filter_metadata": {"a": {"k": 1, "k": 2}}}}`, true},
		{"name: a\nmetadata: {filter_metadata: {a: {k: 1}, b: {k: 2}}, typed_filter_metadata: {t: {\"@type\": type.googleapis.com/google.protobuf.Struct, value: {k: 1}}}}\n", true},
		// Refused by protojson: left to it, so that it says where.
		{`{"name": "a", "metadata": {"filter_metadata": {"a": {"k": 1e400}}}}`, false},
		{`{"name": "a", "metadata": {"filter_metadata": {"a": {"k": [1, -1e999]}}}}`, false},
		{"name: a\nmetadata: {filter_metadata: {a: [1]}}\n", false},
		{"name: a\nmetadata: {filter_metadata: {a: 1}}\n", false},
	})
}

// An opaque message is built only when it is read, and then as protojson
// reads it.
func TestOpaqueBuiltWhenRead(t *testing.T) {
	was := crossCheck.on
	crossCheck.on = false
	defer func() { crossCheck.on = was }()
	mt, err := protoregistry.GlobalTypes.FindMessageByName("envoy.config.cluster.v3.Cluster")
	if err != nil {
		t.Fatal(err)
	}
	docs, _, err := readTree("c.yaml", []byte("name: a\nmetadata: {filter_metadata: {a: {k: [1, {x: y}], n: null}}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	dm, ok := decodeDirect(docs[0], mt)
	if !ok {
		t.Fatal("not read directly")
	}
	md := dm.ProtoReflect().Get(mt.Descriptor().Fields().ByName("metadata")).Message()
	fm := md.Get(md.Descriptor().Fields().ByName("filter_metadata")).Map()
	v := fm.Get(protoreflect.ValueOfString("a").MapKey())
	o, isOpaque := v.Message().(*opaqueMessage)
	if !isOpaque {
		t.Fatalf("filter_metadata[a] is a %T, want an *opaqueMessage", v.Message())
	}
	if o.m != nil {
		t.Fatal("the Struct was built before it was read")
	}
	jm, probs, _ := decodeJSON(docs[0], mt, false, "")
	if len(probs) > 0 {
		t.Fatal(probs[0].msg)
	}
	if !proto.Equal(dm, jm) {
		t.Errorf("read directly as %v, by protojson as %v", dm, jm)
	}
	if o.m == nil {
		t.Error("the Struct was compared without being built")
	}
}
