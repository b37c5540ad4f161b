package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/parsers/nginx"
)

func TestDirectives(t *testing.T) {
	src := "directives:\n  - name: my_filter\n    contexts: [http, server]\n    args: 1-2\n  - name: my_flag\n    args: \"1\"\n  - name: my_list\n    args: 2+\n"
	c, err := Parse(".proxylint.yaml", t.TempDir(), []byte(src))
	require.NoError(t, err)
	assert.Equal(t, []nginx.CustomDirective{
		{Name: "my_filter", Contexts: []string{"http", "server"}, MinArgs: 1, MaxArgs: 2},
		{Name: "my_flag", MinArgs: 1, MaxArgs: 1},
		{Name: "my_list", MinArgs: 2, MaxArgs: -1},
	}, c.Directives)
}

func TestDirectivesErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"directives: my_filter\n", `.proxylint.yaml:1:13: directives must be a list of {name, contexts, args}`},
		{"directives:\n  - contexts: [http]\n", `.proxylint.yaml:2:5: directives: an entry has no name`},
		{"directives:\n  - name: x\n    contexts: [htp]\n", `.proxylint.yaml:3:16: directives: unknown context "htp"; the contexts are events, http, if, limit_except, location, mail, mail_server, main, server, stream, stream_server, stream_upstream, upstream`},
		{"directives:\n  - name: x\n    args: some\n", `.proxylint.yaml:3:11: directives: args "some" must be a count ("1"), a range ("1-3") or a minimum ("2+")`},
		{"directives:\n  - name: x\n    args: 3-1\n", `.proxylint.yaml:3:11: directives: args "3-1": the range is empty`},
		{"directives:\n  - name: x\n    block: yes\n", `.proxylint.yaml:3:5: directives: unknown key "block"; the keys are name, contexts, args`},
	}
	for _, c := range cases {
		_, err := Parse(".proxylint.yaml", t.TempDir(), []byte(c.src))
		if assert.Error(t, err, c.src) {
			assert.Equal(t, c.want, err.Error(), c.src)
		}
	}
}
