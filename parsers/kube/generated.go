package kube

import "github.com/proxylint/proxylint/parsers/internal/generated"

// generatedBy says what wrote a manifest file when it is not where its
// resources are written (model.File.Generated): Helm, by the "# Source:"
// comments it writes above each document it renders, or a program whose
// header says the file is generated. Labels are no evidence: Helm asks
// for app.kubernetes.io/managed-by: Helm on resources applied by hand
// that a release adopts (pkg/action/validate.go), and one resource's
// labels say nothing of the other documents of its file.
func generatedBy(src []byte) string {
	if s := generated.Helm(generated.HelmSources(src)); s != "" {
		return s
	}
	return generated.Header(src)
}
