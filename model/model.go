package model

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unique"
)

// Setting is one effective value of a proxy setting: the value, the place
// that set it, and whether it is the proxy's built-in default. A default
// points at the enclosing block and reports Default() = true.
//
// The zero Setting means "not applicable here" (for example Envoy's route
// timeout on an nginx route); Valid tells the two apart.
//
// A route holds some twenty settings and a large configuration millions:
// what settings share (the name, level, default flag, note and file) is
// held once, as an interned settingAbout, and a setting keeps only its
// value, its line and column, and a handle to that part (24 bytes for a
// duration instead of 88). Settings compare equal, with ==, when their
// values, places and descriptions are.
type Setting[T any] struct {
	Value     T
	line, col int32
	about     unique.Handle[settingAbout]
}

// settingAbout is what settings of one directive or field in one file have
// in common.
type settingAbout struct {
	// name is the directive or field as written, e.g.
	// "proxy_read_timeout" or "retry_policy.num_retries".
	name string
	// level says where the value was set: "http", "server", "location",
	// "if", "limit_except", "upstream" for nginx; "listener", "hcm",
	// "virtual_host", "route", "cluster" for Envoy; "default" for
	// defaults.
	level     string
	isDefault bool
	// note explains a default that depends on the target release, e.g.
	// "nginx pools upstream blocks by default only since 1.29.7."
	note string
	// file is the file of the setting's position.
	file string
}

func (s Setting[T]) desc() settingAbout {
	if s.about == (unique.Handle[settingAbout]{}) {
		return settingAbout{}
	}
	return s.about.Value()
}

func (s Setting[T]) with(a settingAbout) Setting[T] {
	s.about = intern(a)
	return s
}

// intern returns the handle of a; the zero handle for the zero
// description, so that a setting without one equals the zero Setting of
// the same value.
func intern(a settingAbout) unique.Handle[settingAbout] {
	if a == (settingAbout{}) {
		return unique.Handle[settingAbout]{}
	}
	return unique.Make(a)
}

// NewSetting builds a setting from all its parts: the value, the directive
// or field as written, the level it was set at, the place that set it,
// whether it is the proxy's default, and the note explaining a default.
func NewSetting[T any](v T, name, level string, pos Pos, isDefault bool, note string) Setting[T] {
	return Setting[T]{
		Value: v, line: pos.Line, col: pos.Col,
		about: intern(settingAbout{name: name, level: level, isDefault: isDefault, note: note, file: pos.File}),
	}
}

// Revalued is s holding v instead of its value: the same name, level,
// position, default flag and note, for a value read from s's as another
// type (the words of a string, the count a flag implies).
func Revalued[T, U any](s Setting[T], v U) Setting[U] {
	return Setting[U]{Value: v, line: s.line, col: s.col, about: s.about}
}

// Name is the directive or field as written, e.g. "proxy_read_timeout" or
// "retry_policy.num_retries"; empty for the zero Setting.
func (s Setting[T]) Name() string { return s.desc().name }

// Level says where the value was set: "http", "server", "location", "if",
// "limit_except", "upstream" for nginx; "listener", "hcm", "virtual_host",
// "route", "cluster" for Envoy; "default" for defaults.
func (s Setting[T]) Level() string { return s.desc().level }

// Default reports whether the value is the proxy's built-in default.
func (s Setting[T]) Default() bool { return s.desc().isDefault }

// Note explains a default that depends on the target release, e.g. "nginx
// pools upstream blocks by default only since 1.29.7."
func (s Setting[T]) Note() string { return s.desc().note }

// Pos is the directive or field that set the value; for a default, the
// block that inherits it.
func (s Setting[T]) Pos() Pos { return Pos{File: s.desc().file, Line: s.line, Col: s.col} }

// WithName returns the setting named name.
func (s Setting[T]) WithName(name string) Setting[T] {
	a := s.desc()
	a.name = name
	return s.with(a)
}

// WithLevel returns the setting set at level.
func (s Setting[T]) WithLevel(level string) Setting[T] {
	a := s.desc()
	a.level = level
	return s.with(a)
}

// WithDefault returns the setting marked as the proxy's default or not.
func (s Setting[T]) WithDefault(isDefault bool) Setting[T] {
	a := s.desc()
	a.isDefault = isDefault
	return s.with(a)
}

// WithNote returns the setting with the note.
func (s Setting[T]) WithNote(note string) Setting[T] {
	a := s.desc()
	a.note = note
	return s.with(a)
}

// WithPos returns the setting set at pos.
func (s Setting[T]) WithPos(pos Pos) Setting[T] {
	a := s.desc()
	if a.file != pos.File {
		a.file = pos.File
		s = s.with(a)
	}
	s.line, s.col = pos.Line, pos.Col
	return s
}

// Valid reports whether the setting applies (it has a value, default or not).
func (s Setting[T]) Valid() bool { return s.Name() != "" }

