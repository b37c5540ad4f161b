package envoy

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A file holds Envoy configuration in one of several shapes; the content
// tells which, as Envoy's own tools leave no marker:
//   - a bootstrap (static_resources, dynamic_resources, admin, ...);
//   - an admin /config_dump ({"configs": [Any...]});
//   - a single xDS resource, with "@type" or recognised by its fields;
//   - a list of resources, or {"resources": [...]} as file-based xDS reads;
//   - a fragment of a config dump (a list of dynamic_active_clusters
//     entries, say);
//   - any of these wrapped under names (egctl prints {namespace: {name:
//     config}}), or a map of names to resources.

// root is a part of the tree to decode as one message.
type root struct {
	n  *node
	mt protoreflect.FullName // the message type to read it as
	// group names the proxy the root belongs to: "" for the file's
	// configuration, the wrapping keys for configurations wrapped under
	// names.
	group string
	// dumped marks the bootstrap inside a config dump: its static
	// resources appear again in the dump's listener and cluster sections.
	dumped bool
	// inDump marks a root read from an admin config dump: Envoy wrote it,
	// so fields of the release that wrote it are accepted (see
	// emitter.dump).
	inDump bool
	// state marks Envoy's runtime state in a config dump (the endpoints
	// EDS or the cluster manager computed): read for the model, not judged.
	state bool
	// checkOnly marks a resource that is validated but not modelled: a
	// listener or cluster still warming, which replaces the active one
	// only once it is ready.
	checkOnly bool
	// version is the Envoy release that wrote the config dump, when the
	// dump says.
	version string
}

// candidate is a resource type recognised by its fields.
type candidate struct {
	mt          protoreflect.FullName
	distinctive []string // fields only this type has
}

var candidates = []candidate{
	{nameListener, []string{
		"filter_chains", "listener_filters", "default_filter_chain", "api_listener", "internal_listener",
		"udp_listener_config", "additional_addresses", "use_original_dst", "listener_filters_timeout", "per_connection_buffer_limit_bytes_listener"}},
	{nameRouteConfiguration, []string{
		"virtual_hosts", "vhds", "cluster_specifier_plugins", "internal_only_headers", "validate_clusters"}},
	{nameCluster, []string{
		"connect_timeout", "load_assignment", "lb_policy", "eds_cluster_config", "cluster_type",
		"typed_extension_protocol_options", "circuit_breakers", "dns_lookup_family", "outlier_detection",
		"health_checks", "http2_protocol_options", "transport_socket_matches", "upstream_connection_options",
		"common_lb_config", "lb_subset_config", "dns_refresh_rate", "respect_dns_ttl", "load_balancing_policy",
		"http_protocol_options", "upstream_http_protocol_options", "cleanup_interval", "close_connections_on_host_health_failure"}},
	{nameClusterLoadAssign, []string{"endpoints", "named_endpoints"}},
	// Fragments people paste from a larger configuration: the HTTP
	// connection manager's typed_config, a virtual host.
	{nameConnectionManager, []string{
		"stat_prefix", "http_filters", "codec_type", "route_config", "rds", "scoped_routes", "common_http_protocol_options",
		"http1_safe_max_connection_duration", "stream_idle_timeout", "request_timeout", "drain_timeout", "delayed_close_timeout"}},
	{nameVirtualHost, []string{"domains"}},
}

// dumpEntryKeys hold the resource in the entries of a config dump's lists.
var dumpEntryKeys = []string{"listener", "cluster", "route_config", "endpoint_config"}

