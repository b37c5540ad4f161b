package rules

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// Edit is one change a fix makes to a source file: the bytes [Start, End)
// of the file's source are replaced by New. Start == End inserts. The
// loaders' editors make them (model/edit.go).
type Edit = model.Edit

// fixer builds the edits of one fix on the sources of a model. Each method
// checks the text it edits and, when the text is not what the fix expects,
// marks the fix failed: a fix is applied whole or not at all.
type fixer struct {
	m       *model.Model
	sources *sourceIndex
	edits   []Edit
	failed  bool
}

func newFixer(pass *Pass) *fixer {
	sources := pass.sources
	if sources == nil {
		sources = newSourceIndex(pass.Model.Files)
	}
	return &fixer{m: pass.Model, sources: sources}
}

// result returns the edits, or nil when any step failed.
func (x *fixer) result() []Edit {
	if x.failed || len(x.edits) == 0 {
		return nil
	}
	return x.edits
}

func (x *fixer) fail() { x.failed = true }

// file returns the source file of p.
func (x *fixer) file(p model.Pos) *model.File {
	if x.failed || !p.IsValid() || x.m == nil {
		x.fail()
		return nil
	}
	if f := x.sources.file(p.File); f != nil {
		return f
	}
	x.fail()
	return nil
}

// statement is a simple nginx directive as the file has it, with the
// editor of its file.
type statement struct {
	ed model.ConfEditor
	model.Stmt
}

// conf returns the nginx editor of the file holding p.
func (x *fixer) conf(p model.Pos) model.ConfEditor {
	f := x.file(p)
	if f == nil {
		return nil
	}
	ed, ok := f.Conf()
	if !ok {
		x.fail()
		return nil
	}
	return ed
}

// nginxStatement returns the simple directive named name at p (where its
// name or one of its arguments starts).
func (x *fixer) nginxStatement(p model.Pos, name string) *statement {
	ed := x.conf(p)
	if ed == nil {
		return nil
	}
	st, ok := ed.Stmt(p)
	if !ok || st.Name != name || st.Block {
		x.fail()
		return nil
	}
	return &statement{ed: ed, Stmt: st}
}

// take adds the edits an editor made, or fails the fix.
func (x *fixer) take(edits []Edit, err error) {
	if err != nil {
		x.fail()
		return
	}
	x.edits = append(x.edits, edits...)
}

// directive is an nginx directive to write, its arguments as written.
func directive(name string, args ...string) model.Directive {
	return model.Directive{Name: name, Args: args}
}

// insertAfter writes directives after statement s, in its block.
func (x *fixer) insertAfter(s *statement, ds ...model.Directive) {
	if s == nil || x.failed {
		return
	}
	x.take(s.ed.Insert(s.Pos, model.After, ds...))
}

// insertBefore writes directives before the directive at p.
func (x *fixer) insertBefore(ed model.ConfEditor, p model.Pos, ds ...model.Directive) {
	if ed == nil || x.failed {
		x.fail()
		return
	}
	x.take(ed.Insert(p, model.Before, ds...))
}

// removeArg deletes the argument of s whose value is v, with the blanks
// before it; the directive must keep another argument.
func (x *fixer) removeArg(s *statement, v string) {
	if s == nil || x.failed {
		return
	}
	for i, a := range s.Args {
		if a == v && len(s.Args) > 1 {
			x.take(s.ed.RemoveArg(s.Pos, i))
			return
		}
	}
	x.fail()
}

// setArg replaces argument i (0-based, after the name) of s with raw, as
// written; i == len(s.Args) adds one at the end.
func (x *fixer) setArg(s *statement, i int, raw string) {
	if s == nil || x.failed {
		x.fail()
		return
	}
	x.take(s.ed.SetArg(s.Pos, i, raw))
}

