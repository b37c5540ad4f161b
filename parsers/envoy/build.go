package envoy

import (
	"fmt"
	"net"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/proxylint/proxylint/internal/workers"
	"github.com/proxylint/proxylint/model"
)

// Envoy's defaults (docs/semantics.md §A, §B, §F; the proto comments in
// data-plane-api).
const (
	defaultRouteTimeout      = 15 * time.Second // RouteAction.timeout
	defaultStreamIdleTimeout = 5 * time.Minute  // HCM stream_idle_timeout
	defaultDrainTimeout      = 5 * time.Second  // HCM drain_timeout
	defaultDelayedClose      = 1 * time.Second  // HCM delayed_close_timeout
	defaultIdleTimeout       = time.Hour        // HttpProtocolOptions.idle_timeout
	defaultConnectTimeout    = 5 * time.Second  // Cluster.connect_timeout
	defaultNumRetries        = 1                // RetryPolicy.num_retries
)

// closedUnderRequest is what Envoy answers when the upstream closes a pooled
// connection under a request (the router's local reply for an upstream
// reset before the response headers, response flag UC).
const closedUnderRequest = "503, \"upstream connect error or disconnect/reset before headers\""

// builder turns the resources of one proxy into the common model.
type builder struct {
	file     string
	proxy    *model.Proxy
	clusters map[string]*model.Upstream
	// pools are the connection pools of the clusters, one for all the
	// routes to each; read only once the clusters are built.
	pools  map[*model.Upstream]*model.Pool
	routes map[string]res
	cla    map[string]res
	// conn is what each listener's connection manager gives its routes.
	conn map[*model.Listener]connManager
	// In a fork (listeners): the listeners it built, and the routes to
	// add to their upstreams' Routes when it is joined, in the order they
	// were built. A fork reads the proxy and writes nothing shared.
	built *[]*model.Listener
	links *[]routeLink
	// sideBySide is the number of listeners from which they are built by
	// forks.
	sideBySide int
	// own: the listeners and clusters are read by nothing once built
	// (collection.own).
	own bool
}

// routeLink is a route that forwards to an upstream of the file.
type routeLink struct {
	u  *model.Upstream
	rt *model.Route
}

// connManager is what the loader keeps of a connection manager: the RDS
// route configuration it names ("" when its routes are inline), and
// stream_idle_timeout, the idle timeout of routes that set none.
type connManager struct {
	routeConfig string
	streamIdle  model.Setting[time.Duration]
}

func (b *builder) pos(n *node) model.Pos {
	if n == nil {
		return b.proxy.Pos
	}
	return model.Pos{File: b.file, Line: n.line, Col: n.col}
}

// in is the builder for the resources of file: the same builder, whose
// positions name that file. A deployment joined from several files
// (join.go) builds each resource with the builder of its own file.
func (b *builder) in(file string) *builder {
	if file == b.file || file == "" {
		return b
	}
	f := *b
	f.file = file
	return &f
}

// build makes one proxy of a collection; file is the one it is named by.
func build(file string, target model.Target, c *collection) *model.Proxy {
	return buildSideBySide(file, target, c, sideBySideItems)
}

