package rules

import "github.com/proxylint/proxylint/parsers"

// Rules under which the Envoy loader (parsers/envoy) reports what it met
// while reading a configuration; their IDs are the loader's codes. They
// have no Check: the loader finds these problems.
var (
	EnvoySyntax = register(&Rule{
		ID:       "envoy-syntax",
		Summary:  "the file is not YAML or JSON that Envoy could read",
		Severity: parsers.Error,
		Tags:     []string{"load", "envoy"},
	})
	EnvoyInvalid = register(&Rule{
		ID:       "envoy-invalid",
		Summary:  "Envoy would reject this configuration: an unknown field, a wrong value or a schema constraint",
		Severity: parsers.Error,
		Tags:     []string{"load", "envoy"},
	})
	EnvoyUnknownExtension = register(&Rule{
		ID:       "envoy-unknown-extension",
		Summary:  "an extension proxylint does not understand: its settings are kept but not checked",
		Severity: parsers.Note,
		Tags:     []string{"load", "envoy"},
	})
)
