package envoy

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// bruteHoldsAny is mayHoldAny without a cache: a walk of every message
// type reachable from md.
func bruteHoldsAny(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if md.FullName() == "google.protobuf.Any" {
		return true
	}
	if seen[md.FullName()] || rawJSON(md) {
		return false
	}
	seen[md.FullName()] = true
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		if sub := valueMessage(fields.Get(i)); sub != nil && bruteHoldsAny(sub, seen) {
			return true
		}
	}
	return false
}

// mayHoldAny, whose answers are cached and filled in for whole walks at
// once, answers as a full walk does for every linked message type, in
// whatever order they are asked about.
func TestMayHoldAny(t *testing.T) {
	var mds []protoreflect.MessageDescriptor
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		mds = append(mds, mt.Descriptor())
		return true
	})
	if len(mds) < 500 {
		t.Fatalf("only %d message types linked", len(mds))
	}
	holds := 0
	for _, order := range [][]protoreflect.MessageDescriptor{mds, reversed(mds)} {
		holdsAny.Clear()
		holds = 0
		for _, md := range order {
			want := bruteHoldsAny(md, map[protoreflect.FullName]bool{})
			if got := mayHoldAny(md); got != want {
				t.Errorf("%s: mayHoldAny %v, want %v", md.FullName(), got, want)
			}
			if want {
				holds++
			}
		}
	}
	for name, want := range map[string]bool{
		"envoy.config.bootstrap.v3.Bootstrap": true, "envoy.config.route.v3.Route": true,
		"envoy.config.core.v3.SocketAddress": false, "google.protobuf.Duration": false, "google.protobuf.Any": true,
	} {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(name))
		if err != nil {
			t.Fatal(err)
		}
		if got := mayHoldAny(mt.Descriptor()); got != want {
			t.Errorf("%s: mayHoldAny %v, want %v", name, got, want)
		}
	}
	t.Logf("%d of %d message types can hold an Any", holds, len(mds))
}

func reversed(s []protoreflect.MessageDescriptor) []protoreflect.MessageDescriptor {
	out := make([]protoreflect.MessageDescriptor, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}
