package playground

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// brief is a finding as the tests compare them: rule, position, and each
// related place.
func brief(f Finding) string {
	s := fmt.Sprintf("%s %s:%d:%d", f.Rule, f.File, f.Line, f.Column)
	for _, r := range f.Related {
		s += fmt.Sprintf(" [%s:%d %s]", r.File, r.Line, r.Message)
	}
	return s
}

func briefs(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, brief(f))
	}
	return out
}

func example(t *testing.T, id string) Example {
	t.Helper()
	for _, e := range Examples() {
		if e.ID == id {
			return e
		}
	}
	t.Fatalf("no example %s", id)
	return Example{}
}

// applyUTF16 applies edits as the page does, on the text as a browser
// holds it: UTF-16 code units.
func applyUTF16(text string, edits []Edit) string {
	u := utf16.Encode([]rune(text))
	sorted := append([]Edit(nil), edits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].From > sorted[j].From })
	for _, e := range sorted {
		u = append(append(append([]uint16{}, u[:e.From]...), utf16.Encode([]rune(e.Text))...), u[e.To:]...)
	}
	return string(utf16.Decode(u))
}

// files applies a finding's edits to the request's files.
func applyFix(files []File, f Finding) map[string]string {
	out := map[string]string{}
	for _, file := range files {
		var mine []Edit
		for _, e := range f.Edits {
			if e.File == file.Name {
				mine = append(mine, e)
			}
		}
		out[file.Name] = applyUTF16(file.Text, mine)
	}
	return out
}

// The nginx example is linted as one configuration: the findings at http
// level of nginx.conf point into the site it includes, and the fix for
// the unpooled upstream edits both files.
func TestNginxExampleLintsTheSiteThroughNginxConf(t *testing.T) {
	ex := example(t, "nginx-include")
	res := Lint(Request{Files: ex.Files})
	require.Empty(t, res.Error)
	assert.Equal(t, []string{"nginx 1.18 or newer"}, res.LintedFor)
	assert.Equal(t, []string{
		`log-format-blind nginx.conf:5:5 [nginx.conf:4 log_format main]`,
		`retry-timeout-write nginx.conf:9:5 [conf.d/shop.conf:7 in effect for location /api/]`,
		`retry-tries-unbounded nginx.conf:9:5 [conf.d/shop.conf:12 proxied to by location /orders/] [nginx.conf:12 the servers of upstream "shop"]`,
		`retry-tries-unbounded nginx.conf:9:5 [conf.d/shop.conf:8 proxied to by location /api/] [nginx.conf:12 the servers of upstream "shop"]`,
		`upstream-no-keepalive nginx.conf:12:5 [conf.d/shop.conf:8 used by proxy_pass]`,
	}, briefs(res.Findings))

	keepalive := res.Findings[4]
	assert.Equal(t, `add "keepalive 16;" to upstream "shop", with proxy_http_version 1.1 and proxy_set_header Connection "" where it is proxied to`, keepalive.Fix)
	fixed := applyFix(ex.Files, keepalive)
	assert.Contains(t, fixed["nginx.conf"], "        server 10.0.0.12:8080;\n        keepalive 16;\n    }\n")
	assert.Equal(t, 2, strings.Count(fixed["conf.d/shop.conf"], "        proxy_pass http://shop;\n        proxy_http_version 1.1;\n        proxy_set_header Connection \"\";\n"))

	// Fixed, the upstream is pooled and the finding is gone.
	var after []File
	for _, f := range ex.Files {
		after = append(after, File{Name: f.Name, Text: fixed[f.Name]})
	}
	for _, f := range Lint(Request{Files: after}).Findings {
		assert.NotEqual(t, "upstream-no-keepalive", f.Rule, brief(f))
	}

	// nginx 1.29.7 pools an upstream block without keepalive.
	res = Lint(Request{Files: ex.Files, Targets: []string{"nginx:1.29.7"}})
	assert.Equal(t, []string{"nginx:1.29.7"}, res.LintedFor)
	for _, f := range res.Findings {
		assert.NotEqual(t, "upstream-no-keepalive", f.Rule, brief(f))
	}
}

// Envoy in front of nginx: the findings about the request's path name the
// other file.
func TestEnvoyNginxExampleLinksTheHops(t *testing.T) {
	res := Lint(Request{Files: example(t, "envoy-nginx").Files})
	require.Empty(t, res.Error)
	assert.Equal(t, []string{
		`timeout-equal-adjacent envoy.yaml:26:19 [nginx.conf:11 the inner layer's proxy_read_timeout 60s (default)] [envoy.yaml:25 proxied to nginx:8080 here]`,
		`retry-amplification envoy.yaml:28:21 [nginx.conf:11 location / (nginx.conf) retries too (2 attempts)]`,
		`keepalive-idle-race envoy.yaml:35:5 [nginx.conf:9 closes idle connections after 75s] [envoy.yaml:25 used by route /]`,
		`log-format-blind nginx.conf:3:1`,
	}, briefs(res.Findings))
}

