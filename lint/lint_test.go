package lint

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// A configuration held only in memory, a main file and the fragment it
// includes, is linted as one: the finding points into the fragment, and
// a suppression there is read.
func TestRunOnFilesInMemory(t *testing.T) {
	dir := t.TempDir() // nothing is written to it
	main := filepath.Join(dir, "nginx.conf")
	frag := filepath.Join(dir, "conf.d", "app.conf")
	overlay := map[string][]byte{
		main: []byte("events {}\nhttp {\n    include conf.d/*.conf;\n}\n"),
		frag: []byte("server {\n    listen 80;\n    location / {\n        proxy_pass http://127.0.0.1:8080;\n    }\n" +
			"    location /metrics {\n        # proxylint:ignore upstream-no-keepalive -- scraped once a minute\n        proxy_pass http://127.0.0.1:9100;\n    }\n}\n"),
	}
	res := Run([]string{main}, Options{Load: load.Options{Overlay: overlay}, Rules: &rules.Options{}})
	require.NotNil(t, res.Model)
	var got []string
	for _, f := range res.Findings {
		state := ""
		if f.Suppression != nil {
			state = " (suppressed: " + f.Suppression.Reason + ")"
		}
		got = append(got, f.Rule+" "+f.Pos.String()+state)
	}
	assert.Equal(t, []string{
		"upstream-no-keepalive " + frag + ":4:9",
		"upstream-no-keepalive " + frag + ":8:9 (suppressed: scraped once a minute)",
		"log-format-blind " + main + ":2:1",
	}, got)
}
