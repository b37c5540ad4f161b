package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proxylint/proxylint/internal/nginxtest"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// layoutCase is a configuration written in a layout of its own, a rule
// whose fix must be right in it, and the exact text the fix gives.
type layoutCase struct {
	name, rule, file, src, want string
}

// The kinds of edit the fixes make — an upstream block declared before
// the first server, a pass directive pointed at it, directives added
// next to a directive and in a one-line block, an argument set, added or
// removed, a log format declared before its first use, a field set or
// added in YAML and JSON — each in a layout the fixes once got wrong.
var layoutCases = []layoutCase{
	{
		name: "tries bounded in a one-line location", rule: "retry-tries-unbounded", file: "nginx.conf",
		src: `events {}
http {
    upstream api { server 127.0.0.1:8001; server 127.0.0.1:8002; keepalive 16; }
    server {
        listen 127.0.0.1:8080;
        location /a { proxy_pass http://api; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_next_upstream_tries 3; }
        location /b { return 204; }
    }
}
`,
		want: `events {}
http {
    upstream api { server 127.0.0.1:8001; server 127.0.0.1:8002; keepalive 16; }
    server {
        listen 127.0.0.1:8080;
        location /a { proxy_pass http://api; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_next_upstream_tries 3; proxy_next_upstream_timeout 120s; }
        location /b { return 204; }
    }
}
`,
	},
	{
		name: "an implicit upstream in a file on one line", rule: "upstream-no-keepalive", file: "nginx.conf",
		src:  `events {} http { server { listen 127.0.0.1:8080; location / { proxy_pass http://127.0.0.1:9000; } } }`,
		want: `events {} http { upstream backend_127_0_0_1_9000 { server 127.0.0.1:9000; keepalive 16; } server { listen 127.0.0.1:8080; location / { proxy_pass http://backend_127_0_0_1_9000; proxy_set_header Host 127.0.0.1:9000; proxy_redirect http://127.0.0.1:9000/ /; proxy_http_version 1.1; proxy_set_header Connection ""; } } }`,
	},
	{
		name: "keepalive in a one-line upstream", rule: "upstream-no-keepalive", file: "nginx.conf",
		src: `events {}
http {
    upstream api { server 127.0.0.1:8001; server 127.0.0.1:8002; }
    server {
        listen 127.0.0.1:8080;
        location / { proxy_pass http://api; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
`,
		want: `events {}
http {
    upstream api { server 127.0.0.1:8001; server 127.0.0.1:8002; keepalive 16; }
    server {
        listen 127.0.0.1:8080;
        location / { proxy_pass http://api; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
`,
	},
	{
		name: "an implicit upstream with CRLF and tabs", rule: "upstream-no-keepalive", file: "nginx.conf",
		src:  "events {}\r\nhttp {\r\n\tserver {\r\n\t\tlisten 127.0.0.1:8080;\r\n\t\tlocation / {\r\n\t\t\tproxy_pass http://127.0.0.1:9000; # the app\r\n\t\t}\r\n\t}\r\n}\r\n",
		want: "events {}\r\nhttp {\r\n\tupstream backend_127_0_0_1_9000 {\r\n\t\tserver 127.0.0.1:9000;\r\n\t\tkeepalive 16;\r\n\t}\r\n\r\n\tserver {\r\n\t\tlisten 127.0.0.1:8080;\r\n\t\tlocation / {\r\n\t\t\tproxy_pass http://backend_127_0_0_1_9000; # the app\r\n\t\t\tproxy_set_header Host 127.0.0.1:9000;\r\n\t\t\tproxy_redirect http://127.0.0.1:9000/ /;\r\n\t\t\tproxy_http_version 1.1;\r\n\t\t\tproxy_set_header Connection \"\";\r\n\t\t}\r\n\t}\r\n}\r\n",
	},
	{
		name: "a log format before the http-level access_log that uses it", rule: "log-format-blind", file: "nginx.conf",
		src: `events {}
http {
    access_log logs/access.log;
    upstream api { server 127.0.0.1:8001; keepalive 16; }
    server {
        listen 127.0.0.1:8080;
        location / { proxy_pass http://api; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
`,
		want: `events {}
http {
    log_format timing '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" ' 'rt=$request_time uct=$upstream_connect_time urt=$upstream_response_time us=$upstream_status';

    access_log logs/access.log timing;
    upstream api { server 127.0.0.1:8001; keepalive 16; }
    server {
        listen 127.0.0.1:8080;
        location / { proxy_pass http://api; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
`,
	},
	{
		name: "a quoted non_idempotent removed", rule: "retry-timeout-write", file: "nginx.conf",
		src: `events {}
http {
    upstream api { server 127.0.0.1:8001; server 127.0.0.1:8002; keepalive 16; }
    server {
        listen 127.0.0.1:8080;
        location / { proxy_pass http://api; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_next_upstream error "timeout" 'non_idempotent'; }
    }
}
`,
		want: `events {}
http {
    upstream api { server 127.0.0.1:8001; server 127.0.0.1:8002; keepalive 16; }
    server {
        listen 127.0.0.1:8080;
        location / { proxy_pass http://api; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_next_upstream error "timeout"; }
    }
}
`,
	},
	{
		name: "safe draining in camelCase JSON", rule: "envoy-h1-unsafe-drain", file: "listener.json",
		src: `{
  "@type": "type.googleapis.com/envoy.config.listener.v3.Listener",
  "name": "gateway",
  "address": {"socketAddress": {"address": "0.0.0.0", "portValue": 10080}},
  "filterChains": [{"filters": [{
    "name": "envoy.filters.network.http_connection_manager",
    "typedConfig": {
      "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
      "statPrefix": "http-10080",
      "commonHttpProtocolOptions": {"maxConnectionDuration": "120s"},
      "httpFilters": [{"name": "envoy.filters.http.router", "typedConfig": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}],
      "rds": {"routeConfigName": "gateway-routes", "configSource": {"ads": {}, "resourceApiVersion": "V3"}}
    }
  }]}]
}
`,
		want: `{
  "@type": "type.googleapis.com/envoy.config.listener.v3.Listener",
  "name": "gateway",
  "address": {"socketAddress": {"address": "0.0.0.0", "portValue": 10080}},
  "filterChains": [{"filters": [{
    "name": "envoy.filters.network.http_connection_manager",
    "typedConfig": {
      "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
      "statPrefix": "http-10080",
      "http1SafeMaxConnectionDuration": true,
      "commonHttpProtocolOptions": {"maxConnectionDuration": "120s"},
      "httpFilters": [{"name": "envoy.filters.http.router", "typedConfig": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}],
      "rds": {"routeConfigName": "gateway-routes", "configSource": {"ads": {}, "resourceApiVersion": "V3"}}
    }
  }]}]
}
`,
	},
	{
		name: "safe draining set in flow YAML", rule: "envoy-h1-unsafe-drain", file: "listener.yaml",
		src: `"@type": type.googleapis.com/envoy.config.listener.v3.Listener
name: gateway
address: {socket_address: {address: 0.0.0.0, port_value: 10080}}
filter_chains:
- filters:
  - name: envoy.filters.network.http_connection_manager
    typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager, stat_prefix: h, http1_safe_max_connection_duration: false, common_http_protocol_options: {max_connection_duration: 120s}, http_filters: [{name: envoy.filters.http.router, typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}}], rds: {route_config_name: r, config_source: {ads: {}, resource_api_version: V3}}}
`,
		want: `"@type": type.googleapis.com/envoy.config.listener.v3.Listener
name: gateway
address: {socket_address: {address: 0.0.0.0, port_value: 10080}}
filter_chains:
- filters:
  - name: envoy.filters.network.http_connection_manager
    typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager, stat_prefix: h, http1_safe_max_connection_duration: true, common_http_protocol_options: {max_connection_duration: 120s}, http_filters: [{name: envoy.filters.http.router, typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}}], rds: {route_config_name: r, config_source: {ads: {}, resource_api_version: V3}}}
`,
	},
}

