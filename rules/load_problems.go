package rules

import "github.com/proxylint/proxylint/parsers"

// Rules under which loaders report what kept them from reading a
// configuration. They have no Check: the loaders find these problems.
var (
	LoadError = register(&Rule{
		ID:       "load-error",
		Summary:  "a file could not be read or its kind could not be told",
		Severity: parsers.Error,
		Tags:     []string{"load"},
	})
	NginxSyntax = register(&Rule{
		ID:       "nginx-syntax",
		Summary:  "nginx would refuse to read this configuration",
		Severity: parsers.Error,
		Tags:     []string{"load", "nginx"},
	})
	NginxInclude = register(&Rule{
		ID:       "nginx-include",
		Summary:  "an include cannot be followed: missing, cyclic, not a regular file or outside the linted tree",
		Severity: parsers.Error,
		Tags:     []string{"load", "nginx"},
	})
)
