package lsp

import (
	"path/filepath"
	"testing"
)

// BenchmarkAnalyzeFragment is what the server does after a change of an
// open fragment: lint its directory, through the main configuration above
// it, with the buffer in place of the file.
func BenchmarkAnalyzeFragment(b *testing.B) {
	root := workspace(b, map[string]string{"nginx.conf": mainConf, "conf.d/app.conf": appConf})
	path := filepath.Join(root, "conf.d", "app.conf")
	d := &document{path: path, real: path, text: []byte("# edited\n" + appConf), version: 2}
	snap := snapshot{gen: 1, docs: []*document{d}}
	u := unitOf(d)
	for b.Loop() {
		a := analyze(u, snap)
		if a.byDoc[path] == nil {
			b.Fatal("the fragment was not linted")
		}
	}
}