// buildSideBySide is build with the number of listeners from which they
// are built side by side.
func buildSideBySide(file string, target model.Target, c *collection, from int) *model.Proxy {
	p := &model.Proxy{Product: model.Envoy, Target: target, Entry: file, Pos: model.Pos{File: file, Line: 1, Col: 1}}
	b := &builder{
		file: file, proxy: p,
		clusters:   map[string]*model.Upstream{},
		routes:     map[string]res{},
		cla:        map[string]res{},
		conn:       map[*model.Listener]connManager{},
		sideBySide: from,

		own: c.own,
	}
	for _, r := range c.routes {
		if _, dup := b.routes[r.msg.str("name")]; !dup {
			b.routes[r.msg.str("name")] = r
		}
	}
	for _, e := range c.endpoints {
		if _, dup := b.cla[e.msg.str("cluster_name")]; !dup {
			b.cla[e.msg.str("cluster_name")] = e
		}
	}
	for i, cl := range c.clusters {
		u := b.in(cl.file).upstream(cl.msg, cl.n)
		p.Upstreams = append(p.Upstreams, u)
		if _, dup := b.clusters[u.Name]; !dup {
			b.clusters[u.Name] = u
		}
		b.letGo(c.clusters, i)
	}
	b.pools = make(map[*model.Upstream]*model.Pool, len(b.clusters))
	for _, u := range b.clusters {
		b.pools[u] = &model.Pool{Upstream: u, Idle: u.PoolIdle, Lifetime: u.PoolLifetime}
	}
	b.listeners(c.listeners)
	// A connection manager on its own (a fragment of a listener).
	for _, h := range c.hcms {
		hb := b.in(h.file)
		ln := &model.Listener{Select: FirstMatch, Proxy: p, Name: "http connection manager " + h.msg.str("stat_prefix"), Pos: hb.pos(h.n)}
		hb.hcm(ln, h.msg, h.n, h.n)
		p.Listeners = append(p.Listeners, ln)
	}
	// Route configurations no listener of the deployment uses (a file of
	// route configurations, as a control plane serves them over RDS) are
	// linted too, under a listener that stands for the unknown one: its
	// connection manager settings are left unset.
	used := map[string]bool{}
	for _, l := range p.Listeners {
		used[b.conn[l].routeConfig] = true
	}
	for _, rc := range c.routes {
		if used[rc.msg.str("name")] {
			continue
		}
		used[rc.msg.str("name")] = true
		rb := b.in(rc.file)
		ln := &model.Listener{
			Select: FirstMatch,
			Proxy:  p,
			Name:   fmt.Sprintf("route configuration %q (its listener is not among the files linted)", rc.msg.str("name")),
			Pos:    rb.pos(rc.n),
		}
		rb.routeConfig(ln, rc.msg, rc.n)
		p.Listeners = append(p.Listeners, ln)
	}
	// Virtual hosts on their own (a fragment of a route configuration).
	if len(c.vhosts) > 0 {
		ln := &model.Listener{Select: FirstMatch, Proxy: p, Name: "virtual hosts (their listener is not among the files linted)", Pos: b.in(c.vhosts[0].file).pos(c.vhosts[0].n)}
		for _, vh := range c.vhosts {
			b.in(vh.file).virtualHost(ln, vh.msg, vh.n)
		}
		p.Listeners = append(p.Listeners, ln)
	}
	return p
}

// ---- settings ----

// durSetting is the Duration field name of m, read from block; unset, it
// is def at defBlock.
func (b *builder) durSetting(m msg, block *node, name, level string, def time.Duration, defBlock *node) model.Setting[time.Duration] {
	if d, ok := m.duration(name); ok {
		key, _ := block.field(name)
		if key == nil {
			return model.Set(d, name, level, b.pos(block))
		}
		return model.Set(d, key.text(), level, b.pos(key))
	}
	return model.Default(def, name, b.pos(defBlock))
}

func (b *builder) boolSetting(block *node, name, level string, v, def bool, defBlock *node) model.Setting[bool] {
	if key, _ := block.field(name); key != nil {
		return model.Set(v, key.text(), level, b.pos(key))
	}
	return model.Default(def, name, b.pos(defBlock))
}

// uintSetting is the UInt32Value field name of m, read from block; unset,
// it is def at defBlock.
func (b *builder) uintSetting(m msg, block *node, name, level string, def int, defBlock *node) model.Setting[int] {
	if v, ok := m.wrapped(name); ok {
		key, _ := block.field(name)
		if key == nil {
			return model.Set(int(v.Uint()), name, level, b.pos(block))
		}
		return model.Set(int(v.Uint()), key.text(), level, b.pos(key))
	}
	return model.Default(def, name, b.pos(defBlock))
}

// ---- clusters ----

