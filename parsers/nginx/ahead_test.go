package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The files of a glob are parsed side by side before the include reads
// them in order; what the include reads must be what reading them one
// after the other gives, whatever stops the include part of the way: a
// syntax error in a file, a file that includes another, a cycle, the
// budgets.
func TestParseAheadReadsAsInOrder(t *testing.T) {
	write := func(t *testing.T, dir, name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	site := func(i int) string {
		return fmt.Sprintf("server {\n    listen %d;\n    location / {\n        include snippets/p.conf;\n        proxy_pass http://127.0.0.1:%d;\n    }\n}\n", 8000+i, 9000+i)
	}
	cases := map[string]struct {
		files map[string]string
		opts  Options
		want  []string // the diagnostics read in order gives
	}{
		"whole": {files: map[string]string{}},
		"syntax error in the middle": {
			files: map[string]string{"sites/s05.conf": "server { listen 1;\n"},
			want:  []string{`error sites/s05.conf:2:1 unexpected end of file, expecting "}" to close "server" opened at line 1`},
		},
		"a site includes itself": {
			files: map[string]string{"sites/s03.conf": "include sites/s03.conf;\n"},
			want:  []string{"error sites/s03.conf:1:9 include cycle: " + "X"},
		},
		"include budget, at a file of the glob": {opts: Options{MaxIncludes: 8}, want: []string{"error nginx.conf:2:13 more than 8 included files parsed (inclusions that share an earlier parse not counted); the configuration was not read further (raise the limit with --max-includes)"}},
		"bytes budget, in a file of the glob":   {opts: Options{MaxIncludeBytes: 600}, want: []string{"error sites/s03.conf:4:17 includes expand to more than 600 bytes (each inclusion counted); the configuration was not read further (raise the limit with --max-total-size)"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "nginx.conf", "http {\n    include sites/*.conf;\n}\n")
			write(t, dir, "snippets/p.conf", "proxy_set_header Host $host;\n")
			for i := range 8 {
				write(t, dir, fmt.Sprintf("sites/s%02d.conf", i), site(i))
			}
			for n, text := range c.files {
				write(t, dir, n, text)
			}
			load := func(procs int) *Config {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				return loadWithin(t, filepath.Join(dir, "nginx.conf"), c.opts)
			}
			inOrder, ahead := load(1), load(4)
			got := diagLines(dir, inOrder.Diagnostics)
			for i := range got {
				if strings.Contains(got[i], "include cycle") {
					got[i] = got[i][:strings.Index(got[i], "include cycle: ")+len("include cycle: ")] + "X"
				}
			}
			assert.Equal(t, c.want, got, "read in order")
			assert.Equal(t, diagLines(dir, inOrder.Diagnostics), diagLines(dir, ahead.Diagnostics))
			assert.Equal(t, inOrder.Syntax, ahead.Syntax)
			require.Equal(t, len(inOrder.Files), len(ahead.Files))
			for i := range inOrder.Files {
				a, b := inOrder.Files[i], ahead.Files[i]
				assert.Equal(t, a.Path, b.Path)
				assert.Equal(t, dumpTree(a.Directives), dumpTree(b.Directives), a.Path)
			}
		})
	}
}