// httpLevel returns the editor and the position of the directive before
// which a directive of the http block can be inserted: the first server
// block of the proxy, so that every fix that adds to the http block adds
// at one place. It fails when the proxy has no server block whose
// surroundings are known.
func (x *fixer) httpLevel(p *model.Proxy, r *model.Route) (model.ConfEditor, model.Pos) {
	if x.failed || p == nil || len(p.Listeners) == 0 || (p.Context != "main" && p.Context != "http") {
		x.fail()
		return nil, model.Pos{}
	}
	pos := p.Listeners[0].Pos
	ed := x.conf(pos)
	if ed == nil {
		return nil, model.Pos{}
	}
	st, ok := ed.Stmt(pos)
	if !ok || st.Name != "server" || !st.Block || st.Pos != pos {
		x.fail()
		return nil, model.Pos{}
	}
	// The server block must be in the http block of this file, or at the
	// top of the entry file of an http-level fragment.
	parent, in := ed.Parent(pos)
	inHTTP := in && parent.Name == "http"
	if inHTTP {
		_, nested := ed.Parent(parent.Pos)
		inHTTP = !nested
	}
	httpFragment := !in && p.Context == "http" && pos.File == p.Entry
	if !inHTTP && !httpFragment {
		x.fail()
		return nil, model.Pos{}
	}
	// The route's own server must be in that http block.
	rp := r.Listener.Pos
	if rp.File != pos.File {
		x.fail()
		return nil, model.Pos{}
	}
	rParent, rIn := ed.Parent(rp)
	if _, ok := ed.Stmt(rp); !ok || rIn != in || in && rParent.Pos != parent.Pos {
		x.fail()
		return nil, model.Pos{}
	}
	return ed, pos
}

// ownDirectives lists the arguments of the simple directives directly in
// the block of a route, by name.
func (x *fixer) ownDirectives(r *model.Route) map[string][][]string {
	ed := x.conf(r.Pos)
	if ed == nil {
		return nil
	}
	kids, err := ed.Children(r.Pos)
	if err != nil {
		x.fail()
		return nil
	}
	out := map[string][][]string{}
	for _, k := range kids {
		if !k.Block && len(k.Args) > 0 {
			out[k.Name] = append(out[k.Name], k.Args)
		}
	}
	return out
}

// anywhere reports whether any file of the model holds the word w.
func (x *fixer) anywhere(w string) bool { return x.sources.holds(w) }

// ---- the fixes of the rules ----

// backendIdle is the idle timeout of the declared backend, when one is
// declared: a pool must keep idle connections for less.
func backendIdle(m *model.Model) (time.Duration, bool) {
	if m == nil || m.Chain == nil {
		return 0, false
	}
	b := m.Chain.Backend()
	if b == nil || !b.IdleTimeout.Valid() || b.IdleTimeout.Value <= 0 {
		return 0, false
	}
	return b.IdleTimeout.Value, true
}

// poolLines are the directives an upstream block needs to keep a pool on
// the target, below the idle timeout of the declared backend.
func poolLines(m *model.Model, p *model.Proxy, idle model.Setting[time.Duration]) []model.Directive {
	var lines []model.Directive
	if !p.UpstreamsPoolByDefault {
		lines = append(lines, directive("keepalive", "16"))
	}
	if b, ok := backendIdle(m); ok && (!idle.Valid() || idle.Value >= b) {
		lines = append(lines, directive("keepalive_timeout", dur(shorter(b))))
	}
	return lines
}

// upstreamLabel derives an upstream name from an address: letters, digits
// and underscores, unique among the proxy's upstreams and the host names
// it proxies to.
func (x *fixer) upstreamLabel(p *model.Proxy, a model.Address) string {
	raw := a.Unix
	if raw == "" {
		raw = a.Host + "_" + strconv.Itoa(a.Port)
	}
	var b strings.Builder
	b.WriteString("backend_")
	for _, c := range strings.ToLower(raw) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		} else if !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	base := strings.TrimSuffix(b.String(), "_")
	names := x.sources.upstreamNames(p)
	taken := func(n string) bool { return names[strings.ToLower(n)] }
	name := base
	for i := 2; taken(name); i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	return name
}

// passURL splits a pass directive's target as written: the scheme with
// "://", the address, and the URI after it.
func passURL(module, raw string) (scheme, addr, uri string, ok bool) {
	rest := raw
	if module == "proxy" || module == "grpc" {
		i := strings.Index(raw, "://")
		if i < 0 {
			return "", "", "", false
		}
		scheme, rest = raw[:i+3], raw[i+3:]
	}
	if strings.HasPrefix(rest, "unix:") {
		if j := strings.IndexByte(rest[len("unix:"):], ':'); j >= 0 {
			return scheme, rest[:len("unix:")+j], rest[len("unix:")+j+1:], true
		}
		return scheme, rest, "", true
	}
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		return scheme, rest[:j], rest[j:], true
	}
	return scheme, rest, "", true
}

