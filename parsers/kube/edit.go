package kube

import (
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/internal/treeedit"
)

// NewEditor returns the editor of a Kubernetes manifest file
// (model.TreeEditor): it edits each document as it is written, YAML or
// JSON, and writes field names in camelCase, as Kubernetes resources
// name them. src must not change while the editor is used.
func NewEditor(path string, src []byte) model.TreeEditor {
	return treeedit.New(path, src, treeedit.Camel)
}
