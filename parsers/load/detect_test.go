package load

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/nginx"
)

// Shell scripts as /etc holds them: nginx's lexer reads "if [ ... ];" as a
// statement, and "if" is an nginx directive, but one that takes a block.
const (
	profileScript = "# /etc/profile: system-wide .profile file for the Bourne shell\n\nif [ \"$(id -u)\" -eq 0 ]; then\n  PATH=\"/usr/local/sbin:/usr/sbin\"\nfi\nexport PATH\n"
	initScript    = "#!/bin/sh\n### BEGIN INIT INFO\n# Provides: nginx\n### END INIT INFO\nPATH=/sbin:/bin\nDAEMON=/usr/sbin/nginx\ndo_start()\n{\n\tstart-stop-daemon --start --quiet --exec $DAEMON || return 1\n}\ncase \"$1\" in\n  start) do_start ;;\nesac\n"
)

func TestDetectByStructure(t *testing.T) {
	tree(t, map[string]string{
		"etc/profile":          profileScript,
		"etc/init.d/nginx":     initScript,
		"etc/nginx/njs.conf":   "js_import main from http.js;\nserver { listen 80; location / { js_content main.hello; } }\n",
		"etc/nginx/lua.conf":   "lua_package_path '/opt/?.lua;;';\nserver { listen 81; }\n",
		"etc/nginx/hdrs.conf":  "more_set_headers 'Server: x';\nproxy_connect_timeout 5s;\n",
		"etc/nginx/br.conf":    "brotli on;\nbrotli_types text/css;\ngzip on;\n",
		"etc/nginx/geo.conf":   "geoip2 /usr/share/GeoIP/City.mmdb {\n    $geoip2_city city names en;\n}\nserver { listen 82; }\n",
		"etc/nginx/pass.conf":  "passenger_root /usr/lib/passenger;\npassenger_ruby /usr/bin/ruby;\nserver { listen 83; }\n",
		"etc/compose.yaml":     "services:\n  web:\n    image: nginx\n",
		"etc/envoy/envoy.yaml": "static_resources:\n  clusters:\n  - name: app\n    connect_timeout: 1s\n",
	})
	var skipped []string
	m := Load([]string{"etc"}, Options{OnSkip: func(p, why string) { skipped = append(skipped, p+": "+why) }})
	assert.Empty(t, fatals(m), "shell scripts in a walked tree are not nginx files")
	var entries []string
	for _, p := range m.Proxies {
		entries = append(entries, string(p.Product)+" "+p.Entry)
	}
	assert.ElementsMatch(t, []string{
		"envoy etc/envoy/envoy.yaml",
		"nginx etc/nginx/br.conf", "nginx etc/nginx/geo.conf", "nginx etc/nginx/hdrs.conf",
		"nginx etc/nginx/lua.conf", "nginx etc/nginx/njs.conf", "nginx etc/nginx/pass.conf",
	}, entries)
	assert.ElementsMatch(t, []string{
		"etc/compose.yaml: not an nginx or Envoy configuration",
		"etc/init.d/nginx: not an nginx or Envoy configuration",
		"etc/profile: not an nginx or Envoy configuration",
	}, skipped)
}

func TestDetectNamedFiles(t *testing.T) {
	tree(t, map[string]string{
		"profile":    profileScript,
		"hdrs.conf":  "more_set_headers 'Server: x';\nproxy_connect_timeout 5s;\n",
		"hdrs2.conf": "more_clear_headers Server;\nlocation / { proxy_pass http://app; proxy_connect_timeout 5s; }\n",
	})
	m := Load([]string{"profile"}, Options{})
	assert.Equal(t, []string{"profile: profile: cannot tell whether this is an nginx or an Envoy configuration; name the kind with --kind nginx or --kind envoy"}, fatals(m))
	for _, f := range []string{"hdrs.conf", "hdrs2.conf"} {
		m = Load([]string{f}, Options{})
		assert.Empty(t, fatals(m), f)
		require.Len(t, m.Proxies, 1, f)
		assert.Equal(t, model.Nginx, m.Proxies[0].Product, f)
	}
	// git writes a symbolic link as a file holding its target where it
	// cannot make links; a trailing newline makes it text, not a link.
	tree(t, map[string]string{"default": "../sites-available/default", "notes": "see ../sites-available/default\n"})
	m = Load([]string{"default"}, Options{})
	assert.Equal(t, []string{`default: default: the file holds only the path "../sites-available/default": a symbolic link checked out as a plain file (git with core.symlinks off)? Lint the file it points to`}, fatals(m))
	m = Load([]string{"notes"}, Options{})
	assert.Equal(t, []string{"notes: notes: cannot tell whether this is an nginx or an Envoy configuration; name the kind with --kind nginx or --kind envoy"}, fatals(m))
}