// Explicit reports whether the configuration sets the value itself.
func (s Setting[T]) Explicit() bool { return s.Valid() && !s.Default() }

// Set builds an explicit setting.
func Set[T any](v T, name, level string, pos Pos) Setting[T] {
	return NewSetting(v, name, level, pos, false, "")
}

// Default builds a default setting that points at the block inheriting it.
func Default[T any](v T, name string, block Pos) Setting[T] {
	return NewSetting(v, name, "default", block, true, "")
}

// Model is everything one run loaded: the proxies, the files they were read
// from and the loaders' diagnostics. What is computed from it (the request
// paths through the hops around it, for one) is the rule engine's
// analyses', never written into it.
type Model struct {
	Proxies     []*Proxy
	Files       []*File
	Diagnostics []Diagnostic
	// Services and Workloads are the cluster objects read for linking
	// (model/cluster.go).
	Services  []*Service
	Workloads []*Workload
}

// File is a source file that a loader read. Source is kept so that reports
// can quote the line a finding points at; Comments let the engine read
// suppressions.
type File struct {
	Path string
	// Real is the file on disk that Source was read from: absolute, with
	// symbolic links resolved; empty for what was not read from a file
	// (standard input, the files of an nginx -T dump). Path is the name
	// the file was reached by, which may be a link.
	Real string
	// Source is the file's bytes as read. They are never written once
	// loaded: reports and the loaders' trees hold strings that share them
	// (unsafe.String).
	Source   []byte
	Comments []Comment
	// index holds the lines of Source once PosAt has needed them.
	index atomic.Pointer[indexed]
	// Editor edits the file in its own style (edit.go); nil when its
	// loader offers none.
	Editor Editor
	// Generated says what wrote the file when its loader can tell that it
	// is not where the configuration is written ("an Envoy admin config
	// dump"): a fix names the source instead of editing it, as the next
	// dump would undo the edit and the running proxy never reads it.
	Generated string
}

// Comment is a comment in a source file. Text excludes the comment marker.
type Comment struct {
	Pos  Pos
	Text string
}

// Product names the proxy a configuration is written for.
type Product string

// Products proxylint knows.
const (
	Nginx Product = "nginx"
	Angie Product = "angie"
	Envoy Product = "envoy"
	// Istio is Envoy configured through Istio's Kubernetes resources
	// (VirtualService, DestinationRule, and Gateway API routes as istiod
	// translates them), whose defaults are Istio's.
	Istio Product = "istio"
	// IngressNginx is nginx configured through ingress-nginx's Ingress
	// annotations and ConfigMap, whose defaults are the controller's.
	IngressNginx Product = "ingress-nginx"
	// EnvoyGateway is Envoy configured through Envoy Gateway: Gateway API
	// routes and its BackendTrafficPolicy.
	EnvoyGateway Product = "envoy-gateway"
	// NginxIngress is nginx configured through NGINX Inc's Ingress
	// controller (nginx/kubernetes-ingress): its nginx.org annotations,
	// ConfigMap and defaults, which are not ingress-nginx's.
	NginxIngress Product = "nginx-ingress"
	// Contour is Envoy configured through Contour's HTTPProxy
	// (projectcontour.io/v1), whose defaults are Contour's.
	Contour Product = "contour"
	// Traefik is Traefik Proxy configured through its Kubernetes
	// resources (IngressRoute, Middleware, ServersTransport): neither
	// nginx nor Envoy, with retries and timeouts of its own.
	Traefik Product = "traefik"
)

// Kubernetes reports whether the product is configured through
// Kubernetes resources: its proxies are joined from every manifest of a
// run, one deployment.
func (p Product) Kubernetes() bool {
	switch p {
	case Istio, IngressNginx, EnvoyGateway, NginxIngress, Contour, Traefik:
		return true
	}
	return false
}

// Version is a release number; the zero Version means "the newest release".
type Version struct{ Major, Minor, Patch int }

// IsZero reports whether v is the "newest" placeholder.
func (v Version) IsZero() bool { return v == Version{} }

// Less orders versions.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

func (v Version) String() string {
	if v.IsZero() {
		return "newest"
	}
	if v.Patch == 0 {
		return fmt.Sprintf("%d.%d", v.Major, v.Minor)
	}
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// ParseVersion reads "1.29", "1.29.7" or "1".
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(s, ".")
	if len(parts) > 3 || s == "" {
		return Version{}, fmt.Errorf("bad version %q (want MAJOR[.MINOR[.PATCH]])", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return Version{}, fmt.Errorf("bad version %q (want MAJOR[.MINOR[.PATCH]])", s)
		}
		n[i] = v
	}
	return Version{n[0], n[1], n[2]}, nil
}

