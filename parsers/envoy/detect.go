package envoy

import (
	"bytes"
	"errors"
	"sync"
)

// Detect reports whether src holds Envoy configuration in one of the
// shapes Load reads (shape.go): a bootstrap, an admin config dump, or xDS
// resources, alone, listed or wrapped under names. It decides by the
// structure of the parsed document, never by words found in the text: an
// nginx file that mentions proxy_connect_timeout, or a Kubernetes object
// quoting an Envoy filter, is not one.
func Detect(path string, src []byte) (ok bool) {
	ok, _ = DetectDepth(path, src)
	return ok
}

// DetectDepth is Detect, and also reports whether src is a YAML or JSON
// document nested deeper than the reader follows: its kind cannot be told,
// but it is no nginx file, and Load reports the position where it gets too
// deep.
func DetectDepth(path string, src []byte) (ok, tooDeep bool) {
	defer func() {
		if recover() != nil {
			ok, tooDeep = false, false
		}
	}()
	b := breakLoneCR(src)
	docs, warns, err := readTree(path, b)
	if err != nil {
		var pe *posError
		return false, errors.As(err, &pe) && pe.deep
	}
	for _, doc := range docs {
		var c classifier
		if c.visit(doc, "", 0) && (len(c.roots) > 0 || doc.kind == kMap) {
			keepDetected(path, b, docs, warns)
			return true, false
		}
	}
	return false, false
}

// A file whose kind is found by looking (DetectDepth) is read right after
// (Read): the tree DetectDepth parsed of a large file is kept for that
// Read, so that the file is parsed once, not twice (the first parse of a
// TypedStruct of a million keys was the run's peak of memory). One tree
// is kept at a time, and only of a file of at least detectedKeep bytes,
// which is never the head of a file that the loader looks at first; Read
// takes it only for the same path and the same bytes, and drops it
// otherwise. DetectDepth's classifier only reads the tree, so what Read
// gets is what it would have parsed.
const detectedKeep = 1 << 20

var detected struct {
	sync.Mutex
	path  string
	src   []byte
	docs  []*node
	warns []posError
}

func keepDetected(path string, src []byte, docs []*node, warns []posError) {
	if len(src) < detectedKeep {
		return
	}
	detected.Lock()
	detected.path, detected.src, detected.docs, detected.warns = path, src, docs, warns
	detected.Unlock()
}

// takeDetected returns the tree DetectDepth kept of path if it read the
// bytes src holds, with those bytes (the tree's scalars are substrings
// of them), and lets go of any tree kept.
func takeDetected(path string, src []byte) (kept []byte, docs []*node, warns []posError, ok bool) {
	detected.Lock()
	defer detected.Unlock()
	if detected.docs == nil {
		return nil, nil, nil, false
	}
	kept, docs, warns = detected.src, detected.docs, detected.warns
	ok = detected.path == path && bytes.Equal(kept, src)
	detected.path, detected.src, detected.docs, detected.warns = "", nil, nil, nil
	if !ok {
		return nil, nil, nil, false
	}
	return kept, docs, warns, true
}
