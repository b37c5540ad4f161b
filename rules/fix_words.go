package rules

import (
	"bytes"

	"github.com/proxylint/proxylint/model"
)

// wordIndex answers the fixes' question "does any file of the model hold
// this word?". A fix asks it for every finding it repairs, and each answer
// means reading every source of the model: on a large configuration
// thousands of findings would read megabytes each. One index serves one
// run of the rules (Check makes it, every pass shares it), so each word is
// looked for once per run and nothing outlives the run.
type wordIndex struct {
	files []*model.File
	held  map[string]bool
}

func newWordIndex(files []*model.File) *wordIndex {
	return &wordIndex{files: files, held: map[string]bool{}}
}

// holds reports whether any file holds w as a word of its own.
func (ix *wordIndex) holds(w string) bool {
	if v, ok := ix.held[w]; ok {
		return v
	}
	v := false
	for _, f := range ix.files {
		if holdsWord(f.Source, w) {
			v = true
			break
		}
	}
	ix.held[w] = v
	return v
}

// holdsWord reports whether src holds w as a word of its own: at the start
// or after white space, ";", "{" or "}", and at the end or before one of
// them.
func holdsWord(src []byte, w string) bool {
	for off := 0; off <= len(src); {
		i := bytes.Index(src[off:], []byte(w))
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(w)
		if (start == 0 || isWordEnd(src[start-1])) && (end == len(src) || isWordEnd(src[end])) {
			return true
		}
		off = start + 1
	}
	return false
}

// isWordEnd reports whether c ends a word: white space as regular
// expressions' \s has it, ";", "{" or "}".
func isWordEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\f', '\r', ';', '{', '}':
		return true
	}
	return false
}
