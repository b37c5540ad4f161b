package model

// Code names what a loader's diagnostic is about. Each code is the ID of
// the rule that reports and documents it (package rules declares one per
// code from these constants), so that a loader and its rule cannot drift
// apart by a misspelt string.
type Code string

// The codes loaders report.
const (
	// CodeLoad: a file could not be read, or its kind could not be told.
	CodeLoad Code = "load-error"
	// CodeNginxSyntax: nginx would refuse to read the configuration.
	CodeNginxSyntax Code = "nginx-syntax"
	// CodeNginxInclude: an include cannot be followed.
	CodeNginxInclude Code = "nginx-include"
	// CodeEnvoySyntax: the file is not YAML or JSON Envoy can read.
	CodeEnvoySyntax Code = "envoy-syntax"
	// CodeEnvoyInvalid: Envoy would reject the configuration.
	CodeEnvoyInvalid Code = "envoy-invalid"
	// CodeEnvoyUnknownExtension: an extension's settings are kept but
	// not checked.
	CodeEnvoyUnknownExtension Code = "envoy-unknown-extension"
	// CodeEnvoyUnresolved: a resource names another the run does not
	// hold.
	CodeEnvoyUnresolved Code = "envoy-unresolved"
	// CodeKubeSyntax: a manifest is not YAML or JSON Kubernetes can read.
	CodeKubeSyntax Code = "kube-syntax"
	// CodeKubeInvalid: the API server would reject a resource.
	CodeKubeInvalid Code = "kube-invalid"
	// CodeKubeIgnored: the controller ignores a resource or a setting.
	CodeKubeIgnored Code = "kube-ignored"
)

// Codes lists every code, in the order above.
func Codes() []Code {
	return []Code{CodeLoad, CodeNginxSyntax, CodeNginxInclude, CodeEnvoySyntax, CodeEnvoyInvalid,
		CodeEnvoyUnknownExtension, CodeEnvoyUnresolved, CodeKubeSyntax, CodeKubeInvalid, CodeKubeIgnored}
}
