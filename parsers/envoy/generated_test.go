package envoy

import (
	"path/filepath"
	"testing"
)

// TestDumpIsMarkedGenerated: a file of an admin config dump says so
// (model.File.Generated), so that no fix edits it; a bootstrap does not.
func TestDumpIsMarkedGenerated(t *testing.T) {
	fixtures := filepath.Join("..", "..", "fixtures")
	for file, want := range map[string]string{
		"envoy-h1-unsafe-drain/config-dump.yaml":          GeneratedDump,
		"retry-timeout-write/envoy-dump-same-policy.yaml": GeneratedDump,
		"envoy-h1-unsafe-drain/bad.yaml":                  "",
	} {
		r := Load(filepath.Join(fixtures, file), Options{})
		if r.File == nil || r.File.Generated != want {
			t.Errorf("%s: Generated %q, want %q", file, r.File.Generated, want)
		}
	}
}