// TestFixesInEveryLayout applies the fix of each case's finding and
// checks the exact text, that the finding is gone, and, for nginx, that
// nginx -t accepts the configuration before and after.
func TestFixesInEveryLayout(t *testing.T) {
	for _, c := range layoutCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := strings.ReplaceAll(c.src, "logs/", dir+"/")
			want := strings.ReplaceAll(c.want, "logs/", dir+"/")
			path := filepath.Join(dir, c.file)
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			f := layoutFinding(t, path, c.rule)
			if f == nil || len(f.Fix.Edits) == 0 {
				t.Fatalf("no %s finding with a fix", c.rule)
			}
			out, err := rules.ApplyEdits([]byte(src), f.Fix.Edits)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != want {
				t.Fatalf("got\n%s\nwant\n%s", out, want)
			}
			if err := os.WriteFile(path, out, 0o644); err != nil {
				t.Fatal(err)
			}
			if again := layoutFinding(t, path, c.rule); again != nil && again.Pos == f.Pos {
				t.Errorf("the finding remains: %s", again.Message)
			}
			if strings.HasSuffix(c.file, ".conf") {
				for _, conf := range []string{src, want} {
					if res := nginxtest.Check(t, conf); !res.OK {
						t.Errorf("nginx -t refuses\n%s\n%s", conf, res.Stderr)
					}
				}
			}
		})
	}
}

