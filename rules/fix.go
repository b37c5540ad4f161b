package rules

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/proxylint/proxylint/internal/lazyre"
	"github.com/proxylint/proxylint/model"
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

// word is one word of an nginx directive as written.
type word struct {
	start, end int
	value      string // without quotes
}

// statement is a simple nginx directive as written: its words and the
// offset just past its ";".
type statement struct {
	file   *model.File
	tokens []word
	end    int
}

// nginxStatement reads the simple directive named name that starts at p.
func (x *fixer) nginxStatement(p model.Pos, name string) *statement {
	f := x.file(p)
	if f == nil {
		return nil
	}
	off := x.sources.offset(f, p)
	if off < 0 {
		x.fail()
		return nil
	}
	toks, end, ok := scanStatement(f.Source, off)
	if !ok || len(toks) == 0 || toks[0].value != name {
		x.fail()
		return nil
	}
	return &statement{file: f, tokens: toks, end: end}
}

// scanStatement reads the words of the nginx directive at off up to its
// ";", as nginx's reader splits them. ok is false for a block directive or
// text it does not expect.
func scanStatement(src []byte, off int) (toks []word, end int, ok bool) {
	toks = make([]word, 0, 8)
	i := off
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == ';':
			return toks, i + 1, len(toks) > 0
		case c == '{' || c == '}':
			return nil, 0, false
		case c == '#' && len(toks) > 0:
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			j := i + 1
			var b strings.Builder
			for j < len(src) && src[j] != c {
				if src[j] == '\\' && j+1 < len(src) {
					j++
				}
				b.WriteByte(src[j])
				j++
			}
			if j >= len(src) {
				return nil, 0, false
			}
			toks = append(toks, word{i, j + 1, b.String()})
			i = j + 1
		default:
			j := i
			for j < len(src) && !bytes.ContainsRune([]byte(" \t\r\n;{"), rune(src[j])) {
				if src[j] == '\\' && j+1 < len(src) {
					j++
				}
				j++
			}
			toks = append(toks, word{i, j, string(src[i:j])})
			i = j
		}
	}
	return nil, 0, false
}

// lineStart is the offset of the start of the line holding off.
func lineStart(src []byte, off int) int { return bytes.LastIndexByte(src[:off], '\n') + 1 }

// indentAt is the blanks that start the line holding off.
func indentAt(src []byte, off int) string {
	s := lineStart(src, off)
	e := s
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[s:e])
}

// startsLine reports whether only blanks stand before off on its line.
func startsLine(src []byte, off int) bool {
	return len(indentAt(src, off)) == off-lineStart(src, off)
}