// implicitUpstreamFix declares an upstream block for a pass directive to a
// literal address and points the directive at it. The request nginx sends
// stays the same: proxy_pass keeps its scheme and URI, and the Host
// header, the default proxy_redirect and the TLS name, which nginx takes
// from the address written in proxy_pass, are set to what they were.
func implicitUpstreamFix(pass *Pass, u *model.Upstream, r *model.Route) []Edit {
	fw := r.Forward
	if fw.Variable || fw.Inherited || len(u.Servers) != 1 || len(u.Routes) == 0 {
		return nil
	}
	for _, other := range u.Routes {
		if other.Forward != nil && other.Forward.Variable {
			// A pass directive whose host is computed reaches this
			// upstream by its host and port; made an upstream block,
			// which matches only a name without a port, it would be
			// looked up instead (docs/semantics.md §D).
			return nil
		}
	}
	if srv := u.Servers[0]; !srv.Literal && srv.Addresses > 1 {
		// localhost: an upstream of both its addresses retries each
		// request on the other; which one the backend listens on is the
		// user's to say.
		return nil
	}
	if n := r.Nginx; n != nil && ((n.ConnectionHeader.Explicit() && strings.EqualFold(n.ConnectionHeader.Value, "close")) || strings.EqualFold(n.ConnectionHeaderPlain.Value, "close")) {
		// The location's Connection header would still defeat the new
		// pool; poolDefeated's advice comes first.
		return nil
	}
	switch fw.Module {
	case "proxy", "fastcgi", "memcached":
	default:
		return nil // grpc: the authority sent is not ours to change
	}
	x := newFixer(pass)
	p := u.Proxy
	s := x.nginxStatement(fw.Pos, fw.Name)
	if s == nil || len(s.Args) != 1 {
		return nil
	}
	scheme, addr, uri, ok := passURL(fw.Module, s.Args[0])
	if !ok || strings.ContainsAny(s.Args[0], "$\"'\\") || strings.ContainsAny(s.Raw[0], "$\\") {
		return nil
	}
	a := u.Servers[0].Address
	name := x.upstreamLabel(p, a)
	server := "unix:" + a.Unix
	if a.Unix == "" {
		if a.Port == 0 {
			return nil
		}
		host := a.Host
		if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
			host = "[" + host + "]"
		}
		server = host + ":" + strconv.Itoa(a.Port)
	}
	var inLocation []model.Directive
	if fw.Module == "proxy" {
		hostHeader := addr
		if a.Unix != "" {
			hostHeader = "localhost"
		}
		// proxy_set_header and proxy_redirect set in a location replace
		// every one inherited: add them only where that loses nothing.
		own := x.ownDirectives(r)
		if x.failed || r.Kind != "location" || r.Match.Kind != model.MatchPrefix && r.Match.Kind != model.MatchExact && uri != "" {
			return nil
		}
		if x.anywhere("$proxy_host") || x.anywhere("proxy_ssl_name") {
			return nil
		}
		switch {
		case own["proxy_set_header"] != nil:
			for _, args := range own["proxy_set_header"] {
				if strings.EqualFold(args[0], "Host") {
					return nil
				}
			}
			inLocation = append(inLocation, directive("proxy_set_header", "Host", hostHeader))
		case x.anywhere("proxy_set_header") || p.Partial:
			// Inherited headers would be dropped, or may be.
			return nil
		default:
			inLocation = append(inLocation, directive("proxy_set_header", "Host", hostHeader))
		}
		switch {
		case own["proxy_redirect"] != nil:
			for _, args := range own["proxy_redirect"] {
				if args[0] == "default" {
					return nil
				}
			}
		case x.anywhere("proxy_redirect") || p.Partial:
			return nil
		case uri == "":
			inLocation = append(inLocation, directive("proxy_redirect", scheme+addr+"/", "/"))
		default:
			inLocation = append(inLocation, directive("proxy_redirect", scheme+addr+uri, r.Match.Path))
		}
		if scheme == "https://" {
			host := a.Host
			if a.Unix != "" {
				host = "localhost"
			}
			inLocation = append(inLocation, directive("proxy_ssl_name", host))
		}
		if !p.UpstreamsPoolByDefault {
			if v := r.Nginx.HTTPVersion; v.Value != "1.1" {
				inLocation = append(inLocation, directive("proxy_http_version", "1.1"))
			}
			if c := r.Nginx.ConnectionHeader; c.Value != "" {
				inLocation = append(inLocation, directive("proxy_set_header", "Connection", `""`))
			}
		}
	}
	if fw.Module == "fastcgi" && !r.Nginx.KeepConn.Value {
		inLocation = append(inLocation, directive("fastcgi_keep_conn", "on"))
	}
	ed, at := x.httpLevel(p, r)
	block := model.Directive{Name: "upstream", Args: []string{name}, Block: []model.Directive{directive("server", server)}}
	block.Block = append(block.Block, poolLines(pass.Model, p, u.PoolIdle)...)
	x.insertBefore(ed, at, block, model.Directive{})
	x.setArg(s, 0, scheme+name+uri)
	if len(inLocation) > 0 {
		x.insertAfter(s, inLocation...)
	}
	return x.result()
}

