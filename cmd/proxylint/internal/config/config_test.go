package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

func TestParseEverything(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "deploy"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "deploy", "nginx.conf"), []byte("events {}\n"), 0o644))
	src := `
target: nginx:1.28
fail-on: error
rules:
  enable: [upstream-no-keepalive]
  disable:
    - unused-suppression
  severity:
    upstream-no-keepalive: error
    invalid-suppression: note
write-locations:
  - '^/api/v[0-9]+/refunds'
entry-points: [deploy/nginx.conf]
exclude: ["*.bak", "vendor/", deploy/old/*.conf, "legacy/**"]
include-roots: [shared]
baseline: .proxylint-baseline.json
require-reason: true
`
	t.Chdir(dir) // the paths named must lie inside it (confine_test.go)
	c, err := Parse(".proxylint.yaml", dir, []byte(src))
	require.NoError(t, err)
	assert.Equal(t, []model.Target{{Product: model.Nginx, Version: model.Version{Major: 1, Minor: 28}}}, c.Targets)
	assert.Equal(t, model.Error, *c.FailOn)
	assert.Equal(t, []string{"upstream-no-keepalive"}, c.Enable)
	assert.Equal(t, []string{"unused-suppression"}, c.Disable)
	assert.Equal(t, map[string]model.Severity{"upstream-no-keepalive": model.Error, "invalid-suppression": model.Note}, c.Severity)
	require.Len(t, c.WriteLocations, 1)
	assert.True(t, c.WriteLocations[0].MatchString("/api/v2/refunds"))
	assert.Equal(t, []string{filepath.Join(dir, "deploy", "nginx.conf")}, c.EntryPoints)
	assert.Equal(t, []string{"*.bak", "vendor", filepath.ToSlash(dir) + "/deploy/old/*.conf", "legacy"}, c.Exclude)
	assert.Equal(t, []string{filepath.Join(dir, "shared")}, c.IncludeRoots)
	assert.Equal(t, filepath.Join(dir, ".proxylint-baseline.json"), c.Baseline)
	assert.True(t, *c.RequireReason)
}

func TestParseEmpty(t *testing.T) {
	for _, src := range []string{"", "# only a comment\n", "---\n"} {
		c, err := Parse(".proxylint.yaml", "/x", []byte(src))
		require.NoError(t, err, "%q", src)
		assert.Nil(t, c.Targets)
		assert.Nil(t, c.FailOn)
	}
}

