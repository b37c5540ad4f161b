package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
)

// diagnostics lists every diagnostic as "file:line:col: code: message".
func diagnostics(m *model.Model) []string {
	var out []string
	for _, d := range m.Diagnostics {
		out = append(out, fmt.Sprintf("%s:%d:%d: %s: %s", filepath.Base(d.Pos.File), d.Pos.Line, d.Pos.Col, d.Code, d.Message))
	}
	return out
}

// A YAML file nested thousands of levels deep is YAML: the reader's error
// says where it gets too deep, in block and in flow style, whatever the
// file is named; it is never read as an nginx file. (Block mappings
// 1,000 levels deep, five times the limit, are half a megabyte; 5,000
// would be 12.5 MB, seconds of reading under the race detector.)
func TestDeepYAMLIsNotNginx(t *testing.T) {
	dir := t.TempDir()
	const n, nBlock = 5000, 1000
	var block strings.Builder
	for i := range nBlock {
		block.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	block.WriteString(strings.Repeat(" ", nBlock) + "b: 1\n")
	flow := "static_resources: " + strings.Repeat("{a: ", n) + "1" + strings.Repeat("}", n) + "\n"
	for _, c := range []struct{ name, src, want string }{
		{"block.yaml", block.String(), "block.yaml:200:200: envoy-syntax: nesting deeper than 200 levels"},
		{"block", block.String(), "block:200:200: envoy-syntax: nesting deeper than 200 levels"},
		{"flow.yml", flow, "flow.yml:1:812: envoy-syntax: nesting deeper than 200 levels"},
	} {
		p := filepath.Join(dir, c.name)
		require.NoError(t, os.WriteFile(p, []byte(c.src), 0o644))
		m := loadSoon(t, []string{p}, Options{})
		assert.Equal(t, []string{c.want}, diagnostics(m), c.name)
	}
}

// A Kubernetes resource with a key written twice is refused by the API
// server's strict field validation, kubectl's default: an error at the
// second key, in YAML and in JSON.
func TestKubeDuplicateKeys(t *testing.T) {
	dir := t.TempDir()
	yamlSrc := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: a\nspec:\n  hosts: [x]\n  http:\n  - route:\n    - destination: {host: svc}\n    timeout: 5s\n    timeout: 10s\n"
	jsonSrc := `{"apiVersion": "networking.istio.io/v1", "kind": "VirtualService", "metadata": {"name": "a", "name": "b"}, "spec": {"hosts": ["x"], "http": [{"route": [{"destination": {"host": "svc"}}]}]}}`
	for name, c := range map[string]struct{ src, want string }{
		"vs.yaml": {yamlSrc, `vs.yaml:11:5: kube-invalid: duplicate key "timeout" (first at line 10): the API server's strict field validation, kubectl's default (--validate=strict), refuses the object; without it the last value is kept`},
		"vs.json": {jsonSrc, `vs.json:1:94: kube-invalid: duplicate key "name" (first at line 1): the API server's strict field validation, kubectl's default (--validate=strict), refuses the object; without it the last value is kept`},
	} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(c.src), 0o644))
		m := loadSoon(t, []string{p}, Options{})
		assert.Contains(t, diagnostics(m), c.want, name)
	}
}
