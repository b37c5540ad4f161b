package nginx

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/internal/nginxtest"
	"github.com/proxylint/proxylint/model"
)

var nginx122 = model.Target{Product: model.Nginx, Version: model.Version{Major: 1, Minor: 22, Patch: 1}}

// checkCases are whole configurations with what the check reports first
// (line: message), or "" when nginx accepts them. Each runs through the
// machine's nginx too (1.22.1), which must reject at the same line.
var checkCases = []struct {
	name, src, want string
}{
	{"typo", "events {}\nhttp {\n  server {\n    proxy_read_timeuot 30s;\n  }\n}\n",
		`4: unknown directive "proxy_read_timeuot" (did you mean "proxy_read_timeout"?)`},
	{"server outside http", "events {}\nserver {\n  listen 8080;\n}\n",
		`2: "server" directive is not allowed here`},
	{"location in a stream server", "events {}\nstream {\n  server {\n    listen 9000;\n    location / {\n    }\n  }\n}\n",
		`5: "location" directive is not allowed here`},
	{"keepalive not a number", "events {}\nhttp {\n  upstream u {\n    server 127.0.0.1:1;\n    keepalive sixteen;\n  }\n}\n",
		`5: invalid value "sixteen" in "keepalive" directive`},
	{"keepalive 0 before 1.29.7", "events {}\nhttp {\n  upstream u {\n    server 127.0.0.1:1;\n    keepalive 0;\n  }\n}\n",
		`5: invalid value "0" in "keepalive" directive`},
	{"bad time", "events {}\nhttp {\n  proxy_read_timeout 5x;\n}\n",
		`3: "proxy_read_timeout" directive invalid value "5x": not a time (units ms, s, m, h, d, w, as in "30s" or "1m30s")`},
	{"unexpanded variable", "events {}\nhttp {\n  proxy_read_timeout ${TIMEOUT};\n}\n",
		// One diagnostic naming the template syntax (detect.go), not an
		// invalid value per placeholder.
		`3: this looks like a template (${NAME} placeholders where nginx reads no variables): render it first, or exclude it`},
	{"seconds with milliseconds", "events {}\nhttp {\n  keepalive_timeout 500ms;\n}\n", ""},
	{"seconds", "events {}\nhttp {\n  proxy_cache_path /tmp/c keys_zone=z:1m inactive=1d;\n  ssl_session_timeout 1h30m;\n}\n", ""},
	{"bad size", "events {}\nhttp {\n  proxy_buffer_size 8q;\n}\n",
		`3: "proxy_buffer_size" directive invalid value "8q": not a size (a number with an optional k or m, as in "8k")`},
	{"size in gigabytes is an offset only", "events {}\nhttp {\n  client_max_body_size 1g;\n  proxy_buffer_size 1g;\n}\n",
		`4: "proxy_buffer_size" directive invalid value "1g": not a size (a number with an optional k or m, as in "8k")`},
	{"bad flag", "events {}\nhttp {\n  proxy_buffering yes;\n}\n",
		`3: invalid value "yes" in "proxy_buffering" directive, it must be "on" or "off"`},
	{"flag in capitals", "events {}\nhttp {\n  proxy_buffering OFF;\n}\n", ""},
	{"bad number", "events {}\nhttp {\n  proxy_next_upstream_tries 3x;\n}\n",
		`3: "proxy_next_upstream_tries" directive invalid value "3x": not a number`},
	{"bad bitmask word", "events {}\nhttp {\n  proxy_next_upstream error denied;\n}\n",
		`3: invalid value "denied" in "proxy_next_upstream" directive (allowed: error, timeout, invalid_header, non_idempotent, http_500, http_502, http_503, http_504, http_403, http_404, http_429, updating, off)`},
	{"bad enum word", "events {}\nhttp {\n  proxy_request_buffering on;\n  proxy_http_version 3.0;\n}\n",
		`4: invalid value "3.0" in "proxy_http_version" directive (allowed: 1.0, 1.1)`},
	{"duplicate", "events {}\nhttp {\n  proxy_connect_timeout 5s;\n  proxy_connect_timeout 6s;\n}\n",
		`4: "proxy_connect_timeout" directive is duplicate`},
	{"same directive in nested blocks", "events {}\nhttp {\n  proxy_connect_timeout 5s;\n  server {\n    proxy_connect_timeout 6s;\n  }\n}\n", ""},
	{"argument count", "events {}\nhttp {\n  proxy_set_header Host;\n}\n",
		`3: invalid number of arguments in "proxy_set_header" directive`},
	{"argument count reported at the semicolon", "events {}\nhttp {\n  proxy_set_header\n    Host\n  ;\n}\n",
		`5: invalid number of arguments in "proxy_set_header" directive (line 3)`},
	{"ssl on in 1.22", "events {}\nhttp {\n  server {\n    ssl off;\n  }\n}\n", ""},
	{"http2 directive before 1.25.1", "events {}\nhttp {\n  server {\n    http2 on;\n  }\n}\n",
		`4: unknown directive "http2": nginx added it in 1.25.1 (target nginx:1.22.1)`},
	{"proxy_pass with URI in if", "events {}\nhttp {\n  server {\n    location / {\n      if ($arg_x) {\n        proxy_pass http://127.0.0.1:1/x;\n      }\n    }\n  }\n}\n",
		`6: "proxy_pass" cannot have URI part in location given by regular expression, or inside named location, or inside "if" statement, or inside "limit_except" block`},
	{"proxy_pass with URI in a regex location", "events {}\nhttp {\n  server {\n    location ~ ^/a {\n      proxy_pass http://127.0.0.1:1/;\n    }\n  }\n}\n",
		`5: "proxy_pass" cannot have URI part in location given by regular expression, or inside named location, or inside "if" statement, or inside "limit_except" block`},
	{"proxy_pass with variables in a regex location", "events {}\nhttp {\n  server {\n    location ~ ^/a {\n      proxy_pass http://127.0.0.1:1$request_uri;\n    }\n  }\n}\n", ""},
	{"listen port out of range", "events {}\nhttp {\n  server {\n    listen 99999;\n  }\n}\n",
		`4: invalid port in "99999" of the "listen" directive`},
	{"listen parameter", "events {}\nhttp {\n  server {\n    listen 8080 default_srv;\n  }\n}\n",
		`4: invalid parameter "default_srv"`},
	{"main directive inside http", "events {}\nhttp {\n  worker_processes 2;\n}\n",
		`3: "worker_processes" directive is not allowed here`},
	{"stream time", "events {}\nstream {\n  server {\n    listen 9000;\n    proxy_timeout 10q;\n    proxy_pass 127.0.0.1:1;\n  }\n}\n",
		`5: "proxy_timeout" directive invalid value "10q": not a time (units ms, s, m, h, d, w, as in "30s" or "1m30s")`},
	{"stream flag where http has a bit mask", "events {}\nstream {\n  server {\n    listen 9000;\n    proxy_next_upstream error;\n    proxy_pass 127.0.0.1:1;\n  }\n}\n",
		`5: invalid value "error" in "proxy_next_upstream" directive, it must be "on" or "off"`},
	{"events number", "events {\n  worker_connections many;\n}\n",
		`2: invalid number "many" in "worker_connections" directive`},
	{"keepalive_timeout of http", "events {}\nhttp {\n  keepalive_timeout 75s 1x;\n}\n",
		`3: "keepalive_timeout" directive invalid value "1x": not a time in seconds (units s, m, h, d, w, M, y, as in "30s" or "1h")`},
	{"seconds refuse milliseconds", "events {}\nhttp {\n  ssl_session_timeout 500ms;\n}\n",
		`3: "ssl_session_timeout" directive invalid value "500ms": not a time in seconds (units s, m, h, d, w, M, y, as in "30s" or "1h")`},
	{"offset in capitals", "events {}\nhttp {\n  client_max_body_size 1G;\n}\n", ""},
	{"bit mask word", "events {}\nhttp {\n  ssl_protocols TLSv1.2 TLSv1.4;\n}\n",
		`3: invalid value "TLSv1.4" in "ssl_protocols" directive (allowed: SSLv2, SSLv3, TLSv1, TLSv1.1, TLSv1.2, TLSv1.3)`},
	{"if in http", "events {}\nhttp {\n  if ($uri) {\n  }\n}\n",
		`3: "if" directive is not allowed here`},
	{"limit_except in server", "events {}\nhttp {\n  server {\n    limit_except GET {\n    }\n  }\n}\n",
		`4: "limit_except" directive is not allowed here`},
	{"lua block in http", "events {}\nhttp {\n  content_by_lua_block {\n    ngx.say(1)\n  }\n}\n",
		`3: "content_by_lua_block" directive is not allowed here`},
	{"listen port 0", "events {}\nhttp {\n  server {\n    listen 127.0.0.1:0;\n  }\n}\n",
		`4: invalid port in "127.0.0.1:0" of the "listen" directive`},
	{"listen IPv6 with parameters", "events {}\nhttp {\n  server {\n    listen [::1]:8080 ipv6only=on backlog=10 so_keepalive=on;\n  }\n}\n", ""},
	{"directive in if", "events {}\nhttp {\n  server {\n    location / {\n      if ($arg_a) {\n        proxy_buffering off;\n      }\n    }\n  }\n}\n",
		`6: "proxy_buffering" directive is not allowed here`},
	{"lua blocks and limit_except", "events {}\nhttp {\n  server {\n    location / {\n      limit_except GET { deny all; }\n      content_by_lua_block { ngx.say(\"}\") }\n    }\n  }\n}\n", ""},
	{"map contents are data", "events {}\nhttp {\n  map $uri $x {\n    default 0;\n    proxy_read_timeuot 1;\n  }\n}\n", ""},
	{"errors before the reader's error", "events {}\nhttp {\n  proxy_buffering maybe;\n  }\n}\n",
		`3: invalid value "maybe" in "proxy_buffering" directive, it must be "on" or "off"`},
	{"nginx reads on after a block closes", "events {}\nhttp {\n  }\n  proxy_buffering maybe;\n}\n",
		`4: "proxy_buffering" directive is not allowed here`},
	{"reader's error first", "events {}\nhttp {\n  proxy_buffering maybe {\n  }\n  proxy_buffering maybe;\n}\n",
		`3: directive "proxy_buffering" is not terminated by ";": it takes no block`},
}

