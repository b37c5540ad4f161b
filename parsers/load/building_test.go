package load

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

// Options.Building hears of each nginx configuration before its model is
// built, with the bytes of every file read for it, includes too, and its
// end is called after the build.
func TestBuildingHearsOfEachNginxConfiguration(t *testing.T) {
	dir := t.TempDir()
	main := "events {}\nhttp {\n    include sites/*.conf;\n}\n"
	site := "server {\n    listen 80;\n    location / { proxy_pass http://10.0.0.1:8080; }\n}\n"
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sites"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sites", "a.conf"), []byte(site), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sites", "b.conf"), []byte(site), 0o644))

	var reads []int64
	ended := 0
	opts := Options{Targets: []model.Target{{Product: model.Nginx}}, Building: func(read int64) func() {
		reads = append(reads, read)
		return func() { ended++ }
	}}
	m := Load([]string{filepath.Join(dir, "nginx.conf")}, opts)
	require.Len(t, m.Proxies, 1)
	assert.Equal(t, []int64{int64(len(main) + 2*len(site))}, reads)
	assert.Equal(t, 1, ended)
}
