package nginx

import (
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/proxylint/proxylint/internal/workers"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

// passModules are the modules whose *_pass directive sends a request to an
// upstream, in the order proxylint reports them.
var passModules = []string{"proxy", "grpc", "fastcgi", "uwsgi", "scgi", "memcached"}

// Defaults nginx applies (docs/semantics.md §A, §B, §C, §D).
const (
	defaultUpstreamTimeout   = 60 * time.Second
	defaultKeepaliveTimeout  = 75 * time.Second
	defaultKeepaliveTime     = time.Hour
	defaultUpstreamKeepalive = 32
	defaultUpstreamIdle      = 60 * time.Second
)

// knownAddresses is how many peers nginx makes of a server address without
// DNS: one for an IP literal or a unix socket; two for localhost, which the
// usual /etc/hosts (Debian's, Ubuntu's, Alpine's) lists as ::1 and
// 127.0.0.1, and which nginx resolves at start-up into one peer per
// address (ngx_http_upstream_round_robin.c; docs/semantics.md §0b). 0 when
// only DNS can tell.
func knownAddresses(a model.Address) int {
	switch {
	case a.Unix != "" || isLiteralHost(a.Host):
		return 1
	case strings.EqualFold(a.Host, "localhost"):
		return 2
	}
	return 0
}

// closedUnderRequest is what nginx answers when the server closes a pooled
// connection under a request (ngx_http_upstream.c: "upstream prematurely
// closed connection", NGX_HTTP_UPSTREAM_FT_ERROR → 502).
const closedUnderRequest = "502, \"upstream prematurely closed connection\""

// Build turns a loaded configuration into the common model, resolving every
// inherited and default value once. A fragment is read in the context its
// top level implies (Config.Context).
func Build(cfg *Config, target model.Target) *model.Proxy {
	return buildProxy(cfg, target, false)
}

// BuildReleasing is Build for a caller that is done with the directives:
// the directives of a server block in a file included by the http block
// are let go as soon as its listener and routes are built, so that the
// tree and the model are not both held whole. Afterwards cfg's directives
// must not be read: its files keep their paths, sources and comments, and
// its diagnostics stay.
func BuildReleasing(cfg *Config, target model.Target) *model.Proxy {
	return buildProxy(cfg, target, true)
}

func buildProxy(cfg *Config, target model.Target, release bool) *model.Proxy {
	p := &model.Proxy{Product: target.Product, Target: target}
	p.UpstreamsPoolByDefault = releases.UpstreamKeepalive.In(target)
	if cfg.Main == nil {
		return p
	}
	p.Entry = cfg.Main.Path
	p.Context = cfg.Context
	p.Pos = model.Pos{File: cfg.Main.Path, Line: 1, Col: 1}
	b := &builder{proxy: p, target: target, release: release, comments: map[string][]model.Comment{}, sources: map[string][]byte{}, implicit: map[string]*model.Upstream{},
		logs: map[model.Pos]model.Setting[[]model.AccessLog]{}, defaultLogs: map[model.Pos]model.Setting[[]model.AccessLog]{}}
	b.complete = !cfg.Fragment() && !cfg.UpstreamsUnread()
	b.facts = newFacts(cfg, releases.ProxyConnectionHeader.In(b.target))
	p.Partial = cfg.Fragment() || cfg.SettingsUnread()
	for _, f := range cfg.Files {
		if f == nil {
			continue
		}
		b.sources[f.Path] = f.Source
		for _, c := range f.Comments {
			if _, ok := annotationName(c.Text); ok {
				b.comments[f.Path] = append(b.comments[f.Path], c)
			}
		}
	}
	top := cfg.Main.Directives
	at := p.Pos
	switch cfg.Context {
	case "main":
		main := newScope("main", nil, at, nil, top)
		for _, h := range main.children("http") {
			b.http(newScope("http", h, at, main, h.Block))
		}
	case "http":
		b.http(newScope("http", nil, at, nil, top))
	case "server":
		http := newScope("http", nil, at, nil, nil)
		b.http(http)
		b.server(newScope("server", nil, at, http, top))
	case "location":
		http := newScope("http", nil, at, nil, nil)
		b.http(http)
		srv := newScope("server", nil, at, http, nil)
		l := b.server(srv)
		loc := newScope("location", nil, at, srv, top)
		b.route(l, loc, nil)
	case "upstream":
		b.upstream(newScope("upstream", nil, at, nil, top), "")
	}
	b.flush()
	b.facts.emit(p)
	bs := newBehaviours()
	for _, l := range p.Listeners {
		for _, r := range l.Routes {
			behaviour(r, bs)
		}
	}
	return p
}

// InferContext says which block a fragment's top level belongs in: "main"
// (it has http, events, stream or mail blocks), "http" (server, upstream,
// map blocks), "server" (locations, listen), "upstream" (server lines),
// "location" (a *_pass directive) or, failing all, "http".
func InferContext(dirs []*Directive) string {
	has := map[string]bool{}
	upstreamServers := false
	for _, d := range flatten(dirs) {
		has[d.Name] = true
		if d.Name == "server" && d.Block == nil {
			upstreamServers = true
		}
	}
	switch {
	case has["http"] || has["events"] || has["stream"] || has["mail"] || has["worker_processes"] || has["load_module"]:
		return "main"
	case has["upstream"] || has["map"] || has["log_format"] || (has["server"] && !upstreamServers):
		return "http"
	case has["location"] || has["listen"] || has["server_name"]:
		return "server"
	case upstreamServers:
		return "upstream"
	}
	for _, m := range passModules {
		if has[m+"_pass"] {
			return "location"
		}
	}
	return "http"
}

type builder struct {
	proxy    *model.Proxy
	target   model.Target
	comments map[string][]model.Comment // annotation comments only
	sources  map[string][]byte

	formats map[string]model.LogFormat
	maps    map[string]*Directive // map blocks by the variable they set
	// complete is set when the whole configuration was read: a main
	// file whose includes could all be followed.
	complete bool
	named    map[string]*model.Upstream // by lower-case name
	implicit map[string]*model.Upstream // by lower-case host:port or unix path
	names    map[string]*moduleNames    // by pass module
	// routes and nginxRoutes are allocated in batches (newRoute): the
	// values are over a kilobyte each, and a batch wastes none of it on
	// rounding up to the allocator's size classes.
	routes      []model.Route
	nginxRoutes []model.NginxRoute
	// logs and defaultLogs are the access logs of each level that sets
	// them and the default of each http block, made once for the routes
	// that inherit them.
	logs, defaultLogs map[model.Pos]model.Setting[[]model.AccessLog]
	// run is what the http block says about values computed at run time
	// (lookup.go).
	run runTime
	// oldNote is oldDefaultsNote's answer, made once.
	oldNote string
	// release drops each server block's directives once it is built
	// (BuildReleasing).
	release bool
	// httpResolver is the resolver directive of the http block, which
	// upstream blocks use when they set none (dns.go).
	httpResolver model.Setting[string]
	// facts gathers what the directives written in blocks do beside the
	// routes' values (written.go); forks share it.
	facts *facts

	// What the servers add to the proxy, kept here until flush adds it in
	// order: a builder building some servers on its own (servers) hands
	// it to the one that started it.
	listeners []*model.Listener
	upstreams []*model.Upstream // implicit upstreams, as they are made
	uses      []upstreamUse
	// base holds the implicit upstreams made before this builder's
	// servers, read only (servers).
	base map[string]*model.Upstream
}

// upstreamUse is a route that proxies to an upstream, for Upstream.Routes.
type upstreamUse struct {
	u *model.Upstream
	r *model.Route
}

// flush adds what the servers built to the proxy.
func (b *builder) flush() {
	b.proxy.Listeners = append(b.proxy.Listeners, b.listeners...)
	b.proxy.Upstreams = append(b.proxy.Upstreams, b.upstreams...)
	for _, x := range b.uses {
		x.u.Routes = append(x.u.Routes, x.r)
	}
	b.listeners, b.upstreams, b.uses = nil, nil, nil
}

func (b *builder) http(s *scope) {
	b.httpResolver = resolverAt(s)
	b.facts.httpLevel(s)
	b.formats = map[string]model.LogFormat{
		"combined": {Name: "combined", Builtin: true, Text: `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`},
	}
	for _, d := range s.all("log_format") {
		if len(d.Args) < 2 {
			continue
		}
		var parts []string
		for _, a := range d.Args[1:] {
			if strings.HasPrefix(a.Value, "escape=") {
				continue
			}
			parts = append(parts, a.Value)
		}
		b.formats[d.Args[0].Value] = model.LogFormat{Name: d.Args[0].Value, Text: strings.Join(parts, ""), Pos: d.Pos}
	}
	b.maps = map[string]*Directive{}
	for _, m := range s.children("map") {
		if len(m.Args) == 2 {
			b.maps[m.Args[1].Value] = m
		}
	}
	b.run = readRunTime(s.dirs)
	b.named = map[string]*model.Upstream{}
	for _, u := range s.children("upstream") {
		if len(u.Args) == 1 {
			// No parent: an upstream block inherits nothing. Its
			// keepalive_timeout is the pool's own; the one at http
			// level is about client connections (docs/semantics.md §0b).
			b.upstream(newScope("upstream", u, u.Pos, nil, u.Block), u.Args[0].Value)
		}
	}
	servers := s.children("server")
	if b.release {
		s.release()
	}
	b.servers(s, servers)
	b.flush()
}

// serversPerBuilder is the fewest server blocks worth building side by
// side with others.
const serversPerBuilder = 32

// servers builds the server blocks of http. Servers share nothing but
// what http holds, so a large configuration's are built side by side on
// the available cores, each group by a builder of its own (fork), and put
// together in the configuration's order (join): the proxy is the same as
// one builder makes going through them in order.
func (b *builder) servers(http *scope, servers []*Directive) {
	build := func(b *builder, i int) {
		srv := servers[i]
		s := newScope("server", srv, srv.Pos, http, srv.Block)
		b.server(s)
		if b.release {
			servers[i] = nil
			b.facts.forget(s)
		}
	}
	groups := min(2*runtime.GOMAXPROCS(0), len(servers)/serversPerBuilder)
	if runtime.GOMAXPROCS(0) < 2 || groups < 2 {
		for i := range servers {
			build(b, i)
		}
		return
	}
	// What the servers read of http and of the builder is made before
	// they are built, so that they only read it.
	for c := http; c != nil; c = c.parent {
		c.index()
	}
	b.oldDefaultsNote()
	for _, m := range passModules {
		b.moduleNames(m)
	}
	forks := make([]*builder, groups)
	workers.Each(groups, runtime.GOMAXPROCS(0), func(g int) {
		f := b.fork()
		for i := g * len(servers) / groups; i < (g+1)*len(servers)/groups; i++ {
			build(f, i)
		}
		forks[g] = f
	})
	for _, f := range forks {
		b.join(f)
	}
}

// fork returns a builder for some of b's servers: it reads what b holds
// and keeps what it makes to itself.
func (b *builder) fork() *builder {
	f := *b
	f.base = b.implicit
	f.facts = b.facts.fork()
	f.implicit = map[string]*model.Upstream{}
	f.routes, f.nginxRoutes = nil, nil
	f.logs, f.defaultLogs = map[model.Pos]model.Setting[[]model.AccessLog]{}, map[model.Pos]model.Setting[[]model.AccessLog]{}
	f.listeners, f.upstreams, f.uses = nil, nil, nil
	return &f
}

// join takes what fork f built after what b holds. An implicit upstream f
// made that b (or a fork joined before) made too is b's: its routes are
// pointed there, as one builder would have made it once.
func (b *builder) join(f *builder) {
	same := map[*model.Upstream]*model.Upstream{}
	for _, u := range f.upstreams {
		key := strings.ToLower(u.Name)
		if first := b.implicit[key]; first != nil {
			same[u] = first
			continue
		}
		b.implicit[key] = u
		b.upstreams = append(b.upstreams, u)
	}
	if len(same) > 0 {
		for _, l := range f.listeners {
			for _, r := range l.Routes {
				if r.Forward != nil && same[r.Forward.Upstream] != nil {
					r.Forward.Upstream = same[r.Forward.Upstream]
				}
			}
		}
		for i, x := range f.uses {
			if same[x.u] != nil {
				f.uses[i].u = same[x.u]
			}
		}
	}
	b.listeners = append(b.listeners, f.listeners...)
	b.uses = append(b.uses, f.uses...)
}

func (b *builder) upstream(s *scope, name string) *model.Upstream {
	u := &model.Upstream{Proxy: b.proxy, Kind: "upstream", Name: name, Pos: s.at, ClosedUnderRequest: closedUnderRequest}
	for _, d := range s.all("server") {
		if len(d.Args) == 0 {
			continue
		}
		addr, err := parseAddress(d.Args[0].Value, 80)
		if err != nil {
			continue
		}
		addr.Pos = d.ArgPos(0)
		srv := model.Server{Address: addr, Raw: d.Args[0].Value, Pos: d.Pos, Literal: addr.Unix != "" || isLiteralHost(addr.Host), Addresses: knownAddresses(addr)}
		for _, a := range d.Args[1:] {
			switch a.Value {
			case "backup":
				srv.Backup = true
			case "down":
				srv.Down = true
			case "resolve":
				srv.Resolve = true
			}
		}
		u.Servers = append(u.Servers, srv)
	}
	if d := s.last("keepalive"); d != nil && len(d.Args) > 0 {
		n, _ := strconv.Atoi(d.Args[0].Value)
		u.PoolSize = model.Set(n, "keepalive", "upstream", d.Pos)
	} else if b.poolsByDefault() {
		u.PoolSize = model.Default(defaultUpstreamKeepalive, "keepalive", s.at)
	} else {
		u.PoolSize = model.Default(0, "keepalive", s.at)
		since := releases.UpstreamKeepalive.Since(model.Nginx)
		u.PoolSize = u.PoolSize.WithNote("on " + b.target.Releases(since) + ": nginx pools upstream blocks by default only since " + since.String() + ".")
		if b.target.Product == model.Angie {
			u.PoolSize = u.PoolSize.WithNote("on " + b.target.String() + ": Angie did not adopt nginx " + since.String() + "'s default pool.")
		}
	}
	// The pool's own keepalive_timeout and keepalive_time: those at http
	// or server level are about client connections and are never
	// inherited by an upstream block (docs/semantics.md §D).
	u.PoolIdle = b.duration(s, "keepalive_timeout", defaultUpstreamIdle)
	u.PoolLifetime = b.duration(s, "keepalive_time", defaultKeepaliveTime)
	b.upstreamDNS(u, s)
	if name != "" {
		b.named[strings.ToLower(name)] = u
	}
	b.proxy.Upstreams = append(b.proxy.Upstreams, u)
	return u
}

func (b *builder) server(s *scope) *model.Listener {
	l := &model.Listener{Proxy: b.proxy, Pos: s.at, Name: "server", Select: SelectLocation}
	for _, d := range s.all("listen") {
		if len(d.Args) == 0 {
			continue
		}
		a, err := parseAddress(d.Args[0].Value, 80)
		if err != nil {
			continue
		}
		if a.Host == "" && a.Unix == "" {
			a.Host = "*"
		}
		a.Pos = d.ArgPos(0)
		l.Addresses = append(l.Addresses, a)
	}
	if len(l.Addresses) == 0 && s.dir != nil {
		l.Addresses = []model.Address{{Host: "*", Port: 80, Pos: s.at}}
	}
	var names []string
	for _, d := range s.all("server_name") {
		names = append(names, d.ArgValues()...)
	}
	if len(names) > 0 {
		l.Name = "server " + strings.Join(names, " ")
	}
	l.Codec = model.Default("HTTP1", "listen", s.at)
	l.IdleTimeout = b.duration(s, "keepalive_timeout", defaultKeepaliveTimeout)
	l.MaxConnectionDuration = b.duration(s, "keepalive_time", defaultKeepaliveTime)
	b.listeners = append(b.listeners, l)
	locs := s.children("location")
	if b.release {
		// A server of many locations is most of its tree: from here on
		// locs alone holds them, and each is let go once its routes are
		// built. What the server's level says is worked out first, and
		// its settings stay indexed.
		b.facts.serverLevel(s)
		s.index()
		delete(s.byName, "location")
		s.dirs = nil
		if s.dir != nil {
			s.dir.Block = nil
		}
	}
	for i, loc := range locs {
		b.route(l, newScope("location", loc, loc.Pos, s, loc.Block), nil)
		if b.release {
			locs[i] = nil
		}
	}
	return l
}

// route adds the route of a location (and of the nested locations and
// proxying if blocks inside it).
func (b *builder) route(l *model.Listener, s *scope, parent *model.Route) {
	r := b.newRoute()
	*r = model.Route{Listener: l, Parent: parent, Kind: s.kind, Pos: s.at}
	if s.dir != nil {
		r.End = s.dir.End()
		r.Name = s.kind + " " + strings.Join(s.dir.ArgValues(), " ")
		if s.kind == "location" {
			r.Match = locationMatch(s.dir.ArgValues())
		}
	} else {
		r.Name = s.kind
	}
	b.resolvePass(r, s, parent)
	b.resolveSettings(r, s)
	r.Methods = guardMethods(s, methodsOf(s))
	if f := r.Forward; f != nil && f.Module == "grpc" && r.Methods.Allows("POST") {
		// A gRPC call is an HTTP/2 POST, whatever the location lets
		// through (the gRPC protocol's request format).
		r.Methods = model.Methods{Allowed: []string{"POST"}}.NarrowedBy(f.Name, f.Pos).Because("grpc_pass carries gRPC calls, and every gRPC call is a POST")
	}
	r.Annotations = b.annotations(s)
	b.noteRoute(r, s)
	l.Routes = append(l.Routes, r)

	for _, ifd := range s.children("if") {
		ifs := newScope("if", ifd, ifd.Pos, s, ifd.Block)
		if passDirective(ifs) != nil {
			b.route(l, ifs, r)
		}
	}
	for _, loc := range s.children("location") {
		b.route(l, newScope("location", loc, loc.Pos, s, loc.Block), r)
	}
}

// unresolvable reports whether a host computed from variables can never
// be connected to, and its name: a name that is neither an address nor an
// upstream nginx has (an upstream block, for a value without a port; the
// implicit upstream of a literal pass target of the same host and port),
// with no resolver in effect, in a configuration whose upstreams were read
// whole (a fragment's includer may set the resolver).
func (b *builder) unresolvable(s *scope, scheme, hostport string) (host string, ok bool) {
	if !b.complete || strings.HasPrefix(hostport, "unix:") {
		return "", false
	}
	addr, err := parseAddress(hostport, 0)
	if err != nil || addr.Unix != "" || isLiteralHost(addr.Host) {
		return "", false
	}
	// An upstream block matches a value without a port; the implicit
	// upstream of a literal pass target, one with its host and port
	// (lookup.go).
	if addr.Port == 0 && b.named[strings.ToLower(addr.Host)] != nil {
		return "", false
	}
	if b.run.literal[implicitKey(addr, scheme)] {
		return "", false
	}
	if d, _ := s.lookup("resolver"); d != nil {
		return "", false
	}
	if releases.ResolverConf.In(b.target) {
		// "resolver conf" by default: the DNS servers of
		// /etc/resolv.conf (docs/semantics.md, Angie).
		return "", false
	}
	return addr.Host, true
}

// literalUnresolvable reports whether the literal host of a pass URL
// that holds variables elsewhere (its URI) can never be connected to, and
// its name: unresolvable, for a module that looks it up (a port is
// needed but for proxy, as for a computed host), in a configuration read
// whole.
func (b *builder) literalUnresolvable(s *scope, module, scheme, hostport string) (string, bool) {
	addr, err := parseAddress(hostport, 0)
	if err != nil || addr.Host == "" || (module != "proxy" && addr.Port == 0) || b.proxy.Partial {
		return "", false
	}
	return b.unresolvable(s, scheme, hostport)
}

// newRoute returns a zero route from the current batch.
func (b *builder) newRoute() *model.Route { return next(&b.routes) }

// newNginxRoute returns a zero NginxRoute from the current batch.
func (b *builder) newNginxRoute() *model.NginxRoute { return next(&b.nginxRoutes) }

// next returns the next zero value of a batch, starting a new batch when
// it is full: twice as large as the one before, up to what fits in 32 KB,
// the largest of the allocator's size classes (a larger batch takes whole
// 8 KB pages and may waste as much as the classes would).
func next[T any](batch *[]T) *T {
	s := *batch
	if len(s) == cap(s) {
		most := max(32<<10/int(unsafe.Sizeof(*new(T))), 1)
		s = make([]T, 0, min(max(2*cap(s), 4), most))
	}
	s = s[:len(s)+1]
	*batch = s
	return &s[len(s)-1]
}

// passDirective returns the *_pass directive set at this level itself.
func passDirective(s *scope) *Directive {
	for _, name := range passDirectiveNames {
		if d := s.last(name); d != nil {
			return d
		}
	}
	return nil
}

// passDirectiveNames are the *_pass directives of passModules, in order,
// named once rather than at every route.
var passDirectiveNames = func() []string {
	out := make([]string, len(passModules))
	for i, m := range passModules {
		out[i] = m + "_pass"
	}
	return out
}()

func (b *builder) resolvePass(r *model.Route, s *scope, parent *model.Route) {
	d := passDirective(s)
	if d == nil {
		// if and limit_except blocks use their location's pass
		// (proxy_module.c merge: clcf->noname); nested locations do not.
		if s.kind == "if" && parent != nil && parent.Forward != nil {
			p := *parent.Forward
			p.Inherited = true
			r.Forward = &p
		}
		return
	}
	module := strings.TrimSuffix(d.Name, "_pass")
	p := &model.Forward{Module: module, Name: d.Name, Pos: d.Pos, CanPool: poolingModules[module]}
	r.Forward = p
	if len(d.Args) == 0 {
		return
	}
	p.URL = d.Args[0].Value
	rest := p.URL
	if scheme, after, ok := strings.Cut(rest, "://"); ok {
		p.Scheme = scheme
		rest = after
	}
	if strings.Contains(p.URL, "$") {
		// Resolved at run time; a variable set to a literal in scope
		// can still be followed (ngx_http_upstream.c matches the value
		// against every upstream, then makes a one-off peer).
		// Variables in the URI alone leave the upstream known.
		p.Variable = true
		if host := hostPart(rest); strings.Contains(host, "$") {
			scheme, resolved, ok := b.resolveHost(s, p.URL)
			if !ok {
				return
			}
			p.Scheme, rest = scheme, resolved
			if host, ok := b.unresolvable(s, p.Scheme, passHost(rest)); ok {
				// nginx looks a host name computed at run time up
				// through the resolver directive, and without one
				// answers 502 ("no resolver defined to resolve") and
				// opens no connection (ngx_http_upstream.c,
				// ngx_http_upstream_init_request): no upstream to
				// model. Where a part of the configuration was not
				// read, a resolver may be there.
				if !b.proxy.Partial && b.certain(s, module, p.URL, passHost(rest)) {
					u := model.Default(host, "resolver", d.Pos).WithNote(b.resolverConfNote())
					p.Unresolvable = &u
				}
				return
			}
		} else if host, ok := b.literalUnresolvable(s, module, p.Scheme, passHost(host)); ok {
			// A variable in the URI alone still makes the whole URL a
			// script: nginx makes no upstream for it and looks its
			// literal host up when a request comes, as a computed one
			// (rules/proof, TestLiteralHostWithVariablesIsLookedUpPerRequest).
			u := model.Default(host, "resolver", d.Pos).WithNote(b.resolverConfNote())
			p.Unresolvable = &u
			return
		}
	}
	hostport := passHost(rest)
	addr, err := parseAddress(hostport, 0)
	if err != nil {
		return
	}
	addr.Pos = d.ArgPos(0)
	p.Target = addr
	if addr.Unix == "" {
		u := b.named[strings.ToLower(addr.Host)]
		switch {
		case u != nil && addr.Port == 0:
			p.Upstream = u
			b.uses = append(b.uses, upstreamUse{u, r})
			return
		case u != nil:
			// nginx refuses a port on an upstream's name ("upstream
			// may not have port"): nothing to model.
			return
		case addr.Port == 0 && !isLiteralHost(addr.Host) && !b.complete && !domainName(addr.Host):
			// A name without a port may be an upstream block in a part
			// of the configuration that was not read (the file that
			// includes this fragment, an include outside the tree).
			return
		}
	}
	assumed := addr.Unix == "" && addr.Port == 0 && !isLiteralHost(addr.Host) && !b.complete
	key := implicitKey(addr, p.Scheme)
	if addr.Port == 0 && addr.Unix == "" {
		addr.Port = defaultPort(p.Scheme)
	}
	u := b.implicit[key]
	if u == nil {
		u = b.base[key]
	}
	if u == nil {
		u = &model.Upstream{Proxy: b.proxy, Kind: "upstream", Name: addr.String(), Implicit: true, HostAssumed: assumed, Pos: d.Pos, ClosedUnderRequest: closedUnderRequest}
		u.Servers = []model.Server{{Address: addr, Raw: hostport, Pos: d.ArgPos(0), Literal: addr.Unix != "" || isLiteralHost(addr.Host), Addresses: knownAddresses(addr)}}
		u.PoolSize = model.Default(0, "keepalive", d.Pos)
		u.PoolIdle = model.Default(defaultUpstreamIdle, "keepalive_timeout", d.Pos)
		u.PoolLifetime = model.Default(defaultKeepaliveTime, "keepalive_time", d.Pos)
		u.Resolver = resolverAt(s)
		if !u.Resolver.Valid() {
			u.Resolver = b.defaultResolver(d.Pos)
		}
		b.implicit[key] = u
		b.upstreams = append(b.upstreams, u)
	}
	p.Upstream = u
	b.uses = append(b.uses, upstreamUse{u, r})
}

// uriVariables always start with "/": "http://backend$request_uri" names
// the host "backend".
var uriVariables = []string{"$request_uri", "$uri", "$document_uri", "${request_uri}", "${uri}", "${document_uri}"}

// hostPart is the host[:port] (or unix:path[:uri]) of a pass URL without its
// scheme: what comes before the first "/" or URI variable.
func hostPart(rest string) string {
	if strings.HasPrefix(rest, "unix:") {
		return rest
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	for _, v := range uriVariables {
		if i := strings.Index(rest, v); i >= 0 {
			rest = rest[:i]
		}
	}
	return rest
}

// setValue finds the one literal value "set $name VALUE" gives where the
// rewrite directives run for a request at sc (rewriteLevels).
func setValue(sc *scope, name string) (string, bool) {
	value, found := "", 0
	for _, c := range rewriteLevels(sc) {
		for _, d := range c.all("set") {
			if len(d.Args) == 2 && d.Args[0].Value == "$"+name {
				value = d.Args[1].Value
				found++
			}
		}
		for _, ifd := range c.children("if") {
			for _, d := range flatten(ifd.Block) {
				if d.Name == "set" && len(d.Args) == 2 && d.Args[0].Value == "$"+name {
					found += 2 // set conditionally: not one value
				}
			}
		}
	}
	if found != 1 || strings.Contains(value, "$") {
		return "", false
	}
	return value, true
}

func defaultPort(scheme string) int {
	switch strings.ToLower(scheme) {
	case "https", "grpcs", "suwsgi":
		return 443
	}
	return 80
}

// resolveSettings fills the route's effective values for its pass module
// (proxy when the route does not proxy).
func (b *builder) resolveSettings(r *model.Route, s *scope) {
	m := "proxy"
	if r.Forward != nil {
		m = r.Forward.Module
	}
	k := b.moduleNames(m)
	n := b.newNginxRoute()
	r.Nginx = n
	r.ConnectTimeout = b.duration(s, k.connectTimeout, defaultUpstreamTimeout)
	n.SendTimeout = b.duration(s, k.sendTimeout, defaultUpstreamTimeout)
	r.AttemptTimeout = b.duration(s, k.readTimeout, defaultUpstreamTimeout)

	r.Retry.On = b.flags(s, k.nextUpstream, []string{"error", "timeout"})
	n.Tries = b.integer(s, k.nextUpstreamTries, 0)
	r.Budget = b.duration(s, k.nextUpstreamTimeout, 0)

	switch m {
	case "grpc", "memcached":
		// No such directive: nginx hard-codes ignore_client_abort to 0
		// for these modules (docs/semantics.md §E).
	default:
		r.IgnoreClientAbort = b.boolean(s, k.ignoreClientAbort, false)
	}
	if m == "proxy" {
		n.HTTPVersion = b.httpVersion(s)
		n.ConnectionHeader = b.connectionHeader(s)
		n.ConnectionHeaderPlain = b.withoutUpgrade(n.ConnectionHeader.Value)
		r.Stream = b.eventStream(s)
		if ws := webSocket(b.upgradeHeader(s), n.ConnectionHeader, n.ConnectionHeaderPlain); ws.Valid() && r.Forward != nil {
			r.Stream = ws
		}
		if d, lvl := s.lookup("proxy_method"); d != nil && len(d.Args) > 0 {
			n.UpstreamMethod = model.Set(strings.ToUpper(d.Args[0].Value), d.Name, lvl.kind, d.Pos)
		}
	}
	if m == "fastcgi" {
		n.KeepConn = b.boolean(s, "fastcgi_keep_conn", false)
	}
	if d, lvl := s.lookup("try_files"); d != nil && len(d.Args) > 0 {
		if last := d.Args[len(d.Args)-1].Value; strings.HasPrefix(last, "@") {
			n.NamedFallback = model.Set(last, d.Name, lvl.kind, d.Pos)
		}
	}
	r.AccessLogs = b.accessLogs(s)
}

// moduleNames are the names of a pass module's directives that every
// route's settings carry, made once per module rather than per route.
type moduleNames struct {
	connectTimeout, sendTimeout, readTimeout             string
	nextUpstream, nextUpstreamTries, nextUpstreamTimeout string
	ignoreClientAbort                                    string
}

func (b *builder) moduleNames(m string) *moduleNames {
	if k := b.names[m]; k != nil {
		return k
	}
	k := &moduleNames{
		connectTimeout: m + "_connect_timeout", sendTimeout: m + "_send_timeout", readTimeout: m + "_read_timeout",
		nextUpstream: m + "_next_upstream", nextUpstreamTries: m + "_next_upstream_tries", nextUpstreamTimeout: m + "_next_upstream_timeout",
		ignoreClientAbort: m + "_ignore_client_abort",
	}
	if b.names == nil {
		b.names = map[string]*moduleNames{}
	}
	b.names[m] = k
	return k
}

// poolsByDefault reports whether every release of the target keeps a pool
// for an upstream block without keepalive (nginx 1.29.7; not Angie).
func (b *builder) poolsByDefault() bool {
	return releases.UpstreamKeepalive.In(b.target)
}

// resolverConfNote says, for Angie, on which releases of the target a host
// name looked up at run time has no resolver: those before Angie's
// default "resolver conf"; "" for nginx, which never has one by default.
func (b *builder) resolverConfNote() string {
	if b.target.Product != model.Angie {
		return ""
	}
	since := releases.ResolverConf.Since(model.Angie)
	return "on " + b.target.Releases(since) +
		" (since " + releases.Full(since) + " Angie looks names up with the DNS servers of /etc/resolv.conf by default)"
}

// oldDefaultsNote says on which releases of the target the proxy defaults
// before nginx 1.29.7 (Angie 1.12.0) hold: "on nginx before 1.29.7".
func (b *builder) oldDefaultsNote() string {
	if b.oldNote == "" {
		b.oldNote = "on " + b.target.Releases(releases.ProxyHTTPVersion.Since(b.target.Product))
	}
	return b.oldNote
}

func (b *builder) httpVersion(s *scope) model.Setting[string] {
	if d, lvl := s.lookup("proxy_http_version"); d != nil && len(d.Args) > 0 {
		return model.Set(d.Args[0].Value, d.Name, lvl.kind, d.Pos)
	}
	if releases.ProxyHTTPVersion.In(b.target) {
		return model.Default("1.1", "proxy_http_version", s.at)
	}
	d := model.Default("1.0", "proxy_http_version", s.at)
	d = d.WithNote(b.oldDefaultsNote())
	return d
}

// connectionHeader finds the Connection header sent upstream: from the
// innermost level with any proxy_set_header (the array is inherited whole
// or not at all), else the built-in default.
func (b *builder) connectionHeader(s *scope) model.Setting[string] {
	if h := proxyHeader(s, "Connection"); h.Valid() {
		return h
	}
	if releases.ProxyConnectionHeader.In(b.target) {
		return model.Default("", "proxy_set_header", s.at)
	}
	d := model.Default("close", "proxy_set_header", s.at)
	d = d.WithNote(b.oldDefaultsNote())
	return d
}

// upgradeHeader finds the Upgrade header sent upstream, from the innermost
// level with any proxy_set_header; nginx sends none by default (hop-by-hop
// headers are not passed on).
func (b *builder) upgradeHeader(s *scope) model.Setting[string] {
	return proxyHeader(s, "Upgrade")
}

// eventStream: a location set up for server-sent events. proxy_buffering
// off alone is common (large downloads, git over HTTP, long polling), so
// it takes a header that names the event stream too: "text/event-stream"
// in an add_header, proxy_set_header or more_set_headers value
// (Content-Type, Accept), or X-Accel-Buffering set. The setting points at
// that header.
func (b *builder) eventStream(s *scope) model.Setting[bool] {
	buf := b.boolean(s, "proxy_buffering", true)
	if !buf.Explicit() || buf.Value {
		return model.Setting[bool]{}
	}
	for _, name := range []string{"add_header", "proxy_set_header", "more_set_headers"} {
		ds, lvl := s.lookupArray(name)
		for _, d := range ds {
			for _, a := range d.Args {
				v := strings.ToLower(a.Value)
				if strings.Contains(v, "text/event-stream") || strings.HasPrefix(v, "x-accel-buffering") {
					return model.Set(true, "proxy_buffering off and "+d.String(), lvl.kind, d.Pos)
				}
			}
		}
	}
	return model.Setting[bool]{}
}

// proxyHeader finds the value proxy_set_header gives header name, from the
// innermost level with any proxy_set_header (the array is inherited whole
// or not at all); invalid when that level does not set it.
func proxyHeader(s *scope, name string) model.Setting[string] {
	ds, lvl := s.lookupArray("proxy_set_header")
	for i := len(ds) - 1; i >= 0; i-- {
		d := ds[i]
		if len(d.Args) >= 2 && strings.EqualFold(d.Args[0].Value, name) {
			return model.Set(d.Args[1].Value, d.Name, lvl.kind, d.Pos)
		}
	}
	return model.Setting[string]{}
}

// withoutUpgrade finds the value a "map $http_upgrade $v { ... }" gives
// variable value ("$v") for a request without an Upgrade header: the entry
// for the empty string, else its default (the websocket idiom of nginx's
// documentation).
func (b *builder) withoutUpgrade(value string) model.Setting[string] {
	name, ok := strings.CutPrefix(value, "$")
	if !ok || strings.ContainsAny(name, "${}") {
		return model.Setting[string]{}
	}
	m := b.maps["$"+name]
	if m == nil || m.Args[0].Value != "$http_upgrade" {
		return model.Setting[string]{}
	}
	var def *Directive
	for _, e := range flatten(m.Block) {
		if len(e.Args) != 1 {
			continue
		}
		switch {
		case e.Name == "" && e.Pos.IsValid():
			return model.Set(e.Args[0].Value, "map $http_upgrade "+value, "http", e.Pos)
		case e.Name == "default":
			def = e
		}
	}
	if def != nil {
		return model.Set(def.Args[0].Value, "map $http_upgrade "+value, "http", def.Pos)
	}
	return model.Default("", "map $http_upgrade "+value, m.Pos)
}

func (b *builder) duration(s *scope, name string, def time.Duration) model.Setting[time.Duration] {
	if d, lvl := s.lookup(name); d != nil && len(d.Args) > 0 {
		if v, err := parseTime(d.Args[0].Value); err == nil {
			return model.Set(v, name, lvl.kind, d.Pos)
		}
	}
	return model.Default(def, name, s.at)
}

func (b *builder) integer(s *scope, name string, def int) model.Setting[int] {
	if d, lvl := s.lookup(name); d != nil && len(d.Args) > 0 {
		if v, err := strconv.Atoi(d.Args[0].Value); err == nil {
			return model.Set(v, name, lvl.kind, d.Pos)
		}
	}
	return model.Default(def, name, s.at)
}

func (b *builder) boolean(s *scope, name string, def bool) model.Setting[bool] {
	if d, lvl := s.lookup(name); d != nil && len(d.Args) > 0 {
		if v, ok := onOff(d.Args[0].Value); ok {
			return model.Set(v, name, lvl.kind, d.Pos)
		}
	}
	return model.Default(def, name, s.at)
}

// flags reads a bitmask directive such as proxy_next_upstream. "off" wins
// over everything else on the line (proxy_module.c), leaving no flags.
func (b *builder) flags(s *scope, name string, def []string) model.Setting[[]string] {
	if d, lvl := s.lookup(name); d != nil && len(d.Args) > 0 {
		vals := d.ArgValues()
		for _, v := range vals {
			if v == "off" {
				return model.Set([]string{}, name, lvl.kind, d.Pos)
			}
		}
		return model.Set(vals, name, lvl.kind, d.Pos)
	}
	return model.Default(def, name, s.at)
}

func (b *builder) accessLogs(s *scope) model.Setting[[]model.AccessLog] {
	ds, lvl := s.lookupArray("access_log")
	if len(ds) == 0 {
		// The default is nginx's, for the whole http block: point there.
		at := s.at
		for c := s; c != nil; c = c.parent {
			if c.kind == "http" {
				at = c.at
			}
		}
		if l, ok := b.defaultLogs[at]; ok {
			return l
		}
		l := model.Default([]model.AccessLog{{Path: "logs/access.log", Format: b.formats["combined"], Pos: at}}, "access_log", at)
		b.defaultLogs[at] = l
		return l
	}
	// The routes of a level share its logs: the level's first access_log
	// names them (a position, so that the map holds no directive tree).
	if l, ok := b.logs[ds[0].Pos]; ok {
		return l
	}
	l := b.readLogs(ds, lvl)
	b.logs[ds[0].Pos] = l
	return l
}

// readLogs reads the access_log directives ds of level lvl.
func (b *builder) readLogs(ds []*Directive, lvl *scope) model.Setting[[]model.AccessLog] {
	var logs []model.AccessLog
	for _, d := range ds {
		if len(d.Args) == 0 {
			continue
		}
		al := model.AccessLog{Path: d.Args[0].Value, Pos: d.Pos}
		if al.Path == "off" {
			al.Off = true
			logs = append(logs, al)
			continue
		}
		name := "combined"
		if len(d.Args) > 1 && !strings.Contains(d.Args[1].Value, "=") {
			name = d.Args[1].Value
		}
		if f, ok := b.formats[name]; ok {
			al.Format = f
		} else {
			al.Format = model.LogFormat{Name: name}
		}
		logs = append(logs, al)
	}
	return model.Set(logs, "access_log", lvl.kind, ds[0].Pos)
}

// locationMatch reads a location's modifier and path.
func locationMatch(args []string) model.Match {
	if len(args) == 0 {
		return model.Match{}
	}
	mod, path := "", args[0]
	if len(args) >= 2 {
		mod, path = args[0], args[1]
	} else {
		for _, m := range []string{"^~", "~*", "=", "~"} {
			if strings.HasPrefix(path, m) && len(path) > len(m) {
				mod, path = m, path[len(m):]
				break
			}
		}
	}
	switch {
	case strings.HasPrefix(path, "@") && mod == "":
		return model.Match{Kind: model.MatchNamed, Path: path}
	case mod == "=":
		return model.Match{Kind: model.MatchExact, Path: path, CaseSensitive: true}
	case mod == "~":
		return model.Match{Kind: model.MatchRegex, Path: path, CaseSensitive: true}
	case mod == "~*":
		return model.Match{Kind: model.MatchRegex, Path: path}
	}
	return model.Match{Kind: model.MatchPrefix, Path: path, CaseSensitive: true, NoRegex: mod == "^~"}
}

// methodsOf reads limit_except: "limit_except GET { deny all; }" lets only
// GET (and HEAD, which GET implies) through. A block that grants some
// clients access (allow, auth_basic, ...) does not narrow the methods.
func methodsOf(s *scope) model.Methods {
	for c := s; c != nil && (c.kind == "location" || c.kind == "if" || c.kind == "limit_except"); c = c.parent {
		for _, le := range c.children("limit_except") {
			if !deniesAll(le.Block) {
				continue
			}
			allowed := map[string]bool{}
			for _, m := range le.ArgValues() {
				m = strings.ToUpper(m)
				allowed[m] = true
				if m == "GET" {
					allowed["HEAD"] = true
				}
			}
			list := make([]string, 0, len(allowed))
			for m := range allowed {
				list = append(list, m)
			}
			sort.Strings(list)
			return model.Methods{Allowed: list}.NarrowedBy("limit_except", le.Pos)
		}
		if c.kind == "location" {
			break
		}
	}
	return model.Methods{Any: true}
}

func deniesAll(block []*Directive) bool {
	denies := false
	for _, d := range flatten(block) {
		switch d.Name {
		case "deny":
			if len(d.Args) == 1 && d.Args[0].Value == "all" {
				denies = true
			}
		case "allow", "auth_basic", "auth_request", "auth_jwt", "satisfy":
			return false
		}
	}
	return denies
}

// annotations reads "# proxylint:NAME" comments inside a route's own block
// (not in nested locations) or on the line just above it.
func (b *builder) annotations(s *scope) []model.Annotation {
	if s.dir == nil {
		return nil
	}
	start, end := s.dir.Pos, s.dir.End()
	var nested [][2]int32
	for _, loc := range s.children("location") {
		if loc.Pos.File == start.File {
			nested = append(nested, [2]int32{loc.Pos.Line, loc.End().Line})
		}
	}
	var out []model.Annotation
	for _, c := range b.comments[start.File] {
		if c.Pos.Line < start.Line-1 || (end.IsValid() && c.Pos.Line > end.Line) {
			continue
		}
		if c.Pos.Line == start.Line-1 && !b.ownLine(c.Pos) {
			continue
		}
		inNested := false
		for _, n := range nested {
			if c.Pos.Line >= n[0] && c.Pos.Line <= n[1] {
				inNested = true
			}
		}
		if inNested {
			continue
		}
		name, ok := annotationName(c.Text)
		if ok {
			out = append(out, model.Annotation{Name: name, Pos: c.Pos})
		}
	}
	return out
}

// ownLine reports whether only blanks precede position p on its line.
func (b *builder) ownLine(p model.Pos) bool {
	src := b.sources[p.File]
	line := int32(1)
	for i := 0; i < len(src); i++ {
		if line == p.Line {
			for j := i; j < len(src) && src[j] != '#' && src[j] != '\n'; j++ {
				if src[j] != ' ' && src[j] != '\t' {
					return false
				}
			}
			return true
		}
		if src[i] == '\n' {
			line++
		}
	}
	return false
}

// annotationName reads "proxylint:NAME" (suppressions excluded).
func annotationName(text string) (string, bool) {
	t := strings.TrimSpace(text)
	rest, ok := strings.CutPrefix(t, "proxylint:")
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(rest, " ")
	if name == "" || strings.HasPrefix(name, "ignore") {
		return "", false
	}
	return name, true
}

// String renders a directive for messages: its name and arguments.
func (d *Directive) String() string {
	if len(d.Args) == 0 {
		return d.Name
	}
	return fmt.Sprintf("%s %s", d.Name, strings.Join(d.ArgValues(), " "))
}