func TestCheck(t *testing.T) {
	for _, c := range checkCases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"nginx.conf": c.src})
			cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
			cfg.Check(nginx122, nil)
			fatal := fatalDiagnostics(cfg)
			if c.want == "" {
				assert.Empty(t, fatal)
				assert.False(t, cfg.Syntax)
				return
			}
			require.NotEmpty(t, fatal)
			assert.Equal(t, c.want, fmt.Sprintf("%d: %s", fatal[0].Pos.Line, fatal[0].Message))
			assert.Equal(t, CodeSyntax, fatal[0].Code)
			assert.True(t, cfg.Syntax)
		})
	}
}

// TestCheckAgreesWithNginx runs every case through the machine's nginx.
func TestCheckAgreesWithNginx(t *testing.T) {
	nginxtest.Require(t)
	for _, c := range checkCases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(c.src, "/tmp/c", t.TempDir(), 1)
			opts := []nginxtest.Option{nginxtest.WithModules(nginxtest.StreamModule)}
			if strings.Contains(src, "lua") {
				opts = append(opts, nginxtest.WithModules(nginxtest.LuaModules...))
			}
			res := nginxtest.Check(t, src, opts...)
			if c.want == "" {
				assert.True(t, res.OK, res.Stderr)
				return
			}
			require.False(t, res.OK)
			line := strings.SplitN(c.want, ":", 2)[0]
			assert.Equal(t, line, fmt.Sprint(res.Errors()[0].Line), res.Stderr)
		})
	}
}