// dumpSection reads one section of an admin config dump. The sections are
// read by their structure rather than decoded as admin messages: a dump is
// Envoy's own output, so there are no typos to find in its wrapping, and
// the resources inside are decoded and checked like any others.
//
// Only what a person or a control plane wrote is judged: the listeners,
// clusters, route configurations and secrets, static or from xDS, active
// or warming (envoy.admin.v3.ListenersConfigDump, ClustersConfigDump,
// RoutesConfigDump, SecretsConfigDump in envoyproxy/data-plane-api
// envoy/admin/v3/config_dump_shared.proto). Envoy's runtime state is read
// but not judged: the endpoint sections (EndpointsConfigDump) are built by
// the cluster manager from its host sets, with health and computed
// weights; last_updated, error_state and client_status describe xDS
// updates, not configuration, and are never decoded.
func (c *classifier) dumpSection(n *node, group string) {
	t := n.get("@type").str()
	name := t[strings.LastIndexByte(t, '.')+1:]
	add := func(r *node, mt protoreflect.FullName, state, checkOnly bool) {
		if r != nil && r.kind == kMap {
			c.roots = append(c.roots, root{n: r, mt: mt, group: group, inDump: true, state: state, checkOnly: checkOnly, version: c.version})
		}
	}
	resource := func(list, inner string, state, checkOnly bool) {
		for _, e := range n.get(list).items() {
			add(e.get(inner), nameAny, state, checkOnly)
		}
	}
	switch name {
	case "BootstrapConfigDump":
		if b := n.get("bootstrap"); b != nil && b.kind == kMap {
			c.roots = append(c.roots, root{n: b, mt: nameBootstrap, group: group, dumped: true, inDump: true, version: c.version})
		}
	case "ListenersConfigDump":
		resource("static_listeners", "listener", false, false)
		for _, e := range n.get("dynamic_listeners").items() {
			// The active state serves traffic; a listener still warming
			// up serves next, and one that only warms is modelled.
			active := e.get("active_state").get("listener")
			add(active, nameAny, false, false)
			add(e.get("warming_state").get("listener"), nameAny, false, active != nil)
			add(e.get("draining_state").get("listener"), nameAny, false, true)
		}
	case "ClustersConfigDump":
		resource("static_clusters", "cluster", false, false)
		resource("dynamic_active_clusters", "cluster", false, false)
		resource("dynamic_warming_clusters", "cluster", false, true)
	case "RoutesConfigDump":
		resource("static_route_configs", "route_config", false, false)
		resource("dynamic_route_configs", "route_config", false, false)
	case "SecretsConfigDump":
		resource("static_secrets", "secret", false, true)
		resource("dynamic_active_secrets", "secret", false, true)
		resource("dynamic_warming_secrets", "secret", false, true)
	case "EndpointsConfigDump":
		resource("static_endpoint_configs", "endpoint_config", true, false)
		resource("dynamic_endpoint_configs", "endpoint_config", true, false)
	}
}

// dumpVersion is the Envoy release that wrote a config dump, from its
// bootstrap's node (user_agent_build_version, or user_agent_version as
// older releases fill it), or "".
func dumpVersion(configs *node) string {
	for _, it := range configs.items() {
		if !strings.HasSuffix(it.get("@type").str(), ".BootstrapConfigDump") {
			continue
		}
		node := it.get("bootstrap").get("node")
		if v := node.get("user_agent_build_version").get("version"); v != nil {
			return fmt.Sprintf("%s.%s.%s", num(v.get("major_number")), num(v.get("minor_number")), num(v.get("patch")))
		}
		if v := node.get("user_agent_version").str(); v != "" {
			return v
		}
	}
	return ""
}

func num(n *node) string {
	if s := n.str(); s != "" {
		return s
	}
	return "0"
}

// snapshotKeys are the resource lists of a snapshot, as go-control-plane's
// caches and file-based xDS hold them, with the type each list holds when
// its entries have no "@type"; a bare {listeners: [...]} or
// {clusters: [...]} (static_resources without the wrapper) is one too.
var snapshotKeys = map[string]protoreflect.FullName{
	"listeners": nameListener,
	"clusters":  nameCluster,
	"routes":    nameRouteConfiguration,
	"endpoints": nameClusterLoadAssign,
	"secrets":   nameSecret,
}

// snapshotExtras are keys a snapshot may carry besides its lists.
var snapshotExtras = []string{"version", "version_info", "runtimes", "scoped_routes", "virtual_hosts", "extension_configs"}