// Target says which proxy and releases a configuration is for, because
// defaults differ between releases (nginx 1.29.7 pools named upstreams by
// default; Angie does not). It is one release (Version), every release
// from Min to the newest (Version zero, Min set: what proxylint assumes
// when none is named, so that a finding holds on whatever release runs the
// configuration), or the newest release (both zero).
//
// Before, when set on a range, ends it: the range is then every release
// from Min up to, not including, Before. A configuration that the newer
// releases of a range refuse (a directive nginx removed) is linted for the
// older ones, which run it.
type Target struct {
	Product Product
	Version Version
	Min     Version
	Before  Version
}

// Oldest releases still shipped, assumed when no release is named: nginx
// 1.18 is what Ubuntu 22.04 LTS ships (Debian 12 ships 1.22, RHEL 9 1.20);
// every Angie release is 1.x. Envoy is taken from its releases, not from
// distributions, and defaults to the newest.
var shippedSince = map[Product]Version{Nginx: {1, 18, 0}, Angie: {1, 0, 0}}

// NewestNginx is the newest nginx release proxylint's directive tables
// were made from (parsers/nginx/directives_gen.go, whose tests hold the two
// equal). A target names a release from shippedSince[Nginx] to it: what
// other releases default to, and which directives they have, is not
// modelled.
var NewestNginx = Version{1, 31, 4}

// Traefik releases whose Kubernetes resources proxylint models: 2.0, the
// first with IngressRoute and Middleware (traefik.containo.us), to the
// newest whose retry middleware was read (parsers/kube/traefik.go).
var (
	OldestTraefik = Version{2, 0, 0}
	NewestTraefik = Version{3, 7, 0}
)

// DefaultTarget is the target assumed for a product when none is named.
func DefaultTarget(p Product) Target {
	return Target{Product: p, Min: shippedSince[p]}
}

// IsRange reports whether the target stands for several releases.
func (t Target) IsRange() bool { return t.Version.IsZero() && !t.Min.IsZero() }

// AtLeast reports whether every release the target stands for is the given
// release or newer. The newest-release placeholder is newer than
// everything.
func (t Target) AtLeast(major, minor, patch int) bool {
	v := t.Version
	if v.IsZero() {
		v = t.Min
	}
	if v.IsZero() {
		return true
	}
	return !v.Less(Version{major, minor, patch})
}

func (t Target) String() string {
	switch {
	case !t.Version.IsZero():
		return string(t.Product) + ":" + t.Version.String()
	case !t.Min.IsZero() && !t.Before.IsZero():
		return string(t.Product) + " " + t.Min.String() + " or newer before " + t.Before.String()
	case !t.Min.IsZero():
		return string(t.Product) + " " + t.Min.String() + " or newer"
	}
	return string(t.Product) + " (newest)"
}

// Releases names the releases of the target older than since, for a
// message about a default that changed in since: "nginx:1.28", or "nginx
// before 1.29.7" for a range (the whole range when it ends before since).
func (t Target) Releases(since Version) string {
	if t.IsRange() && !t.Before.IsZero() && !since.Less(t.Before) {
		return t.String() // every release of the range is older
	}
	if t.IsRange() {
		return fmt.Sprintf("%s before %s", t.Product, since)
	}
	return t.String()
}

// ParseTarget reads "nginx" (every release still shipped), "nginx:1.28",
// "nginx:1.29.7", "nginx:newest", "angie", "angie:1.12", "envoy" (the
// newest), "envoy:1.31", "istio:1.23", "ingress-nginx:1.11",
// "envoy-gateway:1.1.2", "nginx-ingress:5.3", "contour:1.33" or
// "traefik:3.6".
func ParseTarget(s string) (Target, error) {
	name, ver, _ := strings.Cut(s, ":")
	var t Target
	switch Product(name) {
	case Nginx, Angie, Envoy, Istio, IngressNginx, EnvoyGateway, NginxIngress, Contour, Traefik:
		t = DefaultTarget(Product(name))
	default:
		return t, fmt.Errorf("unknown target %q (want nginx[:X.Y[.Z]|:newest], angie[:X.Y], envoy[:X.Y], istio[:X.Y], ingress-nginx[:X.Y], envoy-gateway[:X.Y.Z], nginx-ingress[:X.Y.Z], contour[:X.Y.Z] or traefik[:X.Y.Z])", s)
	}
	switch ver {
	case "":
	case "newest":
		t.Min = Version{}
	default:
		v, err := ParseVersion(ver)
		if err != nil {
			return t, fmt.Errorf("target %q: %w", s, err)
		}
		t.Version, t.Min = v, Version{}
		if t.Product == Nginx && (v.Less(shippedSince[Nginx]) || NewestNginx.Less(v)) {
			return t, fmt.Errorf("target %q: proxylint models nginx %s to %s; name a release in that range, or nginx:newest", s, shippedSince[Nginx], NewestNginx)
		}
		if t.Product == Traefik && (v.Less(OldestTraefik) || !v.Less(Version{NewestTraefik.Major, NewestTraefik.Minor + 1, 0})) {
			return t, fmt.Errorf("target %q: proxylint models Traefik %s to %d.%d.x; name a release in that range, or traefik:newest", s, OldestTraefik, NewestTraefik.Major, NewestTraefik.Minor)
		}
	}
	return t, nil
}

