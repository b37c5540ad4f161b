package envoy

import (
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

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
	routes   map[string]res[*routev3.RouteConfiguration]
	cla      map[string]res[*endpointv3.ClusterLoadAssignment]
	// conn is what each listener's connection manager gives its routes.
	conn map[*model.Listener]connManager
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
	return model.Pos{File: b.file, Line: int32(n.line), Col: int32(n.col)}
}

// build makes one proxy of a collection.
func build(file string, target model.Target, c *collection) *model.Proxy {
	p := &model.Proxy{Product: model.Envoy, Target: target, Entry: file, Pos: model.Pos{File: file, Line: 1, Col: 1}}
	b := &builder{
		file: file, proxy: p,
		clusters: map[string]*model.Upstream{},
		routes:   map[string]res[*routev3.RouteConfiguration]{},
		cla:      map[string]res[*endpointv3.ClusterLoadAssignment]{},
		conn:     map[*model.Listener]connManager{},
	}
	for _, r := range c.routes {
		if _, dup := b.routes[r.msg.GetName()]; !dup {
			b.routes[r.msg.GetName()] = r
		}
	}
	for _, e := range c.endpoints {
		if _, dup := b.cla[e.msg.GetClusterName()]; !dup {
			b.cla[e.msg.GetClusterName()] = e
		}
	}
	for _, cl := range c.clusters {
		u := b.upstream(cl.msg, cl.n)
		p.Upstreams = append(p.Upstreams, u)
		if _, dup := b.clusters[u.Name]; !dup {
			b.clusters[u.Name] = u
		}
	}
	for _, l := range c.listeners {
		b.listener(l.msg, l.n)
	}
	// A connection manager on its own (a fragment of a listener).
	for _, h := range c.hcms {
		ln := &model.Listener{Select: FirstMatch, Proxy: p, Name: "http connection manager " + h.msg.GetStatPrefix(), Pos: b.pos(h.n)}
		b.hcm(ln, h.msg, h.n, h.n)
		p.Listeners = append(p.Listeners, ln)
	}
	// Route configurations no listener of this file uses (a file of
	// route configurations, as a control plane serves them over RDS) are
	// linted too, under a listener that stands for the unknown one: its
	// connection manager settings are left unset.
	used := map[string]bool{}
	for _, l := range p.Listeners {
		used[b.conn[l].routeConfig] = true
	}
	for _, rc := range c.routes {
		if used[rc.msg.GetName()] {
			continue
		}
		used[rc.msg.GetName()] = true
		ln := &model.Listener{
			Select: FirstMatch,
			Proxy:  p,
			Name:   fmt.Sprintf("route configuration %q (its listener is not in this file)", rc.msg.GetName()),
			Pos:    b.pos(rc.n),
		}
		b.routeConfig(ln, rc.msg, rc.n)
		p.Listeners = append(p.Listeners, ln)
	}
	// Virtual hosts on their own (a fragment of a route configuration).
	if len(c.vhosts) > 0 {
		ln := &model.Listener{Select: FirstMatch, Proxy: p, Name: "virtual hosts (their listener is not in this file)", Pos: b.pos(c.vhosts[0].n)}
		for _, vh := range c.vhosts {
			b.virtualHost(ln, vh.msg, vh.n)
		}
		p.Listeners = append(p.Listeners, ln)
	}
	return p
}

// ---- settings ----

func (b *builder) durSetting(block *node, name, level string, d *durationpb.Duration, def time.Duration, defBlock *node) model.Setting[time.Duration] {
	if d != nil {
		key, _ := block.field(name)
		if key == nil {
			return model.Set(d.AsDuration(), name, level, b.pos(block))
		}
		return model.Set(d.AsDuration(), key.value, level, b.pos(key))
	}
	return model.Default(def, name, b.pos(defBlock))
}

func (b *builder) boolSetting(block *node, name, level string, v, def bool, defBlock *node) model.Setting[bool] {
	if key, _ := block.field(name); key != nil {
		return model.Set(v, key.value, level, b.pos(key))
	}
	return model.Default(def, name, b.pos(defBlock))
}

func (b *builder) uintSetting(block *node, name, level string, v *wrapperspb.UInt32Value, def int, defBlock *node) model.Setting[int] {
	if v != nil {
		key, _ := block.field(name)
		if key == nil {
			return model.Set(int(v.GetValue()), name, level, b.pos(block))
		}
		return model.Set(int(v.GetValue()), key.value, level, b.pos(key))
	}
	return model.Default(def, name, b.pos(defBlock))
}

// ---- clusters ----

