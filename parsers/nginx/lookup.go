package nginx

import (
	"strings"

	"github.com/proxylint/proxylint/model"
)

// What nginx does with a pass directive whose host comes from variables
// (ngx_http_upstream.c, ngx_http_upstream_init_request): it takes the
// value, looks for an upstream of that host and port among all it has --
// the upstream blocks, which match a value without a port only, and the
// implicit upstreams every literal pass directive of the configuration
// made, which match host (case aside) and port -- and only when none
// matches looks the name up through the resolver
// (docs/semantics.md §D).

// runTime is what the configuration's http block says about values computed
// at run time, read once before its servers are built.
type runTime struct {
	// literal holds "host:port" (lower case) of every literal pass
	// target: the implicit upstreams a computed value may match.
	literal map[string]bool
	// assigned holds, by variable name, every value "set" gives it
	// anywhere.
	assigned map[string]map[string]bool
	// late names the variables auth_request_set gives a value, in the
	// access phase, after every rewrite directive.
	late map[string]bool
	// scripted is set when Lua, njs or Perl code runs on requests: it
	// can give any variable any value.
	scripted bool
}

// readRunTime walks every directive of the http block, includes followed.
func readRunTime(dirs []*Directive) runTime {
	rt := runTime{literal: map[string]bool{}, assigned: map[string]map[string]bool{}, late: map[string]bool{}}
	assign := func(name, value string) {
		if rt.assigned[name] == nil {
			rt.assigned[name] = map[string]bool{}
		}
		rt.assigned[name][value] = true
	}
	var walk func(dirs []*Directive)
	walk = func(dirs []*Directive) {
		for _, d := range dirs {
			switch {
			case d.Name == "include":
				for _, f := range d.Included() {
					walk(f.Directives)
				}
				continue
			case strings.Contains(d.Name, "_by_lua") || strings.HasPrefix(d.Name, "js_") || strings.HasPrefix(d.Name, "perl"):
				rt.scripted = true
			case d.Name == "set" && len(d.Args) >= 1:
				value := ""
				if len(d.Args) == 2 {
					value = d.Args[1].Value
				}
				assign(strings.TrimPrefix(d.Args[0].Value, "$"), value)
			case d.Name == "auth_request_set" && len(d.Args) >= 1:
				rt.late[strings.TrimPrefix(d.Args[0].Value, "$")] = true
			case strings.HasSuffix(d.Name, "_pass") && len(d.Args) > 0 && !strings.Contains(d.Args[0].Value, "$"):
				if key, ok := literalTarget(d.Args[0].Value); ok {
					rt.literal[key] = true
				}
			}
			walk(d.Block)
		}
	}
	walk(dirs)
	return rt
}

// literalTarget is the "host:port" key of a literal pass URL's implicit
// upstream: the port written, or the scheme's default.
func literalTarget(url string) (string, bool) {
	scheme, rest := "", url
	if s, after, ok := strings.Cut(url, "://"); ok {
		scheme, rest = s, after
	}
	addr, err := parseAddress(passHost(rest), 0)
	if err != nil || addr.Host == "" || addr.Unix != "" || (addr.Port == 0 && scheme == "") {
		return "", false // a unix socket, or no default port to match against
	}
	return implicitKey(addr, scheme), true
}

// passHost is the host[:port], or unix:path, that a pass URL without its
// scheme names: its URI left out.
func passHost(rest string) string {
	hostport := hostPart(rest)
	if strings.HasPrefix(hostport, "unix:") {
		// unix:/path/to.sock[:/uri]
		if i := strings.Index(hostport[len("unix:"):], ":"); i >= 0 {
			hostport = hostport[:len("unix:")+i]
		}
	} else if i := strings.IndexByte(hostport, '/'); i >= 0 {
		hostport = hostport[:i]
	}
	return hostport
}