// layoutFinding lints the file at path and returns the first finding of
// rule, or nil.
func layoutFinding(t *testing.T, path, rule string) *rules.Finding {
	t.Helper()
	kind, target := load.KindNginx, model.DefaultTarget(model.Nginx)
	if !strings.HasSuffix(path, ".conf") {
		kind, target = load.KindEnvoy, model.Target{Product: model.Envoy}
	}
	m := load.Load([]string{path}, load.Options{Kind: kind, Targets: []model.Target{target}, IncludeRoots: []string{filepath.Dir(path)}})
	for _, d := range m.Diagnostics {
		if d.Severity == model.Error {
			t.Fatalf("%s", d)
		}
	}
	for _, f := range rules.Run(m, &rules.Options{}) {
		if f.Rule == rule {
			return &f
		}
	}
	return nil
}

// TestFixTextNamesFieldsAsTheFile: the fix of a camelCase file names the
// field in camelCase.
func TestFixTextNamesFieldsAsTheFile(t *testing.T) {
	for name, want := range map[string]string{"bad.yaml": "set http1_safe_max_connection_duration: true", "camel-case.yaml": "set http1SafeMaxConnectionDuration: true"} {
		f := layoutFinding(t, filepath.Join(fixturesDir, "envoy-h1-unsafe-drain", name), "envoy-h1-unsafe-drain")
		if f == nil || !strings.HasPrefix(f.Fix.Message, want) {
			t.Errorf("%s: fix %+v, want it to start %q", name, f, want)
		}
	}
}

// TestFixOfAGeneratedFileNamesItsSource: a finding in an admin config
// dump has no edit of the dump; its fix says where the setting is
// written, in Istio's terms for a route istiod wrote.
func TestFixOfAGeneratedFileNamesItsSource(t *testing.T) {
	for _, c := range []struct{ file, rule, want string }{
		{"envoy-h1-unsafe-drain/config-dump.yaml", "envoy-h1-unsafe-drain", "config-dump.yaml is an Envoy admin config dump"},
		{"retry-timeout-write/envoy-dump-same-policy.yaml", "retry-timeout-write", "in Istio: the VirtualService's http[].retries.retryOn, or meshConfig.defaultHttpRetryPolicy"},
		{"retry-timeout-write/envoy-dump-same-policy.yaml", "retry-tries-unbounded", "in Istio: the VirtualService's http[].timeout and http[].retries.perTryTimeout"},
	} {
		f := layoutFinding(t, filepath.Join(fixturesDir, c.file), c.rule)
		if f == nil {
			t.Errorf("%s: no %s finding", c.file, c.rule)
			continue
		}
		if len(f.Fix.Edits) > 0 || f.Fix.Applicability != rules.DisplayOnly || !strings.Contains(f.Fix.Message, c.want) {
			t.Errorf("%s: %s: fix %+v, want advice saying %q", c.file, c.rule, f.Fix, c.want)
		}
	}
}
