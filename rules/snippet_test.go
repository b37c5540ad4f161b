package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// TestSnippetThroughASite: a location-level snippet that a site of the
// repository includes, and no whole configuration, is linted through the
// site: what the site gives it (the address in its "set") is judged
// there. The site is one use of the snippet; other locations may include
// it where the log is decided by configuration that was not found, so
// the snippet that sets no access_log keeps its note, even where the one
// location found turns the log off.
func TestSnippetThroughASite(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"conf.d/default.conf":        "server {\n    listen 80;\n    set $server \"127.0.0.1\";\n    set $port \"8080\";\n    include conf.d/include/assets.conf;\n}\n",
		"conf.d/include/assets.conf": "location ~* \\.(css|js)$ {\n    access_log off;\n    include conf.d/include/proxy.conf;\n}\n",
		"conf.d/include/proxy.conf":  "proxy_set_header Host $host;\nproxy_pass http://$server:$port$request_uri;\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
	t.Chdir(filepath.Join(dir, "conf.d", "include"))
	m, scope := load.LoadScoped([]string{"proxy.conf"}, load.Options{})
	only := &rules.Options{Disable: map[string]bool{}}
	for _, r := range rules.All() {
		if r.ID != "log-format-blind" && r.ID != "upstream-no-keepalive" {
			only.Disable[r.ID] = true
		}
	}
	type got struct {
		rule string
		line int
	}
	var findings []got
	for _, f := range rules.Process(m, only, rules.Check(m, only), rules.Steps{InScope: scope.Contains}) {
		if f.Rule == "nginx-include" {
			continue
		}
		assert.Equal(t, "proxy.conf", filepath.Base(f.Pos.File))
		findings = append(findings, got{f.Rule, int(f.Pos.Line)})
		if f.Rule == "log-format-blind" {
			assert.Contains(t, f.Message, "This snippet sets no access_log, so what it proxies is logged by each location that includes it: location ~* \\.(css|js)$, which was found, is one, and the configuration of the others was not found")
		}
		if f.Rule == "upstream-no-keepalive" {
			assert.Contains(t, f.Message, "proxy_pass to 127.0.0.1:8080 has no upstream block")
		}
	}
	assert.ElementsMatch(t, []got{{"log-format-blind", 1}, {"upstream-no-keepalive", 2}}, findings)
}

// TestServerFragmentThroughASite: a server-level file (locations) that a
// site includes, where neither sets an access_log and nothing found
// includes the site, still gets the stock includers' note, at its own
// first line: the site's default log is the includer's.
func TestServerFragmentThroughASite(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"sites/app.conf":              "server {\n    listen 80;\n    include sites/common/locations.conf;\n}\n",
		"sites/common/locations.conf": "location / {\n    proxy_pass http://10.0.0.1:8080;\n}\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
	t.Chdir(filepath.Join(dir, "sites", "common"))
	m, scope := load.LoadScoped([]string{"locations.conf"}, load.Options{})
	only := &rules.Options{Disable: map[string]bool{}}
	for _, r := range rules.All() {
		if r.ID != "log-format-blind" {
			only.Disable[r.ID] = true
		}
	}
	var got []string
	for _, f := range rules.Process(m, only, rules.Check(m, only), rules.Steps{InScope: scope.Contains}) {
		if f.Rule == "log-format-blind" {
			got = append(got, fmt.Sprintf("%s:%d %s", filepath.Base(f.Pos.File), f.Pos.Line, f.Message))
		}
	}
	require.Len(t, got, 1)
	assert.Regexp(t, `^locations.conf:1 This file sets no access_log, nor does app.conf, which includes it, and no configuration found includes that: included by a distribution's nginx.conf`, got[0])
}