func (b *builder) upstream(cl *clusterv3.Cluster, n *node) *model.Upstream {
	u := &model.Upstream{Proxy: b.proxy, Kind: "cluster", Name: cl.GetName(), Pos: b.pos(n), ClosedUnderRequest: closedUnderRequest}
	u.ConnectTimeout = b.durSetting(n, "connect_timeout", "cluster", cl.GetConnectTimeout(), defaultConnectTimeout, n)

	// The upstream HTTP protocol options: the typed extension options, or
	// the deprecated cluster fields (docs/semantics.md §D).
	var opts *corev3.HttpProtocolOptions
	var optsNode *node
	tepo := n.get("typed_extension_protocol_options")
	for _, key := range sortedKeys(cl.GetTypedExtensionProtocolOptions()) {
		a := cl.GetTypedExtensionProtocolOptions()[key]
		inner, err := unpack(a)
		if err != nil {
			continue
		}
		if hpo, ok := inner.(*upstreamhttpv3.HttpProtocolOptions); ok {
			opts = hpo.GetCommonHttpProtocolOptions()
			optsNode = tepo.get(key).get("common_http_protocol_options")
			break
		}
	}
	level := "cluster"
	if opts == nil && cl.GetCommonHttpProtocolOptions() != nil { //nolint:staticcheck // the deprecated field still configures clusters
		opts = cl.GetCommonHttpProtocolOptions() //nolint:staticcheck // as above
		optsNode = n.get("common_http_protocol_options")
	}
	u.PoolIdle = b.durSetting(optsNode, "idle_timeout", level, opts.GetIdleTimeout(), defaultIdleTimeout, n)
	u.PoolLifetime = b.durSetting(optsNode, "max_connection_duration", level, opts.GetMaxConnectionDuration(), 0, n)

	// Servers: inline endpoints, or the EDS resource in the same file.
	la, laNode := cl.GetLoadAssignment(), n.get("load_assignment")
	if la == nil {
		name := cl.GetEdsClusterConfig().GetServiceName()
		if name == "" {
			name = cl.GetName()
		}
		if e, ok := b.cla[name]; ok {
			la, laNode = e.msg, e.n
		}
	}
	for li, lep := range la.GetEndpoints() {
		lepNode := laNode.get("endpoints").item(li)
		for ei, ep := range lep.GetLbEndpoints() {
			epNode := lepNode.get("lb_endpoints").item(ei)
			addrNode := epNode.get("endpoint").get("address")
			if s, ok := b.server(ep.GetEndpoint().GetAddress(), addrNode); ok {
				u.Servers = append(u.Servers, s)
			}
		}
	}
	return u
}

func (b *builder) server(a *corev3.Address, n *node) (model.Server, bool) {
	addr, ok := b.address(a, n)
	if !ok {
		return model.Server{}, false
	}
	literal := addr.Unix != "" || net.ParseIP(addr.Host) != nil
	return model.Server{Address: addr, Raw: addr.String(), Literal: literal, Pos: addr.Pos}, true
}

func (b *builder) address(a *corev3.Address, n *node) (model.Address, bool) {
	switch {
	case a.GetSocketAddress() != nil:
		sa := a.GetSocketAddress()
		sn := n.get("socket_address")
		at := sn
		if k, _ := sn.field("address"); k != nil {
			at = k
		}
		return model.Address{Host: sa.GetAddress(), Port: int(sa.GetPortValue()), Pos: b.pos(at)}, true
	case a.GetPipe() != nil:
		return model.Address{Unix: a.GetPipe().GetPath(), Pos: b.pos(n.get("pipe"))}, true
	}
	return model.Address{}, false
}

// ---- listeners ----