func TestCheckVersions(t *testing.T) {
	src := "events {}\nhttp {\n  upstream u {\n    server 127.0.0.1:1;\n    keepalive 0;\n  }\n  server {\n    listen 8443 ssl;\n    ssl on;\n    http2 on;\n  }\n}\n"
	dir := writeFiles(t, map[string]string{"nginx.conf": src})
	for _, c := range []struct {
		target string
		want   []string
	}{
		{"nginx:1.22", []string{`5: invalid value "0" in "keepalive" directive`, `10: unknown directive "http2": nginx added it in 1.25.1 (target nginx:1.22)`}},
		{"nginx:1.26", []string{`5: invalid value "0" in "keepalive" directive`, `9: unknown directive "ssl": nginx removed it in 1.25.1 (target nginx:1.26)`}},
	} {
		tg, err := model.ParseTarget(c.target)
		require.NoError(t, err)
		cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
		cfg.Check(tg, nil)
		var got []string
		for _, d := range fatalDiagnostics(cfg) {
			got = append(got, fmt.Sprintf("%d: %s", d.Pos.Line, d.Message))
		}
		assert.Equal(t, c.want, got, c.target)
	}
}

// TestCheckRefusedOnPartOfTheRange: a directive that the newer releases of
// the target range removed ("ssl on", gone in 1.25.1) is an error for
// those releases, and no longer fatal: the configuration is read, and
// built for the older releases, which run it. With another error beside
// it the configuration stays unread, as for any error.
func TestCheckRefusedOnPartOfTheRange(t *testing.T) {
	src := "events {}\nhttp {\n  server {\n    listen 8443;\n    ssl on;\n  }\n  server {\n    listen 8444;\n    ssl on;\n  }\n}\n"
	dir := writeFiles(t, map[string]string{"nginx.conf": src, "broken.conf": strings.Replace(src, "listen 8444;", "listen 8444;\n    proxy_read_timeot 1s;", 1)})
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
	cfg.Check(model.DefaultTarget(model.Nginx), nil)
	assert.False(t, cfg.Syntax)
	assert.Empty(t, fatalDiagnostics(cfg))
	assert.Equal(t, model.Version{Major: 1, Minor: 25, Patch: 1}, cfg.RefusedFrom)
	var got []string
	for _, d := range cfg.Diagnostics {
		assert.Equal(t, model.Error, d.Severity)
		got = append(got, fmt.Sprintf("%d: %s", d.Pos.Line, d.Message))
	}
	want := `unknown directive "ssl" on nginx 1.25.1 and newer, which removed it (target nginx 1.18 or newer: older releases accept it, and the configuration was linted for them: nginx 1.18 or newer before 1.25.1)`
	assert.Equal(t, []string{"5: " + want, "9: " + want}, got)
	p := Build(cfg, model.Target{Product: model.Nginx, Min: model.Version{Major: 1, Minor: 18}, Before: cfg.RefusedFrom})
	assert.Len(t, p.Listeners, 2)

	cfg = Load(filepath.Join(dir, "broken.conf"), Options{})
	cfg.Check(model.DefaultTarget(model.Nginx), nil)
	assert.True(t, cfg.Syntax)
	assert.True(t, cfg.RefusedFrom.IsZero())
	got = nil
	for _, d := range fatalDiagnostics(cfg) {
		got = append(got, fmt.Sprintf("%d: %s", d.Pos.Line, d.Message))
	}
	assert.Equal(t, []string{
		`5: unknown directive "ssl" on nginx 1.25.1 and newer, which removed it (target nginx 1.18 or newer: older releases accept it)`,
		`9: unknown directive "proxy_read_timeot" (did you mean "proxy_read_timeout"?)`,
		`10: unknown directive "ssl" on nginx 1.25.1 and newer, which removed it (target nginx 1.18 or newer: older releases accept it)`,
	}, got)
}

