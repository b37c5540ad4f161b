package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// A fix that adds proxy_set_header or proxy_redirect to a location
// replaces every one the location inherits. Where part of the
// configuration was not read (an include outside the tree, a fragment
// whose includer is unknown), what it would drop is unknown, so the fix
// is not offered; with everything read it is.
func TestNoHeaderFixOverUnreadSettings(t *testing.T) {
	const conf = `events {}
http {
    %s
    server {
        listen 80;
        location /api/ {
            proxy_pass http://10.0.0.1:8000;
        }
    }
}
`
	for _, c := range []struct {
		name, include string
		offered       bool
	}{
		{"everything read", "", true},
		{"an include outside the tree", "include /etc/nginx/proxy_headers.conf;", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			entry := filepath.Join(dir, "nginx.conf")
			if err := os.WriteFile(entry, []byte(strings.Replace(conf, "%s", c.include, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			m := load.Load([]string{entry}, load.Options{Kind: load.KindNginx, Targets: []model.Target{{Product: model.Nginx}}, IncludeRoots: []string{dir}})
			var found bool
			for _, f := range rules.Run(m, &rules.Options{}) {
				if f.Rule != "upstream-no-keepalive" || f.Pos.Line != 7 {
					continue
				}
				found = true
				if got := len(f.Fix.Edits) > 0; got != c.offered {
					t.Errorf("edits offered %v, want %v: %+v", got, c.offered, f.Fix.Edits)
				}
			}
			if !found {
				t.Fatal("no upstream-no-keepalive finding at line 7")
			}
		})
	}
}