func (b *builder) upstream(cl msg, n *node) *model.Upstream {
	u := &model.Upstream{Proxy: b.proxy, Kind: "cluster", Name: cl.str("name"), Pos: b.pos(n), ClosedUnderRequest: closedUnderRequest}
	u.ConnectTimeout = b.durSetting(cl, n, "connect_timeout", "cluster", defaultConnectTimeout, n)

	// The upstream HTTP protocol options: the typed extension options, or
	// the deprecated cluster fields (docs/semantics.md §D).
	var opts msg
	var optsNode *node
	tepo := n.get("typed_extension_protocol_options")
	for _, e := range cl.entries("typed_extension_protocol_options") {
		inner, ok := payload(e.val)
		if ok && inner.name() == nameHTTPProtocolOptions {
			opts = inner.sub("common_http_protocol_options")
			optsNode = tepo.get(e.key).get("common_http_protocol_options")
			break
		}
	}
	level := "cluster"
	if !opts.ok() && cl.has("common_http_protocol_options") { // the deprecated field still configures clusters
		opts = cl.sub("common_http_protocol_options")
		optsNode = n.get("common_http_protocol_options")
	}
	u.RetryLimit = b.retryLimit(cl, n)
	u.PoolIdle = b.durSetting(opts, optsNode, "idle_timeout", level, defaultIdleTimeout, n)
	u.PoolLifetime = b.durSetting(opts, optsNode, "max_connection_duration", level, 0, n)

	// Servers: inline endpoints, or the EDS resource of the deployment,
	// read with the builder of the file that holds it.
	la, laNode := cl.sub("load_assignment"), n.get("load_assignment")
	eb := b
	if !la.ok() {
		if e, ok := b.cla[edsName(cl)]; ok {
			la, laNode, eb = e.msg, e.n, b.in(e.file)
		}
	}
	for li, lep := range la.list("endpoints") {
		lepNode := laNode.get("endpoints").item(li)
		for ei, ep := range lep.list("lb_endpoints") {
			epNode := lepNode.get("lb_endpoints").item(ei)
			addrNode := epNode.get("endpoint").get("address")
			if s, ok := eb.server(ep.sub("endpoint").sub("address"), addrNode); ok {
				u.Servers = append(u.Servers, s)
			}
		}
	}
	return u
}

// edsName is the name a cluster's endpoints are served under by EDS: its
// eds_cluster_config.service_name, or its own name.
func edsName(cl msg) string {
	if name := cl.sub("eds_cluster_config").str("service_name"); name != "" {
		return name
	}
	return cl.str("name")
}

func (b *builder) server(a msg, n *node) (model.Server, bool) {
	addr, ok := b.address(a, n)
	if !ok {
		return model.Server{}, false
	}
	literal := addr.Unix != "" || net.ParseIP(addr.Host) != nil
	return model.Server{Address: addr, Raw: addr.String(), Literal: literal, Pos: addr.Pos}, true
}

func (b *builder) address(a msg, n *node) (model.Address, bool) {
	switch {
	case a.has("socket_address"):
		sa := a.sub("socket_address")
		sn := n.get("socket_address")
		at := sn
		if k, _ := sn.field("address"); k != nil {
			at = k
		}
		return model.Address{Host: sa.str("address"), Port: int(sa.uint("port_value")), Pos: b.pos(at)}, true
	case a.has("pipe"):
		return model.Address{Unix: a.sub("pipe").str("path"), Pos: b.pos(n.get("pipe"))}, true
	}
	return model.Address{}, false
}

// ---- listeners ----

func (b *builder) listener(l msg, n *node) {
	type chain struct {
		fc msg
		n  *node
	}
	var chains []chain
	for i, fc := range l.list("filter_chains") {
		chains = append(chains, chain{fc, n.get("filter_chains").item(i)})
	}
	if fc := l.sub("default_filter_chain"); fc.ok() {
		chains = append(chains, chain{fc, n.get("default_filter_chain")})
	}
	var addrs []model.Address
	if a, ok := b.address(l.sub("address"), n.get("address")); ok {
		addrs = append(addrs, a)
	}
	var hcms []*model.Listener
	for ci, ch := range chains {
		for fi, f := range ch.fc.list("filters") {
			hcm, ok := payload(f.sub("typed_config"))
			if !ok || hcm.name() != nameConnectionManager {
				continue
			}
			fNode := ch.n.get("filters").item(fi)
			name := l.str("name")
			if len(chains) > 1 {
				switch {
				case ch.fc.str("name") != "":
					name += " filter chain " + ch.fc.str("name")
				default:
					name += " filter chain " + strconv.Itoa(ci)
				}
			}
			ln := &model.Listener{
				Select:    FirstMatch,
				Proxy:     b.proxy,
				Name:      name,
				Pos:       b.pos(fNode),
				Addresses: addrs,
			}
			tcKey, tcNode := fNode.field("typed_config")
			b.hcm(ln, hcm, tcNode, orNode(tcKey, tcNode))
			hcms = append(hcms, ln)
		}
	}
	if b.built != nil {
		*b.built = append(*b.built, hcms...)
		return
	}
	b.proxy.Listeners = append(b.proxy.Listeners, hcms...)
}