// namedUpstreamFix adds keepalive to an upstream block that has none, and
// makes its HTTP locations speak HTTP/1.1 without "Connection: close".
func namedUpstreamFix(pass *Pass, u *model.Upstream, pooling []*model.Route) []Edit {
	x := newFixer(pass)
	if u.PoolSize.Explicit() {
		s := x.nginxStatement(u.PoolSize.Pos, "keepalive")
		if s == nil || len(s.Args) != 1 {
			return nil
		}
		x.setArg(s, 0, "16")
		if lines := poolLines(pass.Model, u.Proxy, u.PoolIdle); len(lines) > 1 || len(lines) == 1 && lines[0].Name != "keepalive" {
			x.insertAfter(s, lines[len(lines)-1])
		}
	} else {
		lines := poolLines(pass.Model, u.Proxy, u.PoolIdle)
		if len(lines) == 0 {
			return nil
		}
		x.insertAfter(x.lastServer(u), lines...)
	}
	for _, r := range pooling {
		if x.failed {
			break
		}
		x.poolRoute(r)
	}
	return x.result()
}

// lastServer returns the last server directive of an upstream block:
// a server's position, at its address, names its directive.
func (x *fixer) lastServer(u *model.Upstream) *statement {
	if len(u.Servers) == 0 {
		x.fail()
		return nil
	}
	return x.nginxStatement(u.Servers[len(u.Servers)-1].Pos, "server")
}

// poolRoute makes a location reuse pooled connections: HTTP/1.1 without
// "Connection: close" for proxy_pass, fastcgi_keep_conn for FastCGI.
func (x *fixer) poolRoute(r *model.Route) {
	fw := r.Forward
	if fw.Inherited {
		return
	}
	var lines []model.Directive
	switch fw.Module {
	case "proxy":
		if r.Nginx.HTTPVersion.Value != "1.1" {
			if v := r.Nginx.HTTPVersion; v.Explicit() {
				x.setArg(x.nginxStatement(v.Pos, "proxy_http_version"), 0, "1.1")
			} else {
				lines = append(lines, directive("proxy_http_version", "1.1"))
			}
		}
		if c := r.Nginx.ConnectionHeader; c.Value != "" {
			if c.Explicit() || !x.ownHeaders(r) && (x.anywhere("proxy_set_header") || r.Listener.Proxy.Partial) {
				x.fail() // replacing or adding one changes what is inherited
				return
			}
			lines = append(lines, directive("proxy_set_header", "Connection", `""`))
		}
	case "fastcgi":
		if k := r.Nginx.KeepConn; !k.Value {
			if k.Explicit() {
				x.setArg(x.nginxStatement(k.Pos, "fastcgi_keep_conn"), 0, "on")
			} else {
				lines = append(lines, directive("fastcgi_keep_conn", "on"))
			}
		}
	}
	if len(lines) > 0 {
		x.insertAfter(x.nginxStatement(fw.Pos, fw.Name), lines...)
	}
}

