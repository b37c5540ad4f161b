package config

import (
	"testing"

	"github.com/proxylint/proxylint/rules"
)

// The rules a configuration file turns on and off are decided as the
// command line decides them, for every front end that reads the file (the
// language server among them): "all" switches every rule, an alias names
// its rule, and every rule ends in one of the two sets.
func TestRuleOptionsSwitchAsTheCommandLine(t *testing.T) {
	c := &Config{Disable: []string{AllRules}, Enable: []string{"add_header_redefinition"}}
	o := c.RuleOptions()
	if len(o.Enable) != 1 || !o.Enable["set-header-drops-inherited"] {
		t.Errorf("enabled %v, want set-header-drops-inherited alone", o.Enable)
	}
	if len(o.Enable)+len(o.Disable) != len(rules.All()) {
		t.Errorf("%d enabled and %d disabled of %d rules", len(o.Enable), len(o.Disable), len(rules.All()))
	}
	if o.Disable["set-header-drops-inherited"] || !o.Disable["retry-timeout-write"] {
		t.Errorf("disabled %v", o.Disable)
	}
	// Without a file, each rule's default.
	var none *Config
	for _, r := range rules.All() {
		if got := none.RuleOptions().Enable[r.ID]; got == r.Off {
			t.Errorf("rule %s: enabled %v, default off %v", r.ID, got, r.Off)
		}
	}
}
