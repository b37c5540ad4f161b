package nginx

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/proxylint/proxylint/internal/nginxtest"
	"github.com/proxylint/proxylint/model"
)

// nginx -t rejects configurations for many reasons. Only the reasons of
// its reader (ngx_conf_read_token, ngx_conf_parse, the block checks of
// ngx_conf_handler and the Lua module's block reader) are ours to match.
const (
	reasonReader = "reader" // syntax: the reader must agree exactly
	// The reasons below are nginx looking at values, at the machine or at
	// modules it was not built with: a linter must not need any of that.
	reasonUnknownDirective = "unknown directive" // module not built in, typo, template placeholder
	reasonNotAllowed       = "not allowed here"  // a directive in the wrong context
	reasonHostNotFound     = "host not found"    // DNS at configuration time
	reasonMachine          = "machine"           // certificates, users, log and module files, addresses
	reasonIncludeMissing   = "include missing"   // an included file that is not in the corpus
	reasonValue            = "invalid value"     // argument values and counts, duplicates, references
)

// nginxReasons classifies nginx's error messages. A message that matches
// none is unclassified, and fails the test.
var nginxReasons = []struct {
	reason string
	re     *regexp.Regexp
}{
	{reasonReader, regexp.MustCompile(`^unexpected "|^unexpected end of (file|parameter)|is not terminated by ";"$|has no opening "\{"$|^too long parameter|^too long lua code block|^Lua code block missing the closing long bracket|^invalid number of arguments in "include" directive$`)},
	{reasonUnknownDirective, regexp.MustCompile(`^unknown directive "`)},
	{reasonNotAllowed, regexp.MustCompile(`directive is not allowed here$`)},
	{reasonHostNotFound, regexp.MustCompile(`^host not found|^no resolver defined`)},
	{reasonMachine, regexp.MustCompile(`^cannot load certificate|^open\(\) ".*" failed|^getpwnam|^getgrnam|^dlopen\(\)|^mkdir\(\)|^bind\(\) to`)},
	{reasonValue, regexp.MustCompile(`^invalid |^"[a-z_0-9]+" directive invalid value$|^"[a-z_0-9]+" directive is duplicate$|^unknown log format|directive is duplicate$|^unknown "[^"]+" variable$|^no "ssl_certificate" is defined|^"[a-z_]+" cannot have URI part|^no servers are inside upstream$|^no port in upstream|^no ssl configured for the server$|^"[a-z_]+" zone "[^"]+" is unknown$|^no handler for server$`)},
}

// diffTarget is the release of the machine's nginx.
var diffTarget = model.Target{Product: model.Nginx, Version: model.Version{Major: 1, Minor: 22, Patch: 1}}

// fragmentContexts are the contexts the test wraps fragments in.
var fragmentContexts = map[string]context{
	"main": ctxMain, "http": ctxHTTP, "server": ctxHTTPServer, "location": ctxHTTPLocation, "upstream": ctxHTTPUpstream,
}

// checkedNginx matches the errors of nginx's command handling that the
// loader's check (check.go) reproduces: past the reader, nginx -t refuses
// these for the file alone, whatever the machine.
var checkedNginx = regexp.MustCompile(`^unknown directive "|directive is not allowed here$|^invalid number of arguments in "|^"[a-z_0-9]+" directive invalid value$|^invalid value "[^"]*" in "[a-z_0-9]+" directive|^"[a-z_0-9]+" directive is duplicate$|^invalid port in "|^"proxy_pass" cannot have URI part|^invalid parameter "|^invalid value "|^invalid number "`)

// checkedByUs reports whether nginx's error is one the check must agree
// with. An unknown directive that the tables know for the target comes
// from a module this nginx is not built with: that is the machine.
func checkedByUs(d nginxtest.Diagnostic, cfg *Config) bool {
	if !checkedNginx.MatchString(d.Message) {
		return false
	}
	// The handlers' own "invalid ..." messages are ours only for the
	// directives the check reads values of (the upstream server parameters
	// of NGINX Plus, say, are not).
	if strings.HasPrefix(d.Message, "invalid ") && !strings.HasPrefix(d.Message, "invalid number of arguments") {
		at := stoppedAt(cfg, d)
		if at == nil {
			return false
		}
		switch at.Name {
		case "listen", "keepalive", "keepalive_timeout", "worker_connections", "proxy_pass":
			return true
		}
		for _, e := range declarations(at.Name) {
			if e.spec.kind != kindOther {
				return true
			}
		}
		return false
	}
	if m := regexp.MustCompile(`^unknown directive "([^"]+)"`).FindStringSubmatch(d.Message); m != nil {
		ch := &checker{target: diffTarget, release: releaseOf(1, 22, 1)}
		for _, e := range declarations(m[1]) {
			if ch.active(e) {
				return false
			}
		}
	}
	return true
}

// loadChecked loads a corpus file and checks it as nginx 1.22.1 in ctx.
func loadChecked(path, ctx string, opts Options) *Config {
	cfg := Load(path, opts)
	top, ok := fragmentContexts[ctx]
	if !ok {
		top = ctxAll
	}
	cfg.checkIn(top, diffTarget, nil)
	return cfg
}

// classifyNginx gives the reason of an nginx error. An open() failure is a
// missing include when the loader found an include at that place.
func classifyNginx(d nginxtest.Diagnostic, cfg *Config) string {
	for _, r := range nginxReasons {
		if r.re.MatchString(d.Message) {
			if r.reason == reasonMachine && strings.HasPrefix(d.Message, "open()") && d.Line > 0 && includeDiagnosticAt(cfg, realFile(d.File), d.Line) {
				return reasonIncludeMissing
			}
			return r.reason
		}
	}
	return ""
}

