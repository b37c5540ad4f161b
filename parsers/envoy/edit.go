package envoy

import (
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/internal/treeedit"
)

// NewEditor returns the editor of an Envoy configuration file
// (model.TreeEditor): it writes YAML or JSON as the file does, and field
// names in the case the file writes them, snake_case where the file does
// not tell (Envoy's own examples write snake_case; protobuf's JSON
// mapping accepts both). src must not change while the editor is used.
func NewEditor(path string, src []byte) model.TreeEditor {
	return treeedit.New(path, src, treeedit.Snake)
}
