package rules

import "github.com/proxylint/proxylint/model"

// Rules under which loaders report what kept them from reading a
// configuration. They have no Check: the loaders find these problems.
var (
	LoadError = &Rule{
		ID:       string(model.CodeLoad),
		Summary:  "a file could not be read or its kind could not be told",
		Severity: model.Error,
		Tags:     []string{"load"},
	}
	NginxSyntax = &Rule{
		ID:       string(model.CodeNginxSyntax),
		Summary:  "nginx would refuse to read this configuration",
		Severity: model.Error,
		Tags:     []string{"load", "nginx"},
	}
	NginxInclude = &Rule{
		ID:       string(model.CodeNginxInclude),
		Summary:  "an include cannot be followed: missing, cyclic, not a regular file or outside the linted tree",
		Severity: model.Error,
		Tags:     []string{"load", "nginx"},
	}
)