// nginxExclusions lists the corpus files that nginx -t rejects for a
// reason a linter must not need, with the reason of nginx's first error.
// TestMatchesNginx fails when a listed file is no longer rejected for its
// reason (the entry is stale) and when a file is rejected for such a
// reason without being listed.
//
// An excluded file is still compared: the test blanks out the directive
// nginx stopped at (nginx has read it, so its syntax is fine) and runs
// nginx again, until nginx accepts the rest or the reader rejects it.
var nginxExclusions = map[string]string{
	// Directives of modules this nginx is not built with (mail, perl, njs,
	// brotli, naxsi, nchan), which the check knows. Typos, test-harness
	// placeholders and NGINX Plus directives are the check's to refuse.
	"nginx/certbot__certbot/certbot-compatibility-test/nginx/nginx-roundtrip-testdata/embeddedperlminifyjs/nginx.conf":                                    reasonUnknownDirective, // unknown directive "perl_modules"
	"nginx/certbot__certbot/certbot-compatibility-test/nginx/nginx-roundtrip-testdata/imapproxyexample/nginx.conf":                                        reasonUnknownDirective, // unknown directive "mail"
	"nginx/certbot__certbot/certbot/src/certbot/_internal/tests/plugins/nginx/testdata/etc_nginx/ubuntu_nginx_1_4_6/default_vhost/nginx/naxsi_core.rules": reasonUnknownDirective, // unknown directive "MainRule"
	"nginx/h5bp__server-configs-nginx/h5bp/web_performance/pre-compressed_content_brotli.conf":                                                            reasonUnknownDirective, // unknown directive "brotli_static"
	"nginx/nginxinc__NGINX-Demos/oauth2-token-introspection-oss/frontend.conf":                                                                            reasonUnknownDirective, // unknown directive "js_import"
	"nginx/slact__nchan/dev/nginx.conf":               reasonUnknownDirective, // unknown directive "nchan_subscribe_existing_channels_only"
	"parser-edge-cases/04_third_party_directive.conf": reasonUnknownDirective, // unknown directive "brotli_static"

	// Host names nginx resolves while reading the configuration.
	"nginx/Chocobozzz__PeerTube/support/nginx/peertube":                                                                 reasonHostNotFound, // host not found in upstream "${PEERTUBE_HOST}"
	"nginx/certbot__certbot/certbot/src/certbot/_internal/tests/plugins/nginx/testdata/etc_nginx/sites-enabled/default": reasonHostNotFound, // host not found in "myhost" of the "listen" directive
	"nginx/discourse__discourse/config/nginx.sample.conf":                                                               reasonHostNotFound, // host not found in upstream "avatars.discourse.org"
	"nginx/mattermost__docker/nginx/conf.d/default.conf":                                                                reasonHostNotFound, // host not found in upstream "mattermost:8065"
	"nginx/nginxinc__NGINX-Demos/fun-with-health-checks/nginxplus/config/conf.d/backend.conf":                           reasonHostNotFound, // host not found in resolver "consul:53"

	// Users, groups, certificates, modules, directories and addresses of
	// the machine the configuration was written for.
	"nginx/NginxProxyManager__nginx-proxy-manager/docker/rootfs/etc/nginx/nginx.conf":                                         reasonMachine, // getpwnam("npm") failed
	"nginx/certbot__certbot/certbot-compatibility-test/nginx/nginx-roundtrip-testdata/full-example/nginx.conf":                reasonMachine, // getpwnam("www") failed
	"nginx/certbot__certbot/certbot/src/certbot/_internal/tests/plugins/nginx/testdata/etc_nginx/nginx.conf":                  reasonMachine, // getgrnam("nobody") failed
	"nginx/certbot__certbot/certbot/src/certbot/_internal/tests/plugins/nginx/testdata/etc_nginx/sites-enabled/both.com":      reasonMachine, // cannot load certificate "cert.pem": BIO_new_file() failed
	"nginx/certbot__certbot/certbot/src/certbot/_internal/tests/plugins/nginx/testdata/etc_nginx/sites-enabled/example.com":   reasonMachine, // bind() to 69.50.225.155:9000 failed (99: Cannot assign requested address)
	"nginx/certbot__certbot/certbot/src/certbot/_internal/tests/plugins/nginx/testdata/etc_nginx/sites-enabled/migration.com": reasonMachine, // cannot load certificate "cert.pem": BIO_new_file() failed
	"nginx/certbot__certbot/certbot/src/certbot/_internal/tests/plugins/nginx/testdata/etc_nginx/sites-enabled/sslon.com":     reasonMachine, // cannot load certificate "snakeoil.cert": BIO_new_file() failed
	"nginx/gitlabhq__gitlabhq/lib/support/nginx/gitlab-ssl":                                                                   reasonMachine, // cannot load certificate "/etc/nginx/ssl/gitlab.crt": BIO_new_file() failed
	"nginx/nginx__njs-examples/conf/http/authorization/jwt.conf":                                                              reasonMachine, // dlopen() "modules/ngx_http_js_module.so" failed
	"nginx/nginx__njs-examples/conf/http/hello.conf":                                                                          reasonMachine, // dlopen() "modules/ngx_http_js_module.so" failed
	"nginx/nginx__njs-examples/conf/http/subrequests_chaining.conf":                                                           reasonMachine, // dlopen() "modules/ngx_http_js_module.so" failed
	"nginx/nginx__njs-examples/conf/stream/detect_http.conf":                                                                  reasonMachine, // dlopen() "modules/ngx_stream_js_module.so" failed
	"nginx/nginxinc__NGINX-Demos/fun-with-health-checks/nginxplus/config/nginx.conf":                                          reasonMachine, // getpwnam("nginx") failed
	"nginx/nginxinc__NGINX-Demos/random-files/nginx.conf":                                                                     reasonMachine, // getpwnam("nginx") failed
	"nginx/nginxinc__crossplane/tests/configs/messy/nginx.conf":                                                               reasonMachine, // getgrnam("nobody") failed
	"nginx/nginxinc__docker-nginx/.test/tests/modules/nginx.conf.sme":                                                         reasonMachine, // getpwnam("nginx") failed
	"nginx/nginxinc__nginx-go-crossplane/testdata/configs/large-config/nginx.conf":                                            reasonMachine, // getpwnam("nginx") failed
	"nginx/nginxinc__nginx-go-crossplane/testdata/configs/large-config/nginx.conf.kld":                                        reasonMachine, // getpwnam("nginx") failed
	"nginx/nginxinc__nginx-go-crossplane/testdata/configs/ubuntu-default/modules-enabled/50-mod-http-image-filter.conf":       reasonMachine, // dlopen() "modules/ngx_http_image_filter_module.so" failed
	"nginx/nginxinc__nginx-go-crossplane/testdata/configs/ubuntu-default/modules-enabled/50-mod-http-xslt-filter.conf":        reasonMachine, // dlopen() "modules/ngx_http_xslt_filter_module.so" failed
	"nginx/nginxinc__nginx-go-crossplane/testdata/configs/ubuntu-default/nginx.conf":                                          reasonMachine, // dlopen() "modules/ngx_http_image_filter_module.so" failed
	"nginx/temporalio__docker-compose/deployment/nginx/nginx.conf":                                                            reasonMachine, // getpwnam("nginx") failed

	// Included files that are not part of the corpus: absolute paths of
	// the original machine, or files the project ships elsewhere.
	"nginx/NginxProxyManager__nginx-proxy-manager/docker/rootfs/etc/nginx/conf.d/include/assets.conf":           reasonIncludeMissing, // open() "conf.d/include/proxy.conf" failed (2: No such file or directory)
	"nginx/certbot__certbot/certbot-compatibility-test/nginx/nginx-roundtrip-testdata/79-configs/site-10033":    reasonIncludeMissing, // open() "upload_folder_security_params" failed (2: No such file or directory)
	"nginx/certbot__certbot/certbot-compatibility-test/nginx/nginx-roundtrip-testdata/79-configs/site-1167":     reasonIncludeMissing, // open() "upload_folder_security_params" failed (2: No such file or directory)
	"nginx/certbot__certbot/certbot-compatibility-test/nginx/nginx-roundtrip-testdata/79-configs/site-23325":    reasonIncludeMissing, // open() "upload_folder_security_params" failed (2: No such file or directory)
	"nginx/certbot__certbot/certbot-compatibility-test/nginx/nginx-roundtrip-testdata/79-configs/site-3483":     reasonIncludeMissing, // open() "upload_folder_security_params" failed (2: No such file or directory)
	"nginx/certbot__certbot/certbot-compatibility-test/nginx/nginx-roundtrip-testdata/djangofastcgi/large.conf": reasonIncludeMissing, // open() "/usr/local/nginx/mime.types" failed (2: No such file or directory)
	"nginx/h5bp__server-configs-nginx/conf.d/.default.conf":                                                     reasonIncludeMissing, // open() "h5bp/tls/ssl_engine.conf" failed (2: No such file or directory)
	"nginx/h5bp__server-configs-nginx/h5bp/basic.conf":                                                          reasonIncludeMissing, // open() "h5bp/security/referrer-policy.conf" failed (2: No such file or directory)
	"nginx/h5bp__server-configs-nginx/h5bp/location/web_performance_svgz-compression.conf":                      reasonIncludeMissing, // open() "h5bp/security/x-content-type-options.conf" failed (2: No such file or directory)
	"nginx/h5bp__server-configs-nginx/h5bp/media_types/media_types.conf":                                        reasonIncludeMissing, // open() "mime.types" failed (2: No such file or directory)
	"nginx/linuxserver__docker-swag/root/defaults/nginx/site-confs/default.conf.sample":                         reasonIncludeMissing, // open() "/config/nginx/ssl.conf" failed (2: No such file or directory)
	"nginx/linuxserver__reverse-proxy-confs/dnsdist.subdomain.conf.sample":                                      reasonIncludeMissing, // open() "/config/nginx/proxy.conf" failed (2: No such file or directory)
	"nginx/linuxserver__reverse-proxy-confs/mastodon.subdomain.conf.sample":                                     reasonIncludeMissing, // open() "/config/nginx/ssl.conf" failed (2: No such file or directory)
	"nginx/linuxserver__reverse-proxy-confs/pydio-cells.subdomain.conf.sample":                                  reasonIncludeMissing, // open() "/config/nginx/ssl.conf" failed (2: No such file or directory)
	"nginx/mozilla__addons-server/docker/nginx/addons.conf":                                                     reasonIncludeMissing, // open() "uwsgi_params" failed (2: No such file or directory)
	"nginx/nginxinc__nginx-openid-connect/frontend.conf":                                                        reasonIncludeMissing, // open() "conf.d/openid_connect.server_conf" failed (2: No such file or directory)
	"nginx/openresty__docker-openresty/nginx.conf":                                                              reasonIncludeMissing, // open() "mime.types" failed (2: No such file or directory)
	"nginx/zulip__zulip/puppet/zulip/files/nginx/zulip-include-frontend/upstreams":                              reasonIncludeMissing, // open() "/etc/nginx/zulip-include/tornado-upstreams" failed (2: No such file or directory)

	// Argument values, counts and references nginx checks: log formats
	// and variables defined by the including configuration, missing
	// certificates for "listen ... ssl", ...
	"nginx/NginxProxyManager__nginx-proxy-manager/docker/rootfs/etc/nginx/conf.d/default.conf":                              reasonValue, // unknown log format "standard"
	"nginx/NginxProxyManager__nginx-proxy-manager/docker/rootfs/etc/nginx/conf.d/include/log-proxy.conf":                    reasonValue, // unknown "server" variable
	"nginx/NginxProxyManager__nginx-proxy-manager/docker/rootfs/etc/nginx/conf.d/include/proxy.conf":                        reasonValue, // unknown "forward_scheme" variable
	"nginx/certbot__certbot/certbot/src/certbot/_internal/tests/plugins/nginx/testdata/etc_nginx/broken.conf":               reasonValue, // no "ssl_certificate" is defined for the "listen ... ssl" directive
	"nginx/certbot__certbot/certbot/src/certbot/_internal/tests/plugins/nginx/testdata/etc_nginx/foo.conf":                  reasonValue, // no "ssl_certificate" is defined for the "listen ... ssl" directive
	"nginx/certbot__certbot/certbot/src/certbot/_internal/tests/plugins/nginx/testdata/etc_nginx/sites-enabled/ipv6ssl.com": reasonValue, // no "ssl_certificate" is defined for the "listen ... ssl" directive
	"nginx/h5bp__server-configs-nginx/h5bp/cross-origin/requests.conf":                                                      reasonValue, // unknown "cors" variable
	"nginx/h5bp__server-configs-nginx/h5bp/security/content-security-policy.conf":                                           reasonValue, // unknown "content_security_policy" variable
	"nginx/h5bp__server-configs-nginx/h5bp/security/cross-origin-policy.conf":                                               reasonValue, // unknown "coep_policy" variable
	"nginx/h5bp__server-configs-nginx/h5bp/security/permissions-policy.conf":                                                reasonValue, // unknown "permissions_policy" variable
	"nginx/h5bp__server-configs-nginx/h5bp/security/referrer-policy.conf":                                                   reasonValue, // unknown "referrer_policy" variable
	"nginx/h5bp__server-configs-nginx/h5bp/security/x-frame-options.conf":                                                   reasonValue, // unknown "x_frame_options" variable
	"nginx/h5bp__server-configs-nginx/h5bp/web_performance/cache-control.conf":                                              reasonValue, // unknown "cache_control" variable
	"nginx/kubernetes__ingress-nginx/test/data/cleanConf.expected.conf":                                                     reasonValue, // unknown log format "upstreaminfo"
	"nginx/kubernetes__ingress-nginx/test/data/cleanConf.src.conf":                                                          reasonValue, // unknown log format "upstreaminfo"
	"nginx/mastodon__mastodon/dist/nginx.conf":                                                                              reasonValue, // no "ssl_certificate" is defined for the "listen ... ssl" directive
	"nginx/nginxinc__crossplane/tests/configs/empty-value-map/nginx.conf":                                                   reasonValue, // unknown "arg" variable
	"nginx/nginxinc__crossplane/tests/configs/lua-block-tricky/nginx.conf":                                                  reasonValue, // no servers are inside upstream
	"nginx/nginxinc__docker-nginx/.test/tests/templates/server.conf.template":                                               reasonValue, // unknown "nginx_my_server_name" variable
	"nginx/nginxinc__nginx-go-crossplane/testdata/configs/geo/nginx.conf":                                                   reasonValue, // invalid range "192.168.1.0/24"
}

