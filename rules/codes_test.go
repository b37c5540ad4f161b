package rules_test

import (
	"testing"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// TestEveryCodeHasItsRule: each code a loader reports is the ID of a rule
// that documents it and has no Check (the loaders find these problems),
// and each such rule is a code: a diagnostic never reaches a rule by a
// string that may be misspelt.
func TestEveryCodeHasItsRule(t *testing.T) {
	codes := map[string]bool{}
	for _, c := range model.Codes() {
		codes[string(c)] = true
		r, ok := rules.Lookup(string(c))
		if !ok {
			t.Errorf("code %s has no rule", c)
			continue
		}
		if r.Check != nil {
			t.Errorf("rule %s reports a loader's code and checks the model too", r.ID)
		}
	}
	for _, r := range rules.All() {
		if r.Check == nil && !codes[r.ID] && r != rules.InvalidSuppression && r != rules.UnusedSuppression {
			t.Errorf("rule %s has no Check and is no loader's code (model.Codes)", r.ID)
		}
	}
}
