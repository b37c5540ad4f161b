package rules_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/bench/gen"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// On a model large enough, the rules run side by side; the findings must
// be those running them one after the other gives, in the same order.
func TestRulesSideBySideAsInOrder(t *testing.T) {
	main, err := gen.NginxTree{Servers: 60}.Write(t.TempDir())
	require.NoError(t, err)
	m := load.Load([]string{main}, load.Options{Targets: []model.Target{{Product: model.Nginx}}})
	routes := 0
	for _, p := range m.Proxies {
		routes += len(p.Routes())
	}
	require.GreaterOrEqual(t, routes, 256, "a model the rules run side by side on")
	check := func(procs int) []rules.Finding {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return rules.Check(m, nil)
	}
	inOrder := check(1)
	require.NotEmpty(t, inOrder)
	assert.Equal(t, inOrder, check(4))
}
