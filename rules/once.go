package rules

import "github.com/proxylint/proxylint/model"

// reported remembers the findings a rule made, by position and message.
// Routes inherit their settings, so a rule that looks at every route meets
// one setting's finding once per route that inherits it; the report keeps
// the first of equal findings (Sort), and a rule that asks first before
// working out the finding's fix spends that work once.
type reported map[reportedKey]struct{}

type reportedKey struct {
	pos     model.Pos
	message string
}

// first reports whether f is the first finding at its position with its
// message, and remembers it.
func (r reported) first(f Finding) bool {
	k := reportedKey{f.Pos, f.Message}
	if _, ok := r[k]; ok {
		return false
	}
	r[k] = struct{}{}
	return true
}