// TestCheckThirdPartyModules: the directives of OpenResty's echo module and
// Kaltura's nginx-vod-module and nginx-secure-token-module, as their own
// READMEs configure them, are known: their contexts and argument counts
// come from the modules' command tables (ngx_http_echo_module.c,
// ngx_http_vod_conf.c with its *_commands.h, ngx_http_secure_token_filter_module.c
// and the providers' *_commands.h); a misplaced one is still refused.
func TestCheckThirdPartyModules(t *testing.T) {
	src := `load_module modules/ngx_http_vod_module.so;
load_module modules/ngx_http_secure_token_filter_module.so;
events {}
http {
    vod_mode local;
    vod_metadata_cache metadata_cache 512m;
    vod_response_cache response_cache 128m;
    secure_token_akamai akamai_token {
        key 1234;
        acl "$secure_token_baseuri_comma*";
    }
    server {
        listen 8080;
        location /echo/ {
            echo_reset_timer;
            echo_location_async /sub;
            echo "took $echo_timer_elapsed sec";
            echo_sleep 0.5;
        }
        location /hls/ {
            vod hls;
            vod_segment_duration 4000;
            vod_hls_encryption_method aes-128;
            secure_token $akamai_token;
            secure_token_types application/vnd.apple.mpegurl;
            secure_token_expires_time 100d;
        }
    }
    echo_sleep 1;
}
`
	dir := writeFiles(t, map[string]string{"nginx.conf": src})
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
	cfg.Check(nginx122, nil)
	var got []string
	for _, d := range cfg.Diagnostics {
		got = append(got, fmt.Sprintf("%d: %s", d.Pos.Line, d.Message))
	}
	assert.Equal(t, []string{`29: "echo_sleep" directive is not allowed here`}, got)
}

