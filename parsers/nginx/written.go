package nginx

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/proxylint/proxylint/model"
)

// What the directives written in a block do beside the values the routes
// carry (model/written.go):
//
//   - A directive of a pass module (proxy_*, grpc_*, fastcgi_*, uwsgi_*,
//     scgi_*, memcached_*) is read only by that module's handler, for the
//     requests of the locations it applies to: written where grpc_pass
//     handles the requests, proxy_read_timeout changes nothing, and
//     grpc_read_timeout keeps its default (rules/proof/noeffect_test.go).
//     nginx inherits such a directive into every nested location, if
//     block and named location of the level it is written at unless one
//     sets its own; the directive has no effect when no route it applies
//     to hands its requests to that module.
//   - An array-like directive (proxy_set_header, add_header,
//     fastcgi_param, ...) written in a block gives the block its own
//     entries only: it inherits none of the outer level's
//     (ngx_http_proxy_merge_headers, ngx_http_headers_merge_conf; the
//     add_header_inherit and add_trailer_inherit directives of nginx
//     1.29.3 change that for add_header and add_trailer).
//
// The builder notes what each route reads as it builds it (facts.route);
// forks share what is gathered (factsShared), so its maps are guarded, and
// each keeps its own copy of what it has already looked up there
// (factsSeen): the routes of a server ask the same questions of the same
// levels, and a lock taken for each of them, by two forks at once, cost
// more than building the servers side by side saved.

// facts gathers, while the routes are built, which pass-module directives
// some route reads and which blocks replace an outer level's list: what
// the forks share, and what this one has seen of it.
type facts struct {
	*factsShared
	seen factsSeen
}

// factsSeen is what one builder has read of factsShared, or written to it,
// which does not change once there: a level's facts, whether a block was
// read whole, a level's override of an array directive, a directive some
// route reads.
type factsSeen struct {
	levels    map[*scope]*levelFacts
	complete  map[model.Pos]bool
	overrides map[overrideKey]*model.Override
	readAt    map[model.Pos]struct{}
	via       map[*levelFacts]map[*Directive]model.Pos
}

func newFactsSeen() factsSeen {
	return factsSeen{
		levels:    map[*scope]*levelFacts{},
		complete:  map[model.Pos]bool{},
		overrides: map[overrideKey]*model.Override{},
		readAt:    map[model.Pos]struct{}{},
		via:       map[*levelFacts]map[*Directive]model.Pos{},
	}
}

// clear forgets what was seen.
func (s *factsSeen) clear() {
	clear(s.levels)
	clear(s.complete)
	clear(s.overrides)
	clear(s.readAt)
	clear(s.via)
}

// fork is a view of the same facts for a builder of its own.
func (f *facts) fork() *facts {
	if f == nil {
		return nil
	}
	return &facts{factsShared: f.factsShared, seen: newFactsSeen()}
}

// factsShared is what the forks gather together.
type factsShared struct {
	mu sync.Mutex
	// unread holds the first argument of every include whose files were
	// not read (a *.types file aside); complete caches, by block, whether
	// one lies in it.
	unread map[model.Pos]bool
	// complete is keyed by the block directive's position, not the
	// directive, so that it holds no directive tree (BuildReleasing lets
	// each server's go once it is built).
	complete map[model.Pos]bool
	// fragment is set when the top level of the main file is a block the
	// file implies: its surroundings, and the routes they hold, are
	// unknown.
	fragment bool
	// newDefaults is set when the target sends no Connection header by
	// default (nginx 1.29.7, Angie 1.12.0).
	newDefaults bool

	// uses are the directives some route does not read, read those some
	// route does.
	uses      map[model.Pos]*use
	readAt    map[model.Pos]struct{}
	overrides map[overrideKey]*model.Override
	// shadowed holds the directives a nearer level replaces at some
	// route whose handler would read them.
	shadowed map[model.Pos]bool
	// levels caches, by scope, its pass-module directives and the
	// includes that bring them in: the routes of a server share its
	// scope and the http block's. The http block's is taken before the
	// builder releases its directives (BuildReleasing); a server's is
	// dropped once the server is built (forget).
	levels map[*scope]*levelFacts
}

