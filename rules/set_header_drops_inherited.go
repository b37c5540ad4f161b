package rules

import (
	"fmt"
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// SetHeaderDropsInherited flags a block that writes an array-like
// directive (proxy_set_header, add_header, fastcgi_param, ...) and so
// loses every entry of it the outer level set.
var SetHeaderDropsInherited = &Rule{
	ID:       "set-header-drops-inherited",
	Aliases:  []string{"add_header_redefinition"},
	Summary:  "a proxy_set_header, add_header, fastcgi_param (...) in a block drops every one the outer level set: Host, X-Forwarded-For, Connection \"\" or a security header is lost there",
	Severity: model.Warning,
	Tags:     []string{"nginx", "headers", "inheritance"},
	Products: nginxFamily,
	Check:    checkSetHeaderDropsInherited,
}

func checkSetHeaderDropsInherited(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		for i := range p.Overrides {
			o := p.Overrides[i]
			o.Lost = sentThere(&o)
			if len(o.Lost) > 0 {
				pass.Report(overrideFinding(pass, p, &o))
			}
		}
	}
}

// sentThere leaves out the lost add_header (add_trailer) entries that
// would send nothing in the block: a value made of $upstream_* variables
// only, where no route of the block passes requests on, is empty, and
// nginx adds no header with an empty value (ngx_http_add_header: "if
// (value->len)"). Mastodon's X-Cached $upstream_cache_status lost in its
// static locations is such an entry.
//
// An entry written with an empty value adds nothing anywhere, and is left
// out too, except for the headers whose empty value removes the header
// the response carries (ETag, Last-Modified: ngx_http_set_response_header
// and ngx_http_set_last_modified, "if (value->len == 0)"). Where "etag
// off" is in effect and nothing is proxied, no response of the block has
// an ETag, so an empty ETag lost removes nothing (Discourse's static
// locations).
func sentThere(o *model.Override) []model.ArrayEntry {
	if o.Directive != "add_header" && o.Directive != "add_trailer" {
		return o.Lost
	}
	proxied := false
	for _, r := range o.Routes {
		if r.Forward != nil {
			proxied = true
		}
	}
	var out []model.ArrayEntry
	for _, e := range o.Lost {
		switch {
		case emptyValue(e.Value) && (o.Directive != "add_header" || !clearedBy(e)):
		case !proxied && upstreamOnly(e.Value):
		case !proxied && o.ETagOff && clearedBy(e) && strings.EqualFold(e.Name, "ETag"):
			// "etag off" and nothing proxied: the block's responses carry
			// no ETag for the empty value to remove.
		default:
			out = append(out, e)
		}
	}
	return out
}

// emptyValue reports whether an add_header value (with its "always" flag)
// is the empty string.
func emptyValue(value string) bool {
	v := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(value), " always"))
	return v == `""` || v == `''` || v == ""
}

// clearedBy reports whether the entry is an add_header whose empty value
// removes a header of the response rather than adding one.
func clearedBy(e model.ArrayEntry) bool {
	return emptyValue(e.Value) && (strings.EqualFold(e.Name, "ETag") || strings.EqualFold(e.Name, "Last-Modified"))
}

// upstreamOnly reports whether an add_header value (with its "always"
// flag) is made of $upstream_* variables and nothing else.
func upstreamOnly(value string) bool {
	v := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(value), " always"))
	v = strings.Trim(v, "\"")
	if v == "" {
		return false
	}
	for _, part := range strings.Split(v, "$") {
		if part == "" {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(part, "{"), "}")
		if !strings.HasPrefix(name, "upstream_") || strings.ContainsAny(name, " ,;/") {
			return false
		}
	}
	return strings.HasPrefix(v, "$")
}

// critical are the entries whose loss changes what the backend or the
// browser does, by directive: the request's identity and the connection
// for the proxies, the CGI variables an application runs by, the security
// headers of a response.
var critical = map[string]map[string]bool{
	"proxy_set_header": {"host": true, "x-forwarded-for": true, "x-real-ip": true, "x-forwarded-proto": true, "x-forwarded-host": true, "x-forwarded-port": true, "forwarded": true, "connection": true, "upgrade": true},
	"grpc_set_header":  {"host": true, "x-forwarded-for": true, "x-real-ip": true, "x-forwarded-proto": true, "forwarded": true},
	"fastcgi_param":    cgiParams,
	"uwsgi_param":      cgiParams,
	"scgi_param":       cgiParams,
	"add_header": {"strict-transport-security": true, "content-security-policy": true, "x-frame-options": true, "x-content-type-options": true,
		"referrer-policy": true, "permissions-policy": true, "cross-origin-opener-policy": true, "cross-origin-embedder-policy": true, "cross-origin-resource-policy": true},
}

var cgiParams = map[string]bool{"script_filename": true, "script_name": true, "document_root": true, "path_info": true, "https": true,
	"request_method": true, "query_string": true, "content_type": true, "content_length": true, "request_uri": true}

