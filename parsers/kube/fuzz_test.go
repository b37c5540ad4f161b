package kube

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proxylint/proxylint/model"
)

// Whatever the bytes, the loader returns: no panic, and a file that is
// not YAML is one fatal diagnostic.
func FuzzLoadBytes(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.yaml")
	fixtures, _ := filepath.Glob("../../fixtures/*/*.yaml")
	for _, p := range append(paths, fixtures...) {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [{kind: VirtualService, apiVersion: networking.istio.io/v1, spec: {http: [{route: [{destination: {host: *a}}]}]}}]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, target := range []model.Target{{}, {Product: model.Istio, Version: model.Version{Major: 1, Minor: 23}}} {
			res := LoadBytes("f.yaml", src, Options{Target: target})
			for _, d := range res.Diagnostics {
				if d.Fatal && len(res.Proxies) != 0 {
					t.Fatalf("a fatal diagnostic with proxies: %v", d)
				}
				if !d.Pos.IsValid() && d.Code != CodeSyntax {
					t.Errorf("diagnostic without a position: %v", d)
				}
			}
		}
	})
}