// levelFacts is what noteUses reads of a level many routes share.
type levelFacts struct {
	pass []*Directive // the pass-module directives of the level, in order
	// modules holds each one's pass module (passModuleOf); read and
	// shadowed are set once some route has read it or has a nearer
	// level replace it where it would be read, so that the thousands of
	// routes of a level note each only once.
	modules        []string
	read, shadowed []atomic.Bool
	// via is includesOf the level, made when first needed (viaOf).
	via     map[*Directive]model.Pos
	viaDone bool
}

// httpLevel notes the http block's level while its directives and
// included files are held.
func (f *facts) httpLevel(s *scope) {
	lf := f.level(s)
	f.mu.Lock()
	lf.via, lf.viaDone = includesOf(s), true
	f.mu.Unlock()
}

// serverLevel works out, while a server block's directives are all held,
// what its routes read of the block as a level (its pass-module
// directives, the includes that bring them in, whether it was read whole),
// so that its locations can be let go one by one as they are built.
func (f *facts) serverLevel(s *scope) {
	lf := f.level(s)
	via := includesOf(s)
	f.mu.Lock()
	lf.via, lf.viaDone = via, true
	f.mu.Unlock()
	f.blockComplete(s.dir)
}

// sharedLevel reports whether many routes read level c (an http or
// server block), so that what they read of it is kept.
func sharedLevel(c *scope) bool { return c.kind == "http" || c.kind == "server" || c.kind == "main" }

// passDirectives are the pass-module directives of level c.
func (f *facts) passDirectives(c *scope) []*Directive {
	if sharedLevel(c) {
		return f.level(c).pass
	}
	var out []*Directive
	for _, d := range own(c) {
		if _, ok := moduleDirective(d.Name); ok {
			out = append(out, d)
		}
	}
	return out
}

// viaOf is the include of level c that brings d in from another file, or
// the zero Pos.
func (f *facts) viaOf(c *scope, d *Directive) model.Pos {
	if d.Pos.File == c.at.File && c.dir != nil && c.dir.Pos.File == d.Pos.File {
		return model.Pos{}
	}
	if !sharedLevel(c) {
		return includesOf(c)[d]
	}
	lf := f.level(c)
	if via, ok := f.seen.via[lf]; ok {
		return via[d]
	}
	f.mu.Lock()
	done := lf.viaDone
	f.mu.Unlock()
	if !done {
		via := includesOf(c)
		f.mu.Lock()
		lf.via, lf.viaDone = via, true
		f.mu.Unlock()
	}
	// Once made, a level's map is replaced by none and written by no one.
	f.mu.Lock()
	via := lf.via
	f.mu.Unlock()
	f.seen.via[lf] = via
	return via[d]
}

// forget drops what is cached of level c, a server block that is built:
// its directives are then held by nothing the builder keeps.
func (f *facts) forget(c *scope) {
	// What the builder has seen is of this server's levels, and of the
	// http block's, which the next server asks about again once.
	f.seen.clear()
	f.mu.Lock()
	delete(f.levels, c)
	f.mu.Unlock()
}

// level returns the cached facts of a shared level.
func (f *facts) level(c *scope) *levelFacts {
	if lf := f.seen.levels[c]; lf != nil {
		return lf
	}
	f.mu.Lock()
	lf := f.levels[c]
	f.mu.Unlock()
	if lf != nil {
		f.seen.levels[c] = lf
		return lf
	}
	lf = &levelFacts{}
	for _, d := range own(c) {
		if _, ok := moduleDirective(d.Name); ok {
			lf.pass = append(lf.pass, d)
			lf.modules = append(lf.modules, passModuleOf(d.Name))
		}
	}
	lf.read, lf.shadowed = make([]atomic.Bool, len(lf.pass)), make([]atomic.Bool, len(lf.pass))
	f.mu.Lock()
	if prev := f.levels[c]; prev != nil {
		lf = prev
	} else {
		f.levels[c] = lf
	}
	f.mu.Unlock()
	f.seen.levels[c] = lf
	return lf
}

// own returns the directives of level c: once the builder released an
// http block's list (BuildReleasing), from its index.
func own(c *scope) []*Directive {
	if c.dirs != nil || c.byName == nil {
		return c.dirs
	}
	var out []*Directive
	for _, ds := range c.byName {
		out = append(out, ds...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos.Before(out[j].Pos) })
	return out
}