// Proxy is one loaded configuration: one hop of the request's path.
type Proxy struct {
	Product Product
	Target  Target
	Entry   string // the file the configuration was loaded from
	// Sources are the files the configuration was joined from, Entry
	// among them, when it is more than one file read on its own rather
	// than included: the Kubernetes manifests of a run, or Envoy
	// listeners, route configurations and clusters that name each other
	// across files (one deployment); nil when it is Entry and what Entry
	// includes.
	Sources []string
	// Named is set when the entry file was named on the command line
	// rather than found in a directory.
	Named bool
	// UpstreamsPoolByDefault is set when every release of the target keeps
	// a pool of idle connections for an upstream block without a
	// keepalive directive (nginx 1.29.7).
	UpstreamsPoolByDefault bool
	// Partial is set when settings may come from configuration that was
	// not read: a fragment whose includer was not found, or an include
	// that was not followed. What a route inherits is then not all known,
	// so a fix that would replace inherited settings is not offered.
	Partial bool
	Pos     Pos // the start of the entry file
	// Context is the block the entry file's top level belongs in: "main"
	// for a whole configuration; for a fragment linted alone, the block its
	// contents imply ("http", "server", "location", "upstream"), whose
	// surroundings, and so the values they may set, are unknown.
	Context string
	// Snippets are the files linted through this configuration, itself a
	// fragment that no configuration found includes, with the context
	// their contents imply: a location-level one may be included by
	// other locations too, whose settings (the access log) are not
	// known; what the includers' http block sets is not known for any.
	Snippets  []Snippet
	Listeners []*Listener
	Upstreams []*Upstream
	// Dropped lists settings the platform silently drops in favour of
	// another resource (Value says why: an Envoy Gateway policy that
	// rebuilds a route without its timeout).
	Dropped []Drop
	// NoEffect and Overrides are what the directives written in blocks
	// do beside the routes' values (model/written.go).
	NoEffect  []NoEffect
	Overrides []Override
}

// Snippet is a file linted through the configuration that includes it
// (Proxy.Snippets): its path as that configuration read it, and the
// context its contents imply when read alone ("http", "server",
// "location").
type Snippet struct {
	File    string
	Context string
}

// Drop is a setting the platform silently drops: the Setting points where
// the loss is reported and Value says why; By points at the other place
// involved (the resource that causes the loss, or the setting lost), with
// ByText saying what it is there. Replaced is set when a more specific
// resource replaces the whole of the one that holds the lost setting.
type Drop struct {
	Setting[string]
	By       Pos
	ByText   string
	Replaced bool
}

// Routes lists every route of every listener, in configuration order.
func (p *Proxy) Routes() []*Route {
	n := 0
	for _, l := range p.Listeners {
		n += len(l.Routes)
	}
	out := make([]*Route, 0, n)
	for _, l := range p.Listeners {
		out = append(out, l.Routes...)
	}
	return out
}

// Address is a network address a listener accepts on or an upstream server
// is reached at.
type Address struct {
	Host string // IP literal, host name, "*" or "" (any); empty for unix sockets
	Port int    // 0 when absent
	Unix string // the socket path for unix: addresses
	Pos  Pos
}

// Wildcard reports whether the address accepts on every local address.
func (a Address) Wildcard() bool {
	return a.Unix == "" && (a.Host == "" || a.Host == "*" || a.Host == "0.0.0.0" || a.Host == "::" || a.Host == "[::]")
}

func (a Address) String() string {
	if a.Unix != "" {
		return "unix:" + a.Unix
	}
	h := a.Host
	if h == "" {
		h = "*"
	}
	if a.Port == 0 {
		return h
	}
	return h + ":" + strconv.Itoa(a.Port)
}

