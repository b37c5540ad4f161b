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
	ok, _ = DetectDepth(path, src, nil)
	return ok
}

// DetectDepth is Detect, and also reports whether src is a YAML or JSON
// document nested deeper than the reader follows: its kind cannot be told,
// but it is no nginx file, and Load reports the position where it gets too
// deep. The tree it parses of a large file is kept in kept (when not
// nil) for the Read that follows.
func DetectDepth(path string, src []byte, kept *Kept) (ok, tooDeep bool) {
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
			kept.keep(path, b, docs, warns)
			return true, false
		}
	}
	return false, false
}

// Kept is where one load keeps the tree DetectDepth parsed of a large
// file whose kind it found by looking, for the Read of that file that
// follows (Options.Kept), so that the file is parsed once, not twice (the
// first parse of a TypedStruct of a million keys was the run's peak of
// memory). It holds one tree at a time, and only of a file of at least
// detectedKeep bytes, which is never the head of a file that the loader
// looks at first; Read takes it only for the same path and the same
// bytes, and drops it otherwise. DetectDepth's classifier only reads the
// tree, so what Read gets is what it would have parsed. A Kept belongs to
// one load: what it holds goes with it.
type Kept struct {
	mu    sync.Mutex
	path  string
	src   []byte
	docs  []*node
	warns []posError
}

const detectedKeep = 1 << 20

func (k *Kept) keep(path string, src []byte, docs []*node, warns []posError) {
	if k == nil || len(src) < detectedKeep {
		return
	}
	k.mu.Lock()
	k.path, k.src, k.docs, k.warns = path, src, docs, warns
	k.mu.Unlock()
}

// take returns the tree kept of path if it was parsed from the bytes src
// holds, with those bytes (the tree's scalars are substrings of them),
// and lets go of any tree kept.
func (k *Kept) take(path string, src []byte) (kept []byte, docs []*node, warns []posError, ok bool) {
	if k == nil {
		return nil, nil, nil, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.docs == nil {
		return nil, nil, nil, false
	}
	kept, docs, warns = k.src, k.docs, k.warns
	ok = k.path == path && bytes.Equal(kept, src)
	k.path, k.src, k.docs, k.warns = "", nil, nil, nil
	if !ok {
		return nil, nil, nil, false
	}
	return kept, docs, warns, true
}
