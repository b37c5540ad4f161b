package rules

import "github.com/proxylint/proxylint/model"

// Rules under which the Kubernetes loader (parsers/kube) reports what it
// could not read, or what the platform ignores.
var (
	KubeSyntax = &Rule{
		ID:       string(model.CodeKubeSyntax),
		Summary:  "a Kubernetes manifest is not YAML or JSON proxylint can read",
		Severity: model.Error,
		Tags:     []string{"load", "kubernetes"},
	}
	KubeInvalid = &Rule{
		ID:       string(model.CodeKubeInvalid),
		Summary:  "a field of a Kubernetes resource has a value the platform refuses",
		Severity: model.Error,
		Tags:     []string{"load", "kubernetes"},
	}
	KubeIgnored = &Rule{
		ID:       string(model.CodeKubeIgnored),
		Summary:  "a field of a Kubernetes resource that the platform accepts and ignores",
		Severity: model.Warning,
		Tags:     []string{"load", "kubernetes"},
	}
)