// Listener is the downstream side of a proxy: an nginx server block, or an
// Envoy listener with its HttpConnectionManager.
type Listener struct {
	Proxy     *Proxy
	Name      string // "server example.com", or the Envoy listener name
	Pos       Pos
	Addresses []Address

	// Codec is the protocol served to clients: "AUTO", "HTTP1", "HTTP2",
	// "HTTP3" for Envoy; nginx servers speak HTTP/1 ("HTTP1") unless told
	// otherwise.
	Codec Setting[string]
	// IdleTimeout closes idle client connections: nginx keepalive_timeout,
	// Envoy common_http_protocol_options.idle_timeout.
	IdleTimeout Setting[time.Duration]
	// MaxConnectionDuration closes client connections after a lifetime:
	// nginx keepalive_time, Envoy max_connection_duration.
	MaxConnectionDuration Setting[time.Duration]
	// Envoy's drain behaviour for HTTP/1 connections.
	H1SafeMaxConnectionDuration Setting[bool]
	DrainTimeout                Setting[time.Duration]
	DelayedCloseTimeout         Setting[time.Duration]
	RequestTimeout              Setting[time.Duration]
	// MeshHosts are the cluster hosts whose requests this listener's
	// routes take whichever client in the mesh sends them (a service
	// mesh's routing for a host), in full ("name.namespace.svc.cluster.local").
	MeshHosts []string
	// Via is the entry point whose proxy runs the listener's routes, when
	// a resource other than the listener's own says so: the Istio Gateway
	// a VirtualService is bound to (Value "Gateway NAMESPACE/NAME", Pos its
	// metadata). Invalid when the listener is its own entry.
	Via Setting[string]
	// Hosts are the request hosts the listener's routes take, where its
	// resource names them (a VirtualService's hosts, "*.example.com"
	// included): a gateway it runs Via passes it only requests for them.
	Hosts []string

	Routes []*Route
	// Select is the proxy's choice of the route that takes a request for
	// path (known is false when the path is not known): nginx's location
	// search, Envoy's first match. It returns nil when the choice is
	// uncertain.
	Select func(l *Listener, path string, known bool) *Route
}

// MatchKind says how a route matches request paths.
type MatchKind string

// Match kinds.
const (
	MatchPrefix MatchKind = "prefix"
	MatchExact  MatchKind = "exact"
	MatchRegex  MatchKind = "regex"
	MatchNamed  MatchKind = "named" // nginx @name locations
	MatchNone   MatchKind = ""      // if/limit_except blocks, catch-all
)

// Match is a route's request-path condition.
type Match struct {
	Kind          MatchKind
	Path          string
	CaseSensitive bool
	// NoRegex is nginx's "^~": when this prefix is the best match, regular
	// expression locations are not tried.
	NoRegex bool
}

// Methods is the set of HTTP methods that can reach the upstream through a
// route. Any means not narrowed; otherwise Allowed lists them (upper case)
// and Pos points at what narrowed them (limit_except, a :method matcher).
//
// What narrowed them is held apart (most routes pass every method and
// name no source), so that a Methods is 64 bytes instead of 152: read it
// through Pos, Source, Why, AlsoSource and AlsoPos, and set it through
// NarrowedBy, Because and AlsoBy, which leave the Methods they are called
// on as it was.
type Methods struct {
	Any     bool
	Allowed []string
	// Except lists the methods that do not pass when Any is set.
	Except []string
	origin *methodsOrigin
}

// methodsOrigin is what narrowed a Methods.
type methodsOrigin struct {
	pos        Pos
	source     string
	why        string
	alsoSource string
	alsoPos    Pos
}

func (m Methods) originOrZero() methodsOrigin {
	if m.origin == nil {
		return methodsOrigin{}
	}
	return *m.origin
}

// Pos points at what narrowed the methods (limit_except, a :method
// matcher).
func (m Methods) Pos() Pos { return m.originOrZero().pos }

// Source names what narrowed the methods.
func (m Methods) Source() string { return m.originOrZero().source }

// Why says in words why only these methods pass, where no setting names
// them (a GRPCRoute carries gRPC calls, which are POSTs).
func (m Methods) Why() string { return m.originOrZero().why }

// AlsoSource and AlsoPos name a second setting that lets the same methods
// pass (ingress-nginx's ConfigMap retry-non-idempotent "true" beside an
// annotation that names non_idempotent itself): with one removed, the
// other still does.
func (m Methods) AlsoSource() string { return m.originOrZero().alsoSource }

// AlsoPos is where AlsoSource is set.
func (m Methods) AlsoPos() Pos { return m.originOrZero().alsoPos }

// NarrowedBy returns the methods, narrowed by source at pos.
func (m Methods) NarrowedBy(source string, pos Pos) Methods {
	o := m.originOrZero()
	o.source, o.pos = source, pos
	m.origin = &o
	return m
}

// Because returns the methods with why saying why only they pass.
func (m Methods) Because(why string) Methods {
	o := m.originOrZero()
	o.why = why
	m.origin = &o
	return m
}

// AlsoBy returns the methods with a second setting, source at pos, that
// lets them pass.
func (m Methods) AlsoBy(source string, pos Pos) Methods {
	o := m.originOrZero()
	o.alsoSource, o.alsoPos = source, pos
	m.origin = &o
	return m
}

// Allows reports whether method m can pass.
func (m Methods) Allows(method string) bool {
	if m.Any {
		for _, e := range m.Except {
			if e == method {
				return false
			}
		}
		return true
	}
	for _, a := range m.Allowed {
		if a == method {
			return true
		}
	}
	return false
}

