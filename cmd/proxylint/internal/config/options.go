package config

import (
	"regexp"
	"slices"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// What a configuration file sets for a run, before the command line has
// its say: the lint command lays its flags over these, and the language
// server uses them as they are. A nil Config sets nothing.

// RuleOptions are the rule engine's options the file sets: the rules it
// turns on and off (RuleSwitches: every rule is in one of the two maps),
// their severities, the write
// locations (added to the default patterns) and whether a suppression
// needs a reason.
func (c *Config) RuleOptions() *rules.Options {
	if c == nil {
		c = &Config{}
	}
	o := &rules.Options{Severity: c.Severity}
	o.Enable, o.Disable = RuleSwitches(c.Enable, c.Disable, nil, nil)
	if len(c.WriteLocations) > 0 {
		for _, p := range rules.DefaultWritePaths {
			o.WritePaths = append(o.WritePaths, regexp.MustCompile(p))
		}
		o.WritePaths = append(o.WritePaths, c.WriteLocations...)
	}
	if c.RequireReason != nil {
		o.RequireReason = *c.RequireReason
	}
	return o
}

// LoadOptions are the loader's options the file sets: the targets, the
// include roots, the paths to skip, the entry points and the directives of
// private nginx modules.
func (c *Config) LoadOptions() load.Options {
	if c == nil {
		return load.Options{}
	}
	return load.Options{
		Targets:      append([]model.Target{}, c.Targets...),
		IncludeRoots: append([]string{}, c.IncludeRoots...),
		Exclude:      append([]string{}, c.Exclude...),
		EntryPoints:  c.EntryPoints,
		Directives:   c.Directives,
	}
}

// DeclaredChain is the chain of hops the file declares around the
// configurations (client, balancers outermost first, backend), nil when
// it declares none.
func (c *Config) DeclaredChain() *model.Chain {
	if c == nil || len(c.Chain) == 0 {
		return nil
	}
	return &model.Chain{Hops: append([]*model.Hop{}, c.Chain...)}
}

// Choice is one rule turned on or off by --enable or --disable, in the
// order of the command line; ID may be AllRules.
type Choice struct {
	On bool
	ID string
}

// RuleSwitches decides which rules run: each rule's default, then the
// configuration file (rules.disable: [all] or rules.enable: [all] first,
// then the rules it names, a rule in both lists off), then the command
// line's choices in their order, "all" switching every rule. A rule may be
// named by one of its aliases (another linter's name for the check): the
// result holds IDs, so that a flag overrides the configuration whichever
// name each uses. only, when not nil (--only), replaces all of that: the
// rules it names run, and no other. The result holds every rule, in
// enable or in disable. The command line and the language server decide
// by it alike.
func RuleSwitches(cfgEnable, cfgDisable []string, choices []Choice, only []string) (enable, disable map[string]bool) {
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
			if id == AllRules {
				setAll(true)
			} else {
				on[rules.Canonical(id)] = true
			}
		}
	} else {
		if slices.Contains(cfgDisable, AllRules) {
			setAll(false)
		}
		if slices.Contains(cfgEnable, AllRules) {
			setAll(true)
		}
		for _, id := range cfgEnable {
			if id != AllRules {
				on[rules.Canonical(id)] = true
			}
		}
		for _, id := range cfgDisable {
			if id != AllRules {
				on[rules.Canonical(id)] = false
			}
		}
		for _, c := range choices {
			if c.ID == AllRules {
				setAll(c.On)
			} else {
				on[rules.Canonical(c.ID)] = c.On
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