// A template found in a walk is one note and no rule input; named, it is
// one error. Either way it names the template syntax.
func TestTemplates(t *testing.T) {
	const tpl = "%%TEST_GLOBALS%%\n\ndaemon off;\nevents {}\nhttp {\n    %%TEST_GLOBALS_HTTP%%\n\n    upstream u { server 127.0.0.1:8081; }\n    server { listen 8080; location / { proxy_pass http://u; } }\n}\n"
	tree(t, map[string]string{
		"conf/a.conf":            tpl,
		"conf/site.conf.j2":      "server {\n    listen {{ port }};\n    server_name {{ domain }};\n}\n",
		"conf/site.tmpl":         "{{ $all := . }}\nhttp {\n    {{ range $server := $all.Servers }}server { listen 80; }{{ end }}\n}\n",
		"conf/jinja.conf":        "{% for s in servers %}\nserver { listen 80; }\n{% endfor %}\n",
		"conf/env.conf":          "server {\n    listen ${NGINX_PORT};\n    location / { proxy_pass http://app; }\n}\n",
		"conf/commented.conf":    "# rendered from {{ template }}\nserver { listen 80; }\n",
		"conf/uses-var.conf":     "server { listen 80; location / { proxy_pass http://$host; } }\n",
		"conf/plain/ok.conf":     "server { listen 80; }\n",
		"conf/lua-template.conf": "server {\n    listen 80;\n    location / {\n        content_by_lua_block {\n            local page = [[{% if user then %}hi {{ user }}{% end %}]]\n        }\n    }\n}\n",
		"conf/plain/other.conf":  "upstream x { server 10.0.0.1; }\n",
		"conf/sample.conf":       "server {\n    listen 443 ssl;\n    server_name <container_name>.*;\n    set $upstream_proto <http or https>;\n}\n",
		"conf/html.conf":         "server {\n    listen 80;\n    location ~ ^/(?<app>[a-z]+)/ {\n        sub_filter '<head>' '<head><script src=/x.js></script>';\n        proxy_pass http://app;\n    }\n}\n",
		// Quoted, %%name%% is text nginx passes on, not a placeholder.
		"conf/sub.conf": "server {\n    listen 80;\n    location / {\n        sub_filter '%%BASE_URL%%' 'https://example.org';\n        proxy_pass http://app;\n    }\n}\n",
		// What the nginx image renders with envsubst, and a .template
		// without placeholders, which renders to itself.
		"conf/templates/default.conf.template": "server {\n    listen 80;\n    server_name ${NGINX_HOST};\n    location / { proxy_pass http://${host}$request_uri; }\n}\n",
		"conf/templates/static.conf.template":  "server {\n    listen 80;\n    location / { proxy_pass http://app; }\n}\n",
	})
	m := Load([]string{"conf"}, Options{})
	type diag struct {
		file string
		line int
		sev  model.Severity
		msg  string
	}
	var got []diag
	for _, d := range m.Diagnostics {
		assert.Equal(t, nginx.CodeSyntax, d.Code)
		got = append(got, diag{d.Pos.File, int(d.Pos.Line), d.Severity, d.Message})
	}
	assert.ElementsMatch(t, []diag{
		{"conf/a.conf", 1, model.Note, "this looks like a template (%%NAME%% placeholders): render it first, or exclude it; it was not linted"},
		{"conf/env.conf", 2, model.Note, "this looks like a template (${NAME} placeholders where nginx reads no variables): render it first, or exclude it; it was not linted"},
		{"conf/jinja.conf", 1, model.Note, "this looks like a template ({% %} tags): render it first, or exclude it; it was not linted"},
		{"conf/site.tmpl", 1, model.Note, "this looks like a template ({{ }} expressions): render it first, or exclude it; it was not linted"},
		{"conf/site.conf.j2", 2, model.Note, "this looks like a template ({{ }} expressions): render it first, or exclude it; it was not linted"},
		{"conf/sample.conf", 3, model.Note, "this looks like a template (<name> placeholders): render it first, or exclude it; it was not linted"},
		{"conf/templates/default.conf.template", 3, model.Note, "this looks like a template (${NAME} placeholders of a .template file, which envsubst renders, as the nginx image does with /etc/nginx/templates): render it first, or exclude it; it was not linted"},
	}, got)
	for _, p := range m.Proxies {
		assert.NotContains(t, []string{"conf/a.conf", "conf/env.conf", "conf/jinja.conf"}, p.Entry, "a template produces no model")
	}
	assert.Len(t, m.Proxies, 8, "a Lua template library's syntax in Lua code is Lua's business; a named capture, a quoted <head> and a quoted %%NAME%% are no placeholders; a .template without placeholders is nginx's")

	m = Load([]string{"conf/a.conf"}, Options{})
	require.Len(t, m.Diagnostics, 1)
	d := m.Diagnostics[0]
	assert.Equal(t, model.Diagnostic{Code: nginx.CodeSyntax, Severity: model.Error, Fatal: true, Pos: model.Pos{File: "conf/a.conf", Line: 1, Col: 1},
		Message: "this looks like a template (%%NAME%% placeholders): render it first, or exclude it"}, d)
	assert.Empty(t, m.Proxies)

	m = Load([]string{"conf/site.conf.j2"}, Options{})
	require.Len(t, m.Diagnostics, 1)
	assert.Equal(t, model.Pos{File: "conf/site.conf.j2", Line: 2, Col: 12}, m.Diagnostics[0].Pos)
	assert.Equal(t, "this looks like a template ({{ }} expressions): render it first, or exclude it", m.Diagnostics[0].Message)

	// Named, a file of no known name that holds placeholders is an nginx
	// template, not a file of unknown kind.
	m = Load([]string{"conf/site.tmpl"}, Options{})
	require.Len(t, m.Diagnostics, 1)
	assert.Equal(t, "conf/site.tmpl", m.Diagnostics[0].Pos.File)
	assert.Equal(t, "this looks like a template ({{ }} expressions): render it first, or exclude it", m.Diagnostics[0].Message)
}

// A file whose first directive is an njs one (js_import), as
// NGINX-Demos' oauth2-token-introspection-oss/frontend.conf starts, is
// nginx's in a directory walk too: linted, not skipped.
func TestWalkReadsNjsFirst(t *testing.T) {
	tree(t, map[string]string{
		"site/frontend.conf": "js_import conf.d/oauth2.js;\n\nserver {\n    listen 80;\n    location / {\n        auth_request /_introspect;\n        proxy_pass http://my_backend;\n    }\n    location = /_introspect {\n        internal;\n        js_content oauth2.introspectAccessToken;\n    }\n}\n",
		"site/njs-site":      "js_import main from conf.d/main.js;\njs_set $greeting main.greeting;\nserver { listen 81; location / { js_content main.hello; } }\n",
	})
	var skipped []string
	m := Load([]string{"site"}, Options{OnSkip: func(path, reason string) { skipped = append(skipped, path+": "+reason) }})
	assert.Empty(t, skipped)
	assert.Empty(t, fatals(m))
	var entries []string
	for _, p := range m.Proxies {
		entries = append(entries, p.Entry)
	}
	assert.ElementsMatch(t, []string{"site/frontend.conf", "site/njs-site"}, entries)
}
