package main

import (
	"strings"
	"testing"
	"time"
)

// TestEnvoyAPIIsNotLinked holds the program to reading Envoy through the
// descriptors embedded in parsers/envoy: go-control-plane's and cncf/xds's
// generated packages register their descriptors at start-up, which would
// cost every run, nginx runs included, more than linting one file.
func TestEnvoyAPIIsNotLinked(t *testing.T) {
	out, err := boundedCommand(t, time.Minute, "go", "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list named only %d packages: %v", len(deps), deps)
	}
	for _, p := range deps {
		for _, banned := range []string{"github.com/envoyproxy/go-control-plane/", "github.com/cncf/xds/", "cel.dev/expr", "google.golang.org/genproto/"} {
			if strings.HasPrefix(p, banned) {
				t.Errorf("proxylint links %s", p)
			}
		}
	}
}
