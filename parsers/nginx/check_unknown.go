package nginx

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// Directives nginx -t on open-source nginx refuses, but that a
// configuration may rightly hold: NGINX Plus's commercial modules (listed
// in nginx.org's documentation as "available as part of our commercial
// subscription"), and those of a module the configuration loads with
// load_module that proxylint's tables do not cover. For them proxylint
// cannot tell a typo from a directive it does not know, so it says once
// per file which directives it did not check, and reads the rest.
var plusDirectives = map[string]bool{
	"api": true, "status_zone": true, "keyval": true, "keyval_zone": true,
	"auth_jwt": true, "auth_jwt_claim_set": true, "auth_jwt_header_set": true,
	"auth_jwt_key_cache": true, "auth_jwt_key_file": true, "auth_jwt_key_request": true,
	"auth_jwt_leeway": true, "auth_jwt_require": true, "auth_jwt_type": true,
	"health_check": true, "health_check_timeout": true, "match": true,
	"sticky": true, "sticky_cookie_insert": true, "ntlm": true, "queue": true,
	"session_log": true, "session_log_format": true, "session_log_zone": true,
	"state": true, "zone_sync": true, "zone_sync_buffers": true,
	"zone_sync_connect_retry_interval": true, "zone_sync_connect_timeout": true,
	"zone_sync_interval": true, "zone_sync_recv_buffer_size": true, "zone_sync_server": true,
	"zone_sync_ssl": true, "zone_sync_timeout": true,
	"mqtt": true, "mqtt_preread": true, "mqtt_buffers": true, "mqtt_rewrite_buffer_size": true, "mqtt_set_connect": true,
	"proxy_cache_purge": true, "fastcgi_cache_purge": true, "scgi_cache_purge": true, "uwsgi_cache_purge": true,
	"f4f": true, "f4f_buffer_size": true, "hls": true, "hls_buffers": true, "hls_forward_args": true,
	"hls_fragment": true, "hls_mp4_buffer_size": true, "hls_mp4_max_buffer_size": true,
	"mp4_limit_rate": true, "mp4_limit_rate_after": true, "internal_redirect": true,
	"oidc_provider": true, "license_token": true, "mgmt": true, "usage_report": true,
	"enforce_initial_report": true,
	// The status and upstream_conf modules of NGINX Plus before R13. An
	// open-source "status" appears in nginx's tree up to 1.1.8 only in
	// src/http/modules/ngx_http_status_module.c, which auto/modules builds
	// when HTTP_STATUS=YES and which no configure option sets, so the
	// directive a configuration holds is Plus's, not a removed one.
	"status": true, "status_format": true, "upstream_conf": true,
}

// unchecked collects the directives of one file the check could not
// judge, and why.
type unchecked struct {
	plus     map[string][]model.Pos
	modules  []string // the modules load_module loads that the tables lack
	unknowns map[string][]model.Pos
}

// loadedModules lists the modules a configuration loads with load_module
// whose directives the tables do not have (every module but those the
// generator read: nginx's own, lua, njs, headers-more, brotli, geoip2, vts,
// passenger, nchan, naxsi, ModSecurity, rtmp, echo, vod, secure_token).
func loadedModules(dirs []*Directive) []string {
	var out []string
	for _, d := range dirs {
		if d.Name != "load_module" || len(d.Args) == 0 {
			continue
		}
		base := filepath.Base(d.Args[0].Value)
		if knownModule(base) {
			continue
		}
		out = append(out, d.Args[0].Value)
	}
	return out
}

// knownModule reports whether a dynamic module's file is one whose
// directives the tables hold.
func knownModule(file string) bool {
	for _, k := range []string{"lua", "js", "headers_more", "brotli", "geoip2", "vhost_traffic_status", "passenger", "nchan", "naxsi", "modsecurity", "rtmp",
		"ngx_http_echo", "ngx_http_vod", "ngx_http_secure_token",
		"ngx_http_image_filter", "ngx_http_xslt", "ngx_http_perl", "ngx_mail", "ngx_stream", "ngx_http_geoip_module", "ngx_stream_geoip"} {
		if strings.Contains(file, k) {
			return true
		}
	}
	return false
}

// skipUnknown reports whether an unknown directive is one the check cannot
// judge (NGINX Plus, or a loaded module it does not know), and records it.
func (ch *checker) skipUnknown(d *Directive) bool {
	u := &ch.unchecked
	switch {
	case plusDirectives[d.Name]:
		if u.plus == nil {
			u.plus = map[string][]model.Pos{}
		}
		u.plus[d.Name] = append(u.plus[d.Name], d.Pos)
		return true
	case len(u.modules) > 0:
		if u.unknowns == nil {
			u.unknowns = map[string][]model.Pos{}
		}
		u.unknowns[d.Name] = append(u.unknowns[d.Name], d.Pos)
		return true
	}
	return false
}

// notes are what the check did not judge: one note for NGINX Plus
// directives and one for the directives of loaded modules, at the first
// place each kind appears.
func (u *unchecked) notes() []model.Diagnostic {
	var out []model.Diagnostic
	note := func(names map[string][]model.Pos, msg string) {
		if len(names) == 0 {
			return
		}
		var list []string
		first := model.Pos{}
		for n, ps := range names {
			list = append(list, n)
			for _, p := range ps {
				if !first.IsValid() || p.Before(first) {
					first = p
				}
			}
		}
		sort.Strings(list)
		out = append(out, model.Diagnostic{Code: CodeSyntax, Severity: model.Note, Pos: first,
			Message: fmt.Sprintf(msg, strings.Join(list, ", "))})
	}
	note(u.plus, "not checked: NGINX Plus directives (%s), which open-source nginx refuses and proxylint's tables do not hold; the rest of the configuration is read")
	note(u.unknowns, "not checked: directives no module proxylint knows defines (%s); a module loaded with load_module ("+strings.Join(u.modules, ", ")+") may, so the rest of the configuration is read")
	return out
}
