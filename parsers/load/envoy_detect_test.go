package load

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proxylint/proxylint/parsers"
)

func TestLooksEnvoy(t *testing.T) {
	cases := []struct {
		head string
		want bool
	}{
		{"static_resources:\n  listeners: []\n", true},
		{`{"configs": [{"@type": "type.googleapis.com/envoy.admin.v3.ClustersConfigDump"}]}`, true},
		{"- name: r\n  virtualHosts:\n  - name: vh\n", true},
		{"name: c\nconnect_timeout: 1s\n", true},
		{"name: app\ndomains: [\"*\"]\nretry_policy: {retry_on: 5xx}\n", true},
		{"apiVersion: networking.istio.io/v1alpha3\nkind: EnvoyFilter\nspec:\n  configPatches:\n  - patch:\n      value:\n        typed_config:\n          \"@type\": type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua\n", false},
		{"kind: ConfigMap\napiVersion: v1\ndata:\n  envoy.yaml: |\n    static_resources: {}\n", false},
		{"services:\n  web:\n    image: nginx\n", false},
	}
	for _, c := range cases {
		if got := looksEnvoy([]byte(c.head)); got != c.want {
			t.Errorf("looksEnvoy(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

func TestLoadEnvoyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "envoy.yaml")
	src := "static_resources:\n  clusters:\n  - name: app\n    connect_timeout: 2s # a comment\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	m := Load([]string{path}, Options{})
	if len(m.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", m.Diagnostics)
	}
	if len(m.Proxies) != 1 || m.Proxies[0].Product != parsers.Envoy || len(m.Proxies[0].Upstreams) != 1 {
		t.Fatalf("proxies: %+v", m.Proxies)
	}
	if len(m.Files) != 1 || len(m.Files[0].Comments) != 1 || m.Files[0].Comments[0].Pos.Line != 4 {
		t.Fatalf("files: %+v", m.Files)
	}
}