// use is what the routes a pass-module directive applies to do with it.
type use struct {
	d      *Directive
	level  *scope
	module string
	via    model.Pos // the include of the block that brings it in
	// complete is set when all that applies at its level was read.
	complete bool
	// The handlers of the routes that do not read it: the first few of
	// each kind (enough for a message; a directive at http level may
	// apply to thousands of routes), the pass modules among them, and how
	// many routes pass with another module or not at all.
	passes, others  []model.Handler
	modules         []string
	nPasses, nOther int
}

// keptHandlers is how many handlers of each kind a use keeps.
const keptHandlers = 3

// instead lists the handlers a use kept, passes first.
func (u *use) instead() []model.Handler {
	return append(append([]model.Handler(nil), u.passes...), u.others...)
}

type overrideKey struct {
	block model.Pos
	name  string
}

func newFacts(cfg *Config, newDefaults bool) *facts {
	f := &facts{seen: newFactsSeen(), factsShared: &factsShared{
		unread:      map[model.Pos]bool{},
		complete:    map[model.Pos]bool{},
		fragment:    cfg.Fragment(),
		newDefaults: newDefaults,
		uses:        map[model.Pos]*use{},
		readAt:      map[model.Pos]struct{}{},
		overrides:   map[overrideKey]*model.Override{},
		shadowed:    map[model.Pos]bool{},
		levels:      map[*scope]*levelFacts{},
	}}
	for _, u := range cfg.Unread {
		if !strings.HasSuffix(u.Name, ".types") {
			f.unread[u.Pos] = true
		}
	}
	return f
}

// passModuleOf is the pass module a directive of nginx's own belongs to by
// its name ("proxy" for proxy_read_timeout), or "".
func passModuleOf(name string) string {
	for i, p := range passModulePrefixes {
		if strings.HasPrefix(name, p) {
			return passModules[i]
		}
	}
	return ""
}

// passModulePrefixes are the passModules followed by "_", made once.
var passModulePrefixes = func() []string {
	out := make([]string, len(passModules))
	for i, m := range passModules {
		out[i] = m + "_"
	}
	return out
}()

// notPerRequest are directives of the pass modules that no handler reads
// per request but that still act (a temporary or cache directory nginx
// creates when it starts), or whose values other modules read (the
// $fastcgi_script_name and $fastcgi_path_info variables): never judged.
var notPerRequest = map[string]bool{
	"fastcgi_split_path_info": true, "fastcgi_index": true,
}

// moduleDirective reports whether d is a directive of a pass module that
// the module's handler reads for the requests of a location, and which
// module: one of nginx's own, allowed in a location (so not
// *_cache_path), and not a temporary path.
func moduleDirective(name string) (string, bool) {
	s, ok := findDirective(name)
	if !ok || s.pass == 0 {
		return "", false
	}
	return passModules[s.pass-1], true
}

// isModuleDirective is moduleDirective worked out from the declarations.
func isModuleDirective(name string) (string, bool) {
	return moduleOfDeclarations(name, declarations(name))
}

// moduleOfDeclarations is isModuleDirective for the declarations decls
// of name.
func moduleOfDeclarations(name string, decls []directiveEntry) (string, bool) {
	m := passModuleOf(name)
	if m == "" || notPerRequest[name] || strings.HasSuffix(name, "_temp_path") || strings.HasSuffix(name, "_cache_path") {
		return "", false
	}
	for _, e := range decls {
		if e.spec.module == "" && e.spec.contexts&ctxHTTPLocation != 0 {
			return m, true
		}
	}
	return "", false
}

// blockComplete reports whether every include inside the block of dir was
// read (nil, the block a fragment implies, is never complete: its
// surroundings were not read).
func (f *facts) blockComplete(dir *Directive) bool {
	if dir == nil {
		return false
	}
	if c, ok := f.seen.complete[dir.Pos]; ok {
		return c
	}
	f.mu.Lock()
	c, ok := f.complete[dir.Pos]
	f.mu.Unlock()
	if !ok {
		c = f.read(dir.Block)
		f.mu.Lock()
		f.complete[dir.Pos] = c
		f.mu.Unlock()
	}
	f.seen.complete[dir.Pos] = c
	return c
}

