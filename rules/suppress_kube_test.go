package rules_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// A suppression in a Kubernetes manifest covers the http entry below it,
// where the finding on Istio's default retry policy points.
func TestSuppressionInManifest(t *testing.T) {
	p := filepath.Join(t.TempDir(), "vs.yaml")
	src := `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: orders}
spec:
  http:
  # proxylint:ignore retry-timeout-write -- the backend deduplicates by idempotency key
  - route:
    - destination: {host: orders}
`
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m := load.Load([]string{p}, load.Options{Targets: []model.Target{{Product: model.Istio, Version: model.Version{Major: 1, Minor: 23}}}})
	var got []rules.Finding
	for _, f := range rules.Run(m, &rules.Options{}) {
		if f.Rule == "retry-timeout-write" || f.Rule == "unused-suppression" {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Rule != "retry-timeout-write" || got[0].Pos.Line != 7 || got[0].Suppression == nil ||
		got[0].Suppression.Reason != "the backend deduplicates by idempotency key" {
		t.Fatalf("findings %+v", got)
	}
}
