package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// lintFiles writes files into a scratch directory and lints the first one.
func lintFiles(t *testing.T, opts *rules.Options, files ...string) []rules.Finding {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i+1 < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(files[i+1]), 0o644))
	}
	m := load.Load([]string{filepath.Join(dir, files[0])}, load.Options{Targets: []model.Target{{Product: model.Nginx}}, IncludeRoots: []string{dir}})
	return rules.Run(m, opts)
}

// summarise renders findings as "file:line severity rule [suppressed@line
// reason]" for compact comparisons.
// Only the rules these tests exercise are kept, so that new rules firing
// on the same configurations do not disturb them.
func summarise(fs []rules.Finding) []string {
	var out []string
	for _, f := range fs {
		switch f.Rule {
		case "upstream-no-keepalive", "unused-suppression", "invalid-suppression", "nginx-include":
		default:
			continue
		}
		s := fmt.Sprintf("%s:%d %s %s", filepath.Base(f.Pos.File), f.Pos.Line, f.Severity, f.Rule)
		if f.Suppression != nil {
			s += fmt.Sprintf(" suppressed@%d %q", f.Suppression.Pos.Line, f.Suppression.Reason)
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// conf wraps location bodies in a complete configuration; the first body
// line is line 5.
func conf(body string) string {
	return "events {}\nhttp {\n    server {\n        listen 80;\n" + body + "    }\n}\n"
}

func TestSuppressions(t *testing.T) {
	const pass = "proxy_pass http://127.0.0.1:8000;"
	cases := []struct {
		name string
		body string
		opts *rules.Options
		want []string
	}{
		{
			name: "trailing comment with reason",
			body: "        location / { " + pass + " } # proxylint:ignore upstream-no-keepalive -- local sidecar, one request a minute\n",
			want: []string{`nginx.conf:5 warning upstream-no-keepalive suppressed@5 "local sidecar, one request a minute"`},
		},
		{
			name: "comment on the line above",
			body: "        location / {\n            # proxylint:ignore upstream-no-keepalive -- sidecar\n            " + pass + "\n        }\n",
			want: []string{`nginx.conf:7 warning upstream-no-keepalive suppressed@6 "sidecar"`},
		},
		{
			name: "reason continued on further comment lines",
			body: "        location / {\n            # proxylint:ignore upstream-no-keepalive -- sidecar:\n            # it serves one request a minute\n            " + pass + "\n        }\n",
			want: []string{`nginx.conf:8 warning upstream-no-keepalive suppressed@6 "sidecar:"`},
		},
		{
			name: "a blank line breaks the link",
			body: "        location / {\n            # proxylint:ignore upstream-no-keepalive -- sidecar\n\n            " + pass + "\n        }\n",
			want: []string{
				"nginx.conf:6 note unused-suppression",
				"nginx.conf:8 warning upstream-no-keepalive",
			},
		},
		{
			name: "a trailing comment covers only its own line",
			body: "        location /a/ { return 204; } # proxylint:ignore upstream-no-keepalive -- x\n        location / { " + pass + " }\n",
			want: []string{
				"nginx.conf:5 note unused-suppression",
				"nginx.conf:6 warning upstream-no-keepalive",
			},
		},
		{
			name: "ignore-file anywhere",
			body: "        location / { " + pass + " }\n        # proxylint:ignore-file upstream-no-keepalive -- legacy vhost, replaced in Q3\n        location /b/ { proxy_pass http://127.0.0.2:8000; }\n",
			want: []string{
				`nginx.conf:5 warning upstream-no-keepalive suppressed@6 "legacy vhost, replaced in Q3"`,
				`nginx.conf:7 warning upstream-no-keepalive suppressed@6 "legacy vhost, replaced in Q3"`,
			},
		},
		{
			name: "without a reason",
			body: "        location / { " + pass + " } # proxylint:ignore upstream-no-keepalive\n",
			want: []string{`nginx.conf:5 warning upstream-no-keepalive suppressed@5 ""`},
		},
		{
			name: "require-reason",
			body: "        location / { " + pass + " } # proxylint:ignore upstream-no-keepalive --\n",
			opts: &rules.Options{RequireReason: true},
			want: []string{
				"nginx.conf:5 error invalid-suppression",
				`nginx.conf:5 warning upstream-no-keepalive suppressed@5 ""`,
			},
		},
		{
			name: "one rule of two unused",
			body: "        location / { " + pass + " } # proxylint:ignore upstream-no-keepalive, nginx-include -- x\n",
			want: []string{
				"nginx.conf:5 note unused-suppression",
				`nginx.conf:5 warning upstream-no-keepalive suppressed@5 "x"`,
			},
		},
		{
			name: "unknown rule",
			body: "        location / { " + pass + " } # proxylint:ignore upstream-no-keep-alive -- x\n",
			want: []string{
				"nginx.conf:5 warning invalid-suppression",
				"nginx.conf:5 warning upstream-no-keepalive",
			},
		},
		{
			name: "reason without the separator",
			body: "        location / { " + pass + " } # proxylint:ignore upstream-no-keepalive local only\n",
			want: []string{
				"nginx.conf:5 warning invalid-suppression",
				"nginx.conf:5 warning upstream-no-keepalive",
			},
		},
		{
			name: "no rule named",
			body: "        location / { " + pass + " } # proxylint:ignore -- everything\n",
			want: []string{
				"nginx.conf:5 warning invalid-suppression",
				"nginx.conf:5 warning upstream-no-keepalive",
			},
		},
		{
			name: "misspelt directive",
			body: "        location / { " + pass + " } # proxylint:ignored upstream-no-keepalive\n",
			want: []string{
				"nginx.conf:5 warning invalid-suppression",
				"nginx.conf:5 warning upstream-no-keepalive",
			},
		},
		{
			name: "audits ignore the comments",
			body: "        location / { " + pass + " } # proxylint:ignore upstream-no-keepalive -- x\n        # proxylint:ignore upstream-no-keepalive -- unused\n",
			opts: &rules.Options{NoInlineIgnores: true},
			want: []string{"nginx.conf:5 warning upstream-no-keepalive"},
		},
		{
			name: "a disabled rule's suppression is not reported unused",
			body: "        location / { " + pass + " } # proxylint:ignore upstream-no-keepalive -- x\n",
			opts: &rules.Options{Disable: map[string]bool{"upstream-no-keepalive": true}},
			want: nil,
		},
		{
			name: "unused-suppression can be turned off",
			body: "        location / { return 204; } # proxylint:ignore upstream-no-keepalive -- x\n",
			opts: &rules.Options{Disable: map[string]bool{"unused-suppression": true}},
			want: nil,
		},
		{
			name: "severity overrides apply to the suppression rules",
			body: "        location / { return 204; } # proxylint:ignore upstream-no-keepalive -- x\n",
			opts: &rules.Options{Severity: map[string]model.Severity{"unused-suppression": model.Warning}},
			want: []string{"nginx.conf:5 warning unused-suppression"},
		},
		{
			name: "not a suppression",
			body: "        location / { return 204; } # proxylint is not run on this file\n",
			want: nil,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := summarise(lintFiles(t, c.opts, "nginx.conf", conf(c.body)))
			assert.Equal(t, c.want, got)
		})
	}
}

func TestSuppressionInIncludedFile(t *testing.T) {
	fs := lintFiles(t, nil,
		"nginx.conf", conf("        include app.inc;\n"),
		"app.inc", "location / {\n    # proxylint:ignore upstream-no-keepalive -- the sidecar closes connections\n    proxy_pass http://127.0.0.1:8000;\n}\n",
	)
	assert.Equal(t, []string{`app.inc:3 warning upstream-no-keepalive suppressed@2 "the sidecar closes connections"`}, summarise(fs))
	// A suppression covers lines of its own file only.
	fs = lintFiles(t, nil,
		"nginx.conf", conf("        # proxylint:ignore upstream-no-keepalive -- x\n        include app.inc;\n"),
		"app.inc", "location / { proxy_pass http://127.0.0.1:8000; }\n",
	)
	assert.Equal(t, []string{"app.inc:1 warning upstream-no-keepalive", "nginx.conf:5 note unused-suppression"}, summarise(fs))
}

func TestLoadErrorsCannotBeSuppressed(t *testing.T) {
	fs := lintFiles(t, nil, "nginx.conf", conf("        include missing.conf; # proxylint:ignore nginx-include -- x\n"))
	got := summarise(fs)
	require.Len(t, got, 1, "%v", got)
	assert.True(t, strings.HasPrefix(got[0], "nginx.conf:5 error nginx-include"), got[0])
	assert.NotContains(t, got[0], "suppressed")
}

func TestSuppressionMessagesStandAlone(t *testing.T) {
	fs := lintFiles(t, nil, "nginx.conf", conf(
		"        location / { return 204; } # proxylint:ignore upstream-no-keepalive -- x\n"+
			"        location /b/ { return 204; } # proxylint:ignore nope -- x\n"))
	require.Len(t, fs, 2)
	assert.Equal(t, "proxylint:ignore upstream-no-keepalive suppresses nothing: upstream-no-keepalive reports no finding on line 5. Remove the comment, or the rule from it.", fs[0].Message)
	assert.Equal(t, `proxylint:ignore names "nope", which is not a rule. It suppresses nothing.`, fs[1].Message)
}
