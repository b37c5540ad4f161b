package rules_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// retry-timeout-write's fix offers to narrow retries to safe methods only
// where the configuration can say so: Envoy's retriable_request_headers,
// which neither Istio's retries nor Gateway API's retry have.
func TestRetryFixInThePlatformsTerms(t *testing.T) {
	for _, c := range []struct {
		file   string
		line   int
		filter bool
	}{
		{"envoy-bad.yaml", 25, true},
		{"istio-bad.yaml", 29, false},
		{"grpcroute-bad.yaml", 13, false},
	} {
		path := filepath.Join("..", "fixtures", "retry-timeout-write", c.file)
		m := load.Load([]string{path}, load.Options{})
		var fix string
		for _, f := range rules.Run(m, &rules.Options{}) {
			if f.Rule == "retry-timeout-write" && int(f.Pos.Line) == c.line {
				fix = f.Fix.Message
			}
		}
		if fix == "" {
			t.Fatalf("%s: no retry-timeout-write finding with a fix at line %d", c.file, c.line)
		}
		if got := strings.Contains(fix, "retriable_request_headers"); got != c.filter {
			t.Errorf("%s: fix names retriable_request_headers: %v, want %v (%s)", c.file, got, c.filter, fix)
		}
	}
}
