package rules

import "github.com/proxylint/proxylint/model"

// Unread reports whether a loader diagnostic says that part of a
// configuration was not read: a file that could not be loaded (Fatal), or
// an include that was not followed (nginx-include, a note when the file
// lies outside the linted tree). What was not read was not linted, so such
// a diagnostic is never suppressed, hidden by a baseline, demoted or
// turned off.
func Unread(d model.Diagnostic) bool {
	return d.Fatal || d.Code == model.CodeNginxInclude
}
