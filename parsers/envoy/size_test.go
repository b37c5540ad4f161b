package envoy

import (
	"testing"
	"unsafe"
)

// A 39 MB bootstrap makes some 3 million set fields of compact messages,
// all held until the model is built: a byte added to a field is paid for
// that many times over.
func TestCompactFieldSizes(t *testing.T) {
	if n := unsafe.Sizeof(compactField{}); n > 32 {
		t.Errorf("compactField takes %d bytes, want at most 32", n)
	}
	// A message of one field is allocated with its field: the 80-byte
	// size class (96 with fields of 48 bytes).
	one := unsafe.Sizeof(struct {
		m compactMessage
		f [1]compactField
	}{})
	if one > 80 {
		t.Errorf("a message of one field takes %d bytes, want at most 80", one)
	}
}

// The positioned tree of a 39 MB bootstrap is 3.3 million nodes, held
// until the read ends: a node is the 32-byte size class, a scalar's text
// and a collection's entries held in the same two words (48 with a string
// and a pointer and a length apart, 64 with the entries as a slice).
func TestTreeNodeSizes(t *testing.T) {
	if n := unsafe.Sizeof(node{}); n > 32 {
		t.Errorf("node takes %d bytes, want at most 32", n)
	}
}
