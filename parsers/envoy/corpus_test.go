package envoy

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/model"
)

// corpusDir is the shared corpus of real-world configurations next to the
// repository: ../shared/corpus from the repository root, or from the
// directory above it when the repository is checked out one level deeper.
const corpusDir = "../../../shared/corpus/envoy"

var corpusDirs = []string{corpusDir, "../../../../shared/corpus/envoy"}

// expectedFailures are the corpus files Envoy itself would refuse, each
// with where the first error must be and what it must say. Every other
// file must load without an error.
var expectedFailures = map[string]struct {
	line, col int
	code      model.Code
	msg       string
	why       string
}{
	"envoyproxy__envoy/configs/envoy_front_proxy_v2.template.yaml": {1, 1, CodeSyntax, "this looks like a template ({% %} tags)",
		"a Jinja2 template ({% import %}), not YAML until rendered"},
	"istio__istio/tools/packaging/common/envoy_bootstrap.json": {4, 1, CodeSyntax, "this looks like a template ({{ }} expressions)",
		"a Go text/template ({{- if .x }}) inside JSON"},
	"istio__istio/pilot/pkg/xds/testdata/none_lds_http.json": {222, 53, CodeSyntax, "expected ',' or ']'",
		"not valid JSON: a delimiter is missing (Python's json module stops at the same line and column)"},
	"istio__istio/pilot/pkg/xds/testdata/none_rds.json": {18, 15, CodeInvalid, `unknown field "Action"`,
		"Go-struct JSON of route configurations (oneof wrappers such as Action and PathSpecifier), not protobuf JSON"},
	"open-telemetry__opentelemetry-demo/src/frontend-proxy/envoy.tmpl.yaml": {8, 21, CodeSyntax, "this looks like a template (${NAME} placeholders)",
		"an envsubst template: address: ${ENVOY_ADDR} and port_value: ${ENVOY_PORT} are values only after substitution"},
	"envoyproxy__gateway/internal/xds/bootstrap/testdata/merge/merge-user-bootstrap.out.yaml": {129, 5, CodeInvalid, "cluster manager: duplicate cluster 'prometheus_stats'",
		"the merged bootstrap defines the static cluster prometheus_stats twice (entries at lines 49 and 119), which Envoy's cluster manager refuses"},
	"envoyproxy__envoy/configs/google-vrp/envoy-edge.yaml": {6, 16, CodeInvalid, "fixed_heap.v2alpha.FixedHeapConfig is a message of Envoy's v2 API, which Envoy no longer reads (since 1.20)",
		"an older stored version of Envoy's edge example: its fixed heap monitor is typed with the v2alpha message, which Envoy has not upgraded to v3 since 1.20"},
	"kumahq__kuma/pkg/plugins/policies/meshtimeout/plugin/testdata/http_outbound_cluster.golden.yaml": {5, 5, CodeInvalid, "upstream_protocol_options: one of",
		"a test golden of part of a cluster: HttpProtocolOptions without the protocol selection Envoy requires"},
}

func requireCorpus(t testing.TB) string {
	t.Helper()
	var err error
	for _, d := range corpusDirs {
		var dir string
		if dir, err = filepath.Abs(d); err == nil {
			if _, err = os.Stat(dir); err == nil {
				return dir
			}
		}
	}
	t.Skipf("corpus not available (%s next to the repository): %v", corpusDir, err)
	return ""
}

func corpusFiles(t testing.TB) []string {
	dir := requireCorpus(t)
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestCorpus loads every Envoy file of the corpus: each one loads without
// an error, or fails where and how expectedFailures says.
func TestCorpus(t *testing.T) {
	dir := requireCorpus(t)
	files := corpusFiles(t)
	if len(files) < 60 {
		t.Fatalf("only %d corpus files", len(files))
	}
	loads, failed := 0, 0
	seen := map[string]bool{}
	counts := map[model.Code]int{}
	for _, rel := range files {
		r := Load(filepath.Join(dir, rel), Options{})
		var errs []model.Diagnostic
		noted := map[string]bool{}
		for _, d := range r.Diagnostics {
			counts[d.Code]++
			if d.Code == CodeUnknownExtension {
				// One note per extension type and file.
				typ, _, _ := strings.Cut(d.Message, ";")
				if noted[typ] {
					t.Errorf("%s: %s noted twice", rel, typ)
				}
				noted[typ] = true
			}
			if !d.Pos.IsValid() || d.Pos.Col < 1 {
				t.Errorf("%s: diagnostic without a position: %+v", rel, d)
			}
			if strings.Contains(d.Message, "internal error") {
				t.Errorf("%s: %s", rel, d.Message)
			}
			if d.Severity == model.Error {
				errs = append(errs, d)
			}
		}
		want, expected := expectedFailures[rel]
		seen[rel] = expected
		switch {
		case len(errs) == 0 && expected:
			t.Errorf("%s loads, but is listed to fail (%s)", rel, want.why)
		case len(errs) == 0:
			loads++
			if len(r.Proxies) == 0 {
				t.Errorf("%s: loaded without a proxy", rel)
			}
		case !expected:
			t.Errorf("%s: unexpected failure: %s", rel, strings.Join(diagStrings(r), "\n    "))
		default:
			failed++
			found := false
			for _, d := range errs {
				if int(d.Pos.Line) == want.line && int(d.Pos.Col) == want.col && d.Code == want.code && strings.Contains(d.Message, want.msg) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: want %s at %d:%d containing %q; got\n    %s", rel, want.code, want.line, want.col, want.msg, strings.Join(diagStrings(r), "\n    "))
			}
		}
	}
	for rel := range expectedFailures {
		if _, ok := seen[rel]; !ok {
			t.Errorf("expected failure %s is not in the corpus", rel)
		}
	}
	t.Logf("%d files: %d load, %d fail as expected; diagnostics by code: %v", len(files), loads, failed, counts)
}