// implicitKey names the implicit upstream of address addr, its port the
// scheme's default when it has none: lower case, as nginx compares names.
func implicitKey(addr model.Address, scheme string) string {
	if addr.Port == 0 && addr.Unix == "" {
		addr.Port = defaultPort(scheme)
	}
	return strings.ToLower(addr.String())
}

// certain reports whether the value the loader gave the computed host of
// url (hostport once expanded), passed by module at scope s, is the one
// every request nginx passes there has, and is looked up: a host, with a
// port unless the module is proxy (the others answer 500, "no port in
// upstream", before any lookup). Each variable of the host must be set by
// "set" in the pass's own location (or its if blocks), which runs last
// before the request is passed; or at server level, or by a map whose
// values hold no variable, and then given no other value anywhere (a
// request may come from another location that set it, through rewrite
// ... last or a named location, which do not run the server's rewrite
// directives again). No auth_request_set may give it a value after the
// rewrite directives, no script may change it, and no return, rewrite or
// break at those levels may end the request or the rewrite directives
// first. The rewrite directives of an enclosing location do not run for
// a nested one.
func (b *builder) certain(s *scope, module, url, hostport string) bool {
	if b.run.scripted {
		return false
	}
	addr, err := parseAddress(hostport, 0)
	if err != nil || addr.Host == "" || (module != "proxy" && addr.Port == 0) {
		return false
	}
	own, server := ownLevels(s)
	for _, lvl := range append(own, server) {
		if lvl == nil {
			continue
		}
		for _, name := range []string{"return", "rewrite", "break"} {
			if len(lvl.all(name)) > 0 {
				return false
			}
		}
	}
	for _, name := range hostVariables(url) {
		values := b.run.assigned[name]
		if b.run.late[name] {
			return false
		}
		if setAt(own, name) {
			continue
		}
		if m := b.maps["$"+name]; m != nil && len(values) == 0 && !holdsVariable(m) {
			continue
		}
		if len(values) != 1 || server == nil || !setAt([]*scope{server}, name) {
			return false
		}
	}
	return true
}

// holdsVariable reports whether a map gives a value with a variable in it,
// whose own value is another question.
func holdsVariable(m *Directive) bool {
	for _, e := range m.Block {
		for _, a := range e.Args {
			if strings.Contains(a.Value, "$") {
				return true
			}
		}
	}
	return false
}

// setAt reports whether "set $name VALUE" stands at one of the levels
// itself (not in an if block of theirs).
func setAt(levels []*scope, name string) bool {
	for _, lvl := range levels {
		for _, d := range lvl.all("set") {
			if len(d.Args) == 2 && d.Args[0].Value == "$"+name {
				return true
			}
		}
	}
	return false
}

// rewriteLevels are the scopes whose rewrite directives run for a request
// at s: ownLevels, and the server's.
func rewriteLevels(s *scope) []*scope {
	own, server := ownLevels(s)
	if server == nil {
		return own
	}
	return append(own, server)
}

// ownLevels are the scopes whose rewrite directives run for a request
// passed at s: s and the if blocks up to its location, and the location
// (own); and the server. The rewrite directives of enclosing locations do
// not run.
func ownLevels(s *scope) (own []*scope, server *scope) {
	c := s
	for c != nil && c.kind != "location" && c.kind != "server" {
		own = append(own, c)
		c = c.parent
	}
	if c != nil && c.kind == "location" {
		own = append(own, c)
		c = c.parent
	}
	for c != nil && c.kind != "server" {
		c = c.parent
	}
	return own, c
}

// hostVariables names the variables of url before its host ends.
func hostVariables(url string) []string {
	var out []string
	for i := 0; i < len(url); i++ {
		if hostDone(url[:i]) {
			break
		}
		if url[i] != '$' {
			continue
		}
		name, end, ok := variableAt(url, i)
		if !ok || isURIVariable(url[i:end]) {
			break
		}
		out = append(out, name)
		i = end - 1
	}
	return out
}
