package envoy

import (
	"fmt"
	"sort"

	"google.golang.org/protobuf/proto"

	"github.com/proxylint/proxylint/model"
)

// Envoy's own checks beyond the schema: what Envoy refuses when it builds
// listeners, clusters and routes from a configuration that decodes and
// validates. They run on what a person or a control plane wrote; a config
// dump holds what Envoy already accepted, and is not checked again.

// decoded is a root with the message read from it.
type decoded struct {
	r root
	m proto.Message
}

// runChecks runs Envoy's checks on the roots of one file.
func (l *loader) runChecks(ds []decoded) {
	type named struct {
		name string
		n    *node
	}
	xdsListeners := map[string][]named{}
	xdsClusters := map[string][]named{}
	for _, d := range ds {
		if d.r.state || d.r.inDump {
			continue
		}
		m := wrap(d.m.ProtoReflect(), l.errs)
		if m.name() == nameAny {
			inner, ok := payload(m)
			if !ok {
				continue
			}
			m = inner
		}
		switch m.name() {
		case nameBootstrap:
			l.checkBootstrap(m, d.r.n)
		case nameListener:
			xdsListeners[d.r.group] = append(xdsListeners[d.r.group], named{m.str("name"), d.r.n})
			l.checkListener(m, d.r.n, nil)
		case nameCluster:
			xdsClusters[d.r.group] = append(xdsClusters[d.r.group], named{m.str("name"), d.r.n})
		case nameConnectionManager:
			l.checkTerminal(m, d.r.n)
		}
	}
	// A discovery response (or a file of resources Envoy reads as one)
	// may not name two resources alike: LdsApiImpl::onConfigUpdate
	// (envoyproxy/envoy source/common/listener_manager/lds_api.cc) refuses
	// the second with "duplicate listener {} found", and CdsApiHelper
	// (source/common/upstream/cds_api_helper.cc) with "duplicate cluster
	// {} found".
	report := func(kind string, byGroup map[string][]named) {
		groups := make([]string, 0, len(byGroup))
		for g := range byGroup {
			groups = append(groups, g)
		}
		sort.Strings(groups)
		for _, g := range groups {
			first := map[string]*node{}
			for _, it := range byGroup[g] {
				if f, dup := first[it.name]; dup {
					l.diags = append(l.diags, errorAt(l.pos(nameNode(it.n)),
						fmt.Sprintf("duplicate %s %s found: Envoy refuses the second %s of a discovery response with the same name (the first is at line %d)", kind, it.name, kind, nameNode(f).line)))
					continue
				}
				first[it.name] = it.n
			}
		}
	}
	report("listener", xdsListeners)
	report("cluster", xdsClusters)
}

// nameNode is the node of a resource's name, or the resource's.
func nameNode(n *node) *node {
	if k, _ := n.field("name"); k != nil {
		return k
	}
	return n
}

// checkBootstrap runs the checks of the static resources of a bootstrap.
func (l *loader) checkBootstrap(b msg, n *node) {
	srn := n.get("static_resources")
	sr := b.sub("static_resources")
	// Static clusters: ClusterManagerImpl::loadCluster (envoyproxy/envoy
	// source/common/upstream/cluster_manager_impl.cc) refuses a second
	// cluster of the same name, "cluster manager: duplicate cluster '{}'"
	// (test/server/server_test.cc, BootstrapClusterManagerInitializationFail).
	clusters := map[string]bool{}
	firstCluster := map[string]*node{}
	// The names are read from the tree, so that a cluster left out by a
	// decoding error still counts as defined.
	for _, cn := range srn.get("clusters").items() {
		name := cn.get("name").str()
		if f, dup := firstCluster[name]; dup {
			l.diags = append(l.diags, errorAt(l.pos(nameNode(cn)),
				fmt.Sprintf("cluster manager: duplicate cluster '%s': a static cluster of this name is already defined at line %d", name, nameNode(f).line)))
			continue
		}
		firstCluster[name] = cn
		clusters[name] = true
	}
	// Static listeners: ListenerManagerImpl::addOrUpdateListenerInternal
	// (source/common/listener_manager/listener_manager_impl.cc) skips a
	// listener whose name is taken by a listener that cannot be updated,
	// as static ones cannot ("duplicate/locked listener '{}'. no
	// add/update", logged at debug level only), so the second listener is
	// silently never created.
	firstListener := map[string]*node{}
	for _, ln := range srn.get("listeners").items() {
		name := ln.get("name").str()
		if name == "" {
			continue // Envoy names it with a random UUID
		}
		if f, dup := firstListener[name]; dup {
			d := errorAt(l.pos(nameNode(ln)),
				fmt.Sprintf("duplicate listener '%s': Envoy keeps the static listener of this name at line %d and silently never creates this one", name, nameNode(f).line))
			d.Severity = model.Warning
			l.diags = append(l.diags, d)
			continue
		}
		firstListener[name] = ln
	}
	// Routes of a static route table must name clusters the cluster
	// manager knows when the listener is built: RouteEntryImplBase::
	// validateClusters (source/common/router/config_impl.cc) refuses
	// "route: unknown cluster '{}'". The check runs when validate_clusters
	// is true, which is its default for a route_config written inside the
	// connection manager (envoyproxy/data-plane-api
	// envoy/config/route/v3/route.proto:93-106). CDS clusters are not
	// known yet when static listeners are built, so with a cds_config the
	// check is left to Envoy.
	var knownClusters map[string]bool
	if !b.sub("dynamic_resources").has("cds_config") {
		knownClusters = clusters
	}
	for i, lst := range sr.list("listeners") {
		l.checkListener(lst, srn.get("listeners").item(i), knownClusters)
	}
}