// nginxRun is what nginx -t said about one version of a corpus file.
type nginxRun struct {
	ok     bool
	first  nginxtest.Diagnostic // the first error
	reason string
	stderr string
}

func (r nginxRun) String() string {
	if r.ok {
		return "accepted"
	}
	return fmt.Sprintf("%s (%s)", r.first, r.reason)
}

// mirrorDir creates a scratch directory holding a symbolic link to every
// entry of dir, so that a configuration placed in it resolves relative
// includes as it would in dir.
func mirrorDir(t *testing.T, dir string) string {
	t.Helper()
	mirror := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(mirror, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return mirror
}

// runNginx runs nginx -t on the file at path placed in ctx, with a wrapper
// configuration in path's directory (so that relative includes resolve
// against it, as the loader resolves them).
func runNginx(t *testing.T, path, ctx string, cfg *Config, isolate bool) nginxRun {
	t.Helper()
	top := map[string]bool{}
	if cfg.Main != nil {
		for _, d := range flatten(cfg.Main.Directives) {
			top[d.Name] = true
		}
	}
	// Load the dynamic modules the configuration may use (loading them
	// all costs time on every run).
	var modules []string
	for word, mods := range map[string][]string{
		"lua":    nginxtest.LuaModules,
		"stream": {nginxtest.StreamModule},
		"echo":   {nginxtest.ModulesDir + "/ngx_http_echo_module.so"},
	} {
		for _, f := range cfg.Files {
			if bytes.Contains(f.Source, []byte(word)) {
				modules = append(modules, mods...)
				break
			}
		}
	}
	// NDK must come before the Lua module; the others in any order.
	slices.SortFunc(modules, func(a, b string) int {
		return strings.Compare(strings.Replace(a, "ndk_", "0", 1), strings.Replace(b, "ndk_", "0", 1))
	})
	opts := []nginxtest.Option{nginxtest.WithModules(modules...)}
	if isolate {
		opts = append(opts, nginxtest.Isolated())
	}
	include := "include " + quoteNginx(path) + ";\n"
	var conf string
	switch ctx {
	case "main":
		conf = include
		if !top["events"] {
			conf += "events {}\n"
		}
		if top["pid"] {
			opts = append(opts, nginxtest.OmitPIDFlag())
		}
	default:
		http := "access_log logs/access.log;\n"
		for _, p := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
			if !top[p+"_temp_path"] {
				http += p + "_temp_path tmp/" + p + ";\n"
			}
		}
		inner := include
		switch ctx {
		case "location":
			inner = "server {\nlocation / {\n" + inner + "}\n}\n"
		case "server":
			inner = "server {\n" + inner + "}\n"
		case "upstream":
			inner = "upstream proxylint_fragment {\n" + inner + "}\n"
		}
		conf = "events {}\nhttp {\n" + http + inner + "}\n"
	}
	wrapper := filepath.Join(filepath.Dir(path), ".proxylint-wrapper")
	if err := os.WriteFile(wrapper, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	res := nginxtest.CheckFile(t, wrapper, opts...)
	r := nginxRun{ok: res.OK, stderr: res.Stderr}
	if !res.OK {
		errs := res.Errors()
		if len(errs) == 0 {
			t.Fatalf("nginx -t failed without an error message:\n%s", res.Stderr)
		}
		r.first = errs[0]
		r.reason = classifyNginx(r.first, cfg)
	}
	return r
}

// withTempPaths returns src with the temp path directives of the http block
// that it does not set itself added right after the "{" of its top-level
// http block, or src itself when it has no http block. It returns nil when
// the http block is not at the top level of the main file.
func withTempPaths(src []byte, cfg *Config) []byte {
	var http *Directive
	for _, d := range flatten(cfg.Main.Directives) {
		if d.Name == "http" && d.Block != nil {
			http = d
		}
	}
	if http == nil {
		return src
	}
	if !slices.Contains(cfg.Main.Directives, http) {
		return nil
	}
	set := map[string]bool{}
	for _, d := range flatten(http.Block) {
		set[d.Name] = true
	}
	var add strings.Builder
	for _, p := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		if !set[p+"_temp_path"] {
			add.WriteString(" " + p + "_temp_path tmp/" + p + ";")
		}
	}
	at := offsetOf(src, http.BlockPos()) + 1
	return slices.Concat(src[:at], []byte(add.String()), src[at:])
}