// TestErrorsHavePositions: every mistake names the file, line and column.
func TestErrorsHavePositions(t *testing.T) {
	cases := []struct{ src, want string }{
		{"targte: nginx\n", `.proxylint.yaml:1:1: unknown key "targte"; the keys are baseline, chain, directives, entry-points, exclude, fail-on, include-roots, require-reason, rules, target, write-locations`},
		{"target: apache\n", `.proxylint.yaml:1:9: target: unknown target "apache" (want nginx[:X.Y[.Z]|:newest], angie[:X.Y], envoy[:X.Y], istio[:X.Y], ingress-nginx[:X.Y], envoy-gateway[:X.Y.Z], nginx-ingress[:X.Y.Z], contour[:X.Y.Z] or traefik[:X.Y.Z])`},
		{"target: nginx:1.x\n", `.proxylint.yaml:1:9: target: target "nginx:1.x": bad version "1.x" (want MAJOR[.MINOR[.PATCH]])`},
		{"fail-on: fatal\n", `.proxylint.yaml:1:10: fail-on: unknown severity "fatal" (want error, warning or note)`},
		{"rules:\n  disable: [upstream-no-keep-alive]\n", `.proxylint.yaml:2:13: unknown rule "upstream-no-keep-alive"; did you mean "upstream-no-keepalive"?`},
		{"rules:\n  disable: upstream-no-keepalive\n", `.proxylint.yaml:2:12: disable: want a list, e.g. disable: [upstream-no-keepalive]`},
		{"rules:\n  severity:\n    nothing-like-it: error\n", `.proxylint.yaml:3:5: unknown rule "nothing-like-it" ("proxylint rules" lists them)`},
		{"rules:\n  severity:\n    upstream-no-keepalive: critical\n", `.proxylint.yaml:3:28: upstream-no-keepalive: unknown severity "critical" (want error, warning or note)`},
		{"rules:\n  off: [x]\n", `.proxylint.yaml:2:3: rules: unknown key "off"; the keys are disable, enable, severity`},
		{"rules: [a]\n", `.proxylint.yaml:1:8: rules must be a mapping of keys to values`},
		{"write-locations: ['(unclosed']\n", "\\.proxylint\\.yaml:1:19: write-locations: \"\\(unclosed\" is not a regular expression: missing closing \\)"},
		{"entry-points: [nowhere/nginx.conf]\n", `.proxylint.yaml:1:16: entry-points: nowhere/nginx.conf does not exist (paths are relative to the directory of .proxylint.yaml)`},
		{"exclude: ['[']\n", `.proxylint.yaml:1:11: exclude: "[" is not a valid pattern: syntax error in pattern`},
		{"require-reason: yes\n", `.proxylint.yaml:1:17: require-reason: want true or false, not "yes"`},
		{"target: nginx\ntarget: angie\n", `.proxylint.yaml:2:1: the configuration: "target" is set twice`},
		{"chain: aws-alb\n", `.proxylint.yaml:1:8: chain must be a list of hops, outermost first: client, balancer..., backend`},
		{"chain:\n  - proxy: nginx.conf\n", `.proxylint.yaml:2:5: chain: unknown hop "proxy"; the hops are client, balancer and backend (the linted configurations link by address)`},
		{"chain:\n  - backend: node\n  - client: 30s\n", `.proxylint.yaml:3:5: chain: client is out of order; list the client first, then the balancers from the outside in, then the backend`},
		{"chain:\n  - balancer: aws-elb\n", `.proxylint.yaml:2:15: chain: balancer: "aws-elb" is neither a preset (aws-alb, cloudflare, gcp-lb) nor a duration`},
		{"chain:\n  - client: soon\n", `.proxylint.yaml:2:13: chain: client: bad duration "soon" (want e.g. 30s, 1m30s, 500ms)`},
		{"chain:\n  - balancer: {preset: aws-alb, timeot: 30s}\n", `.proxylint.yaml:2:33: chain: balancer: unknown key "timeot"; the keys are idle, name, pool-idle, preset, timeout`},
		{"chain:\n  - backend: {preset: node, idle: later}\n", `.proxylint.yaml:2:35: chain: backend: idle: want a duration such as 30s`},
		{"- a\n- b\n", `.proxylint.yaml:1:1: the configuration must be a mapping of keys to values`},
		{"target: nginx\n---\ntarget: angie\n", `.proxylint.yaml:2:1: a second YAML document; .proxylint.yaml holds one`},
		{"target: [nginx\n", `.proxylint.yaml:1: invalid YAML: did not find expected ',' or ']'`},
		{"target:\n", `.proxylint.yaml:1:8: target: want a value`},
	}
	dir := t.TempDir()
	for _, c := range cases {
		_, err := Parse(".proxylint.yaml", dir, []byte(c.src))
		if assert.Error(t, err, c.src) {
			if c.want[0] == '\\' {
				assert.Regexp(t, c.want, err.Error())
			} else {
				assert.Equal(t, c.want, err.Error(), c.src)
			}
		}
	}
}

func TestTemplateIsTheDefault(t *testing.T) {
	c, err := Parse(".proxylint.yaml", t.TempDir(), []byte(Template("nginx:1.22.1")))
	require.NoError(t, err)
	assert.Empty(t, c.Targets, "the machine's nginx is a hint, not a pin")
	assert.Equal(t, model.Warning, *c.FailOn)
	assert.Empty(t, c.Enable)
	assert.Empty(t, c.Disable)
	assert.Empty(t, c.Severity)
	assert.Empty(t, c.WriteLocations)
	assert.Empty(t, c.EntryPoints)
	assert.Empty(t, c.Exclude)
	assert.Empty(t, c.Baseline)
	assert.False(t, *c.RequireReason)
	assert.Empty(t, c.Chain)
	assert.Contains(t, Template(""), "#   upstream-no-keepalive (warning): ")
	assert.Contains(t, Template("nginx:1.22.1"), "\n# This machine runs nginx:1.22.1 (nginx -v on the PATH). Name it only if\n"+
		"# production runs that release too: linted for a newer nginx than\n"+
		"# production's, a configuration loses the findings about what\n"+
		"# production's defaults do.\n"+
		"# target: nginx:1.22.1\n\n")
	assert.NotContains(t, Template(""), "This machine")
}