// listeners builds the listeners of a file in order. Many are built side
// by side by forks of the builder, each with its own list of listeners,
// connection managers and links from routes to upstreams, joined in
// order (TestListenersBuiltSideBySideAsInOrder).
func (b *builder) listeners(ls []res) {
	if len(ls) < b.sideBySide {
		for i, l := range ls {
			b.in(l.file).listener(l.msg, l.n)
			b.letGo(ls, i)
		}
		return
	}
	forks := make([]*builder, len(ls))
	workers.Each(len(ls), runtime.GOMAXPROCS(0), func(i int) {
		f := *b
		if ls[i].file != "" {
			f.file = ls[i].file
		}
		f.conn = map[*model.Listener]connManager{}
		f.built, f.links = new([]*model.Listener), new([]routeLink)
		f.listener(ls[i].msg, ls[i].n)
		forks[i] = &f
		b.letGo(ls, i)
	})
	for _, f := range forks {
		for _, ln := range *f.built {
			b.conn[ln] = f.conn[ln]
		}
		b.proxy.Listeners = append(b.proxy.Listeners, *f.built...)
		for _, l := range *f.links {
			l.u.Routes = append(l.u.Routes, l.rt)
		}
	}
}

// letGo drops resource i (a listener or a cluster) once it is built, when
// nothing else of the load reads it (collection.own): its messages, those
// its Anys hold, and its part of the tree.
func (b *builder) letGo(ls []res, i int) {
	if !b.own {
		return
	}
	forgetAnys(ls[i].msg.m)
	ls[i] = res{}
}

// hcm fills a listener from an HttpConnectionManager read from node n;
// defaults point at block, the typed_config that holds it.
func (b *builder) hcm(ln *model.Listener, h msg, n, block *node) {
	const level = "hcm"
	if key, _ := n.field("codec_type"); key != nil {
		ln.Codec = model.Set(h.enum("codec_type"), key.text(), level, b.pos(key))
	} else {
		ln.Codec = model.Default("AUTO", "codec_type", b.pos(block))
	}
	opts, optsNode := h.sub("common_http_protocol_options"), n.get("common_http_protocol_options")
	ln.IdleTimeout = b.durSetting(opts, optsNode, "idle_timeout", level, defaultIdleTimeout, block)
	ln.MaxConnectionDuration = b.durSetting(opts, optsNode, "max_connection_duration", level, 0, block)
	ln.H1SafeMaxConnectionDuration = b.boolSetting(n, "http1_safe_max_connection_duration", level, h.flag("http1_safe_max_connection_duration"), false, block)
	ln.DrainTimeout = b.durSetting(h, n, "drain_timeout", level, defaultDrainTimeout, block)
	ln.DelayedCloseTimeout = b.durSetting(h, n, "delayed_close_timeout", level, defaultDelayedClose, block)
	ln.RequestTimeout = b.durSetting(h, n, "request_timeout", level, 0, block)
	cm := connManager{streamIdle: b.durSetting(h, n, "stream_idle_timeout", level, defaultStreamIdleTimeout, block)}
	if !h.has("route_config") && h.has("rds") {
		cm.routeConfig = h.sub("rds").str("route_config_name")
	}
	b.conn[ln] = cm

	switch {
	case h.has("route_config"):
		b.routeConfig(ln, h.sub("route_config"), n.get("route_config"))
	case h.has("rds"):
		if rc, ok := b.routes[cm.routeConfig]; ok {
			b.in(rc.file).routeConfig(ln, rc.msg, rc.n)
		}
	}
}

// ---- routes ----

func (b *builder) routeConfig(ln *model.Listener, rc msg, n *node) {
	for vi, vh := range rc.list("virtual_hosts") {
		b.virtualHost(ln, vh, n.get("virtual_hosts").item(vi))
	}
}

func (b *builder) virtualHost(ln *model.Listener, vh msg, n *node) {
	for ri, r := range vh.list("routes") {
		b.route(ln, vh, n, r, n.get("routes").item(ri))
	}
}

