package rules

import "github.com/proxylint/proxylint/model"

// Rules under which the Envoy loader (parsers/envoy) reports what it met
// while reading a configuration; their IDs are the loader's codes. They
// have no Check: the loader finds these problems.
var (
	EnvoySyntax = &Rule{
		ID:       string(model.CodeEnvoySyntax),
		Summary:  "the file is not YAML or JSON that Envoy could read",
		Severity: model.Error,
		Tags:     []string{"load", "envoy"},
	}
	EnvoyInvalid = &Rule{
		ID:       string(model.CodeEnvoyInvalid),
		Summary:  "Envoy would reject this configuration: an unknown field, a wrong value or a schema constraint",
		Severity: model.Error,
		Tags:     []string{"load", "envoy"},
	}
	EnvoyUnresolved = &Rule{
		ID:       string(model.CodeEnvoyUnresolved),
		Summary:  "a route configuration, cluster or endpoints the configuration names are not among the files linted: what depends on them is not checked",
		Severity: model.Note,
		Tags:     []string{"load", "envoy"},
	}
	EnvoyUnknownExtension = &Rule{
		ID:       string(model.CodeEnvoyUnknownExtension),
		Summary:  "an extension proxylint does not understand: its settings are kept but not checked",
		Severity: model.Note,
		Tags:     []string{"load", "envoy"},
	}
)