// TestCheckEchoAgreesWithNginx: the machine's nginx has OpenResty's echo
// module (Debian's libnginx-mod-http-echo): it accepts the echo
// directives where the tables say, and refuses a misplaced one at the
// same line.
func TestCheckEchoAgreesWithNginx(t *testing.T) {
	nginxtest.Require(t)
	echo := nginxtest.WithModules(nginxtest.ModulesDir + "/ngx_http_echo_module.so")
	good := "events {}\nhttp {\n  server {\n    listen 8080;\n    location /sub { echo_status 201; echo sub; }\n    location / {\n      echo_reset_timer;\n      echo_location_async /sub;\n      echo_duplicate 2 -;\n      echo_sleep 0.1;\n      echo \"took $echo_timer_elapsed\";\n    }\n  }\n}\n"
	res := nginxtest.Check(t, good, echo)
	assert.True(t, res.OK, res.Stderr)
	dir := writeFiles(t, map[string]string{"nginx.conf": good})
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
	cfg.Check(nginx122, nil)
	assert.Empty(t, cfg.Diagnostics)

	bad := strings.Replace(good, "http {\n", "http {\n  echo_sleep 1;\n", 1)
	res = nginxtest.Check(t, bad, echo)
	require.False(t, res.OK)
	assert.Equal(t, 3, res.Errors()[0].Line, res.Stderr)
	dir = writeFiles(t, map[string]string{"nginx.conf": bad})
	cfg = Load(filepath.Join(dir, "nginx.conf"), Options{})
	cfg.Check(nginx122, nil)
	require.Len(t, cfg.Diagnostics, 1)
	assert.Equal(t, int32(3), cfg.Diagnostics[0].Pos.Line)
	assert.Equal(t, `"echo_sleep" directive is not allowed here`, cfg.Diagnostics[0].Message)
}

func TestCheckCustomDirectives(t *testing.T) {
	src := "events {}\nhttp {\n  my_filter a;\n  server {\n    my_filter a b c;\n  }\n}\nmy_filter x;\n"
	dir := writeFiles(t, map[string]string{"nginx.conf": src})
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
	cfg.Check(nginx122, []CustomDirective{{Name: "my_filter", Contexts: []string{"http", "server"}, MinArgs: 1, MaxArgs: 2}})
	var got []string
	for _, d := range fatalDiagnostics(cfg) {
		got = append(got, fmt.Sprintf("%d: %s", d.Pos.Line, d.Message))
	}
	assert.Equal(t, []string{`5: invalid number of arguments in "my_filter" directive`, `8: "my_filter" directive is not allowed here`}, got)

	cfg = Load(filepath.Join(dir, "nginx.conf"), Options{})
	cfg.Check(nginx122, nil)
	require.NotEmpty(t, cfg.Diagnostics)
	assert.Contains(t, cfg.Diagnostics[0].Message, `unknown directive "my_filter"`)
}

