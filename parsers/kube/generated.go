package kube

import (
	"go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/parsers/internal/generated"
)

// generatedBy says what wrote a manifest file when it is not where its
// resources are written (model.File.Generated): Helm, by the "# Source:"
// comments it writes above each document it renders or by the labels
// its charts put on their resources, or a program whose header says the
// file is generated. helmLabel is the first Helm label of the file's
// resources.
func generatedBy(src []byte, helmLabel string) string {
	if s := generated.Helm(generated.HelmSources(src)); s != "" {
		return s
	}
	if helmLabel != "" {
		return "a manifest Helm rendered (its resources carry the label " + helmLabel + ")"
	}
	return generated.Header(src)
}

// helmLabel returns the label of a resource's metadata.labels that says
// Helm rendered it: helm.sh/chart, which Helm's chart best practices
// recommend on every resource as {{ .Chart.Name }}-{{ .Chart.Version }},
// or app.kubernetes.io/managed-by: Helm, {{ .Release.Service }} as
// rendered (https://helm.sh/docs/chart_best_practices/labels/; helm
// create writes both into the new chart's _helpers.tpl). "" when neither
// is there.
func helmLabel(labels *yaml.Node) string {
	if c := scalar(get(labels, "helm.sh/chart")); c != "" {
		return "helm.sh/chart: " + clipKey(c)
	}
	if scalar(get(labels, "app.kubernetes.io/managed-by")) == "Helm" {
		return "app.kubernetes.io/managed-by: Helm"
	}
	return ""
}