func (b *builder) route(ln *model.Listener, vh msg, vhNode *node, r msg, n *node) {
	rt := &model.Route{Listener: ln, Kind: "route", Pos: b.pos(n)}
	m, mNode := r.sub("match"), n.get("match")
	switch {
	case m.oneof("path_specifier") == "prefix":
		rt.Match = model.Match{Kind: model.MatchPrefix, Path: m.str("prefix")}
		rt.Name = "route " + m.str("prefix")
	case m.str("path") != "":
		rt.Match = model.Match{Kind: model.MatchExact, Path: m.str("path")}
		rt.Name = "route = " + m.str("path")
	case m.has("safe_regex"):
		rx := m.sub("safe_regex").str("regex")
		rt.Match = model.Match{Kind: model.MatchRegex, Path: rx}
		rt.Name = "route ~ " + rx
	case m.str("path_separated_prefix") != "":
		rt.Match = model.Match{Kind: model.MatchPrefix, Path: m.str("path_separated_prefix")}
		rt.Name = "route " + m.str("path_separated_prefix")
	default:
		rt.Name = "route"
	}
	cs, set := m.wrapped("case_sensitive")
	rt.Match.CaseSensitive = !set || cs.Bool()
	rt.Methods = b.methods(m.list("headers"), mNode.get("headers"))

	ra, raNode := r.sub("route"), n.get("route")
	if !ra.ok() {
		ln.Routes = append(ln.Routes, rt) // redirect, direct response: nothing proxied
		return
	}
	raKey, _ := n.field("route")
	block := raNode
	if raKey != nil {
		block = raKey
	}
	e := &model.EnvoyRoute{}
	rt.Envoy = e
	rt.Forward = b.forward(ra, raNode, rt)
	if rt.Forward != nil && rt.Forward.Upstream != nil {
		rt.ConnectTimeout = rt.Forward.Upstream.ConnectTimeout
	}
	e.Timeout = b.durSetting(ra, raNode, "timeout", "route", defaultRouteTimeout, block)
	if ra.has("idle_timeout") {
		e.IdleTimeout = b.durSetting(ra, raNode, "idle_timeout", "route", 0, block)
	} else {
		// The connection manager's (unset for routes whose connection
		// manager is not in the file).
		e.IdleTimeout = b.conn[ln].streamIdle
	}

	// A route's retry policy replaces the virtual host's entirely.
	switch {
	case ra.has("retry_policy"):
		rt.Retry = b.retry(ra.sub("retry_policy"), raNode, "route", e)
	case vh.has("retry_policy"):
		rt.Retry = b.retry(vh.sub("retry_policy"), vhNode, "virtual_host", e)
	}
	rt.Stream = stream(b, r, n, e.Timeout)
	behaviour(rt, b.pools)
	ln.Routes = append(ln.Routes, rt)
}

func (b *builder) forward(ra msg, n *node, rt *model.Route) *model.Forward {
	p := &model.Forward{Module: "envoy", CanPool: true}
	switch {
	case ra.str("cluster") != "":
		key, _ := n.field("cluster")
		p.Name, p.URL, p.Pos = fieldName(key, "cluster"), ra.str("cluster"), b.pos(orNode(key, n))
	case ra.has("weighted_clusters"):
		key, wn := n.field("weighted_clusters")
		p.Name, p.Pos = fieldName(key, "weighted_clusters"), b.pos(orNode(key, n))
		if cs := ra.sub("weighted_clusters").list("clusters"); len(cs) > 0 {
			p.URL = cs[0].str("name")
			if cn := wn.get("clusters").item(0); cn != nil {
				p.Pos = b.pos(cn)
			}
		}
	case ra.str("cluster_header") != "":
		key, _ := n.field("cluster_header")
		p.Name, p.URL, p.Pos, p.Variable = fieldName(key, "cluster_header"), ra.str("cluster_header"), b.pos(orNode(key, n)), true
	default:
		p.Name, p.Pos, p.Variable = "route", b.pos(n), true
	}
	p.Target = model.Address{Host: p.URL, Pos: p.Pos}
	if !p.Variable {
		if u, ok := b.clusters[p.URL]; ok {
			p.Upstream = u
			if b.links != nil {
				*b.links = append(*b.links, routeLink{u, rt})
			} else {
				u.Routes = append(u.Routes, rt)
			}
		}
	}
	return p
}

func fieldName(key *node, def string) string {
	if key != nil {
		return key.text()
	}
	return def
}

func orNode(a, b *node) *node {
	if a != nil {
		return a
	}
	return b
}