// poolDefeatedFix repairs what keeps a location from reusing its
// upstream's pool.
func poolDefeatedFix(pass *Pass, r *model.Route) []Edit {
	x := newFixer(pass)
	x.poolRoute(r)
	return x.result()
}

// timingFormat is nginx's combined format with the timing of the
// upstream, as the arguments of log_format after the name.
var timingFormat = []string{
	`'$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" '`,
	`'rt=$request_time uct=$upstream_connect_time urt=$upstream_response_time us=$upstream_status'`,
}

// logFormatFix adds the missing variables to a log format: to the custom
// format the log uses, or, for the built-in combined format, through a new
// format "timing" that the access_log directive names, its path kept. The
// new format goes before the first server block, or before the
// access_log when that comes earlier in the same block: nginx looks a
// format up when it reads the access_log that names it.
func logFormatFix(pass *Pass, p *model.Proxy, r *model.Route, l model.AccessLog, missing []string) []Edit {
	x := newFixer(pass)
	if l.Format.Builtin {
		if l.Format.Name != "combined" || x.anywhere("timing") {
			return nil
		}
		s := x.nginxStatement(l.Pos, "access_log")
		if s == nil || len(s.Args) < 1 {
			return nil
		}
		if len(s.Args) >= 2 && s.Args[1] == "combined" {
			x.setArg(s, 1, "timing")
		} else if len(s.Args) == 1 || strings.Contains(s.Args[1], "=") {
			x.take(s.ed.InsertArg(s.Pos, 1, "timing"))
		} else {
			return nil
		}
		ed, at := x.httpLevel(p, r)
		if x.failed {
			return nil
		}
		if s.Pos.File == at.File && s.Pos.Before(at) && sameBlock(ed, s.Pos, at) {
			at = s.Pos
		}
		x.insertBefore(ed, at, model.Directive{Name: "log_format", Args: append([]string{"timing"}, timingFormat...)}, model.Directive{})
		return x.result()
	}
	s := x.nginxStatement(l.Format.Pos, "log_format")
	if s == nil || len(s.Args) < 2 {
		return nil
	}
	for _, a := range s.Args[1:] {
		if strings.HasPrefix(a, "escape=") && a != "escape=default" {
			return nil // JSON or unescaped text: the fields are the author's to name
		}
	}
	if strings.HasPrefix(strings.TrimSpace(s.Args[1]), "{") {
		return nil
	}
	var add []string
	for _, v := range missing {
		add = append(add, strings.TrimPrefix(v, "$")+"="+v)
	}
	x.setArg(s, len(s.Args), "' "+strings.Join(add, " ")+"'")
	return x.result()
}

// sameBlock reports whether the directives at a and b are in one block.
func sameBlock(ed model.ConfEditor, a, b model.Pos) bool {
	pa, ina := ed.Parent(a)
	pb, inb := ed.Parent(b)
	return ina == inb && (!ina || pa.Pos == pb.Pos)
}

// removeArgFix deletes one argument of the directive at pos.
func removeArgFix(pass *Pass, pos model.Pos, name, arg string) []Edit {
	x := newFixer(pass)
	x.removeArg(x.nginxStatement(pos, name), arg)
	return x.result()
}

// h1SafeDrainFix sets http1_safe_max_connection_duration: true on the
// HttpConnectionManager (field 58 of HttpConnectionManager, next to
// common_http_protocol_options, not inside it): it turns an explicit false
// into true, or adds the field before common_http_protocol_options in the
// connection manager that the flag's default points at, in the file's
// style (block or flow YAML, JSON, its case of field names). The rest of
// the text is kept as written.
func h1SafeDrainFix(pass *Pass, l *model.Listener) []Edit {
	x := newFixer(pass)
	safe := l.H1SafeMaxConnectionDuration
	ed := x.tree(safe.Pos)
	if ed == nil {
		return nil
	}
	if safe.Explicit() {
		x.take(ed.SetValue(safe.Pos, model.Bool(true)))
		return x.result()
	}
	// The options that hold the limit must be this manager's.
	opts, ok := ed.Lookup(safe.Pos, "common_http_protocol_options")
	if !ok {
		return nil
	}
	if limit, ok := ed.Lookup(opts.Pos, "max_connection_duration"); !ok || limit.KeyPos != l.MaxConnectionDuration.Pos {
		return nil
	}
	x.take(ed.InsertField(opts.KeyPos, model.Before, "http1_safe_max_connection_duration", model.Bool(true)))
	return x.result()
}

