package config

import (
	"regexp"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// What a configuration file sets for a run, before the command line has
// its say: the lint command lays its flags over these, and the language
// server uses them as they are. A nil Config sets nothing.

// RuleOptions are the rule engine's options the file sets: the rules it
// turns on and off (both maps are never nil), their severities, the write
// locations (added to the default patterns) and whether a suppression
// needs a reason.
func (c *Config) RuleOptions() *rules.Options {
	if c == nil {
		c = &Config{}
	}
	o := &rules.Options{Enable: idSet(c.Enable), Disable: idSet(c.Disable), Severity: c.Severity}
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

func idSet(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}