func (f *facts) read(dirs []*Directive) bool {
	for _, d := range dirs {
		if d.Name == "include" {
			if len(d.Args) > 0 && f.unread[d.ArgPos(0)] {
				return false
			}
			for _, inc := range d.Included() {
				if !f.read(inc.Directives) {
					return false
				}
			}
			continue
		}
		if d.Block != nil && !f.read(d.Block) {
			return false
		}
	}
	return true
}

// levelComplete reports whether what applies at level c is all known: its
// own block and those around it read whole, so that no unread file can
// add a route it applies to or a directive that replaces it. The http
// block's completeness is taken before its directives are released.
func (f *facts) levelComplete(c *scope) bool {
	if c.kind == "http" || c.kind == "main" {
		return !f.fragment && len(f.unread) == 0
	}
	return f.blockComplete(c.dir)
}

// handler is what takes the requests of route r.
type routeHandler struct {
	module string // the pass module whose handler runs; "" for none
	// opaque is set when what takes the requests cannot be told (a
	// directive proxylint does not know, a pass inside limit_except):
	// every directive is then taken as read.
	opaque bool
	h      model.Handler
}

func (f *facts) handlerOf(r *model.Route, s *scope) routeHandler {
	loc := s
	for loc != nil && loc.kind == "if" {
		loc = loc.parent
	}
	// Most routes are a location's own (loc is s): each block is asked
	// about once.
	if loc == nil || !f.blockComplete(loc.dir) || opaqueBlock(loc) || loc != s && (!f.blockComplete(s.dir) || opaqueBlock(s)) {
		return routeHandler{opaque: true}
	}
	if ret := certainReturn(loc); ret != nil {
		return routeHandler{h: model.Handler{Kind: model.HandlerReturn, Name: "return", Pos: ret.Pos, Route: r.Name}}
	}
	if fw := r.Forward; fw != nil {
		return routeHandler{module: fw.Module, h: model.Handler{Kind: model.HandlerPass, Name: fw.Name, Pos: fw.Pos, Route: r.Name}}
	}
	h := model.Handler{Kind: model.HandlerNone, Pos: r.Pos, Route: r.Name}
	if fb := r.Nginx.NamedFallback; fb.Valid() {
		h.Fallback, h.FallbackPos = fb.Value, fb.Pos()
	}
	return routeHandler{h: h}
}

// opaqueBlock reports whether a block holds what may hand its requests to
// a handler proxylint cannot name: a directive nginx and the modules
// proxylint knows do not declare, or a pass directive inside
// limit_except (which takes the requests of the methods it does not
// list).
func opaqueBlock(s *scope) bool {
	for _, d := range s.dirs {
		if d.Name == "" {
			continue
		}
		if _, ok := lookupDirective(d.Name); !ok && !isLuaBlock(d.Name) {
			return true
		}
		if d.Name == "limit_except" {
			for _, x := range flatten(d.Block) {
				if strings.HasSuffix(x.Name, "_pass") {
					return true
				}
			}
		}
	}
	return false
}

// certainReturn is the return directive of a location that ends every
// request in the rewrite phase, before any content handler: the first
// return at the location's level, with nothing before it that stops the
// rewrite directives (break, rewrite ... break, either inside an if) and
// hands the request to the handler. A rewrite with another flag takes the
// request elsewhere or goes on to the return, as an if block that returns
// or sets does.
func certainReturn(loc *scope) *Directive {
	for _, d := range loc.dirs {
		switch d.Name {
		case "return":
			return d
		case "break":
			return nil
		case "rewrite":
			if rewriteBreaks(d) {
				return nil
			}
		case "if":
			for _, x := range flatten(d.Block) {
				if x.Name == "break" || x.Name == "rewrite" && rewriteBreaks(x) {
					return nil
				}
			}
		}
	}
	return nil
}

func rewriteBreaks(d *Directive) bool {
	return len(d.Args) >= 3 && d.Args[2].Value == "break"
}

// route notes what route r, built from scope s, reads.
func (b *builder) noteRoute(r *model.Route, s *scope) {
	f := b.facts
	if f == nil {
		return
	}
	h := f.handlerOf(r, s)
	f.noteUses(r, s, h)
	f.noteOverrides(b, r, s, h)
}

