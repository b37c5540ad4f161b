package rules_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A comment meant as a suppression but not written as one suppresses
// nothing, so the finding stays, and the comment is reported with the
// form that works.
func TestAlmostSuppressions(t *testing.T) {
	for _, c := range []struct{ comment, want string }{
		{"# proxylint: ignore upstream-no-keepalive -- x", `"# proxylint: ignore upstream-no-keepalive -- x" is not a suppression proxylint reads; write "# proxylint:ignore upstream-no-keepalive -- x". It suppresses nothing.`},
		{"#proxylint ignore upstream-no-keepalive", `"# proxylint ignore upstream-no-keepalive" is not a suppression proxylint reads; write "# proxylint:ignore upstream-no-keepalive". It suppresses nothing.`},
		{"# proxylint:ignore-line upstream-no-keepalive", `"# proxylint:ignore-line upstream-no-keepalive" is not a suppression proxylint reads; write "# proxylint:ignore upstream-no-keepalive". It suppresses nothing.`},
		{"# ProxyLint:Ignore upstream-no-keepalive", `"# ProxyLint:Ignore upstream-no-keepalive" is not a suppression proxylint reads; write "# proxylint:ignore upstream-no-keepalive". It suppresses nothing.`},
		{"# proxylint:ignore-next-line upstream-no-keepalive", `write "# proxylint:ignore upstream-no-keepalive"`},
		{"# PROXYLINT:IGNORE-FILE upstream-no-keepalive", `write "# proxylint:ignore-file upstream-no-keepalive"`},
		{"# proxylint:ignore-line", `write "# proxylint:ignore RULE -- reason"`},
	} {
		t.Run(c.comment, func(t *testing.T) {
			fs := lintFiles(t, nil, "nginx.conf", conf("        location / {\n            "+c.comment+"\n            proxy_pass http://127.0.0.1:8000;\n        }\n"))
			assert.Equal(t, []string{"nginx.conf:6 warning invalid-suppression", "nginx.conf:7 warning upstream-no-keepalive"}, summarise(fs))
			for _, f := range fs {
				if f.Rule == "invalid-suppression" {
					assert.Contains(t, f.Message, c.want)
				}
			}
		})
	}
}

// Comments that mention proxylint, and the right forms, are left alone.
func TestNotAlmostSuppressions(t *testing.T) {
	for _, comment := range []string{
		"# proxylint checks this file in CI",
		"# proxylint ignores nothing here",
		"# proxylintrc",
	} {
		fs := lintFiles(t, nil, "nginx.conf", conf("        location / {\n            "+comment+"\n            proxy_pass http://127.0.0.1:8000;\n        }\n"))
		assert.Equal(t, []string{"nginx.conf:7 warning upstream-no-keepalive"}, summarise(fs), comment)
	}
	fs := lintFiles(t, nil, "nginx.conf", conf("        location / {\n            # proxylint:ignore upstream-no-keepalive -- x\n            proxy_pass http://127.0.0.1:8000;\n        }\n"))
	assert.Equal(t, []string{`nginx.conf:7 warning upstream-no-keepalive suppressed@6 "x"`}, summarise(fs))
}

// A misspelt rule ID in a suppression gets the one it was close to.
func TestSuppressionSuggestsRule(t *testing.T) {
	fs := lintFiles(t, nil, "nginx.conf", conf("        location / {\n            # proxylint:ignore upstream-no-keepalives -- x\n            proxy_pass http://127.0.0.1:8000;\n        }\n"))
	var msgs []string
	for _, f := range fs {
		if f.Rule == "invalid-suppression" {
			msgs = append(msgs, f.Message)
		}
	}
	require.Len(t, msgs, 1)
	assert.Equal(t, `proxylint:ignore names "upstream-no-keepalives", which is not a rule; did you mean "upstream-no-keepalive"? It suppresses nothing.`, msgs[0])
}