// The Envoy example's listener asks RDS for the routes of routes.yaml.
// The two files are joined as Envoy joins them, by the route
// configuration's name: the route's retries of every method after a 5xx
// or a reset are reported in routes.yaml.
func TestEnvoyXDSExample(t *testing.T) {
	res := Lint(Request{Files: example(t, "envoy-xds").Files})
	require.Empty(t, res.Error)
	assert.Equal(t, []string{"envoy (newest)"}, res.LintedFor)
	assert.Equal(t, []string{
		`envoy-h1-unsafe-drain listeners.yaml:16:13 [listeners.yaml:11 the drain lasts drain_timeout 5s (default)] [listeners.yaml:11 then the close waits delayed_close_timeout 1s (default)] [listeners.yaml:14 codec_type HTTP1 serves HTTP/1]`,
		`retry-timeout-write routes.yaml:15:11 [routes.yaml:10 route /: the route has no :method matcher, so it carries every method] [routes.yaml:16 retry_policy.num_retries 2]`,
	}, briefs(res.Findings))
}

// lintDisk lints files on the disk as the command line does.
func lintDisk(paths []string) []rules.Finding {
	m, scope := load.LoadScoped(paths, load.Options{})
	steps := rules.Steps{}
	if scope != nil {
		steps.InScope = scope.Contains
	}
	return rules.Process(m, &rules.Options{}, rules.Check(m, &rules.Options{}), steps)
}

// Every example gives in memory what its files give on the disk, linted
// by the pipeline of the command line: the same findings, positions,
// messages, related places and fixes.
func TestExamplesLintAsOnTheDisk(t *testing.T) {
	for _, ex := range Examples() {
		t.Run(ex.ID, func(t *testing.T) {
			dir, err := filepath.Abs(filepath.Join("examples", ex.ID))
			require.NoError(t, err)
			t.Chdir(dir)
			var paths []string
			for _, f := range ex.Files {
				paths = append(paths, f.Name)
			}
			var disk []string
			for _, f := range lintDisk(paths) {
				s := fmt.Sprintf("%s %s %s:%d:%d %s | fix: %s", f.Severity, f.Rule, f.Pos.File, f.Pos.Line, f.Pos.Col, f.Message, f.Fix.Message)
				for _, r := range f.Related {
					s += fmt.Sprintf(" | %s:%d:%d %s", r.Pos.File, r.Pos.Line, r.Pos.Col, r.Message)
				}
				for _, e := range f.Fix.Edits {
					s += fmt.Sprintf(" | edit %s %q", e.File, e.New)
				}
				disk = append(disk, s)
			}
			var mem []string
			res := Lint(Request{Files: ex.Files})
			require.Empty(t, res.Error)
			for _, f := range res.Findings {
				s := fmt.Sprintf("%s %s %s:%d:%d %s | fix: %s", f.Severity, f.Rule, f.File, f.Line, f.Column, f.Message, f.Fix)
				for _, r := range f.Related {
					s += fmt.Sprintf(" | %s:%d:%d %s", r.File, r.Line, r.Column, r.Message)
				}
				for _, e := range f.Edits {
					s += fmt.Sprintf(" | edit %s %q", e.File, e.Text)
				}
				mem = append(mem, s)
			}
			require.NotEmpty(t, disk)
			assert.Equal(t, disk, mem)
		})
	}
}

// Every file under examples/ is in an example, and every example's files
// are embedded.
func TestExamplesHoldEveryFile(t *testing.T) {
	listed := map[string]bool{}
	for _, ex := range Examples() {
		require.NotEmpty(t, ex.Files, ex.ID)
		for _, f := range ex.Files {
			listed[filepath.Join(ex.ID, f.Name)] = true
		}
	}
	on := map[string]bool{}
	require.NoError(t, filepath.WalkDir("examples", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel("examples", p)
			on[rel] = true
		}
		return err
	}))
	assert.Equal(t, on, listed)
}