// tree returns the YAML or JSON editor of the file holding p.
func (x *fixer) tree(p model.Pos) model.TreeEditor {
	f := x.file(p)
	if f == nil {
		return nil
	}
	ed, ok := f.Tree()
	if !ok {
		x.fail()
		return nil
	}
	return ed
}

// ownHeaders reports whether a location sets proxy_set_header itself, so
// that adding one inherits nothing less.
func (x *fixer) ownHeaders(r *model.Route) bool {
	own := x.ownDirectives(r)
	if x.failed {
		return false
	}
	return own["proxy_set_header"] != nil
}

// ---- the descriptions that go with the edits ----

// withEdits returns the description of a mechanical fix and its edits, or
// the rule's own advice and no edits when none is safe.
func withEdits(edits []Edit, desc, advice string) (string, []Edit) {
	if len(edits) == 0 {
		return advice, nil
	}
	return desc, edits
}

func implicitUpstreamFixOf(pass *Pass, u *model.Upstream, r *model.Route, advice string) (string, []Edit) {
	edits := implicitUpstreamFix(pass, u, r)
	name := ""
	for _, e := range edits {
		if strings.HasPrefix(strings.TrimLeft(e.New, " \t"), "upstream ") {
			name = strings.Fields(e.New)[1]
		}
	}
	return withEdits(edits, fmt.Sprintf("declare upstream %s for %s and point %s at it, keeping the request it sends", name, u.Name, r.Forward.Name), advice)
}

func logFormatFixOf(pass *Pass, p *model.Proxy, r *model.Route, advice string) (string, []Edit) {
	for _, l := range r.AccessLogs.Value {
		if l.Off || (!l.Format.Builtin && l.Format.Text == "") {
			continue
		}
		var missing []string
		for _, v := range timingVariables {
			if !hasVariable(l.Format.Text, v) {
				missing = append(missing, "$"+v)
			}
		}
		if len(missing) == 0 {
			continue
		}
		if r.AccessLogs.Default {
			return "decide where the access log goes and log it with a format that has $request_time, $upstream_response_time and $upstream_status", nil
		}
		edits := logFormatFix(pass, p, r, l, missing)
		if l.Format.Builtin {
			return withEdits(edits, "log to "+l.Path+" with format timing: the combined format with $request_time, $upstream_connect_time, $upstream_response_time and $upstream_status", advice)
		}
		return withEdits(edits, fmt.Sprintf("add %s to log_format %s", quoteList(missing), l.Format.Name), advice)
	}
	return advice, nil
}

func h1SafeDrainFixOf(pass *Pass, p *model.Proxy, l *model.Listener, advice string) (string, []Edit) {
	if !releases.H1SafeDrain.In(p.Target) {
		return advice, nil
	}
	// The field is named as the file names its fields.
	name, safe := "http1_safe_max_connection_duration", l.H1SafeMaxConnectionDuration
	if ed := newFixer(pass).tree(safe.Pos); ed != nil {
		name = ed.Name(safe.Pos, name)
	}
	return withEdits(h1SafeDrainFix(pass, l),
		"set "+name+": true on the HttpConnectionManager: Envoy then closes an HTTP/1 connection only after answering a request on it with \"Connection: close\"",
		advice)
}

func nonIdempotentFixOf(pass *Pass, r *model.Route, advice string) (string, []Edit) {
	on := r.Retry.On
	if !on.Explicit() || r.Nginx == nil || writeReason(pass, r) != "" {
		// A location that writes is then reported for its other retries.
		return advice, nil
	}
	return withEdits(removeArgFix(pass, on.Pos, on.Name, "non_idempotent"),
		"remove non_idempotent from "+on.Name+": nginx then retries a POST, PATCH or LOCK only when it was never sent", advice)
}

// retryBoundFixOf adds the bounds a location's retries lack, next to the
// directive s that sets the other one (or the retry conditions).
func retryBoundFixOf[T any](pass *Pass, r *model.Route, s model.Setting[T], advice string, add ...string) (string, []Edit) {
	return retryBound(pass, r, s.Pos, s.Name, s.Explicit(), advice, add)
}

