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

// ruleSwitches decides which rules run, as config.RuleSwitches does with
// the command line's --enable and --disable choices and --only.
func ruleSwitches(cfgEnable, cfgDisable []string, choices []ruleChoice, only []string) (enable, disable map[string]bool) {
	cs := make([]config.Choice, len(choices))
	for i, c := range choices {
		cs[i] = config.Choice{On: c.on, ID: c.id}
	}
	return config.RuleSwitches(cfgEnable, cfgDisable, cs, only)
}
