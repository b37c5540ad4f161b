package load

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/nginx"
)

// TestRefusedFileBuildsNoModel: a file nginx -t refuses past its reader (a
// misspelt directive that would leave a default in force) is reported,
// and no model is built from it, as for a syntax error.
func TestRefusedFileBuildsNoModel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nginx.conf")
	src := "events {}\nhttp {\n  server {\n    listen 8080;\n    location / {\n      proxy_read_timeuot 30s;\n      proxy_pass http://127.0.0.1:1;\n    }\n  }\n}\n"
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	res := loadNginx(path, Options{Targets: []model.Target{{Product: model.Nginx}}}, []string{dir})
	assert.Empty(t, res.Proxies)
	require.Len(t, res.Diagnostics, 1)
	d := res.Diagnostics[0]
	assert.Equal(t, nginx.CodeSyntax, d.Code)
	assert.True(t, d.Fatal)
	assert.Equal(t, 6, int(d.Pos.Line))

	// Declared as a private module's directive, it is accepted.
	res = loadNginx(path, Options{
		Targets:    []model.Target{{Product: model.Nginx}},
		Directives: []nginx.CustomDirective{{Name: "proxy_read_timeuot", MinArgs: 1, MaxArgs: 1}},
	}, []string{dir})
	assert.Empty(t, res.Diagnostics)
	assert.Len(t, res.Proxies, 1)
}