// noteUses records, for every pass-module directive in effect at s,
// whether the route's handler reads it.
func (f *facts) noteUses(r *model.Route, s *scope, h routeHandler) {
	// The names a nearer level sets, which it replaces further out: a
	// few, so a slice (on the stack while they fit).
	var seenBuf, namesBuf [16]string
	seen, names := seenBuf[:0], namesBuf[:0]
	for c := s; c != nil; c = c.parent {
		names = names[:0]
		// A level many routes share keeps what they noted of it
		// (levelFacts): a directive read or replaced is noted once.
		var lf *levelFacts
		var pass []*Directive
		if sharedLevel(c) {
			lf = f.level(c)
			pass = lf.pass
		} else {
			pass = f.passDirectives(c)
		}
		for i, d := range pass {
			var m string
			if lf != nil {
				m = lf.modules[i]
			} else {
				m = passModuleOf(d.Name)
			}
			if slices.Contains(seen, d.Name) {
				if !h.opaque && h.module == m && (lf == nil || !lf.shadowed[i].Load() && !lf.shadowed[i].Swap(true)) {
					// Replaced by a nearer level where it would be
					// read: the override is the story (a scalar's is
					// deliberate; set-header-drops-inherited reports an
					// array's), not the directive.
					f.shadow(d)
				}
				continue
			}
			if strings.HasSuffix(d.Name, "_pass") && (c != s || h.h.Kind != model.HandlerReturn) {
				// A pass directive is not inherited by nested
				// locations, and is its route's handler.
				continue
			}
			names = append(names, d.Name)
			read := h.opaque || h.module == m
			if read && lf != nil && (lf.read[i].Load() || lf.read[i].Swap(true)) {
				continue
			}
			f.use(d, c, m, read, h.h)
		}
		seen = append(seen, names...)
	}
}

// shadow notes that a route whose handler reads d gets a nearer level's
// value instead.
func (f *facts) shadow(d *Directive) {
	f.mu.Lock()
	f.shadowed[d.Pos] = true
	f.mu.Unlock()
}

func (f *facts) use(d *Directive, level *scope, module string, read bool, h model.Handler) {
	if read {
		// Most directives are read where they are written: a set of
		// positions says so without a use each.
		if _, ok := f.seen.readAt[d.Pos]; ok {
			return
		}
		f.mu.Lock()
		f.readAt[d.Pos] = struct{}{}
		f.mu.Unlock()
		f.seen.readAt[d.Pos] = struct{}{}
		return
	}
	if _, ok := f.seen.readAt[d.Pos]; ok {
		// A route this builder built reads it: it will not be reported.
		return
	}
	f.mu.Lock()
	u := f.uses[d.Pos]
	if _, readElsewhere := f.readAt[d.Pos]; readElsewhere {
		// Another route reads it: it will not be reported.
		f.mu.Unlock()
		return
	}
	if u == nil {
		// Made outside the lock: levelComplete takes it.
		f.mu.Unlock()
		made := &use{d: d, level: level, module: module, via: f.viaOf(level, d), complete: f.levelComplete(level)}
		f.mu.Lock()
		if u = f.uses[d.Pos]; u == nil {
			u = made
			f.uses[d.Pos] = u
		}
	}
	defer f.mu.Unlock()
	if h.Kind == model.HandlerPass {
		u.nPasses++
		m := strings.TrimSuffix(h.Name, "_pass")
		if !slices.Contains(u.modules, m) {
			u.modules = append(u.modules, m)
		}
		if len(u.passes) < keptHandlers && !hasHandler(u.passes, h) {
			u.passes = append(u.passes, h)
		}
		return
	}
	u.nOther++
	if len(u.others) < keptHandlers && !hasHandler(u.others, h) {
		u.others = append(u.others, h)
	}
}

