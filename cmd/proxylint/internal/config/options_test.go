package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// The options a file sets are what its keys say, with the default write
// patterns kept beside the file's own.
func TestOptionsOfAFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\n"), 0o644))
	src := `
target: [nginx:1.28, envoy:1.31]
rules:
  enable: [upstream-no-keepalive]
  disable: [unused-suppression]
  severity:
    upstream-no-keepalive: error
write-locations: ['^/refunds']
entry-points: [nginx.conf]
exclude: ["*.bak"]
include-roots: [shared]
require-reason: true
chain:
  - client: 30s
  - backend: uvicorn
`
	t.Chdir(dir)
	c, err := Parse(".proxylint.yaml", dir, []byte(src))
	require.NoError(t, err)

	r := c.RuleOptions()
	// Every rule is switched: its default, then what the file says.
	wantOn, wantOff := map[string]bool{}, map[string]bool{}
	for _, rule := range rules.All() {
		on := !rule.Off
		switch rule.ID {
		case "upstream-no-keepalive":
			on = true
		case "unused-suppression":
			on = false
		}
		if on {
			wantOn[rule.ID] = true
		} else {
			wantOff[rule.ID] = true
		}
	}
	assert.Equal(t, wantOn, r.Enable)
	assert.Equal(t, wantOff, r.Disable)
	assert.True(t, r.Disable["unused-suppression"])
	assert.Equal(t, map[string]model.Severity{"upstream-no-keepalive": model.Error}, r.Severity)
	require.Len(t, r.WritePaths, len(rules.DefaultWritePaths)+1)
	assert.True(t, r.WritePaths[0].MatchString("/orders/1"), "the default patterns first")
	assert.True(t, r.WritePaths[len(r.WritePaths)-1].MatchString("/refunds/9"))
	assert.True(t, r.RequireReason)

	l := c.LoadOptions()
	assert.Equal(t, c.Targets, l.Targets)
	assert.Equal(t, []string{filepath.Join(dir, "nginx.conf")}, l.EntryPoints)
	assert.Equal(t, []string{"*.bak"}, l.Exclude)
	assert.Equal(t, []string{filepath.Join(dir, "shared")}, l.IncludeRoots)

	ch := c.DeclaredChain()
	require.NotNil(t, ch)
	require.Len(t, ch.Hops, 2)
	assert.Equal(t, model.HopClient, ch.Hops[0].Kind)
	assert.Equal(t, model.HopBackend, ch.Hops[1].Kind)
}

// No file, or an empty one, sets nothing: every rule at its default.
func TestOptionsOfNoFile(t *testing.T) {
	var none *Config
	for _, c := range []*Config{none, {}} {
		r := c.RuleOptions()
		for _, rule := range rules.All() {
			assert.Equal(t, !rule.Off, r.Enable[rule.ID], rule.ID)
			assert.Equal(t, rule.Off, r.Disable[rule.ID], rule.ID)
		}
		assert.Equal(t, len(rules.All()), len(r.Enable)+len(r.Disable))
		assert.Nil(t, r.WritePaths, "nil: the engine's defaults")
		assert.False(t, r.RequireReason)
		assert.Empty(t, c.LoadOptions().EntryPoints)
		assert.Nil(t, c.DeclaredChain())
	}
}