// newline is the line ending the file uses.
func newline(src []byte) string {
	if bytes.Contains(src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

var indentRE = lazyre.New(`(?m)^([ \t]+)\S`)

// indentUnit is one level of the file's indentation: a tab when its lines
// are indented with tabs, else the narrowest indentation of a line, else
// four spaces.
func indentUnit(src []byte) string {
	unit := ""
	for _, m := range indentRE().FindAllSubmatch(src, 200) {
		in := string(m[1])
		if in[0] == '\t' {
			return "\t"
		}
		if unit == "" || len(in) < len(unit) {
			unit = in
		}
	}
	if unit == "" {
		return "    "
	}
	return unit
}

func (x *fixer) add(f *model.File, start, end int, text string) {
	x.edits = append(x.edits, Edit{File: f.Path, Start: start, End: end, New: text})
}

// insertAfter inserts lines after the line on which statement s ends, at
// the indentation of the line s starts on.
func (x *fixer) insertAfter(s *statement, lines ...string) {
	if s == nil || x.failed {
		return
	}
	src := s.file.Source
	nl, in := newline(src), indentAt(src, s.tokens[0].start)
	at := bytes.IndexByte(src[s.end:], '\n')
	var text strings.Builder
	if at < 0 {
		at = len(src)
		text.WriteString(nl)
	} else {
		at += s.end + 1
	}
	for _, l := range lines {
		text.WriteString(in + l + nl)
	}
	x.add(s.file, at, at, text.String())
}

// insertBefore inserts lines before the line of the directive at off, at
// its indentation; the directive must start its line.
func (x *fixer) insertBefore(f *model.File, off int, lines ...string) {
	if f == nil || x.failed {
		return
	}
	src := f.Source
	if !startsLine(src, off) {
		x.fail()
		return
	}
	nl, in := newline(src), indentAt(src, off)
	var text strings.Builder
	for _, l := range lines {
		if l == "" {
			text.WriteString(nl)
			continue
		}
		text.WriteString(in + l + nl)
	}
	at := lineStart(src, off)
	x.add(f, at, at, text.String())
}

// removeArg deletes the argument of s whose value is v, with the blanks
// before it; the directive must keep another argument.
func (x *fixer) removeArg(s *statement, v string) {
	if s == nil || x.failed {
		return
	}
	for i, t := range s.tokens[1:] {
		if t.value != v {
			continue
		}
		if len(s.tokens) < 3 {
			break
		}
		prev := s.tokens[i] // the word before
		x.add(s.file, prev.end, t.end, "")
		return
	}
	x.fail()
}

// replaceArg replaces argument i (1-based, after the name) with text.
func (x *fixer) replaceArg(s *statement, i int, text string) {
	if s == nil || x.failed || i >= len(s.tokens) {
		x.fail()
		return
	}
	t := s.tokens[i]
	x.add(s.file, t.start, t.end, text)
}

// httpLevel returns the file and offset before which a directive of the
// http block can be inserted: the first server block of the proxy, so that
// every fix that adds to the http block adds at one place. nil when the
// proxy has no server block whose surroundings are known.
func (x *fixer) httpLevel(p *model.Proxy, r *model.Route) (*model.File, int) {
	if x.failed || p == nil || len(p.Listeners) == 0 || (p.Context != "main" && p.Context != "http") {
		x.fail()
		return nil, 0
	}
	pos := p.Listeners[0].Pos
	f := x.file(pos)
	if f == nil {
		return nil, 0
	}
	off := x.sources.offset(f, pos)
	if off < 0 || !bytes.HasPrefix(f.Source[off:], []byte("server")) || !startsLine(f.Source, off) {
		x.fail()
		return nil, 0
	}
	rest := bytes.TrimLeft(f.Source[off+len("server"):], " \t\r\n")
	if len(rest) == 0 || rest[0] != '{' {
		x.fail()
		return nil, 0
	}
	// The server block must be in the http block of this file, or at the
	// top of the entry file of an http-level fragment.
	in, at := openBlocks(f.Source[:off])
	inHTTP := len(in) == 1 && in[0] == "http"
	httpFragment := len(in) == 0 && p.Context == "http" && f.Path == p.Entry
	if !inHTTP && !httpFragment {
		x.fail()
		return nil, 0
	}
	// The route's own server must be in that http block.
	rOff := x.sources.offset(f, r.Listener.Pos)
	if r.Listener.Pos.File != f.Path || rOff < 0 {
		x.fail()
		return nil, 0
	}
	rIn, rAt := openBlocks(f.Source[:rOff])
	if len(rIn) != len(in) || len(at) > 0 && rAt[0] != at[0] {
		x.fail()
		return nil, 0
	}
	return f, off
}

// routeBlock returns the text of a route's block, from its directive to
// its closing brace.
func (x *fixer) routeBlock(r *model.Route) (*model.File, []byte) {
	f := x.file(r.Pos)
	if f == nil || r.End.File != r.Pos.File {
		x.fail()
		return nil, nil
	}
	s, e := x.sources.offset(f, r.Pos), x.sources.offset(f, r.End)
	if s < 0 || e < s {
		x.fail()
		return nil, nil
	}
	return f, f.Source[s:e]
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
func poolLines(m *model.Model, p *model.Proxy, idle model.Setting[time.Duration]) []string {
	var lines []string
	if !p.UpstreamsPoolByDefault {
		lines = append(lines, "keepalive 16;")
	}
	if b, ok := backendIdle(m); ok && (!idle.Valid() || idle.Value >= b) {
		lines = append(lines, fmt.Sprintf("keepalive_timeout %s;", dur(shorter(b))))
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
	if s == nil || len(s.tokens) != 2 {
		return nil
	}
	scheme, addr, uri, ok := passURL(fw.Module, s.tokens[1].value)
	if !ok || strings.ContainsAny(s.tokens[1].value, "$\"'\\") {
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
	var inLocation []string
	if fw.Module == "proxy" {
		hostHeader := addr
		if a.Unix != "" {
			hostHeader = "localhost"
		}
		// proxy_set_header and proxy_redirect set in a location replace
		// every one inherited: add them only where that loses nothing.
		_, block := x.routeBlock(r)
		if x.failed || r.Kind != "location" || r.Match.Kind != model.MatchPrefix && r.Match.Kind != model.MatchExact && uri != "" {
			return nil
		}
		own := ownDirectives(block)
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
			inLocation = append(inLocation, fmt.Sprintf("proxy_set_header Host %s;", hostHeader))
		case x.anywhere("proxy_set_header") || p.Partial:
			// Inherited headers would be dropped, or may be.
			return nil
		default:
			inLocation = append(inLocation, fmt.Sprintf("proxy_set_header Host %s;", hostHeader))
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
			inLocation = append(inLocation, fmt.Sprintf("proxy_redirect %s%s/ /;", scheme, addr))
		default:
			inLocation = append(inLocation, fmt.Sprintf("proxy_redirect %s%s%s %s;", scheme, addr, uri, r.Match.Path))
		}
		if scheme == "https://" {
			host := a.Host
			if a.Unix != "" {
				host = "localhost"
			}
			inLocation = append(inLocation, fmt.Sprintf("proxy_ssl_name %s;", host))
		}
		if !p.UpstreamsPoolByDefault {
			if v := r.Nginx.HTTPVersion; v.Value != "1.1" {
				inLocation = append(inLocation, "proxy_http_version 1.1;")
			}
			if c := r.Nginx.ConnectionHeader; c.Value != "" {
				inLocation = append(inLocation, `proxy_set_header Connection "";`)
			}
		}
	}
	if fw.Module == "fastcgi" && !r.Nginx.KeepConn.Value {
		inLocation = append(inLocation, "fastcgi_keep_conn on;")
	}
	f, at := x.httpLevel(p, r)
	block := []string{"upstream " + name + " {"}
	unit := "    "
	if f != nil {
		unit = indentUnit(f.Source)
	}
	block = append(block, unit+"server "+server+";")
	for _, l := range poolLines(pass.Model, p, u.PoolIdle) {
		block = append(block, unit+l)
	}
	block = append(block, "}", "")
	x.insertBefore(f, at, block...)
	x.replaceArg(s, 1, scheme+name+uri)
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
		if s == nil || len(s.tokens) != 2 {
			return nil
		}
		x.replaceArg(s, 1, "16")
		if lines := poolLines(pass.Model, u.Proxy, u.PoolIdle); len(lines) > 1 || len(lines) == 1 && !strings.HasPrefix(lines[0], "keepalive ") {
			x.insertAfter(s, lines[len(lines)-1])
		}
	} else {
		lines := poolLines(pass.Model, u.Proxy, u.PoolIdle)
		if len(lines) == 0 {
			return nil
		}
		f, last := x.lastServer(u)
		if f == nil {
			return nil
		}
		x.insertAfter(last, lines...)
	}
	for _, r := range pooling {
		if x.failed {
			break
		}
		x.poolRoute(r)
	}
	return x.result()
}

// lastServer returns the last server directive of an upstream block.
func (x *fixer) lastServer(u *model.Upstream) (*model.File, *statement) {
	if len(u.Servers) == 0 {
		x.fail()
		return nil, nil
	}
	s := x.nginxStatement(u.Servers[len(u.Servers)-1].Pos, "server")
	if s == nil {
		// Servers point at their address; step back to the directive.
		f := x.file(u.Servers[len(u.Servers)-1].Pos)
		if f == nil {
			return nil, nil
		}
		x.failed = false
		off := x.sources.offset(f, u.Servers[len(u.Servers)-1].Pos)
		i := bytes.LastIndex(f.Source[:max(off, 0)], []byte("server"))
		if off < 0 || i < 0 {
			x.fail()
			return nil, nil
		}
		s = x.nginxStatement(f.PosAt(i), "server")
		if s == nil {
			return nil, nil
		}
	}
	return s.file, s
}

// poolRoute makes a location reuse pooled connections: HTTP/1.1 without
// "Connection: close" for proxy_pass, fastcgi_keep_conn for FastCGI.
func (x *fixer) poolRoute(r *model.Route) {
	fw := r.Forward
	if fw.Inherited {
		return
	}
	var lines []string
	switch fw.Module {
	case "proxy":
		if r.Nginx.HTTPVersion.Value != "1.1" {
			if v := r.Nginx.HTTPVersion; v.Explicit() {
				x.replaceArg(x.nginxStatement(v.Pos, "proxy_http_version"), 1, "1.1")
			} else {
				lines = append(lines, "proxy_http_version 1.1;")
			}
		}
		if c := r.Nginx.ConnectionHeader; c.Value != "" {
			if c.Explicit() || !x.ownHeaders(r) && (x.anywhere("proxy_set_header") || r.Listener.Proxy.Partial) {
				x.fail() // replacing or adding one changes what is inherited
				return
			}
			lines = append(lines, `proxy_set_header Connection "";`)
		}
	case "fastcgi":
		if k := r.Nginx.KeepConn; !k.Value {
			if k.Explicit() {
				x.replaceArg(x.nginxStatement(k.Pos, "fastcgi_keep_conn"), 1, "on")
			} else {
				lines = append(lines, "fastcgi_keep_conn on;")
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

// timingFormat is nginx's combined format with the timing of the upstream.
const timingFormat = `'$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" ' 'rt=$request_time uct=$upstream_connect_time urt=$upstream_response_time us=$upstream_status'`

// logFormatFix adds the missing variables to a log format: to the custom
// format the log uses, or, for the built-in combined format, through a new
// format "timing" that the access_log directive names, its path kept.
func logFormatFix(pass *Pass, p *model.Proxy, r *model.Route, l model.AccessLog, missing []string) []Edit {
	x := newFixer(pass)
	if l.Format.Builtin {
		if l.Format.Name != "combined" || x.anywhere("timing") {
			return nil
		}
		s := x.nginxStatement(l.Pos, "access_log")
		if s == nil || len(s.tokens) < 2 {
			return nil
		}
		if len(s.tokens) >= 3 && s.tokens[2].value == "combined" {
			x.replaceArg(s, 2, "timing")
		} else if len(s.tokens) == 2 || strings.Contains(s.tokens[2].value, "=") {
			x.add(s.file, s.tokens[1].end, s.tokens[1].end, " timing")
		} else {
			return nil
		}
		f, at := x.httpLevel(p, r)
		x.insertBefore(f, at, "log_format timing "+timingFormat+";", "")
		return x.result()
	}
	s := x.nginxStatement(l.Format.Pos, "log_format")
	if s == nil || len(s.tokens) < 3 {
		return nil
	}
	for _, t := range s.tokens[2:] {
		if strings.HasPrefix(t.value, "escape=") && t.value != "escape=default" {
			return nil // JSON or unescaped text: the fields are the author's to name
		}
	}
	if strings.HasPrefix(strings.TrimSpace(s.tokens[2].value), "{") {
		return nil
	}
	var add []string
	for _, v := range missing {
		add = append(add, strings.TrimPrefix(v, "$")+"="+v)
	}
	last := s.tokens[len(s.tokens)-1]
	x.add(s.file, last.end, last.end, " ' "+strings.Join(add, " ")+"'")
	return x.result()
}

// removeArgFix deletes one argument of the directive at pos.
func removeArgFix(pass *Pass, pos model.Pos, name, arg string) []Edit {
	x := newFixer(pass)
	x.removeArg(x.nginxStatement(pos, name), arg)
	return x.result()
}

var (
	yamlKeyLine = lazyre.New(`^([ \t]*)(?:- )?["']?(common_http_protocol_options|commonHttpProtocolOptions)["']?[ \t]*:[ \t]*(#.*)?\r?$`)
	yamlBoolVal = lazyre.New(`^["']?(http1_safe_max_connection_duration|http1SafeMaxConnectionDuration)["']?[ \t]*:[ \t]*(false)\b`)
	jsonOptsKey = lazyre.New(`"(common_http_protocol_options|commonHttpProtocolOptions)"[ \t\r\n]*:`)
)

// h1SafeDrainFix sets http1_safe_max_connection_duration: true on the
// HttpConnectionManager (field 58 of HttpConnectionManager, next to
// common_http_protocol_options, not inside it): it turns an explicit false
// into true, or adds the field before common_http_protocol_options, at its
// indentation in YAML and as a member of the same object in JSON. The
// rest of the text is kept as written.
func h1SafeDrainFix(pass *Pass, l *model.Listener) []Edit {
	x := newFixer(pass)
	if safe := l.H1SafeMaxConnectionDuration; safe.Explicit() {
		f := x.file(safe.Pos)
		if f == nil {
			return nil
		}
		off := x.sources.offset(f, safe.Pos)
		if off < 0 {
			return nil
		}
		m := yamlBoolVal().FindSubmatchIndex(f.Source[off:])
		if m == nil {
			return nil
		}
		x.add(f, off+m[4], off+m[5], "true")
		return x.result()
	}
	limit := l.MaxConnectionDuration
	f := x.file(limit.Pos)
	if f == nil {
		return nil
	}
	src := f.Source
	off := x.sources.offset(f, limit.Pos)
	if off < 0 {
		return nil
	}
	if t := bytes.TrimLeft(src, " \t\r\n\ufeff"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		// JSON: the nearest common_http_protocol_options key before the
		// duration opens the object that holds it.
		ms := jsonOptsKey().FindAllIndex(src[:off], -1)
		if len(ms) == 0 {
			return nil
		}
		at := ms[len(ms)-1][0]
		if !bytes.Contains(src[at:off], []byte("{")) || bytes.ContainsAny(src[bytes.IndexByte(src[at:off], '{')+at+1:off], "{}") {
			return nil
		}
		x.add(f, at, at, `"http1_safe_max_connection_duration": true, `)
		return x.result()
	}
	// YAML in block style: the line of the options key is the nearest line
	// above the duration that is indented less.
	own := indentAt(src, off)
	if !startsLine(src, off) {
		return nil
	}
	i := lineStart(src, off)
	for i > 0 {
		s := lineStart(src, i-1)
		line := src[s : i-1]
		i = s
		trim := bytes.TrimSpace(line)
		if len(trim) == 0 || trim[0] == '#' {
			continue
		}
		in := indentAt(src, s)
		if len(in) >= len(own) {
			continue
		}
		m := yamlKeyLine().FindSubmatch(line)
		if m == nil || strings.HasPrefix(strings.TrimLeft(string(line), " \t"), "- ") {
			return nil
		}
		x.insertBefore(f, s+len(in), "http1_safe_max_connection_duration: true")
		return x.result()
	}
	return nil
}

// ownHeaders reports whether a location sets proxy_set_header itself, so
// that adding one inherits nothing less.
func (x *fixer) ownHeaders(r *model.Route) bool {
	_, block := x.routeBlock(r)
	if x.failed {
		return false
	}
	return ownDirectives(block)["proxy_set_header"] != nil
}

// openBlocks lists the names and the offsets of the "{" of the blocks
// open at the end of text, outermost first.
func openBlocks(text []byte) ([]string, []int) {
	var stack, words []string
	var at []int
	for i := 0; i < len(text); {
		c := text[i]
		switch c {
		case ' ', '\t', '\r', '\n':
			i++
		case '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case '{':
			name := ""
			if len(words) > 0 {
				name = words[0]
			}
			stack = append(stack, name)
			at = append(at, i)
			words = nil
			i++
		case '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
				at = at[:len(at)-1]
			}
			words = nil
			i++
		case ';':
			words = nil
			i++
		case '"', '\'':
			j := i + 1
			for j < len(text) && text[j] != c {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			words = append(words, "")
			i = j + 1
		default:
			j := i
			for j < len(text) && !strings.ContainsRune(" \t\r\n;{}", rune(text[j])) {
				j++
			}
			words = append(words, string(text[i:j]))
			i = j
		}
	}
	return stack, at
}

// ownDirectives lists the arguments of the simple directives directly in
// the block whose text (from its name to its closing brace) is given, by
// name.
func ownDirectives(block []byte) map[string][][]string {
	out := map[string][][]string{}
	depth := 0
	var words []string
	for i := 0; i < len(block); {
		c := block[i]
		switch c {
		case ' ', '\t', '\r', '\n':
			i++
		case '#':
			for i < len(block) && block[i] != '\n' {
				i++
			}
		case '{':
			depth++
			words = nil
			i++
		case '}':
			depth--
			words = nil
			i++
		case ';':
			if depth == 1 && len(words) > 1 {
				out[words[0]] = append(out[words[0]], words[1:])
			}
			words = nil
			i++
		case '"', '\'':
			j := i + 1
			for j < len(block) && block[j] != c {
				if block[j] == '\\' {
					j++
				}
				j++
			}
			words = append(words, string(block[i+1:min(j, len(block))]))
			i = j + 1
		default:
			j := i
			for j < len(block) && !strings.ContainsRune(" \t\r\n;{}", rune(block[j])) {
				j++
			}
			words = append(words, string(block[i:j]))
			i = j
		}
	}
	return out
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
	if !p.Target.AtLeast(1, 32, 0) {
		return advice, nil
	}
	return withEdits(h1SafeDrainFix(pass, l),
		"set http1_safe_max_connection_duration: true on the HttpConnectionManager: Envoy then closes an HTTP/1 connection only after answering a request on it with \"Connection: close\"",
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
	var lines, what []string
	for _, a := range add {
		switch a {
		case "tries":
			lines = append(lines, mod+"_next_upstream_tries 2;")
			what = append(what, mod+"_next_upstream_tries 2")
		case "timeout":
			t := dur(min(attempt(r), 2*r.AttemptTimeout.Value))
			if t == "0s" {
				return advice, nil
			}
			lines = append(lines, mod+"_next_upstream_timeout "+t+";")
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