// includesOf maps the pass-module directives a block holds through
// include to the include directive of the block itself that brings them
// in.
func includesOf(c *scope) map[*Directive]model.Pos {
	var block []*Directive
	if c.dir != nil {
		block = c.dir.Block
	}
	var out map[*Directive]model.Pos
	var walk func(dirs []*Directive, at model.Pos)
	walk = func(dirs []*Directive, at model.Pos) {
		for _, d := range dirs {
			if d.Name != "include" {
				if _, pass := moduleDirective(d.Name); pass && at.IsValid() {
					if out == nil {
						out = map[*Directive]model.Pos{}
					}
					out[d] = at
				}
				continue
			}
			here := at
			if !here.IsValid() {
				here = d.Pos
			}
			for _, inc := range d.Included() {
				walk(inc.Directives, here)
			}
		}
	}
	walk(block, model.Pos{})
	return out
}

// arrayDirectives are the array-like directives whose entries a block
// replaces whole, with the pass module that reads them ("" for those of
// the headers filter, which apply to every response).
var arrayDirectives = []struct{ name, module string }{
	{"proxy_set_header", "proxy"},
	{"grpc_set_header", "grpc"},
	{"fastcgi_param", "fastcgi"},
	{"uwsgi_param", "uwsgi"},
	{"scgi_param", "scgi"},
	{"proxy_hide_header", "proxy"},
	{"grpc_hide_header", "grpc"},
	{"fastcgi_hide_header", "fastcgi"},
	{"uwsgi_hide_header", "uwsgi"},
	{"scgi_hide_header", "scgi"},
	{"add_header", ""},
	{"add_trailer", ""},
}

// inheritDirective is the directive of nginx 1.29.3 that says how a
// block's add_header (add_trailer) list takes the outer level's: "on"
// (only when it has none of its own, the default), "off" (never) or
// "merge" (after its own).
func inheritDirective(name string) string {
	// Constants, not name + "_inherit": every route asks for each list
	// at each of its levels.
	switch name {
	case "add_header":
		return "add_header_inherit"
	case "add_trailer":
		return "add_trailer_inherit"
	}
	return ""
}

// entry is one directive of a list, with the level it is written at.
type entry struct {
	d     *Directive
	level *scope
}

// list is the effective list of array directive name at level c: nginx's
// merge, with add_header_inherit.
func list(c *scope, name string) []entry {
	if c == nil {
		return nil
	}
	var own []entry
	for _, d := range c.all(name) {
		own = append(own, entry{d, c})
	}
	switch inheritMode(c, name) {
	case "off":
		return own
	case "merge":
		return append(own, list(c.parent, name)...)
	}
	if len(own) > 0 {
		return own
	}
	return list(c.parent, name)
}

// inheritMode is the add_header_inherit (add_trailer_inherit) in effect at
// c: "on" unless one is written there or above.
func inheritMode(c *scope, name string) string {
	dn := inheritDirective(name)
	if dn == "" {
		return "on"
	}
	if d, _ := c.lookup(dn); d != nil && len(d.Args) == 1 {
		return strings.ToLower(d.Args[0].Value)
	}
	return "on"
}

// entryName is the header or parameter an entry sets, lower case.
func entryName(d *Directive) string {
	if len(d.Args) == 0 {
		return ""
	}
	return strings.ToLower(d.Args[0].Value)
}

// noteOverrides records, for the levels of s and the if blocks of s that
// do not pass on their own, the array-like directives that replace an
// outer list, and adds route r to those whose list it gets.
func (f *facts) noteOverrides(b *builder, r *model.Route, s *scope, h routeHandler) {
	for _, a := range arrayDirectives {
		if a.module != "" && (h.opaque || h.module != a.module) {
			// The list is read only where the module handles the
			// requests (directive-no-effect covers the rest).
			continue
		}
		src := s
		for src != nil && len(src.all(a.name)) == 0 && inheritMode(src, a.name) != "off" {
			src = src.parent
		}
		for c := s; c != nil && c.parent != nil; c = c.parent {
			o := f.override(b, c, a.name, a.module)
			if o != nil && c == src {
				f.mu.Lock()
				o.Routes = append(o.Routes, r)
				f.mu.Unlock()
			}
		}
		if a.module == "" && s.kind == "location" {
			// An if block without a pass of its own is no route, but
			// the requests it matches get its add_header list.
			for _, ifd := range s.children("if") {
				ifs := newScope("if", ifd, ifd.Pos, s, ifd.Block)
				if passDirective(ifs) != nil {
					continue
				}
				if o := f.override(b, ifs, a.name, a.module); o != nil {
					f.mu.Lock()
					o.Routes = append(o.Routes, r)
					f.mu.Unlock()
				}
			}
		}
	}
}