// Annotation is a "# proxylint:NAME" comment inside a route's block, for
// example "# proxylint:write".
type Annotation struct {
	Name string
	Pos  Pos
}

// Forward is how a route reaches its upstream: nginx proxy_pass, grpc_pass,
// fastcgi_pass, uwsgi_pass, scgi_pass or memcached_pass; Envoy's route
// action cluster.
type Forward struct {
	Module string // "proxy", "grpc", "fastcgi", "uwsgi", "scgi", "memcached" or "envoy"
	Name   string // the directive or field, e.g. "proxy_pass"
	Pos    Pos
	URL    string // the target as written
	// Target is the address or upstream name the URL names; Target.Host is
	// the upstream name for named upstreams.
	Target Address
	Scheme string
	// Variable is set when the target is computed at run time and could not
	// be resolved statically.
	Variable bool
	// Inherited is set when an if or limit_except block uses its
	// location's pass directive.
	Inherited bool
	// CanPool is set when the module can reuse pooled connections (nginx:
	// proxy, grpc, memcached and fastcgi; uwsgi and scgi never do).
	CanPool bool
	// Upstream is the named or implicit upstream the route forwards to;
	// nil when it is only known at run time.
	Upstream *Upstream
	// Unresolvable is set when a computed target names a host the proxy
	// looks up at run time with nothing to look it up with (nginx: no
	// resolver directive applies), in a configuration read whole: Value is
	// the host name, Pos the directive, and Note names the releases of the
	// target it holds for when only some (Angie has a default resolver
	// since 1.12.0). Such a forward reaches no server. Nil for every
	// other forward (most), which then hold no setting for it.
	Unresolvable *Setting[string]
}

// Retry is a route's retry policy as written: the conditions named, and
// those the proxy does not know. What the policy does is in the route's
// MaxAttempts and Reexecutes.
type Retry struct {
	// On lists the conditions that trigger a retry: nginx
	// *_next_upstream flags ("error", "timeout", "non_idempotent",
	// "http_502", ...), Envoy retry_on tokens.
	On Setting[[]string]
	// OnShape is how the configuration writes On's value, for a fix
	// that writes it; set by the loader that knows the field's type.
	OnShape WordsShape
	// Unknown lists conditions the proxy does not know and drops.
	Unknown []UnknownCondition
	// MethodFilter names the field that would limit retries to some
	// methods where the configuration can say so (Envoy's
	// retry_policy.retriable_request_headers); empty where it cannot
	// (nginx, Istio's retries, Gateway API's retry).
	MethodFilter string
}

// WordsShape is how a configuration writes a list of words in a field.
type WordsShape uint8

const (
	// WordsInString: one string of comma-separated words (nginx's
	// flags are words of their own; Envoy's retry_on, Istio's retryOn,
	// ingress annotations).
	WordsInString WordsShape = iota
	// WordsInList: a list of strings (Contour's retryPolicy.retryOn,
	// Envoy Gateway's retry.retryOn.triggers).
	WordsInList
	// WordsInTriggers: an object whose triggers field is the list
	// (Envoy Gateway's retry.retryOn, api/v1alpha1/retry_types.go).
	WordsInTriggers
)

// UnknownCondition is a retry condition the proxy drops.
type UnknownCondition struct {
	Setting[string]
	// Since is the release that added the condition when it is newer
	// than the target; zero when no release knows it.
	Since Version
	// Known lists the conditions the proxy knows, for suggestions.
	Known []string
	// Kept lists the conditions of the policy the proxy keeps.
	Kept []string
}

// Has reports whether condition c is among the retry conditions.
func (r Retry) Has(c string) bool {
	for _, v := range r.On.Value {
		if v == c {
			return true
		}
	}
	return false
}

// Reexecution is a retry condition that can send a request to the next
// server after the previous one may already have received and run it.
type Reexecution struct {
	// Condition is the condition as written ("timeout", "http_502",
	// "5xx", "reset").
	Condition string
	// Timeout is set when the condition fires on an attempt that timed
	// out, so that a hanging backend is passed on.
	Timeout bool
	// Response is set when the condition fires on a response the
	// backend sent (a status code), rather than on a failure.
	Response bool
	// Reset is set, for a condition that also fires on responses, when it
	// fires too on a connection reset after the request was sent (Envoy's
	// 5xx and gateway-error).
	Reset bool
	// Methods are the request methods the condition sends again once
	// they were sent (Any when the proxy does not look at the method).
	Methods Methods
	// Setting is the directive or field that names the condition.
	Setting Setting[[]string]
	// SameServer is set when the request goes again to the same server on
	// a new connection, not to a next one: nginx gives a try back when a
	// pooled connection fails under a request, even on a single server.
	SameServer bool
}