// writesFile reports whether nginx -t creates or opens for writing the
// file or directory that d's first argument names.
func writesFile(d *Directive) bool {
	switch {
	case len(d.Args) == 0:
		return false
	case d.Name == "access_log", d.Name == "error_log", d.Name == "pid", d.Name == "lock_file",
		strings.HasSuffix(d.Name, "_temp_path"), strings.HasSuffix(d.Name, "_cache_path"):
		return true
	}
	return false
}

// writesOutside reports whether a configuration makes nginx -t write
// outside its prefix: a log, temp or cache path, pid or lock file given by
// an absolute path (relative ones resolve in the prefix; paths with
// variables are opened only when serving).
func writesOutside(cfg *Config) bool {
	found := false
	var walk func([]*Directive)
	walk = func(dirs []*Directive) {
		for _, d := range dirs {
			if writesFile(d) && strings.HasPrefix(d.Args[0].Value, "/") && !strings.Contains(d.Args[0].Value, "$") {
				found = true
			}
			walk(d.Block)
			for _, f := range d.Included() {
				walk(f.Directives)
			}
		}
	}
	if cfg.Main != nil {
		walk(cfg.Main.Directives)
	}
	return found
}

func pathChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-", r)
}

// confinePaths rewrites, in the main file, the absolute paths nginx -t
// would write to into paths of the same length inside its prefix (logs/
// or tmp/), so that no position moves and nginx need not be isolated.
func confinePaths(src []byte, cfg *Config) []byte {
	if cfg.Main == nil {
		return src // refused whole (a template): nothing is read from it
	}
	out := src
	n := 0
	starts := lineStarts(src)
	for _, d := range flattenAll(cfg.Main.Directives) {
		if !writesFile(d) {
			continue
		}
		a := d.Args[0]
		dir := "logs/"
		if strings.HasSuffix(d.Name, "_path") {
			dir = "tmp/"
		}
		raw := argRawAt(src, starts, a)
		plain := strings.Trim(raw, `"'`) == a.Value && strings.IndexFunc(a.Value, func(r rune) bool {
			return !pathChar(r)
		}) < 0
		name := fmt.Sprintf("x%d", n)
		if !strings.HasPrefix(a.Value, "/") || !plain || len(a.Value) < len(dir)+len(name) {
			continue
		}
		n++
		at := offsetAt(src, starts, model.Pos{Line: a.Line, Col: a.Col})
		if raw != "" && (raw[0] == '"' || raw[0] == '\'') { // argQuote
			at++
		}
		if out == nil || &out[0] == &src[0] {
			out = slices.Clone(src)
		}
		copy(out[at:], dir+strings.Repeat("_", len(a.Value)-len(dir)-len(name))+name)
	}
	return out
}

