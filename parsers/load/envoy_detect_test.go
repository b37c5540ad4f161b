package load

import (
	"testing"
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
		// Words are not shapes: nginx text naming Envoy's fields.
		{"proxy_connect_timeout 5s;\nlocation / { proxy_pass http://app; }\n", false},
		{"# static_resources: connect_timeout\nserver { listen 80; }\n", false},
	}
	for _, c := range cases {
		if got, _ := looksEnvoy("x.yaml", []byte(c.head), 1<<20); got != c.want {
			t.Errorf("looksEnvoy(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}