// checkListener checks the connection managers of a listener; with
// clusters non-nil, the clusters their inline route tables name must be
// among them.
func (l *loader) checkListener(lst msg, n *node, clusters map[string]bool) {
	chains := lst.list("filter_chains")
	chainNodes := n.get("filter_chains").items()
	if dc := lst.sub("default_filter_chain"); dc.ok() {
		chains = append(chains, dc)
		chainNodes = append(chainNodes, n.get("default_filter_chain"))
	}
	for i, fc := range chains {
		if i >= len(chainNodes) {
			break
		}
		fnodes := chainNodes[i].get("filters").items()
		for j, f := range fc.list("filters") {
			if j >= len(fnodes) {
				continue
			}
			hcm, ok := payload(f.sub("typed_config"))
			if !ok || hcm.name() != nameConnectionManager {
				continue
			}
			hn := fnodes[j].get("typed_config")
			l.checkTerminal(hcm, hn)
			if rc := hcm.sub("route_config"); rc.ok() && clusters != nil {
				l.checkRouteClusters(rc, hn.get("route_config"), clusters)
			}
		}
	}
}

// nonTerminalHTTPFilters are HTTP filters that pass requests on: none of
// their factories declares itself terminal (isTerminalFilterByProto), so
// Envoy refuses one as the last filter of a chain.
var nonTerminalHTTPFilters = map[string]bool{
	"envoy.extensions.filters.http.buffer.v3.Buffer":                           true,
	"envoy.extensions.filters.http.compressor.v3.Compressor":                   true,
	"envoy.extensions.filters.http.cors.v3.Cors":                               true,
	"envoy.extensions.filters.http.decompressor.v3.Decompressor":               true,
	"envoy.extensions.filters.http.ext_authz.v3.ExtAuthz":                      true,
	"envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor":              true,
	"envoy.extensions.filters.http.fault.v3.HTTPFault":                         true,
	"envoy.extensions.filters.http.grpc_stats.v3.FilterConfig":                 true,
	"envoy.extensions.filters.http.grpc_web.v3.GrpcWeb":                        true,
	"envoy.extensions.filters.http.header_mutation.v3.HeaderMutation":          true,
	"envoy.extensions.filters.http.health_check.v3.HealthCheck":                true,
	"envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication":             true,
	"envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit":          true,
	"envoy.extensions.filters.http.lua.v3.Lua":                                 true,
	"envoy.extensions.filters.http.ratelimit.v3.RateLimit":                     true,
	"envoy.extensions.filters.http.rbac.v3.RBAC":                               true,
	"envoy.extensions.filters.http.oauth2.v3.OAuth2":                           true,
	"envoy.extensions.filters.http.grpc_json_transcoder.v3.GrpcJsonTranscoder": true,
}

// checkTerminal checks that an HTTP filter chain ends in a terminal
// filter: Config::Utility::validateTerminalFilters (envoyproxy/envoy
// source/common/config/utility.h) refuses "Error: non-terminal filter
// named {} of type {} is the last filter in a http filter chain."
// (test/extensions/filters/network/http_connection_manager/config_test.cc,
// NonTerminalFilter). Only filters known not to be terminal are judged:
// a filter proxylint does not know may be.
func (l *loader) checkTerminal(hcm msg, n *node) {
	filters := hcm.list("http_filters")
	items := n.get("http_filters").items()
	if len(filters) == 0 || len(items) != len(filters) {
		return
	}
	last := filters[len(filters)-1]
	if !last.has("typed_config") || last.flag("is_optional") || last.flag("disabled") {
		return
	}
	t := typeName(last.sub("typed_config").str("type_url"))
	if !nonTerminalHTTPFilters[t] {
		return
	}
	l.diags = append(l.diags, errorAt(l.pos(items[len(items)-1]),
		fmt.Sprintf("non-terminal filter named %s of type %s is the last filter in a http filter chain: Envoy refuses the chain; end it with the router (envoy.filters.http.router)", last.str("name"), t)))
}

// checkRouteClusters reports the routes of a static route table that name
// a cluster not among clusters.
func (l *loader) checkRouteClusters(rc msg, n *node, clusters map[string]bool) {
	if v, set := rc.wrapped("validate_clusters"); set && !v.Bool() {
		return
	}
	vhNodes := n.get("virtual_hosts").items()
	for i, vh := range rc.list("virtual_hosts") {
		if i >= len(vhNodes) {
			return
		}
		rNodes := vhNodes[i].get("routes").items()
		for j, r := range vh.list("routes") {
			if j >= len(rNodes) {
				break
			}
			an := rNodes[j].get("route")
			ra := r.sub("route")
			if !ra.ok() {
				continue
			}
			if c := ra.str("cluster"); c != "" && !clusters[c] {
				_, at := an.field("cluster")
				l.diags = append(l.diags, errorAt(l.pos(at),
					fmt.Sprintf("route: unknown cluster '%s': no static cluster has this name, and Envoy validates the clusters of a route table written in the connection manager", c)))
			}
			wcNodes := an.get("weighted_clusters").get("clusters").items()
			for k, wc := range ra.sub("weighted_clusters").list("clusters") {
				if c := wc.str("name"); c != "" && !clusters[c] && k < len(wcNodes) {
					_, at := wcNodes[k].field("name")
					l.diags = append(l.diags, errorAt(l.pos(at),
						fmt.Sprintf("route: unknown weighted cluster '%s': no static cluster has this name, and Envoy validates the clusters of a route table written in the connection manager", c)))
				}
			}
		}
	}
}