func retryBound(pass *Pass, r *model.Route, pos model.Pos, name string, explicit bool, advice string, add []string) (string, []Edit) {
	if !explicit || r.Nginx == nil || r.Forward == nil {
		return advice, nil
	}
	// Both bounds must hold after the fix: "tries 0" is no count at all.
	addsTries := len(add) == 2 || add[0] == "tries"
	if !addsTries && r.Nginx.Tries.Value == 0 {
		return advice, nil
	}
	mod := r.Forward.Module
	var lines []model.Directive
	var what []string
	for _, a := range add {
		switch a {
		case "tries":
			lines = append(lines, directive(mod+"_next_upstream_tries", "2"))
			what = append(what, mod+"_next_upstream_tries 2")
		case "timeout":
			t := dur(min(attempt(r), 2*r.AttemptTimeout.Value))
			if t == "0s" {
				return advice, nil
			}
			lines = append(lines, directive(mod+"_next_upstream_timeout", t))
			what = append(what, mod+"_next_upstream_timeout "+t)
		}
	}
	x := newFixer(pass)
	x.insertAfter(x.nginxStatement(pos, name), lines...)
	return withEdits(x.result(), "add "+strings.Join(what, " and ")+" next to "+name, advice)
}

// ---- applying fixes ----

// FixSet is the edits of several findings that can be applied together,
// by file.
type FixSet struct {
	Edits map[string][]Edit
	// Applied counts the findings whose edits are in the set; Skipped
	// those left out because they overlap an edit already taken (a later
	// run offers them again).
	Applied, Skipped int
}

// SelectFixes takes the edits of the findings in order, leaving out a
// finding whose edits overlap one already taken. An edit equal to one
// taken is taken once; insertions at one place follow one another.
func SelectFixes(findings []Finding) FixSet {
	set := FixSet{Edits: map[string][]Edit{}}
	for _, f := range findings {
		if len(f.Edits) == 0 || f.Suppression != nil {
			continue
		}
		var add []Edit
		ok := true
		for _, e := range f.Edits {
			dup := false
			for _, t := range append(set.Edits[e.File], add...) {
				if t == e {
					dup = true
					break
				}
				if overlap(t, e) {
					ok = false
				}
			}
			if !dup {
				add = append(add, e)
			}
		}
		if !ok {
			set.Skipped++
			continue
		}
		for _, e := range add {
			set.Edits[e.File] = append(set.Edits[e.File], e)
		}
		set.Applied++
	}
	return set
}

// overlap reports whether two edits touch the same text: ranges that
// share a byte, an insertion inside a replaced range, or two insertions at
// one place that start alike (two settings of one directive).
func overlap(a, b Edit) bool {
	if a.Start == a.End && b.Start == b.End {
		return a.Start == b.Start && firstLine(a.New) == firstLine(b.New)
	}
	if a.Start == a.End {
		return a.Start > b.Start && a.Start < b.End
	}
	if b.Start == b.End {
		return b.Start > a.Start && b.Start < a.End
	}
	return a.Start < b.End && b.Start < a.End
}

func firstLine(s string) string {
	s = strings.TrimLeft(s, " \t\r\n")
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return s
}

// ApplyEdits returns src with the edits made. Edits are of one file and do
// not overlap (SelectFixes); insertions at one place keep their order.
func ApplyEdits(src []byte, edits []Edit) ([]byte, error) {
	sorted := append([]Edit{}, edits...)
	// A stable insertion sort: few edits, and order among equals matters.
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && less(sorted[j], sorted[j-1]); j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	var out bytes.Buffer
	at := 0
	for _, e := range sorted {
		if e.Start < at || e.End < e.Start || e.End > len(src) {
			return nil, fmt.Errorf("%s: edit at bytes %d-%d overlaps another or lies outside the file", e.File, e.Start, e.End)
		}
		out.Write(src[at:e.Start])
		out.WriteString(e.New)
		at = e.End
	}
	out.Write(src[at:])
	return out.Bytes(), nil
}

// less orders edits by where they start; at one place an insertion comes
// before a replacement.
func less(a, b Edit) bool {
	if a.Start != b.Start {
		return a.Start < b.Start
	}
	return a.Start == a.End && b.Start != b.End
}
