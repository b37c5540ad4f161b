package load

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

// An include that was not read leaves unknown only what it could define:
// upstream blocks live in http, so one unread in a server block, or a MIME
// types table, leaves "app" a host; one unread at http level may declare
// "upstream app".
func TestUnreadIncludeIsUncertainOnlyWhereItCouldDefine(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside")
	site := func(httpInc, serverInc string) string {
		return "events {}\nhttp {\n" + httpInc + "    server {\n        listen 80;\n" + serverInc + "        location / { proxy_pass http://app; }\n    }\n}\n"
	}
	cases := []struct {
		name, conf string
		known      bool
	}{
		{"in server", site("", "        include "+outside+"/security.conf;\n"), true},
		{"mime.types in http", site("    include "+outside+"/mime.types;\n", ""), true},
		{"in http", site("    include "+outside+"/upstreams.conf;\n", ""), false},
		{"at the top level", "include " + outside + "/http.conf;\n" + site("", ""), false},
	}
	for _, c := range cases {
		tree(t, map[string]string{"nginx.conf": c.conf})
		m := Load([]string{"nginx.conf"}, Options{})
		require.Empty(t, fatals(m), c.name)
		require.Len(t, m.Diagnostics, 1, c.name)
		u := upstreamOf(t, m)
		if c.known {
			require.NotNil(t, u, c.name)
			assert.Equal(t, "app:80", u.Name, c.name)
		} else {
			assert.Nil(t, u, c.name)
		}
	}
}

// A relative include that leads out of the tree is not looked at either.
func TestRelativeIncludeOutsideTreeIsNotRead(t *testing.T) {
	dir := tree(t, map[string]string{
		"outside/shared.conf": "upstream app { server 10.0.0.1; }\n",
		"repo/nginx.conf":     "events {}\nhttp {\n    include ../outside/shared.conf;\n    include ../outside/missing.conf;\n}\n",
	})
	t.Chdir(filepath.Join(dir, "repo"))
	m := Load([]string{"nginx.conf"}, Options{})
	var got []string
	for _, d := range m.Diagnostics {
		assert.Equal(t, model.Note, d.Severity)
		got = append(got, d.Pos.String()+": "+d.Message)
	}
	assert.Equal(t, []string{
		"nginx.conf:3:13: include \"../outside/shared.conf\": ../outside/shared.conf is outside the linted tree and was not read (widen it with --include-root)",
		"nginx.conf:4:13: include \"../outside/missing.conf\": ../outside/missing.conf is outside the linted tree and was not read (widen it with --include-root)",
	}, got)
}