// Edits count UTF-16 code units, as the page's strings do, whatever the
// text before them holds: accents, CJK, characters beyond the BMP.
func TestEditsCountUTF16(t *testing.T) {
	conf := "# Grüße, 日本, 🚀🚀\nevents {}\nhttp {\n    upstream app { # ☕\n        server 10.0.0.1:8000;\n    }\n" +
		"    server {\n        listen 80; # 🚀\n        location / {\n            proxy_pass http://app;\n        }\n    }\n}\n"
	files := []File{{Name: "nginx.conf", Text: conf}}
	res := Lint(Request{Files: files, Targets: []string{"nginx:1.28"}})
	var keepalive *Finding
	for i, f := range res.Findings {
		if f.Rule == "upstream-no-keepalive" {
			keepalive = &res.Findings[i]
		}
	}
	require.NotNil(t, keepalive, briefs(res.Findings))
	require.Len(t, keepalive.Edits, 2)
	// Lines 1 to 5 take 18 (each 🚀 is two units), 10, 7, 23 and 30
	// units; their bytes are more.
	assert.Equal(t, Edit{File: "nginx.conf", From: 88, To: 88, Line: 6, Column: 1, Text: "        keepalive 16;\n"}, keepalive.Edits[0])
	assert.Equal(t, "# Grüße, 日本, 🚀🚀\nevents {}\nhttp {\n    upstream app { # ☕\n        server 10.0.0.1:8000;\n        keepalive 16;\n    }\n"+
		"    server {\n        listen 80; # 🚀\n        location / {\n            proxy_pass http://app;\n"+
		"            proxy_http_version 1.1;\n            proxy_set_header Connection \"\";\n        }\n    }\n}\n",
		applyFix(files, *keepalive)["nginx.conf"])
}

// A request the page cannot lint says why.
func TestBadRequests(t *testing.T) {
	conf := []File{{Name: "nginx.conf", Text: "events {}\nhttp {}\n"}}
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{}, "no files to lint"},
		{Request{Files: conf, Targets: []string{"nginx:0.9"}}, `target "nginx:0.9": proxylint models nginx 1.18 to 1.31.4; name a release in that range, or nginx:newest`},
		{Request{Files: conf, Targets: []string{"apache"}}, `unknown target "apache"`},
		{Request{Files: conf, Kind: "haproxy"}, `unknown kind "haproxy" (want nginx, envoy or kubernetes)`},
		{Request{Files: append(conf, File{Name: "/nginx.conf"})}, "two files are named /nginx.conf"},
		{Request{Files: []File{{Name: ""}}}, `a file needs a name ("")`},
	} {
		res := Lint(c.req)
		assert.Contains(t, res.Error, c.want)
		assert.NotNil(t, res.Findings, "an empty list, not null, for the page")
	}
}

// What the files include and the request lacks is a note, not an error:
// the page has no disk to read it from, and reads none.
func TestIncludeNotGivenIsANote(t *testing.T) {
	if _, err := os.Stat("/etc/nginx/mime.types"); err != nil {
		t.Log("no /etc/nginx/mime.types here: the test shows less")
	}
	res := Lint(Request{Files: []File{{Name: "nginx.conf", Text: "events {}\nhttp {\n    include /etc/nginx/mime.types;\n    include conf.d/*.conf;\n}\n"}}})
	require.Empty(t, res.Error)
	var got []string
	for _, f := range res.Findings {
		got = append(got, fmt.Sprintf("%s %s %s:%d:%d %s", f.Severity, f.Rule, f.File, f.Line, f.Column, f.Message))
	}
	assert.Equal(t, []string{
		`note nginx-include nginx.conf:3:13 include "/etc/nginx/mime.types": /etc/nginx/mime.types is not in the files given, so it was not linted`,
	}, got)
}

// A file placed under a directory is found by an absolute include of it,
// and a kind forced on a file is how it is read.
func TestNamesAreAPathsBelowTheRoot(t *testing.T) {
	files := []File{
		{Name: "etc/nginx/nginx.conf", Text: "events {}\nhttp {\n    include /etc/nginx/conf.d/*.conf;\n}\n"},
		{Name: "etc/nginx/conf.d/app.conf", Text: "upstream app { server 10.0.0.1:8000; }\nserver {\n    listen 80;\n    location / { proxy_pass http://app; }\n}\n"},
	}
	res := Lint(Request{Files: files, Targets: []string{"nginx:1.28"}})
	assert.Equal(t, []string{
		"upstream-no-keepalive etc/nginx/conf.d/app.conf:1:1 [etc/nginx/conf.d/app.conf:4 used by proxy_pass]",
		"log-format-blind etc/nginx/nginx.conf:2:1",
	}, briefs(res.Findings))

	res = Lint(Request{Files: []File{{Name: "site.txt", Text: "server { listen 80; }\n"}}, Kind: "envoy"})
	require.NotEmpty(t, res.Findings)
	assert.Equal(t, "envoy-invalid", res.Findings[0].Rule, briefs(res.Findings))
}

// Warm lints an Envoy file that has nothing to find.
func TestWarmFindsNothing(t *testing.T) {
	res := Lint(Request{Files: []File{{Name: "envoy.yaml", Text: warmEnvoy}}})
	assert.Empty(t, res.Error)
	assert.Equal(t, []string{}, briefs(res.Findings))
	assert.Equal(t, []string{"envoy (newest)"}, res.LintedFor)
	Warm()
}