// snapshot reads a snapshot layout: a map of resource lists by kind.
func (c *classifier) snapshot(n *node, group string) bool {
	lists := 0
	for _, k := range n.kids() {
		name := strings.ToLower(k.key.text())
		if _, ok := snapshotKeys[name]; ok {
			if k.val.kind != kSeq && (k.val.kind != kMap || len(k.val.kids()) != 0) {
				return false
			}
			lists++
			continue
		}
		extra := false
		for _, x := range snapshotExtras {
			if k.key.text() == x || isJSONName(k.key.text(), x) {
				extra = true
			}
		}
		if !extra {
			return false
		}
	}
	if lists == 0 {
		return false
	}
	// {endpoints: [...]} alone is a ClusterLoadAssignment missing its
	// cluster_name, unless the entries are assignments themselves.
	if lists == 1 && n.get("endpoints") != nil {
		first := n.get("endpoints").item(0)
		if first == nil || (first.get("cluster_name") == nil && first.get("@type") == nil && first.get("resource") == nil) {
			return false
		}
	}
	for _, k := range n.kids() {
		mt, ok := snapshotKeys[strings.ToLower(k.key.text())]
		if !ok || k.val.kind != kSeq {
			continue // an empty map ({}) holds no resource
		}
		for _, it := range k.val.items() {
			switch {
			case it.kind != kMap:
				c.probs = append(c.probs, problem{n: it, fatal: true, msg: "this " + strings.ToLower(k.key.text()) + " entry is not a resource"})
			case it.get("@type") != nil || wrapped(it) != nil:
				c.resource(it, group)
			default:
				c.add(it, mt, group)
			}
		}
	}
	return true
}

// resourceWrapper is the type of the xDS Resource wrapper
// (envoy.service.discovery.v3.Resource in envoyproxy/data-plane-api
// envoy/service/discovery/v3/discovery.proto): {name, version, resource}.
const resourceWrapper = "envoy.service.discovery.v3.Resource"

// wrapped returns the resource inside an xDS Resource wrapper, or nil.
func wrapped(n *node) *node {
	r := n.get("resource")
	if r == nil || r.kind != kMap || r.get("@type") == nil {
		return nil
	}
	if t := n.get("@type"); t != nil && typeName(t.str()) != resourceWrapper {
		return nil
	}
	if !onlyKeys(n, "@type", "name", "version", "resource", "aliases", "ttl", "cache_control", "metadata", "resource_name") {
		return nil
	}
	return r
}

// bootstrapKeys are the fields that mark a bootstrap.
var bootstrapKeys = []string{
	"static_resources", "dynamic_resources", "admin", "layered_runtime", "cluster_manager",
	"overload_manager", "stats_sinks", "bootstrap_extensions", "stats_config", "hds_config", "watchdogs",
}

// classify finds the roots in a document; a part it cannot place is a
// problem at that part.
func classify(n *node) ([]root, []problem) {
	var c classifier
	if !c.visit(n, "", 0) {
		c.probs = append(c.probs, problem{n: n, fatal: true, msg: "not an Envoy configuration proxylint can read: expected a bootstrap " +
			"(static_resources, dynamic_resources), an admin config dump (configs), or xDS resources (Listener, Cluster, " +
			"RouteConfiguration, with \"@type\" or recognised by their fields), alone, in a list or under \"resources\""})
	}
	return c.roots, c.probs
}

type classifier struct {
	roots []root
	probs []problem
	// version is the Envoy release that wrote the config dump being read.
	version string
}

func (c *classifier) add(n *node, mt protoreflect.FullName, group string) {
	c.roots = append(c.roots, root{n: n, mt: mt, group: group})
}