func (b *builder) retry(rp msg, owner *node, level string, e *model.EnvoyRoute) model.Retry {
	key, n := owner.field("retry_policy")
	block := orNode(key, owner)
	name := fieldName(key, "retry_policy")
	var r model.Retry
	if onKey, onNode := n.field("retry_on"); onKey != nil {
		var toks []string
		for _, t := range splitRetryOn(onNode) {
			toks = append(toks, t.text)
			if !KnownRetryOn(t.text, b.proxy.Target) {
				r.Unknown = append(r.Unknown, model.UnknownCondition{
					Setting: model.Set(t.text, name+"."+onKey.text(), level, model.Pos{File: b.file, Line: int32(t.line), Col: int32(t.col)}),
					Since:   retryOnSince(t.text),
					Known:   RetryOnTokens(),
				})
			}
		}
		var kept []string
		for _, t := range toks {
			if KnownRetryOn(t, b.proxy.Target) {
				kept = append(kept, t)
			}
		}
		for i := range r.Unknown {
			r.Unknown[i].Kept = kept
		}
		r.On = model.Set(toks, name+"."+onKey.text(), level, b.pos(onKey))
	} else {
		r.On = model.Default([]string(nil), name+".retry_on", b.pos(block))
	}
	e.NumRetries = b.uintSetting(rp, n, "num_retries", level, defaultNumRetries, block)
	e.PerTryTimeout = b.durSetting(rp, n, "per_try_timeout", level, 0, block)
	e.NumRetries = e.NumRetries.WithName(qualify(name, e.NumRetries.Name()))
	e.PerTryTimeout = e.PerTryTimeout.WithName(qualify(name, e.PerTryTimeout.Name()))
	e.RetriableMethods = b.retriableMethods(rp.list("retriable_request_headers"), n.get("retriable_request_headers"))
	r.MethodFilter = name + ".retriable_request_headers"
	e.BackOffBase, e.BackOffMax = b.backOff(rp, n, name, level, block)
	e.RetryPolicy = policyIdentity(rp)
	return r
}

// policyIdentity is a retry policy's identity (messageIdentity): equal for
// equal policies. (The messages inside its Anys, held apart while a load
// runs, count by their type.)
func policyIdentity(rp msg) string {
	if !rp.ok() {
		return ""
	}
	id, ok := messageIdentity(rp.m)
	if !ok {
		return ""
	}
	return id
}

// Envoy's retry back-off: RetryStateImpl's constructor
// (source/common/router/retry_state_impl.cc) takes base_interval from the
// policy, else the runtime key upstream.base_retry_backoff_ms (25 ms), and
// max_interval from the policy, else ten times the base; the wait before
// a retry is random below the current interval, which doubles from the
// base up to the maximum (JitteredExponentialBackOffStrategy::nextBackOffMs
// in source/common/common/backoff_strategy.cc).
const defaultBackOffBase = 25 * time.Millisecond

func (b *builder) backOff(rp msg, n *node, name, level string, block *node) (base, maxi model.Setting[time.Duration]) {
	bo := rp.sub("retry_back_off")
	key, boNode := n.field("retry_back_off")
	at := orNode(key, block)
	prefix := name + "." + fieldName(key, "retry_back_off")
	base = b.durSetting(bo, boNode, "base_interval", level, defaultBackOffBase, at)
	maxi = b.durSetting(bo, boNode, "max_interval", level, 10*base.Value, at)
	base, maxi = base.WithName(qualify(prefix, base.Name())), maxi.WithName(qualify(prefix, maxi.Name()))
	return base, maxi
}

func qualify(prefix, name string) string { return prefix + "." + name }

// ---- methods ----