// TestCheckFragmentContext: at the top of a fragment the context is only
// inferred, so a directive allowed somewhere passes; below, blocks fix it.
func TestCheckFragmentContext(t *testing.T) {
	src := "server {\n  listen 8080;\n  location / {\n    proxy_pass http://a;\n    worker_connections 10;\n  }\n}\n"
	dir := writeFiles(t, map[string]string{"site.conf": src})
	cfg := Load(filepath.Join(dir, "site.conf"), Options{})
	cfg.Check(nginx122, nil)
	fatal := fatalDiagnostics(cfg)
	require.Len(t, fatal, 1)
	assert.Equal(t, `"worker_connections" directive is not allowed here`, fatal[0].Message)
	assert.Equal(t, 5, int(fatal[0].Pos.Line))
}

// TestCheckIncludedFile: an included file is checked in the context of the
// include, and an error there is reported in that file.
func TestCheckIncludedFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"nginx.conf":    "events {}\nhttp {\n  server {\n    include conf.d/*.conf;\n  }\n}\n",
		"conf.d/a.conf": "location / {\n  proxy_connect_timeout 1s;\n}\nproxy_connect_timeout 2s;\nproxy_connect_timeout 3s;\n",
	})
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
	cfg.Check(nginx122, nil)
	fatal := fatalDiagnostics(cfg)
	require.Len(t, fatal, 1)
	assert.Equal(t, "a.conf", filepath.Base(fatal[0].Pos.File))
	assert.Equal(t, 5, int(fatal[0].Pos.Line))
	assert.Equal(t, `"proxy_connect_timeout" directive is duplicate`, fatal[0].Message)
}

// BenchmarkCheck measures the check alone on an 8 MB configuration.
func BenchmarkCheck(b *testing.B) {
	dir := writeFiles(b, map[string]string{"nginx.conf": string(bigConfig(8 << 20))})
	cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
	require.False(b, cfg.Syntax)
	b.ResetTimer()
	for b.Loop() {
		c := *cfg
		c.Diagnostics = nil
		c.Check(model.Target{Product: model.Nginx}, nil)
		if c.Syntax {
			b.Fatal(c.Diagnostics)
		}
	}
}

// TestTableFacts: what the generated table must know, from nginx's history
// and from the third-party modules.
func TestTableFacts(t *testing.T) {
	find := func(name string, ctx context) []directiveEntry {
		var out []directiveEntry
		for _, e := range declarations(name) {
			if e.spec.contexts&ctx != 0 {
				out = append(out, e)
			}
		}
		return out
	}
	ssl := find("ssl", ctxHTTPServer)
	require.Len(t, ssl, 1)
	assert.Equal(t, releaseOf(1, 25, 1), ssl[0].spec.until)
	http2 := find("http2", ctxHTTPServer)
	require.Len(t, http2, 1)
	assert.Equal(t, releaseOf(1, 25, 1), http2[0].spec.since)
	assert.Equal(t, kindFlag, http2[0].spec.kind)
	prt := find("proxy_read_timeout", ctxHTTPLocation)
	require.Len(t, prt, 1)
	assert.Equal(t, kindMsec, prt[0].spec.kind)
	assert.Equal(t, arg1, prt[0].spec.args)
	pnu := find("proxy_next_upstream", ctxHTTPLocation)
	require.Len(t, pnu, 1)
	assert.Equal(t, kindBitmask, pnu[0].spec.kind)
	assert.Contains(t, pnu[0].spec.words, "http_429@1.11.13")
	assert.NotContains(t, pnu[0].spec.words, "denied")
	for name, module := range map[string]string{
		"content_by_lua_block": "lua", "preread_by_lua_block": "stream-lua", "js_import": "njs",
		"more_set_headers": "headers-more", "brotli_static": "brotli", "geoip2": "geoip2",
		"vhost_traffic_status_zone": "vts", "passenger_enabled": "passenger", "nchan_publisher": "nchan",
		"MainRule": "naxsi", "modsecurity_rules_file": "modsecurity", "application": "rtmp",
		"echo": "echo", "echo_location_async": "echo", "vod_mode": "vod", "vod_hls_encryption_method": "vod",
		"secure_token": "secure-token", "secure_token_akamai": "secure-token",
	} {
		decls := declarations(name)
		require.NotEmpty(t, decls, name)
		found := false
		for _, e := range decls {
			found = found || e.spec.module == module
		}
		assert.True(t, found, "%s from %s", name, module)
	}
}

