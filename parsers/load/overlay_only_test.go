package load

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

// With OverlayOnly the overlay is every file there is, as in a browser,
// which has no file system: a file on the disk beside the overlay's is
// never read, an include the overlay lacks is a note that says so, and a
// named path the overlay lacks cannot be read.
func TestOverlayOnlyReadsNothingFromTheDisk(t *testing.T) {
	dir := tree(t, map[string]string{
		"upstreams.conf": "upstream app { server 127.0.0.1:8080; }\n",
		"disk.conf":      "events {}\nhttp {}\n",
	})
	main := filepath.Join(dir, "nginx.conf")
	src := "events {}\nhttp {\n    include upstreams.conf;\n    server {\n        listen 80;\n        location / { proxy_pass http://app; }\n    }\n}\n"
	overlay := map[string][]byte{main: []byte(src)}

	m := Load([]string{main}, Options{Overlay: overlay})
	require.Empty(t, fatals(m))
	require.NotNil(t, upstreamOf(t, m), "without OverlayOnly the include is read from the disk")

	m = Load([]string{main}, Options{Overlay: overlay, OverlayOnly: true})
	require.Empty(t, fatals(m))
	var notes []string
	for _, d := range m.Diagnostics {
		notes = append(notes, d.Severity.String()+" "+d.Pos.String()+" "+d.Message)
	}
	assert.Equal(t, []string{
		model.Note.String() + " " + main + ":3:13 include \"upstreams.conf\": " + filepath.Join(dir, "upstreams.conf") + " is not in the files given, so it was not linted",
	}, notes)
	assert.Len(t, m.Files, 1, "only the overlay's file is read")

	m = Load([]string{filepath.Join(dir, "disk.conf")}, Options{Overlay: overlay, OverlayOnly: true})
	assert.Equal(t, []string{filepath.Join(dir, "disk.conf") + ": cannot read " + filepath.Join(dir, "disk.conf") + ": not among the files given"}, fatals(m))
}

// A fragment alone in an OverlayOnly overlay is not linted through a main
// configuration on the disk above it.
func TestOverlayOnlyFindsNoIncluderOnTheDisk(t *testing.T) {
	dir := tree(t, map[string]string{"nginx.conf": entryConf})
	frag := filepath.Join(dir, "conf.d", "app.conf")
	overlay := map[string][]byte{frag: []byte(fragmentConf)}

	m := Load([]string{frag}, Options{Overlay: overlay})
	require.Len(t, m.Proxies, 1)
	assert.Equal(t, filepath.Join(dir, "nginx.conf"), m.Proxies[0].Entry, "without OverlayOnly, linted through the disk's nginx.conf")

	m = Load([]string{frag}, Options{Overlay: overlay, OverlayOnly: true})
	require.Empty(t, fatals(m))
	require.Len(t, m.Proxies, 1)
	assert.Equal(t, frag, m.Proxies[0].Entry, "linted alone")
	assert.Len(t, m.Files, 1)
}
