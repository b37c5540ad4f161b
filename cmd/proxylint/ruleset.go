package main

import (
	"fmt"
	"strings"

	"github.com/proxylint/proxylint/cmd/proxylint/internal/config"
	"github.com/proxylint/proxylint/rules"
)

// allRules is the word that stands for every rule in --enable, --disable,
// --only and the configuration file's rules.enable and rules.disable.
const allRules = config.AllRules

// ruleChoice is one rule turned on or off by --enable or --disable, in
// the order of the command line; id may be allRules.
type ruleChoice struct {
	on bool
	id string
}

// choiceFlag collects --enable or --disable into the one ordered list
// both write, so that "--disable all --enable RULE" runs RULE alone and
// "--enable all --disable RULE" every rule but RULE.
type choiceFlag struct {
	on   bool
	list *[]ruleChoice
}

func (c choiceFlag) String() string { return "" }
func (c choiceFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*c.list = append(*c.list, ruleChoice{c.on, v})
		}
	}
	return nil
}

// checkRuleID refuses an ID that names no rule, with a suggestion; "all"
// names every rule.
func checkRuleID(id string) error {
	if id == allRules {
		return nil
	}
	if _, ok := rules.Lookup(id); ok {
		return nil
	}
	if near := nearestRule(id); near != "" {
		return fmt.Errorf("unknown rule %q; did you mean %q?", id, near)
	}
	return fmt.Errorf("unknown rule %q (see proxylint rules; \"all\" names every rule)", id)
}

// ruleSwitches decides which rules run: each rule's default, then the
// configuration file (rules.disable: [all] or rules.enable: [all] first,
// then the rules it names, a rule in both lists off), then the command
// line's --enable and --disable in their order, "all" switching every
// rule. A rule may be named by one of its aliases (another linter's name
// for the check): the result holds IDs, so that a flag overrides the
// configuration whichever name each uses. --only (only, when not nil)
// replaces all of that: the rules it
// names run, and no other. The result holds every rule, in enable or in
// disable.
func ruleSwitches(cfgEnable, cfgDisable []string, choices []ruleChoice, only []string) (enable, disable map[string]bool) {
	on := map[string]bool{}
	setAll := func(v bool) {
		for _, r := range rules.All() {
			on[r.ID] = v
		}
	}
	for _, r := range rules.All() {
		on[r.ID] = !r.Off
	}
	if only != nil {
		setAll(false)
		for _, id := range only {
			if id == allRules {
				setAll(true)
			} else {
				on[rules.Canonical(id)] = true
			}
		}
	} else {
		if contains(cfgDisable, allRules) {
			setAll(false)
		}
		if contains(cfgEnable, allRules) {
			setAll(true)
		}
		for _, id := range cfgEnable {
			if id != allRules {
				on[rules.Canonical(id)] = true
			}
		}
		for _, id := range cfgDisable {
			if id != allRules {
				on[rules.Canonical(id)] = false
			}
		}
		for _, c := range choices {
			if c.id == allRules {
				setAll(c.on)
			} else {
				on[rules.Canonical(c.id)] = c.on
			}
		}
	}
	enable, disable = map[string]bool{}, map[string]bool{}
	for id, v := range on {
		if v {
			enable[id] = true
		} else {
			disable[id] = true
		}
	}
	return enable, disable
}