// standardMethods are the methods a :method matcher is tested against.
var standardMethods = [...]string{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"}

// methods computes which methods pass the :method matchers among headers
// (all matchers must match, as Envoy requires).
func (b *builder) methods(headers []msg, n *node) model.Methods {
	out := model.Methods{Any: true}
	// Nearly every route has no :method matcher: nothing is made for it.
	var allowed [len(standardMethods)]bool
	for i := range allowed {
		allowed[i] = true
	}
	narrowed := false
	var at model.Pos
	for i, h := range headers {
		if h.str("name") != ":method" {
			continue
		}
		narrowed = true
		if !at.IsValid() {
			at = b.pos(n.item(i))
		}
		match, known := headerMatcher(h)
		if !known {
			return model.Methods{Any: true}
		}
		for j, m := range standardMethods {
			if !match(m) {
				allowed[j] = false
			}
		}
	}
	if !narrowed {
		return out
	}
	out.Any = false
	out = out.NarrowedBy(":method header matcher", at)
	for j, m := range standardMethods {
		if allowed[j] {
			out.Allowed = append(out.Allowed, m)
		}
	}
	if len(out.Allowed) == len(standardMethods) {
		out.Any, out.Allowed = true, nil
	}
	return out
}

// retriableMethods is what retriable_request_headers narrow retries to.
// Unlike a route's headers, which must all match, a request is retried
// when any one of them matches (RetryStateImpl checks
// retriable_request_headers with Http::HeaderUtility::matchHeaders in
// "any" mode; Envoy's test PolicyLimitedByRequestHeaders in
// test/common/router/retry_state_impl_test.cc retries a GET under matchers
// for GET and HEAD; docs/semantics.md §0b). So a matcher on another header
// lets every method through (the request need only carry that header),
// and :method matchers add up.
func (b *builder) retriableMethods(headers []msg, n *node) *model.Methods {
	if len(headers) == 0 {
		return nil
	}
	allowed := map[string]bool{}
	for _, h := range headers {
		if h.str("name") != ":method" {
			return nil
		}
		match, known := headerMatcher(h)
		if !known {
			return nil
		}
		for _, m := range standardMethods {
			if match(m) {
				allowed[m] = true
			}
		}
	}
	out := model.Methods{}.NarrowedBy("retriable_request_headers", b.pos(n.item(0)))
	for _, m := range standardMethods {
		if allowed[m] {
			out.Allowed = append(out.Allowed, m)
		}
	}
	if len(out.Allowed) == len(standardMethods) {
		return nil
	}
	return &out
}

// headerMatcher turns a header matcher into a test of one value; known is
// false when the matcher cannot be evaluated here (a custom matcher, a
// regex Go cannot compile). The deprecated specifiers (exact_match,
// safe_regex_match, ...) still match.
func headerMatcher(h msg) (match func(string) bool, known bool) {
	spec := h.oneof("header_match_specifier")
	switch spec {
	case "exact_match", "prefix_match", "suffix_match", "contains_match":
		if h.str(spec) == "" {
			return nil, false // an empty deprecated specifier is not read
		}
	}
	switch spec {
	case "string_match":
		match, known = stringMatcher(h.sub("string_match"))
	case "safe_regex_match":
		match, known = regexMatcher(h.sub("safe_regex_match").str("regex"), false)
	case "exact_match":
		want := h.str("exact_match")
		match, known = func(v string) bool { return v == want }, true
	case "prefix_match":
		p := h.str("prefix_match")
		match, known = func(v string) bool { return strings.HasPrefix(v, p) }, true
	case "suffix_match":
		sfx := h.str("suffix_match")
		match, known = func(v string) bool { return strings.HasSuffix(v, sfx) }, true
	case "contains_match":
		sub := h.str("contains_match")
		match, known = func(v string) bool { return strings.Contains(v, sub) }, true
	case "range_match":
		match, known = func(string) bool { return false }, true // a method is never a number
	case "present_match":
		present := h.flag("present_match")
		match, known = func(string) bool { return present }, true
	case "":
		match, known = func(string) bool { return true }, true // no specifier: the header must be present
	}
	if known && h.flag("invert_match") {
		inner := match
		match = func(v string) bool { return !inner(v) }
	}
	return match, known
}

func stringMatcher(m msg) (func(string) bool, bool) {
	fold := m.flag("ignore_case")
	norm := func(s string) string {
		if fold {
			return strings.ToLower(s)
		}
		return s
	}
	switch m.oneof("match_pattern") {
	case "exact":
		want := norm(m.str("exact"))
		return func(v string) bool { return norm(v) == want }, true
	case "prefix":
		p := norm(m.str("prefix"))
		return func(v string) bool { return strings.HasPrefix(norm(v), p) }, true
	case "suffix":
		sfx := norm(m.str("suffix"))
		return func(v string) bool { return strings.HasSuffix(norm(v), sfx) }, true
	case "contains":
		sub := norm(m.str("contains"))
		return func(v string) bool { return strings.Contains(norm(v), sub) }, true
	case "safe_regex":
		return regexMatcher(m.sub("safe_regex").str("regex"), fold)
	}
	return nil, false
}

// regexMatcher compiles an Envoy safe_regex, which must match the whole
// value. RE2's syntax is Go's.
func regexMatcher(re string, fold bool) (func(string) bool, bool) {
	prefix := ""
	if fold {
		prefix = "(?i)"
	}
	rx, err := regexp.Compile(prefix + `^(?:` + re + `)$`)
	if err != nil {
		return nil, false
	}
	return rx.MatchString, true
}