// visit recognises n; depth counts the wrapping names passed through.
func (c *classifier) visit(n *node, group string, depth int) bool {
	switch n.kind {
	case kSeq:
		items := n.items()
		if len(items) == 0 {
			return false
		}
		for _, it := range items {
			if !c.resource(it, group) {
				c.probs = append(c.probs, problem{n: it, fatal: true, msg: "this list entry is not an xDS resource proxylint recognises " +
					"(add \"@type\", or write a Listener, Cluster or RouteConfiguration)"})
			}
		}
		return true
	case kMap:
	default:
		return false
	}
	if hasAny(n, bootstrapKeys) && n.get("@type") == nil {
		c.add(n, nameBootstrap, group)
		return true
	}
	if cf := n.get("configs"); cf != nil && cf.kind == kSeq && n.get("@type") == nil {
		c.version = dumpVersion(cf)
		for _, it := range cf.items() {
			c.dumpSection(it, group)
		}
		return true
	}
	if rs := n.get("resources"); rs != nil && rs.kind == kSeq && onlyKeys(n, "resources", "version_info", "type_url", "nonce", "control_plane", "canary") {
		for _, it := range rs.items() {
			if !c.resource(it, group) {
				c.probs = append(c.probs, problem{n: it, fatal: true, msg: "this resource is not one proxylint recognises (add \"@type\")"})
			}
		}
		return true
	}
	if c.snapshot(n, group) {
		return true
	}
	if c.resource(n, group) {
		return true
	}
	// Names wrapping configurations ({namespace: {name: config}}) or a
	// map of names to resources.
	if depth >= 3 || len(n.kids()) == 0 {
		return false
	}
	save := len(c.roots)
	saveProbs := len(c.probs)
	for _, k := range n.kids() {
		if k.dropped {
			continue
		}
		sub := group
		if whole(k.val) {
			sub = strings.TrimPrefix(group+"/"+k.key.text(), "/")
		}
		if k.val.kind != kMap || !c.visit(k.val, sub, depth+1) {
			c.roots, c.probs = c.roots[:save], c.probs[:saveProbs]
			return false
		}
	}
	return true
}

// whole reports whether n is a whole configuration (a bootstrap or a
// dump) rather than a single resource, so wrapping names name a proxy.
func whole(n *node) bool {
	if n.kind != kMap {
		return false
	}
	if hasAny(n, bootstrapKeys) || n.get("configs") != nil {
		return true
	}
	if t := n.get("@type"); t != nil {
		return strings.Contains(t.str(), "envoy.admin.")
	}
	for _, k := range n.kids() {
		if k.val.kind == kMap && (hasAny(k.val, bootstrapKeys) || k.val.get("configs") != nil || strings.Contains(k.val.get("@type").str(), "envoy.admin.")) {
			return true
		}
	}
	return false
}