// AccessLog is one access log a route writes to.
type AccessLog struct {
	Path   string
	Off    bool
	Format LogFormat
	Pos    Pos
}

// LogFormat is a named access log format and its full text.
type LogFormat struct {
	Name    string
	Text    string
	Pos     Pos
	Builtin bool
}

// Route is the unit a request is routed by: an nginx location (or an if or
// limit_except block inside one that proxies on its own), an Envoy route.
// Every value is the effective one, with inheritance and defaults resolved,
// and what the proxy does with them is computed by the loader that knows
// the proxy: the rules and the path analysis read behaviour, never syntax.
type Route struct {
	Listener *Listener
	Parent   *Route // the enclosing location of a nested block
	Kind     string // "location", "if", "limit_except", "route"
	Name     string // "location /api/", "route /api"
	Pos      Pos
	End      Pos // the closing brace (nginx)
	Match    Match

	Methods     Methods
	Annotations []Annotation

	Forward *Forward // nil when the route does not proxy
	// Host is the Host header the route's requests carry to the next
	// hop, where the configuration says (an Ingress rule's host, which the
	// controller passes on); "" when not known.
	Host string

	// ConnectTimeout bounds establishing a connection to the next hop
	// (nginx *_connect_timeout; Envoy cluster connect_timeout).
	ConnectTimeout Setting[time.Duration]
	// AttemptTimeout is how long one attempt waits for the next hop's
	// response before the route gives up on it: nginx's *_read_timeout
	// (between two reads); Envoy's per_try_timeout when it is below the
	// route timeout, else the route timeout. 0 means no limit.
	AttemptTimeout Setting[time.Duration]
	// Budget bounds all attempts together: nginx *_next_upstream_timeout
	// (checked only when an attempt fails); Envoy's route timeout. 0
	// means no limit.
	Budget Setting[time.Duration]
	// BudgetCutsAttempts is set when the budget ends a running attempt
	// (Envoy's route timeout); nginx checks its budget only when an
	// attempt fails, so the last attempt may run past it.
	BudgetCutsAttempts bool
	// MaxAttempts is how many times one request may be sent to the next
	// hop, the first time included: nginx, the live peers of the
	// upstream capped by *_next_upstream_tries; Envoy num_retries + 1.
	// 1 when the route never retries.
	MaxAttempts Setting[int]
	// Reexecutes lists the retry conditions that can send the request
	// again after the next hop may have run it; empty when MaxAttempts is
	// 1. Routes with the same retry setting may share the slice: read it,
	// never write to it.
	Reexecutes []Reexecution
	// Retry is the retry policy as written.
	Retry Retry
	// Stream is set when the route carries long-lived streams (it passes
	// WebSocket upgrades on), where a read or idle timeout bounds silence
	// on the stream rather than a request; invalid when not known to.
	Stream Setting[bool]
	// Pool is the connection pool the route's requests reuse, nil when
	// every request opens a new connection.
	Pool *Pool

	// IgnoreClientAbort is *_ignore_client_abort of the pass module.
	IgnoreClientAbort Setting[bool]
	AccessLogs        Setting[[]AccessLog]

	// Knobs only one proxy has.
	Nginx *NginxRoute
	Envoy *EnvoyRoute
}

// Pool is a pool of idle connections a route's requests reuse.
type Pool struct {
	Upstream *Upstream
	// Size is how many idle connections are kept (nginx keepalive N).
	Size Setting[int]
	// Idle is how long an idle connection is kept (nginx keepalive_timeout
	// in the upstream block; Envoy cluster idle_timeout).
	Idle Setting[time.Duration]
	// Lifetime is how long a connection may live (nginx keepalive_time;
	// Envoy cluster max_connection_duration; 0 = no limit).
	Lifetime Setting[time.Duration]
}

// NginxRoute holds what only nginx locations have.
type NginxRoute struct {
	// SendTimeout is *_send_timeout; *_read_timeout is the route's
	// AttemptTimeout, *_next_upstream_timeout its Budget.
	SendTimeout Setting[time.Duration]
	// Tries is *_next_upstream_tries (0 = no limit).
	Tries Setting[int]
	// UpstreamMethod is the method sent upstream whatever the client used
	// (proxy_method).
	UpstreamMethod Setting[string]
	// HTTPVersion is proxy_http_version.
	HTTPVersion Setting[string]
	// ConnectionHeader is the Connection header sent upstream ("" when not
	// sent), from proxy_set_header or the default.
	ConnectionHeader Setting[string]
	// ConnectionHeaderPlain is the Connection header a request without an
	// Upgrade header gets when ConnectionHeader is a variable that a map
	// on $http_upgrade sets (the websocket idiom); Pos is the map entry.
	ConnectionHeaderPlain Setting[string]
	// NamedFallback is the named location a request continues in when
	// this location does not serve it itself (try_files ... @name): that
	// location's settings, not this one's, apply to what it proxies.
	NamedFallback Setting[string]
	// KeepConn is fastcgi_keep_conn.
	KeepConn Setting[bool]
}