func (b *builder) listener(l *listenerv3.Listener, n *node) {
	type chain struct {
		fc *listenerv3.FilterChain
		n  *node
	}
	var chains []chain
	for i, fc := range l.GetFilterChains() {
		chains = append(chains, chain{fc, n.get("filter_chains").item(i)})
	}
	if fc := l.GetDefaultFilterChain(); fc != nil {
		chains = append(chains, chain{fc, n.get("default_filter_chain")})
	}
	var addrs []model.Address
	if a, ok := b.address(l.GetAddress(), n.get("address")); ok {
		addrs = append(addrs, a)
	}
	var hcms []*model.Listener
	for ci, ch := range chains {
		for fi, f := range ch.fc.GetFilters() {
			tc := f.GetTypedConfig()
			if tc == nil {
				continue
			}
			inner, err := unpack(tc)
			if err != nil {
				continue
			}
			hcm, ok := inner.(*hcmv3.HttpConnectionManager)
			if !ok {
				continue
			}
			fNode := ch.n.get("filters").item(fi)
			name := l.GetName()
			if len(chains) > 1 {
				switch {
				case ch.fc.GetName() != "":
					name += " filter chain " + ch.fc.GetName()
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
	b.proxy.Listeners = append(b.proxy.Listeners, hcms...)
}

// hcm fills a listener from an HttpConnectionManager read from node n;
// defaults point at block, the typed_config that holds it.
func (b *builder) hcm(ln *model.Listener, h *hcmv3.HttpConnectionManager, n, block *node) {
	const level = "hcm"
	if key, _ := n.field("codec_type"); key != nil {
		ln.Codec = model.Set(h.GetCodecType().String(), key.value, level, b.pos(key))
	} else {
		ln.Codec = model.Default("AUTO", "codec_type", b.pos(block))
	}
	opts, optsNode := h.GetCommonHttpProtocolOptions(), n.get("common_http_protocol_options")
	ln.IdleTimeout = b.durSetting(optsNode, "idle_timeout", level, opts.GetIdleTimeout(), defaultIdleTimeout, block)
	ln.MaxConnectionDuration = b.durSetting(optsNode, "max_connection_duration", level, opts.GetMaxConnectionDuration(), 0, block)
	ln.H1SafeMaxConnectionDuration = b.boolSetting(n, "http1_safe_max_connection_duration", level, h.GetHttp1SafeMaxConnectionDuration(), false, block)
	ln.DrainTimeout = b.durSetting(n, "drain_timeout", level, h.GetDrainTimeout(), defaultDrainTimeout, block)
	ln.DelayedCloseTimeout = b.durSetting(n, "delayed_close_timeout", level, h.GetDelayedCloseTimeout(), defaultDelayedClose, block)
	ln.RequestTimeout = b.durSetting(n, "request_timeout", level, h.GetRequestTimeout(), 0, block)
	cm := connManager{streamIdle: b.durSetting(n, "stream_idle_timeout", level, h.GetStreamIdleTimeout(), defaultStreamIdleTimeout, block)}
	if h.GetRouteConfig() == nil && h.GetRds() != nil {
		cm.routeConfig = h.GetRds().GetRouteConfigName()
	}
	b.conn[ln] = cm

	switch {
	case h.GetRouteConfig() != nil:
		b.routeConfig(ln, h.GetRouteConfig(), n.get("route_config"))
	case h.GetRds() != nil:
		if rc, ok := b.routes[cm.routeConfig]; ok {
			b.routeConfig(ln, rc.msg, rc.n)
		}
	}
}

// ---- routes ----

func (b *builder) routeConfig(ln *model.Listener, rc *routev3.RouteConfiguration, n *node) {
	for vi, vh := range rc.GetVirtualHosts() {
		b.virtualHost(ln, vh, n.get("virtual_hosts").item(vi))
	}
}

func (b *builder) virtualHost(ln *model.Listener, vh *routev3.VirtualHost, n *node) {
	for ri, r := range vh.GetRoutes() {
		b.route(ln, vh, n, r, n.get("routes").item(ri))
	}
}

func (b *builder) route(ln *model.Listener, vh *routev3.VirtualHost, vhNode *node, r *routev3.Route, n *node) {
	rt := &model.Route{Listener: ln, Kind: "route", Pos: b.pos(n)}
	m, mNode := r.GetMatch(), n.get("match")
	switch {
	case m.GetPrefix() != "" || (m.GetPathSpecifier() != nil && isPrefix(m)):
		rt.Match = model.Match{Kind: model.MatchPrefix, Path: m.GetPrefix()}
		rt.Name = "route " + m.GetPrefix()
	case m.GetPath() != "":
		rt.Match = model.Match{Kind: model.MatchExact, Path: m.GetPath()}
		rt.Name = "route = " + m.GetPath()
	case m.GetSafeRegex() != nil:
		rt.Match = model.Match{Kind: model.MatchRegex, Path: m.GetSafeRegex().GetRegex()}
		rt.Name = "route ~ " + m.GetSafeRegex().GetRegex()
	case m.GetPathSeparatedPrefix() != "":
		rt.Match = model.Match{Kind: model.MatchPrefix, Path: m.GetPathSeparatedPrefix()}
		rt.Name = "route " + m.GetPathSeparatedPrefix()
	default:
		rt.Name = "route"
	}
	rt.Match.CaseSensitive = m.GetCaseSensitive() == nil || m.GetCaseSensitive().GetValue()
	rt.Methods = b.methods(m.GetHeaders(), mNode.get("headers"))

	ra, raNode := r.GetRoute(), n.get("route")
	if ra == nil {
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
	e.Timeout = b.durSetting(raNode, "timeout", "route", ra.GetTimeout(), defaultRouteTimeout, block)
	if ra.GetIdleTimeout() != nil {
		e.IdleTimeout = b.durSetting(raNode, "idle_timeout", "route", ra.GetIdleTimeout(), 0, block)
	} else {
		// The connection manager's (unset for routes whose connection
		// manager is not in the file).
		e.IdleTimeout = b.conn[ln].streamIdle
	}

	// A route's retry policy replaces the virtual host's entirely.
	switch {
	case ra.GetRetryPolicy() != nil:
		rt.Retry = b.retry(ra.GetRetryPolicy(), raNode, "route", e)
	case vh.GetRetryPolicy() != nil:
		rt.Retry = b.retry(vh.GetRetryPolicy(), vhNode, "virtual_host", e)
	}
	rt.Stream = stream(b, r, n, e.Timeout)
	behaviour(rt)
	ln.Routes = append(ln.Routes, rt)
}

func isPrefix(m *routev3.RouteMatch) bool {
	_, ok := m.GetPathSpecifier().(*routev3.RouteMatch_Prefix)
	return ok
}

func (b *builder) forward(ra *routev3.RouteAction, n *node, rt *model.Route) *model.Forward {
	p := &model.Forward{Module: "envoy", CanPool: true}
	switch {
	case ra.GetCluster() != "":
		key, _ := n.field("cluster")
		p.Name, p.URL, p.Pos = fieldName(key, "cluster"), ra.GetCluster(), b.pos(orNode(key, n))
	case ra.GetWeightedClusters() != nil:
		key, wn := n.field("weighted_clusters")
		p.Name, p.Pos = fieldName(key, "weighted_clusters"), b.pos(orNode(key, n))
		if cs := ra.GetWeightedClusters().GetClusters(); len(cs) > 0 {
			p.URL = cs[0].GetName()
			if cn := wn.get("clusters").item(0); cn != nil {
				p.Pos = b.pos(cn)
			}
		}
	case ra.GetClusterHeader() != "":
		key, _ := n.field("cluster_header")
		p.Name, p.URL, p.Pos, p.Variable = fieldName(key, "cluster_header"), ra.GetClusterHeader(), b.pos(orNode(key, n)), true
	default:
		p.Name, p.Pos, p.Variable = "route", b.pos(n), true
	}
	p.Target = model.Address{Host: p.URL, Pos: p.Pos}
	if !p.Variable {
		if u, ok := b.clusters[p.URL]; ok {
			p.Upstream = u
			u.Routes = append(u.Routes, rt)
		}
	}
	return p
}

func fieldName(key *node, def string) string {
	if key != nil {
		return key.value
	}
	return def
}

func orNode(a, b *node) *node {
	if a != nil {
		return a
	}
	return b
}

func (b *builder) retry(rp *routev3.RetryPolicy, owner *node, level string, e *model.EnvoyRoute) model.Retry {
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
					Setting: model.Set(t.text, name+"."+onKey.value, level, model.Pos{File: b.file, Line: int32(t.line), Col: int32(t.col)}),
					Since:   retryOnTokens[t.text],
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
		r.On = model.Set(toks, name+"."+onKey.value, level, b.pos(onKey))
	} else {
		r.On = model.Default([]string(nil), name+".retry_on", b.pos(block))
	}
	e.NumRetries = b.uintSetting(n, "num_retries", level, rp.GetNumRetries(), defaultNumRetries, block)
	e.PerTryTimeout = b.durSetting(n, "per_try_timeout", level, rp.GetPerTryTimeout(), 0, block)
	e.NumRetries.Name = qualify(name, e.NumRetries.Name)
	e.PerTryTimeout.Name = qualify(name, e.PerTryTimeout.Name)
	e.RetriableMethods = b.retriableMethods(rp.GetRetriableRequestHeaders(), n.get("retriable_request_headers"))
	r.MethodFilter = name + ".retriable_request_headers"
	return r
}

func qualify(prefix, name string) string { return prefix + "." + name }

// ---- methods ----

// standardMethods are the methods a :method matcher is tested against.
var standardMethods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"}

// methods computes which methods pass the :method matchers among headers
// (all matchers must match, as Envoy requires).
func (b *builder) methods(headers []*routev3.HeaderMatcher, n *node) model.Methods {
	out := model.Methods{Any: true}
	allowed := map[string]bool{}
	for _, m := range standardMethods {
		allowed[m] = true
	}
	narrowed := false
	for i, h := range headers {
		if h.GetName() != ":method" {
			continue
		}
		narrowed = true
		if !out.Pos.IsValid() {
			out.Pos = b.pos(n.item(i))
		}
		match, known := headerMatcher(h)
		if !known {
			return model.Methods{Any: true}
		}
		for _, m := range standardMethods {
			if !match(m) {
				allowed[m] = false
			}
		}
	}
	if !narrowed {
		return out
	}
	out.Any = false
	out.Source = ":method header matcher"
	for _, m := range standardMethods {
		if allowed[m] {
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
func (b *builder) retriableMethods(headers []*routev3.HeaderMatcher, n *node) model.Methods {
	if len(headers) == 0 {
		return model.Methods{Any: true}
	}
	allowed := map[string]bool{}
	for _, h := range headers {
		if h.GetName() != ":method" {
			return model.Methods{Any: true}
		}
		match, known := headerMatcher(h)
		if !known {
			return model.Methods{Any: true}
		}
		for _, m := range standardMethods {
			if match(m) {
				allowed[m] = true
			}
		}
	}
	out := model.Methods{Pos: b.pos(n.item(0)), Source: "retriable_request_headers"}
	for _, m := range standardMethods {
		if allowed[m] {
			out.Allowed = append(out.Allowed, m)
		}
	}
	if len(out.Allowed) == len(standardMethods) {
		return model.Methods{Any: true}
	}
	return out
}

// headerMatcher turns a header matcher into a test of one value; known is
// false when the matcher cannot be evaluated here (a custom matcher, a
// regex Go cannot compile).
func headerMatcher(h *routev3.HeaderMatcher) (match func(string) bool, known bool) {
	switch {
	case h.GetStringMatch() != nil:
		match, known = stringMatcher(h.GetStringMatch())
	case h.GetSafeRegexMatch() != nil: //nolint:staticcheck // deprecated fields still match
		match, known = regexMatcher(h.GetSafeRegexMatch().GetRegex(), false) //nolint:staticcheck // as above
	case h.GetExactMatch() != "": //nolint:staticcheck // as above
		want := h.GetExactMatch() //nolint:staticcheck // as above
		match, known = func(v string) bool { return v == want }, true
	case h.GetPrefixMatch() != "": //nolint:staticcheck // as above
		p := h.GetPrefixMatch() //nolint:staticcheck // as above
		match, known = func(v string) bool { return strings.HasPrefix(v, p) }, true
	case h.GetSuffixMatch() != "": //nolint:staticcheck // as above
		sfx := h.GetSuffixMatch() //nolint:staticcheck // as above
		match, known = func(v string) bool { return strings.HasSuffix(v, sfx) }, true
	case h.GetContainsMatch() != "": //nolint:staticcheck // as above
		sub := h.GetContainsMatch() //nolint:staticcheck // as above
		match, known = func(v string) bool { return strings.Contains(v, sub) }, true
	case h.GetRangeMatch() != nil:
		match, known = func(string) bool { return false }, true // a method is never a number
	case h.GetHeaderMatchSpecifier() != nil:
		if _, isPresent := h.GetHeaderMatchSpecifier().(*routev3.HeaderMatcher_PresentMatch); isPresent {
			present := h.GetPresentMatch()
			match, known = func(string) bool { return present }, true
		}
	default:
		match, known = func(string) bool { return true }, true // no specifier: the header must be present
	}
	if known && h.GetInvertMatch() {
		inner := match
		match = func(v string) bool { return !inner(v) }
	}
	return match, known
}

func stringMatcher(m *matcherv3.StringMatcher) (func(string) bool, bool) {
	fold := m.GetIgnoreCase()
	norm := func(s string) string {
		if fold {
			return strings.ToLower(s)
		}
		return s
	}
	switch m.GetMatchPattern().(type) {
	case *matcherv3.StringMatcher_Exact:
		want := norm(m.GetExact())
		return func(v string) bool { return norm(v) == want }, true
	case *matcherv3.StringMatcher_Prefix:
		p := norm(m.GetPrefix())
		return func(v string) bool { return strings.HasPrefix(norm(v), p) }, true
	case *matcherv3.StringMatcher_Suffix:
		sfx := norm(m.GetSuffix())
		return func(v string) bool { return strings.HasSuffix(norm(v), sfx) }, true
	case *matcherv3.StringMatcher_Contains:
		sub := norm(m.GetContains())
		return func(v string) bool { return strings.Contains(norm(v), sub) }, true
	case *matcherv3.StringMatcher_SafeRegex:
		return regexMatcher(m.GetSafeRegex().GetRegex(), fold)
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