func quoteNginx(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// realFile resolves symbolic links, so that nginx's file names and the
// loader's compare.
func realFile(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// firstFatal returns the loader's first fatal diagnostic, and whether it is
// a syntax error.
func firstFatal(cfg *Config) (*model.Diagnostic, bool) {
	for i, d := range cfg.Diagnostics {
		if d.Fatal {
			return &cfg.Diagnostics[i], d.Code == CodeSyntax
		}
	}
	return nil, false
}

// includeDiagnosticAt reports whether the loader said something about an
// include at file:line.
func includeDiagnosticAt(cfg *Config, file string, line int) bool {
	for _, d := range cfg.Diagnostics {
		if d.Code == CodeInclude && int(d.Pos.Line) == line && realFile(d.Pos.File) == file {
			return true
		}
	}
	return false
}

// directiveNamed matches the directive an nginx message is about.
var directiveNamed = regexp.MustCompile(`^unknown directive "([^"]+)"|^"([^"]+)" directive|in "([^"]+)" directive|^(getpwnam|getgrnam)|^(dlopen)\(\)|^no servers are inside (upstream)|^no handler for (server)`)

// stoppedAt finds the directive of the main file that nginx stopped at.
// When nginx's error is in the main file, that is the directive that ends
// (with ";", "{" or "}") on the error's line and, when the message names a
// directive, has that name; the innermost one if several do. When the
// error is in an included file, it is the include directive of the main
// file that led there.
func stoppedAt(cfg *Config, d nginxtest.Diagnostic) *Directive {
	file := realFile(d.File)
	if file != realFile(cfg.Main.Path) {
		var leads func(*File) bool
		leads = func(f *File) bool {
			if realFile(f.Path) == file {
				return true
			}
			for _, x := range flattenAll(f.Directives) {
				for _, g := range x.Included() {
					if leads(g) {
						return true
					}
				}
			}
			return false
		}
		for _, x := range flattenAll(cfg.Main.Directives) {
			for _, g := range x.Included() {
				if leads(g) {
					return x
				}
			}
		}
		return nil
	}
	name := ""
	if m := directiveNamed.FindStringSubmatch(d.Message); m != nil {
		for _, g := range m[1:] {
			if g != "" {
				name = g
			}
		}
		switch name {
		case "getpwnam", "getgrnam":
			name = "user"
		case "dlopen":
			name = "load_module"
		}
	}
	var found *Directive
	for _, x := range flattenAll(cfg.Main.Directives) {
		ends := int(x.End().Line) == d.Line || x.IsBlock() && int(x.BlockPos().Line) == d.Line
		if ends && (name == "" || x.Name == name) {
			found = x
		}
	}
	return found
}

// flattenAll lists the directives of a file at every depth, in order,
// without following includes.
func flattenAll(dirs []*Directive) []*Directive {
	var out []*Directive
	for _, d := range dirs {
		out = append(out, d)
		out = append(out, flattenAll(d.Block)...)
	}
	return out
}

// blankForeseen blanks out, in one go, what would stop nginx in later
// rounds anyway: the directives of modules nginx is not built with, and
// includes the loader could not read.
func blankForeseen(src []byte, cfg *Config) []byte {
	// One copy of src is blanked in place, directive after directive, as
	// blank would blank each one in a copy of the last: blanking keeps
	// every line break, so src's line starts hold for the copy throughout.
	var out []byte
	var starts []int
	failed := false
	var walk func([]*Directive)
	walk = func(dirs []*Directive) {
		for _, d := range dirs {
			_, known := lookupDirective(d.Name)
			foreign := !known && !strings.Contains(d.Name, "lua") && !strings.HasPrefix(d.Name, "echo")
			missing := d.Name == "include" && len(d.Args) == 1 && includeDiagnosticAt(cfg, realFile(d.ArgPos(0).File), int(d.ArgPos(0).Line))
			if (foreign || missing) && !failed {
				if out == nil {
					out, starts = slices.Clone(src), lineStarts(src)
				}
				failed = !blankIn(out, starts, d)
				continue
			}
			walk(d.Block)
		}
	}
	walk(cfg.Main.Directives)
	switch {
	case failed:
		return nil
	case out == nil:
		return src
	}
	return out
}

// blank replaces the text of directive d (from its name to its ";" or "}")
// by spaces, keeping line breaks, so that every other position stays.
func blank(src []byte, d *Directive) []byte {
	from, to := offsetOf(src, d.Pos), offsetOf(src, d.End())
	if from < 0 || to < from {
		return nil
	}
	out := append([]byte(nil), src...)
	for i := from; i <= to && i < len(out); i++ {
		if out[i] != '\n' {
			out[i] = ' '
		}
	}
	return out
}

// blankIn is blank in place, with src's line starts (lineStarts) at hand;
// it reports whether d's text was found.
func blankIn(src []byte, starts []int, d *Directive) bool {
	from, to := offsetAt(src, starts, d.Pos), offsetAt(src, starts, d.End())
	if from < 0 || to < from {
		return false
	}
	for i := from; i <= to && i < len(src); i++ {
		if src[i] != '\n' {
			src[i] = ' '
		}
	}
	return true
}

// lineStarts are the byte offsets at which src's lines start: line n
// starts at lineStarts(src)[n-1].
func lineStarts(src []byte) []int {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// offsetAt is offsetOf with src's line starts (lineStarts) at hand, for
// callers that convert many positions of one large file.
func offsetAt(src []byte, starts []int, p model.Pos) int {
	line := max(int(p.Line), 1)
	if line > len(starts) {
		return -1
	}
	off := starts[line-1]
	for col := 1; col < int(p.Col) && off < len(src); col++ {
		_, n := utf8.DecodeRune(src[off:])
		off += n
	}
	return off
}

// argRawAt is argRaw with src's line starts (lineStarts) at hand.
func argRawAt(src []byte, starts []int, a Arg) string {
	off := offsetAt(src, starts, model.Pos{Line: a.Line, Col: a.Col})
	if off < 0 || off+int(a.Len) > len(src) {
		return ""
	}
	return string(src[off : off+int(a.Len)])
}

// TestBlankForeseenAsBlankingEachInACopy holds the in-place blanking to
// what blanking each foreseen directive in a copy of the last (blank,
// offsetOf) gives, on a file with directives nginx does not know and a
// missing include, with text of several bytes per code point before and
// between them.
func TestBlankForeseenAsBlankingEachInACopy(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nginx.conf")
	src := []byte("events {}\nhttp {\n    # ünïcödé\n    x_set_headers \"X-Ä: ö\"; proxy_x_unknown \"ü\" 1;\n" +
		"    server {\n        listen 80;\n        location / { return 200 \"é\"; brotli_x on; }\n    }\n    include missing/*.conf;\n    include absent.conf;\n}\n")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := loadChecked(path, "main", Options{Roots: []string{dir}})
	want, blanked := src, 0
	var walk func([]*Directive)
	walk = func(dirs []*Directive) {
		for _, d := range dirs {
			_, known := lookupDirective(d.Name)
			foreign := !known && !strings.Contains(d.Name, "lua") && !strings.HasPrefix(d.Name, "echo")
			missing := d.Name == "include" && len(d.Args) == 1 && includeDiagnosticAt(cfg, realFile(d.ArgPos(0).File), int(d.ArgPos(0).Line))
			if (foreign || missing) && want != nil {
				want = blank(want, d)
				blanked++
				continue
			}
			walk(d.Block)
		}
	}
	walk(cfg.Main.Directives)
	if blanked < 4 {
		t.Fatalf("%d directives blanked, want at least 4", blanked)
	}
	if got := blankForeseen(src, cfg); !bytes.Equal(got, want) {
		t.Errorf("blankForeseen:\n%s\nblanking each in a copy:\n%s", got, want)
	}
	starts := lineStarts(src)
	for line := 0; line <= bytes.Count(src, []byte{'\n'})+2; line++ {
		for col := 0; col < 60; col++ {
			p := model.Pos{Line: int32(line), Col: int32(col)}
			if a, b := offsetOf(src, p), offsetAt(src, starts, p); a != b {
				t.Fatalf("line %d, column %d: offsetOf %d, offsetAt %d", line, col, a, b)
			}
		}
	}
}

// offsetOf converts a position (columns in code points) to a byte offset.
func offsetOf(src []byte, p model.Pos) int {
	line, off := 1, 0
	for line < int(p.Line) {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
		line++
	}
	for col := 1; col < int(p.Col) && off < len(src); col++ {
		_, n := utf8.DecodeRune(src[off:])
		off += n
	}
	return off
}

// diffStats counts outcomes across the corpus for the test's summary.
type diffStats struct {
	mu sync.Mutex
	n  map[string]int
}

func (s *diffStats) add(k string) {
	s.mu.Lock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	s.n[k]++
	s.mu.Unlock()
}

func (s *diffStats) String() string {
	keys := make([]string, 0, len(s.n))
	for k := range s.n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-58s %4d\n", k, s.n[k])
	}
	return b.String()
}

// TestMatchesNginx runs nginx -t and the loader on every nginx file of the
// corpus and requires that they agree on what nginx's reader and command
// handling accept: both accept, or both reject at the same file and line,
// for a syntax reason or one the loader's check covers (checkedNginx: an
// unknown directive, a context, an argument count or value), the check run
// for nginx 1.22.1, the machine's release.
//
// Each file is placed in the context its top level implies (InferContext,
// ctx.tsv for the edge cases, corpusContexts), through a wrapper
// configuration in a scratch directory that mirrors the file's directory,
// so that nginx resolves relative includes as the loader does. Files that
// nginx rejects for another reason are listed in nginxExclusions; the test
// then blanks out the directive nginx stopped at and compares again, until
// nginx accepts the rest, rejects it for a syntax reason, or stops after
// reading (for instance on an unknown variable).
//
// The Lua, stream and echo modules are loaded when the files mention them.
// Configurations that name logs, temp or cache paths run in a private mount
// namespace (nginxtest.Isolated); so do main files, unless the test can put
// their temp directories in the scratch prefix.
func TestMatchesNginx(t *testing.T) {
	t.Parallel()
	files := corpusFiles(t)
	nginxtest.Require(t)
	seen := map[string]bool{}
	for _, f := range files {
		seen[f.Name] = true
	}
	for name := range nginxExclusions {
		if !seen[name] {
			t.Errorf("stale exclusion: %s is not in the corpus", name)
		}
	}
	var stats diffStats
	// Most of the time is spent waiting for nginx: run more files at once
	// than there are processors.
	sem := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for _, f := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			t.Run(f.Name, func(t *testing.T) { compareWithNginx(t, f, &stats) })
		}()
	}
	wg.Wait()
	t.Logf("%d corpus files:\n%s", len(files), stats.String())
}