// EnvoyRoute holds what only Envoy routes have.
type EnvoyRoute struct {
	// Timeout is the route timeout; IdleTimeout the route's idle timeout
	// (the connection manager's stream_idle_timeout when unset).
	Timeout     Setting[time.Duration]
	IdleTimeout Setting[time.Duration]
	// NumRetries and PerTryTimeout are retry_policy.num_retries and
	// retry_policy.per_try_timeout.
	NumRetries    Setting[int]
	PerTryTimeout Setting[time.Duration]
	// RetriableMethods is what retry_policy.retriable_request_headers
	// narrow retries to; nil when they do not narrow them (every method
	// is retried), as on most routes, which then hold no Methods of
	// their own.
	RetriableMethods *Methods
	// BackOffBase and BackOffMax are retry_policy.retry_back_off's
	// intervals: the wait before the k-th retry is random below
	// min(base × 2^k, max); 25 ms and ten times the base by default.
	BackOffBase, BackOffMax Setting[time.Duration]
	// RetryPolicy identifies the retry policy in effect by its content:
	// routes whose policies are equal, field for field, have the same
	// RetryPolicy (a control plane's default written into every route).
	RetryPolicy string
}

// Upstream is a group of servers a route proxies to: an nginx upstream
// block, the implicit upstream a literal proxy_pass address creates, an
// Envoy cluster.
type Upstream struct {
	Proxy *Proxy
	// Kind is what the proxy calls it: "upstream" (nginx) or "cluster"
	// (Envoy).
	Kind     string
	Name     string
	Implicit bool
	// HostAssumed is set on an implicit upstream whose host name could
	// also name an upstream block in configuration that was not read (a
	// fragment's includer): it is taken for a DNS name, because it reads
	// as one (it has a domain).
	HostAssumed bool
	Pos         Pos
	Servers     []Server

	// The pool of idle connections the upstream keeps: Size (nginx
	// "keepalive N"; 0 = no pool; invalid for Envoy, which pools
	// always), Idle (nginx keepalive_timeout inside the upstream block;
	// Envoy idle_timeout), Lifetime (nginx keepalive_time; Envoy
	// max_connection_duration).
	PoolSize     Setting[int]
	PoolIdle     Setting[time.Duration]
	PoolLifetime Setting[time.Duration]

	// ClosedUnderRequest is what the proxy answers when a pooled
	// connection is closed under a request it sent on it.
	ClosedUnderRequest string
	// ConnectTimeout is Envoy's cluster connect_timeout.
	ConnectTimeout Setting[time.Duration]
	// Mesh is set when the pool is the one every client in a service mesh
	// keeps to the host (a sidecar's cluster), not one proxy's own.
	Mesh bool
	// RetryLimit bounds the retries in flight to an Envoy cluster
	// (model/breaker.go); nil for nginx.
	RetryLimit *RetryLimit
	// Zone is the shared-memory zone of an nginx upstream block, and
	// Resolver the resolver in effect for it (the block's own, nginx
	// 1.27.3 and newer, else the http block's): what a server's
	// "resolve" parameter needs to look its name up while nginx runs.
	// Invalid when not written.
	Zone     Setting[string]
	Resolver Setting[string]

	// Routes lists the routes that forward to this upstream.
	Routes []*Route
}

// Server is one member of an upstream.
type Server struct {
	Address Address
	Raw     string // as written
	// Literal is set when the address is an IP literal or a unix socket,
	// so it is one peer; a host name may resolve to several.
	Literal bool
	// Addresses is how many peers the server makes when that is known
	// without asking DNS: 1 for a literal, 2 for localhost as the usual
	// hosts file lists it (::1 and 127.0.0.1); 0 when only DNS can tell.
	Addresses int
	Backup    bool
	Down      bool
	// Resolve is set when the server has the "resolve" parameter: nginx
	// (1.27.3 and newer, NGINX Plus, Angie 1.1.0 and newer) looks the name
	// up again while it runs, through the upstream's Resolver.
	Resolve bool
	Pos     Pos
	// Service is the cluster service the server reaches when its loader
	// knows it (an Ingress backend); nil otherwise.
	Service *ServiceRef
}

// Peers counts the servers that can take a request (not down), primary and
// backup, as nginx counts tries. exact is false when a server is a host
// name, which the proxy resolves to as many peers as it has addresses; it
// counts once here.
func (u *Upstream) Peers() (n int, exact bool) {
	exact = true
	for _, s := range u.Servers {
		if s.Down {
			continue
		}
		switch {
		case s.Addresses > 0:
			n += s.Addresses
		case s.Literal:
			n++
		default:
			n++
			exact = false
		}
	}
	return n, exact
}