// override returns the Override of level c for array directive name, made
// on first use; nil when c writes none, loses nothing, inherits by
// merging, or is not read whole.
func (f *facts) override(b *builder, c *scope, name, module string) *model.Override {
	own := c.all(name)
	if len(own) == 0 || c.dir == nil {
		return nil
	}
	key := overrideKey{own[0].Pos, name}
	if o, ok := f.seen.overrides[key]; ok {
		return o
	}
	f.mu.Lock()
	o, done := f.overrides[key]
	f.mu.Unlock()
	if done {
		f.seen.overrides[key] = o
		return o
	}
	o = f.makeOverride(c, own, name, module)
	f.mu.Lock()
	if prev, ok := f.overrides[key]; ok {
		o = prev // a fork made it meanwhile
	} else {
		f.overrides[key] = o
	}
	f.mu.Unlock()
	f.seen.overrides[key] = o
	return o
}

func (f *facts) makeOverride(c *scope, own []*Directive, name, module string) *model.Override {
	if inheritMode(c, name) != "on" || !f.blockComplete(c.dir) {
		return nil
	}
	outer := list(c.parent, name)
	if len(outer) == 0 {
		return nil
	}
	written := map[string]bool{}
	o := &model.Override{
		Directive: name, Module: module, Pos: own[0].Pos,
		Block: c.at, Level: c.kind, BlockName: blockName(c),
		From: outer[0].d.Pos, FromLevel: outer[0].level.kind,
	}
	if name == "add_header" {
		if d, _ := c.lookup("etag"); d != nil && len(d.Args) == 1 && strings.EqualFold(d.Args[0].Value, "off") {
			o.ETagOff = true
		}
	}
	for _, d := range own {
		written[entryName(d)] = true
		o.Written = append(o.Written, arrayEntry(d))
	}
	for _, e := range outer {
		n := entryName(e.d)
		if n == "" || written[n] || f.isDefault(name, e.d) {
			continue
		}
		o.Lost = append(o.Lost, arrayEntry(e.d))
		written[n] = true // a name listed twice is lost once
	}
	if len(o.Lost) == 0 {
		return nil
	}
	return o
}

// isDefault reports whether an outer entry only restates what nginx sends
// when no proxy_set_header applies (Host $proxy_host; Connection close
// before 1.29.7): losing it changes nothing.
func (f *facts) isDefault(name string, d *Directive) bool {
	if name != "proxy_set_header" || len(d.Args) != 2 {
		return false
	}
	switch entryName(d) {
	case "host":
		return d.Args[1].Value == "$proxy_host"
	case "connection":
		return !f.newDefaults && strings.EqualFold(d.Args[1].Value, "close")
	}
	return false
}

// blockName names a level for messages: "location /api/", "server
// example.com", "http".
func blockName(c *scope) string {
	if c.dir == nil {
		return c.kind
	}
	if c.kind == "server" {
		for _, d := range c.all("server_name") {
			if len(d.Args) > 0 {
				return "server " + strings.Join(d.ArgValues(), " ")
			}
		}
		return "server"
	}
	if args := c.dir.ArgValues(); len(args) > 0 {
		return c.kind + " " + strings.Join(args, " ")
	}
	return c.kind
}