// postReadFailure matches the errors nginx reports when it sets up what the
// configuration names, after reading all of it (ngx_init_cycle).
var postReadFailure = regexp.MustCompile(`^mkdir\(\) |^open\(\) |^bind\(\) `)

// maxBlanks bounds how many directives are blanked out in one file.
const maxBlanks = 40

func compareWithNginx(t *testing.T, f corpusFile, stats *diffStats) {
	dir := filepath.Dir(f.Path)
	mirror := mirrorDir(t, dir)
	path := filepath.Join(mirror, filepath.Base(f.Path))
	src, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Roots: []string{mirror, dir}}
	excluded, listed := nginxExclusions[f.Name]
	for round := 0; ; round++ {
		// The file is copied into the mirror, so that nginx and the
		// loader read the same version under the same name.
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		// read is the tree of src, where directives are blanked out;
		// cfg is that of what nginx reads: src with the paths nginx
		// writes confined to its prefix and, for a main file, the temp
		// directories put there (in the line of "http {", so that no
		// line moves).
		read := loadChecked(path, f.Context, opts)
		cfg := read
		content := confinePaths(src, read)
		tempPaths := f.Context != "main"
		if !tempPaths && !read.Syntax {
			if with := withTempPaths(content, read); with != nil {
				content, tempPaths = with, true
			}
		}
		if !bytes.Equal(content, src) {
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			cfg = loadChecked(path, f.Context, opts)
		}
		run := runNginx(t, path, f.Context, cfg, !tempPaths || writesOutside(cfg))
		ours, syntax := firstFatal(cfg)
		if round == 0 {
			switch {
			case run.ok:
				stats.add("nginx accepts")
			default:
				stats.add("nginx rejects: " + run.reason)
			}
			if syntax {
				stats.add("we reject: syntax error")
			} else {
				stats.add("we accept")
			}
			if cfg.Template && !run.ok && run.reason != reasonReader && !checkedByUs(run.first, cfg) {
				// A template is refused whole at its first placeholder
				// and nothing of it is read, so the errors nginx meets
				// first on this machine (a missing include, a
				// certificate) have nothing to be compared with; nginx
				// refuses the file, and so do we.
				stats.add("agree: both reject a template (nginx first for a reason of the machine)")
				return
			}
			if listed && run.reason != excluded {
				t.Errorf("stale exclusion (%s): nginx says %v", excluded, run)
			}
			if listed && !run.ok && checkedByUs(run.first, cfg) {
				t.Errorf("stale exclusion (%s): the check covers nginx's error %v", excluded, run)
			}
		}
		outcome := func(what string) {
			if round == 0 {
				stats.add("agree: " + what)
			} else {
				stats.add(fmt.Sprintf("excluded, then agree after blanking: %s", what))
			}
		}
		switch {
		case run.ok && syntax:
			t.Errorf("nginx accepts, we reject: %s", ours)
			return
		case run.ok:
			outcome("both accept")
			return
		case run.reason == "":
			t.Errorf("unclassified nginx error: %s\n%s", run.first, run.stderr)
			return
		case !syntax && notedUnchecked(run.first.Message, cfg):
			// nginx (open source) refuses an NGINX Plus directive, or
			// one of a module the configuration loads: proxylint says
			// it did not check it and reads the rest
			// (check_unknown.go; docs/accuracy.md).
			outcome("nginx refuses a directive proxylint notes as not checked")
			return
		case (run.reason == reasonReader || checkedByUs(run.first, cfg)) && !syntax:
			t.Errorf("nginx rejects (%s), we accept (first fatal diagnostic: %v)", run.first, ours)
			return
		case (run.reason == reasonReader || checkedByUs(run.first, cfg)) && cfg.Template:
			// A template is refused whole, at its first placeholder,
			// where nginx stops wherever the placeholder happens to end
			// a statement (docs/accuracy.md, "nginx -t differential").
			outcome("both reject a template")
			return
		case run.reason == reasonReader || checkedByUs(run.first, cfg):
			if realFile(ours.Pos.File) != realFile(run.first.File) || int(ours.Pos.Line) != run.first.Line {
				t.Errorf("error lines differ:\nnginx: %s\n   we: %s", run.first, ours)
			} else {
				outcome("both reject at the same line")
			}
			return
		case round == 0 && !listed:
			t.Errorf("nginx rejects for a reason outside the reader (%s), and the file is not in nginxExclusions: %s", run.reason, run.first)
			return
		}
		if round == 0 {
			stats.add("excluded: " + run.reason)
		}
		if run.reason == reasonIncludeMissing && !includeDiagnosticAt(cfg, realFile(run.first.File), run.first.Line) {
			t.Errorf("nginx misses an include (%s), the loader says nothing there", run.first)
		}
		if run.first.File == "" || f.Context != "main" && filepath.Base(run.first.File) == ".proxylint-wrapper" {
			// Reported after reading: with no position, or at the end of
			// the wrapper's http block. A fragment has then been read
			// whole, and so has a main file when nginx fails to create
			// or open files (that comes after all reading); other errors
			// come at the end of the http block.
			readAll := f.Context != "main" || postReadFailure.MatchString(run.first.Message)
			if syntax && readAll {
				t.Errorf("nginx reads the whole file (then: %s), we reject: %s", run.first, ours)
			}
			stats.add("excluded, compared up to nginx's error after reading")
			return
		}
		// nginx read the file up to its error: a syntax error of ours
		// before it in the same file is a disagreement.
		if syntax && realFile(ours.Pos.File) == realFile(run.first.File) && int(ours.Pos.Line) < run.first.Line {
			t.Errorf("we reject at %s, before nginx's error %s", ours, run.first)
			return
		}
		var next []byte
		if round < maxBlanks {
			if d := stoppedAt(read, run.first); d != nil {
				next = blank(src, d)
				if round == 0 && next != nil {
					next = blankForeseen(next, read)
				}
			}
		}
		if next == nil {
			stats.add("excluded, compared up to nginx's error")
			return
		}
		src = next
	}
}

