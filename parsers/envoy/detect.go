package envoy

// Detect reports whether src holds Envoy configuration in one of the
// shapes Load reads (shape.go): a bootstrap, an admin config dump, or xDS
// resources, alone, listed or wrapped under names. It decides by the
// structure of the parsed document, never by words found in the text: an
// nginx file that mentions proxy_connect_timeout, or a Kubernetes object
// quoting an Envoy filter, is not one.
func Detect(path string, src []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	docs, err := readTree(path, breakLoneCR(src))
	if err != nil {
		return false
	}
	for _, doc := range docs {
		var c classifier
		if c.visit(doc, "", 0) && (len(c.roots) > 0 || doc.kind == kMap) {
			return true
		}
	}
	return false
}