// emit adds what the routes showed to the proxy: the directives no route
// reads, grouped by block and module, where all that applies to their
// level was read; and the overrides some route's requests get.
func (f *facts) emit(p *model.Proxy) {
	type groupKey struct {
		block  model.Pos
		module string
	}
	groups := map[groupKey]*model.NoEffect{}
	var order []groupKey
	var unread []*use
	for _, u := range f.uses {
		if _, read := f.readAt[u.d.Pos]; !read && u.nPasses+u.nOther > 0 && u.complete && !f.shadowed[u.d.Pos] {
			unread = append(unread, u)
		}
	}
	sort.Slice(unread, func(i, j int) bool { return unread[i].d.Pos.Before(unread[j].d.Pos) })
	for _, u := range unread {
		k := groupKey{u.level.at, u.module}
		g := groups[k]
		if g == nil {
			g = &model.NoEffect{Module: u.module, Block: u.level.at, Level: u.level.kind, BlockName: blockName(u.level)}
			groups[k] = g
			order = append(order, k)
		}
		x := model.Unread{Setting: model.Set(argsText(u.d), u.d.Name, u.level.kind, u.d.Pos), Include: u.via}
		x.Counterpart, x.Carries = counterpart(u.d, u.modules)
		if x.Counterpart != "" && u.level.last(x.Counterpart) != nil {
			x.CounterpartSet = true
		}
		g.Directives = append(g.Directives, x)
		for _, h := range u.instead() {
			if !hasHandler(g.Instead, h) {
				g.Instead = append(g.Instead, h)
			}
		}
		g.Passes, g.Others = max(g.Passes, u.nPasses), max(g.Others, u.nOther)
	}
	for _, k := range order {
		p.NoEffect = append(p.NoEffect, *groups[k])
	}
	for _, o := range f.overrides {
		if o != nil && len(o.Routes) > 0 {
			p.Overrides = append(p.Overrides, *o)
		}
	}
	sort.Slice(p.Overrides, func(i, j int) bool { return p.Overrides[i].Pos.Before(p.Overrides[j].Pos) })
}

func hasHandler(hs []model.Handler, h model.Handler) bool {
	for _, x := range hs {
		if x.Kind == h.Kind && x.Name == h.Name && x.Pos == h.Pos {
			return true
		}
	}
	return false
}

// hopByHop are headers the HTTP/2 connection of grpc_pass carries none of:
// setting them there means nothing (RFC 9113, 8.2.2).
var hopByHop = map[string]bool{"connection": true, "upgrade": true, "keep-alive": true, "proxy-connection": true, "transfer-encoding": true}

// counterpart is the directive of the one module whose pass handles the
// requests instead that reads the same value, and whether the value means
// the same there: "" when the passes are of different modules, there is
// none, or the module has no such directive (or not with these words).
func counterpart(d *Directive, modules []string) (string, bool) {
	// A route that passes nothing, or returns first, reads neither
	// directive: only the modules of the passes count.
	if len(modules) != 1 {
		return "", false
	}
	module := modules[0]
	from := passModuleOf(d.Name)
	if module == "" || from == "" || strings.HasSuffix(d.Name, "_pass") {
		return "", false
	}
	name := module + strings.TrimPrefix(d.Name, from)
	var kind valueKind
	found := false
	for _, e := range declarations(d.Name) {
		if e.spec.module == "" {
			kind = e.spec.kind
		}
	}
	for _, e := range declarations(name) {
		if e.spec.module != "" || e.spec.contexts&ctxHTTPLocation == 0 || e.spec.kind != kind {
			continue
		}
		if kind == kindBitmask || kind == kindEnum {
			ok := true
			for _, a := range d.Args {
				if !hasWord(e.spec.words, a.Value) {
					ok = false
				}
			}
			if !ok {
				continue
			}
		}
		found = true
	}
	if !found {
		return "", false
	}
	carries := module != "grpc" || !strings.HasSuffix(name, "_set_header") || len(d.Args) == 0 || !hopByHop[strings.ToLower(d.Args[0].Value)]
	return name, carries
}

// hasWord reports whether an enum's or bit mask's words (with "@release"
// marks) hold w.
func hasWord(words, w string) bool {
	for _, x := range strings.Fields(words) {
		name, _, _ := strings.Cut(x, "@")
		if strings.EqualFold(name, w) {
			return true
		}
	}
	return false
}

// argsText writes a directive's arguments as a configuration would: an
// empty one, or one with blanks, quoted.
func argsText(d *Directive) string {
	out := make([]string, len(d.Args))
	for i, a := range d.Args {
		v := a.Value
		if v == "" || strings.ContainsAny(v, " \t;{}\"'") {
			v = strconv.Quote(v)
		}
		out[i] = v
	}
	return strings.Join(out, " ")
}

// arrayEntry is an entry of an array-like directive: its first argument,
// and the rest as written.
func arrayEntry(d *Directive) model.ArrayEntry {
	e := model.ArrayEntry{Pos: d.Pos}
	if len(d.Args) > 0 {
		e.Name = d.Args[0].Value
		rest := *d
		rest.Args = d.Args[1:]
		e.Value = argsText(&rest)
	}
	return e
}
