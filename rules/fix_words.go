package rules

import (
	"bytes"
	"sync"
	"unsafe"

	"github.com/proxylint/proxylint/model"
)

// words answers the fixes' question "does any file of the model hold this
// word?". A fix asks it for every finding it repairs, and each answer means
// reading every source of the model: on a large configuration thousands of
// findings would read megabytes each. The answers are kept for the model
// and sources last asked about, so each word is looked for once per run.
var words wordCache

type wordCache struct {
	mu sync.Mutex
	// key identifies the model and the sources the answers are about: a
	// model whose files, or whose files' sources, changed is another.
	key     *model.Model
	sources []sourceID
	held    map[string]bool
}

// sourceID identifies a file's source by where it lives and its length.
type sourceID struct {
	file *model.File
	data *byte
	n    int
}

func (c *wordCache) holds(m *model.Model, w string) bool {
	if m == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.about(m) {
		c.key, c.held = m, map[string]bool{}
		c.sources = c.sources[:0]
		for _, f := range m.Files {
			c.sources = append(c.sources, sourceID{f, unsafe.SliceData(f.Source), len(f.Source)})
		}
	}
	if v, ok := c.held[w]; ok {
		return v
	}
	v := false
	for _, f := range m.Files {
		if holdsWord(f.Source, w) {
			v = true
			break
		}
	}
	c.held[w] = v
	return v
}

// about reports whether the answers kept are about m as it is now.
func (c *wordCache) about(m *model.Model) bool {
	if c.key != m || len(c.sources) != len(m.Files) {
		return false
	}
	for i, f := range m.Files {
		if c.sources[i] != (sourceID{f, unsafe.SliceData(f.Source), len(f.Source)}) {
			return false
		}
	}
	return true
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