// checkedBlocks are the blocks whose directives the mutations pick from:
// blocks of a context of their own, whose contents nginx looks up.
var checkedBlocks = map[string]bool{
	"events": true, "http": true, "stream": true, "server": true, "location": true,
	"upstream": true, "if": true, "limit_except": true,
}

// maxMutated bounds the directives mutated in one file.
const maxMutated = 4

// mutations returns, for one file, versions of src that nginx must refuse
// for a reason the check covers: the name of each of the first directives
// of a generic handler misspelt, and its value made invalid. Each comes with
// the line nginx must stop at.
func mutations(src []byte, cfg *Config) []struct {
	what string
	src  []byte
	line int
} {
	var picks []*Directive
	seen := map[string]bool{}
	var walk func([]*Directive)
	walk = func(dirs []*Directive) {
		for _, d := range dirs {
			if len(picks) == maxMutated {
				return
			}
			if len(d.Args) == 1 && d.End().Line == d.Pos.Line && argQuote(src, d.Args[0]) == 0 && !seen[d.Name] {
				for _, e := range declarations(d.Name) {
					if e.spec.kind != kindOther && e.spec.module == "" && e.spec.until == 0 && !seen[d.Name] {
						picks = append(picks, d)
						seen[d.Name] = true
					}
				}
			}
			if checkedBlocks[d.Name] {
				walk(d.Block)
			}
		}
	}
	walk(cfg.Main.Directives)
	var out []struct {
		what string
		src  []byte
		line int
	}
	replace := func(at model.Pos, old, with string) []byte {
		off := offsetOf(src, at)
		if off < 0 || !bytes.HasPrefix(src[off:], []byte(old)) {
			return nil
		}
		return append(append(append([]byte{}, src[:off]...), with...), src[off+len(old):]...)
	}
	for _, pick := range picks {
		if m := replace(pick.Pos, pick.Name, pick.Name+"x"); m != nil {
			out = append(out, struct {
				what string
				src  []byte
				line int
			}{"misspelt " + pick.Name, m, int(pick.Pos.Line)})
		}
		if m := replace(pick.ArgPos(0), argRaw(src, pick.Args[0]), "1zz"); m != nil {
			out = append(out, struct {
				what string
				src  []byte
				line int
			}{"invalid value of " + pick.Name, m, int(pick.Pos.Line)})
		}
	}
	return out
}