// NGINX Plus directives and those of a module the configuration loads with
// load_module are not judged: one note per kind says which, nothing is
// refused, and the rest is read (a typo elsewhere is still an error).
func TestCheckNotesWhatItCannotJudge(t *testing.T) {
	for _, c := range []struct {
		name, src, note, fatal string
	}{
		{"NGINX Plus", "events {}\nhttp {\n  keyval_zone zone=one:1m;\n  server {\n    status_zone api;\n  }\n}\n",
			`3: not checked: NGINX Plus directives (keyval_zone, status_zone), which open-source nginx refuses and proxylint's tables do not hold; the rest of the configuration is read`, ""},
		{"NGINX Plus status before R13", "events {}\nhttp {\n  server {\n    location /status {\n      status;\n      status_format json;\n    }\n  }\n}\n",
			`5: not checked: NGINX Plus directives (status, status_format), which open-source nginx refuses and proxylint's tables do not hold; the rest of the configuration is read`, ""},
		{"loaded module", "load_module modules/ngx_http_fancyindex_module.so;\nevents {}\nhttp {\n  server {\n    location / { fancyindex on; }\n  }\n}\n",
			`5: not checked: directives no module proxylint knows defines (fancyindex); a module loaded with load_module (modules/ngx_http_fancyindex_module.so) may, so the rest of the configuration is read`, ""},
		{"a typo without a loaded module", "events {}\nhttp {\n  status_zone api;\n  proxy_read_timeuot 1s;\n}\n",
			`3: not checked: NGINX Plus directives (status_zone), which open-source nginx refuses and proxylint's tables do not hold; the rest of the configuration is read`,
			`4: unknown directive "proxy_read_timeuot"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"nginx.conf": c.src})
			cfg := Load(filepath.Join(dir, "nginx.conf"), Options{})
			cfg.Check(nginx122, nil)
			var notes []string
			for _, d := range cfg.Diagnostics {
				if d.Severity == model.Note {
					notes = append(notes, fmt.Sprintf("%d: %s", d.Pos.Line, d.Message))
				}
			}
			assert.Equal(t, []string{c.note}, notes)
			fatal := fatalDiagnostics(cfg)
			if c.fatal == "" {
				assert.Empty(t, fatal)
				assert.False(t, cfg.Syntax)
				return
			}
			require.NotEmpty(t, fatal)
			assert.True(t, strings.HasPrefix(fmt.Sprintf("%d: %s", fatal[0].Pos.Line, fatal[0].Message), c.fatal), fatal[0].Message)
		})
	}
}

// A block notes each name once, before and after it holds more names than
// its list keeps.
func TestBlockScopeSawBefore(t *testing.T) {
	sc := &blockScope{}
	for round := range 2 {
		for i := range 3 * smallSeen {
			name := fmt.Sprintf("d%d", i)
			if got := sc.sawBefore(name); got != (round == 1) {
				t.Fatalf("round %d, %s: sawBefore = %v", round, name, got)
			}
			if round == 0 && !sc.sawBefore(name) {
				t.Fatalf("%s noted but not seen again", name)
			}
		}
	}
}