func TestChain(t *testing.T) {
	c, err := Parse(".proxylint.yaml", t.TempDir(), []byte(`chain:
  - client: 30s
  - balancer: aws-alb
  - balancer: {preset: cloudflare, timeout: 125s}
  - balancer: {name: haproxy, timeout: 50s, idle: 20s}
  - backend: {preset: node, idle: 65s}
`))
	require.NoError(t, err)
	require.Len(t, c.Chain, 5)
	client, alb, cf, ha, be := c.Chain[0], c.Chain[1], c.Chain[2], c.Chain[3], c.Chain[4]
	assert.Equal(t, model.HopClient, client.Kind)
	assert.Equal(t, 30*time.Second, client.RequestTimeout.Value)
	assert.Equal(t, model.Pos{File: ".proxylint.yaml", Line: 2, Col: 13}, client.RequestTimeout.Pos())
	assert.Equal(t, 60*time.Second, alb.RequestTimeout.Value)
	assert.Equal(t, 125*time.Second, cf.RequestTimeout.Value, "a key overrides the preset's value")
	assert.Equal(t, 900*time.Second, cf.PoolIdleTimeout.Value, "the preset's other values stay")
	assert.Equal(t, "cloudflare", cf.Name)
	assert.Equal(t, "haproxy", ha.Name)
	assert.Equal(t, 20*time.Second, ha.IdleTimeout.Value)
	assert.False(t, ha.PoolIdleTimeout.Valid())
	assert.Equal(t, model.HopBackend, be.Kind)
	assert.Equal(t, 65*time.Second, be.IdleTimeout.Value)
	assert.Equal(t, 6, int(be.IdleTimeout.Pos().Line))
	assert.False(t, be.CancelsOnDisconnect.Value)
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	deep := filepath.Join(root, "a", "b")
	require.NoError(t, os.MkdirAll(deep, 0o755))

	p, err := Find(deep)
	require.NoError(t, err)
	assert.Empty(t, p, "none up to the repository root")

	require.NoError(t, os.WriteFile(filepath.Join(root, ".proxylint.yml"), nil, 0o644))
	p, err = Find(deep)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, ".proxylint.yml"), p)

	require.NoError(t, os.WriteFile(filepath.Join(root, "a", ".proxylint.yaml"), nil, 0o644))
	p, err = Find(deep)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "a", ".proxylint.yaml"), p, "the nearest wins")

	// Above the repository root is outside the project.
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub", "repo", ".git"), 0o755))
	p, err = Find(filepath.Join(root, "sub", "repo"))
	require.NoError(t, err)
	assert.Empty(t, p)
}

func TestExcludePattern(t *testing.T) {
	for in, want := range map[string]string{
		"*.bak":             "*.bak",
		"vendor/":           "vendor",
		"vendor/**":         "vendor",
		"deploy/old":        "/repo/deploy/old",
		"deploy/old/":       "/repo/deploy/old/**",
		"deploy/*.conf":     "/repo/deploy/*.conf",
		"/etc/nginx/x.conf": "/etc/nginx/x.conf",
	} {
		got, err := ExcludePattern(in, "/repo")
		require.NoError(t, err)
		assert.Equal(t, want, got, in)
	}
	_, err := ExcludePattern("/", "/repo")
	assert.Error(t, err)
}

// Nested lists the directories with a configuration file of their own,
// not below one of them, not in hidden or skipped directories.
func TestNested(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "a/deeper", "b/c", ".hidden", "vendor/lib"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, d, ".proxylint.yaml"), nil, 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "d"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "d", ".proxylint.yml"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".proxylint.yaml"), nil, 0o644))
	skip := func(abs string) bool {
		return Excluded(abs, []string{filepath.ToSlash(filepath.Join(root, "vendor")) + "/**"})
	}
	got, err := Nested(root, skip)
	require.NoError(t, err)
	want := []string{"a", "b/c", "d"}
	for i := range want {
		want[i] = filepath.Join(root, want[i])
	}
	assert.Equal(t, want, got)
	got, err = Nested(root, nil)
	require.NoError(t, err)
	assert.Contains(t, got, filepath.Join(root, "vendor", "lib"))
}

func TestExcluded(t *testing.T) {
	patterns := []string{"*.bak", "node_modules", "/repo/deploy/old/**", "/repo/tmp/*.conf"}
	for p, want := range map[string]bool{
		"/repo/a.conf.bak":           true,
		"/repo/web/node_modules":     true,
		"/repo/deploy/old":           true,
		"/repo/deploy/old/x/y":       true,
		"/repo/deploy/older":         false,
		"/repo/tmp/a.conf":           true,
		"/repo/tmp/sub/a.conf":       false,
		"/repo/deploy/nginx.conf":    false,
		"/repo/node_modules_not/x.c": false,
	} {
		assert.Equal(t, want, Excluded(p, patterns), p)
	}
}