func overrideFinding(pass *Pass, p *model.Proxy, o *model.Override) Finding {
	var lost []string
	severe := false
	for _, e := range o.Lost {
		lost = append(lost, entryText(e))
		if critical[o.Directive][strings.ToLower(e.Name)] {
			severe = true
		}
	}
	entries := o.Directive + " entry"
	if len(o.Lost) > 1 {
		entries = fmt.Sprintf("%d %s entries", len(o.Lost), o.Directive)
	}
	f := Finding{Pos: o.Pos}
	if !severe {
		f.Severity = model.Note
	}
	f.Message = fmt.Sprintf("%s in %s drops the %s set at %s level: %s. %s",
		o.Directive, o.BlockName, entries, o.FromLevel, quoteList(shortList(lost, 6)), overrideWhy(o))
	if o.Directive == "add_header" {
		for _, e := range o.Lost {
			if clearedBy(e) {
				f.Message = strings.TrimSuffix(f.Message, ".") + fmt.Sprintf(": add_header %s \"\" removes the %s header a response carries, and there it is kept.", e.Name, e.Name)
				break
			}
		}
	}
	if c := overrideConsequences(p, o); c != "" {
		f.Message += " " + c
	}
	f.Related = append(f.Related, Related{Pos: o.From, Message: fmt.Sprintf("the %s list this block does not inherit (%s level)", o.Directive, o.FromLevel)})
	for _, e := range o.Lost[:min(len(o.Lost), 6)] {
		if e.Pos != o.From {
			f.Related = append(f.Related, Related{Pos: e.Pos, Message: "lost: " + entryText(e)})
		}
	}
	f.Fix = overrideFix(pass, p, o)
	return f
}

func entryText(e model.ArrayEntry) string {
	if e.Value == "" {
		return e.Name
	}
	return e.Name + " " + e.Value
}

// overrideWhy states nginx's rule for the directive.
func overrideWhy(o *model.Override) string {
	switch o.Directive {
	case "add_header", "add_trailer":
		return fmt.Sprintf("nginx gives a level the outer %s list only when it writes none of its own (unless %s_inherit merge, nginx 1.29.3, says otherwise), so the responses of %s go without them.",
			o.Directive, o.Directive, o.BlockName)
	}
	return fmt.Sprintf("nginx gives a level the outer %s list only when it writes none of its own, so the requests of %s go without them.", o.Directive, o.BlockName)
}

// overrideConsequences says what the lost entries do to the requests of
// the routes that get the block's list.
func overrideConsequences(p *model.Proxy, o *model.Override) string {
	if o.Directive != "proxy_set_header" {
		return ""
	}
	var out []string
	for _, e := range o.Lost {
		switch strings.ToLower(e.Name) {
		case "host":
			out = append(out, "the backend gets Host: $proxy_host, the host named in proxy_pass, instead of "+e.Value)
		case "x-forwarded-for", "x-real-ip", "forwarded":
			if !containsText(out, "client's address") {
				out = append(out, "the backend no longer learns the client's address from "+e.Name)
			}
		case "x-forwarded-proto":
			out = append(out, "the backend no longer learns that the request came over https (redirect loops, insecure links)")
		case "upgrade":
			out = append(out, "WebSocket upgrades no longer reach the backend")
		case "connection":
			if pool := defeatedPool(o); pool != "" {
				out = append(out, pool)
			}
		}
	}
	if len(out) == 0 {
		return ""
	}
	s := strings.Join(out, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func containsText(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// defeatedPool says which keepalive pool the lost Connection entry
// defeats: a route of the block whose upstream keeps a pool and that now
// sends nginx's default "Connection: close" (before 1.29.7).
func defeatedPool(o *model.Override) string {
	for _, r := range o.Routes {
		if r.Forward == nil || r.Forward.Upstream == nil || r.Forward.Upstream.PoolSize.Value <= 0 {
			continue
		}
		if c, ok := connectionHeader(r); ok && c.Default() && strings.EqualFold(c.Value, "close") {
			return fmt.Sprintf("nginx sends its default Connection: close %s, so connections to %s are not reused", c.Note(), upstreamName(r.Forward.Upstream))
		}
	}
	return ""
}

// overrideFix writes the lost entries into the block, after its own, as
// they are written at the outer level; for add_header on nginx 1.29.3 and
// newer, add_header_inherit merge says the same in one line. Unsafe: what
// the block sends changes, and the author may have dropped an outer entry
// on purpose. Advice (display-only) where the entries are in another file
// or the outer level drops entries of its own.
func overrideFix(pass *Pass, p *model.Proxy, o *model.Override) Fix {
	advice := fmt.Sprintf("repeat the %s entries of the %s level in %s (or move the block's own up to that level)", o.Directive, o.FromLevel, o.BlockName)
	if (o.Directive == "add_header" || o.Directive == "add_trailer") && releases.AddHeaderInherit.In(p.Target) {
		advice = fmt.Sprintf("write %s_inherit merge; in %s (nginx 1.29.3 and newer), or repeat the outer entries there", o.Directive, o.BlockName)
	}
	for _, outer := range p.Overrides {
		if outer.Directive == o.Directive && outer.Pos == o.From {
			// The outer level drops entries of its own: repairing this
			// block alone would copy a list that is itself short.
			return Advice(fmt.Sprintf("first repair %s, which drops the entries of the level above it; then repeat its %s entries in %s", outer.BlockName, o.Directive, o.BlockName))
		}
	}
	last := o.Written[len(o.Written)-1]
	if last.Pos.File != o.Block.File {
		return Advice(advice)
	}
	x := newFixer(pass)
	s := x.nginxStatement(last.Pos, o.Directive)
	var lines []model.Directive
	for _, e := range o.Lost {
		ls := x.nginxStatement(e.Pos, o.Directive)
		if ls == nil {
			break
		}
		lines = append(lines, model.Directive{Name: o.Directive, Args: ls.Raw})
	}
	x.insertAfter(s, lines...)
	desc := fmt.Sprintf("repeat the %s level's %s in %s", o.FromLevel, quoteList(shortList(lostNames(o), 6)), o.BlockName)
	return UnsafeFix(desc, x.result()).Or(advice)
}

func lostNames(o *model.Override) []string {
	var out []string
	for _, e := range o.Lost {
		out = append(out, e.Name)
	}
	return out
}
