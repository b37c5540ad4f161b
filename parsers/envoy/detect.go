package envoy

import "errors"

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
	docs, _, err := readTree(path, breakLoneCR(src))
	if err != nil {
		var pe *posError
		return false, errors.As(err, &pe) && pe.deep
	}
	for _, doc := range docs {
		var c classifier
		if c.visit(doc, "", 0) && (len(c.roots) > 0 || doc.kind == kMap) {
			return true, false
		}
	}
	return false, false
}