// resource recognises a single resource: by "@type", or by fields that
// only one resource type has.
func (c *classifier) resource(n *node, group string) bool {
	if n.kind != kMap {
		return false
	}
	if r := wrapped(n); r != nil {
		c.add(r, nameAny, group)
		return true
	}
	if t := n.get("@type"); t != nil {
		if strings.Contains(t.str(), "envoy.admin.") {
			c.dumpSection(n, group)
		} else {
			c.add(n, nameAny, group)
		}
		return true
	}
	// A listener's network filter on its own, wrapping the connection
	// manager, as Pomerium keeps it (config/envoyconfig/testdata/
	// main_http_connection_manager_filter.json): {name, typed_config}.
	if connManagerFilter(n) {
		c.add(n, nameNetworkFilter, group)
		return true
	}
	// An entry of a config dump's list, as /config_dump?resource= prints
	// it and documentation excerpts show it: the resource is inside.
	for _, w := range dumpEntryKeys {
		if inner := n.get(w); inner != nil && inner.kind == kMap && inner.get("@type") != nil {
			c.add(inner, nameAny, group)
			return true
		}
	}
	if hasAny(n, bootstrapKeys) {
		c.add(n, nameBootstrap, group)
		return true
	}
	best, bestScore := -1, 0
	for i, cd := range candidates {
		score := 0
		for _, k := range cd.distinctive {
			if n.get(k) != nil {
				score += 4
			}
		}
		if score == 0 {
			continue
		}
		mt, err := findMessageType(cd.mt)
		if err != nil {
			// Not in the schema (TestCandidatesAreInTheSchema):
			// nothing is read as it.
			continue
		}
		md := mt.Descriptor()
		for _, k := range n.kids() {
			if fieldByName(md, k.key.text()) != nil {
				score++
			} else {
				score -= 2
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return false
	}
	c.add(n, candidates[best].mt, group)
	return true
}

// connManagerFilter reports whether n is a listener filter entry
// (envoy.config.listener.v3.Filter) whose typed_config is the HTTP
// connection manager. HTTP filter entries have the same shape; only the
// connection manager's type tells a network filter here.
func connManagerFilter(n *node) bool {
	tc := n.get("typed_config")
	if tc == nil || tc.kind != kMap || n.get("name") == nil || !onlyKeys(n, "name", "typed_config", "config_discovery") {
		return false
	}
	return typeName(tc.get("@type").str()) == string(nameConnectionManager)
}

func hasAny(n *node, keys []string) bool {
	for _, k := range keys {
		if n.get(k) != nil {
			return true
		}
	}
	return false
}

func onlyKeys(n *node, keys ...string) bool {
	for _, k := range n.kids() {
		ok := false
		for _, want := range keys {
			if k.key.text() == want || isJSONName(k.key.text(), want) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// res is a resource with the node it was read from, and the file that
// node is in: the resources of one deployment may come from several files
// (join.go).
type res struct {
	msg  msg
	n    *node
	file string
}

// collection is everything the roots of one proxy hold, by type.
type collection struct {
	// file is the file the roots are read from.
	file string
	// errs collects the schema lookups that failed in its messages.
	errs      *lookups
	listeners []res
	clusters  []res
	routes    []res // RouteConfiguration
	endpoints []res // ClusterLoadAssignment
	// Fragments: connection managers and virtual hosts on their own.
	hcms   []res
	vhosts []res
	// The static resources of the bootstrap in a config dump: the dump's
	// listener and cluster sections repeat them, so they are used only
	// when the dump has no such section.
	dumpListeners []res
	dumpClusters  []res
	// whole marks the roots of a bootstrap (static or in a config dump):
	// one Envoy process, which is never joined with another (join.go);
	// cds that its clusters may come from CDS too
	// (dynamic_resources.cds_config), so from other files.
	whole, cds bool
	// dump marks roots read from an admin config dump.
	dump bool
	// own marks listeners and clusters that only this build reads: each
	// is let go once its part of the model is built (builder.letGo).
	own bool
}

// add files a decoded message; dumped marks a bootstrap read from a
// config dump.
func (c *collection) add(pm proto.Message, n *node, dumped bool) {
	m := wrap(pm.ProtoReflect(), c.errs)
	switch m.name() {
	case nameAny:
		if inner, ok := payload(m); ok {
			c.add(inner.m.Interface(), n, dumped)
		}
	case nameListener:
		c.listeners = append(c.listeners, res{m, n, c.file})
	case nameCluster:
		c.clusters = append(c.clusters, res{m, n, c.file})
	case nameRouteConfiguration:
		c.routes = append(c.routes, res{m, n, c.file})
	case nameClusterLoadAssign:
		c.endpoints = append(c.endpoints, res{m, n, c.file})
	case nameConnectionManager:
		c.hcms = append(c.hcms, res{m, n, c.file})
	case nameNetworkFilter:
		if inner, ok := payload(m.sub("typed_config")); ok && inner.name() == nameConnectionManager {
			_, tc := n.field("typed_config")
			c.hcms = append(c.hcms, res{inner, tc, c.file})
		}
	case nameVirtualHost:
		c.vhosts = append(c.vhosts, res{m, n, c.file})
	case nameBootstrap:
		c.whole = true
		c.cds = c.cds || m.sub("dynamic_resources").has("cds_config")
		ls, cs := &c.listeners, &c.clusters
		if dumped {
			ls, cs = &c.dumpListeners, &c.dumpClusters
		}
		sr, srn := m.sub("static_resources"), n.get("static_resources")
		for i, l := range sr.list("listeners") {
			*ls = append(*ls, res{l, srn.get("listeners").item(i), c.file})
		}
		for i, cl := range sr.list("clusters") {
			*cs = append(*cs, res{cl, srn.get("clusters").item(i), c.file})
		}
	}
}

// finish adds the static resources of a dump's bootstrap when the dump
// has no listener or cluster section of its own.
func (c *collection) finish() {
	if len(c.listeners) == 0 {
		c.listeners = c.dumpListeners
	}
	if len(c.clusters) == 0 {
		c.clusters = c.dumpClusters
	}
}