// TestMutationsMatchNginx breaks every corpus file nginx accepts in the
// ways the check covers and requires that nginx and the check refuse the
// result at the same line.
func TestMutationsMatchNginx(t *testing.T) {
	t.Parallel()
	files := corpusFiles(t)
	nginxtest.Require(t)
	var mu sync.Mutex
	compared := 0
	sem := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for _, f := range files {
		if _, excluded := nginxExclusions[f.Name]; excluded {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			t.Run(f.Name, func(t *testing.T) {
				dir := filepath.Dir(f.Path)
				mirror := mirrorDir(t, dir)
				path := filepath.Join(mirror, filepath.Base(f.Path))
				src, err := os.ReadFile(f.Path)
				if err != nil {
					t.Fatal(err)
				}
				opts := Options{Roots: []string{mirror, dir}}
				cfg := loadChecked(f.Path, f.Context, Options{Roots: []string{dir}})
				if cfg.Syntax || len(fatalDiagnostics(cfg)) > 0 {
					return
				}
				for _, m := range mutations(src, cfg) {
					if err := os.Remove(path); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, m.src, 0o644); err != nil {
						t.Fatal(err)
					}
					read := loadChecked(path, f.Context, opts)
					content := confinePaths(m.src, read)
					tempPaths := f.Context != "main"
					if !tempPaths {
						if with := withTempPaths(content, read); with != nil {
							content, tempPaths = with, true
						}
					}
					if err := os.WriteFile(path, content, 0o644); err != nil {
						t.Fatal(err)
					}
					run := runNginx(t, path, f.Context, read, !tempPaths || writesOutside(read))
					ours, syntax := firstFatal(read)
					switch {
					case run.ok:
						t.Errorf("%s: nginx accepts", m.what)
					case !checkedByUs(run.first, read):
						// The machine stops nginx first (a user, a
						// certificate): nothing to compare.
						continue
					case !syntax:
						t.Errorf("%s: nginx refuses (%s), we accept", m.what, run.first)
					case int(ours.Pos.Line) != run.first.Line || realFile(ours.Pos.File) != realFile(run.first.File):
						t.Errorf("%s: lines differ:\nnginx: %s\n   we: %s", m.what, run.first, ours)
					case run.first.Line != m.line:
						t.Errorf("%s: nginx stops at line %d, not at the mutation (%d): %s", m.what, run.first.Line, m.line, run.first)
					default:
						mu.Lock()
						compared++
						mu.Unlock()
					}
				}
			})
		}()
	}
	wg.Wait()
	t.Logf("%d mutations refused by both at the same line", compared)
	if compared == 0 {
		t.Error("no mutation was compared")
	}
}

// notedUnchecked reports whether nginx's error names an unknown directive
// that the loader noted as one it does not check.
func notedUnchecked(nginxMsg string, cfg *Config) bool {
	_, rest, ok := strings.Cut(nginxMsg, `unknown directive "`)
	if !ok {
		return false
	}
	name, _, _ := strings.Cut(rest, `"`)
	for _, d := range cfg.Diagnostics {
		if d.Severity == model.Note && strings.HasPrefix(d.Message, "not checked: ") && strings.Contains(d.Message, name) {
			return true
		}
	}
	return false
}
