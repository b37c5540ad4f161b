package envoy

import (
	"fmt"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// Everything linted together is one deployment. Envoy takes its resources
// from several places that name each other: a bootstrap's listeners, the
// route configurations a connection manager names over RDS
// (rds.route_config_name), the clusters a route forwards to (route.cluster,
// route.weighted_clusters), the endpoints an EDS cluster names
// (eds_cluster_config.service_name, or its own name). A control plane
// serves them apart, file-based xDS keeps them in lds.yaml, rds.yaml and
// cds.yaml, and /config_dump has a section for each. So the files of a run
// are read one by one into Parts (Read), and Join builds the model from
// all of them at once: a part that names a resource it does not hold is
// joined with the part that holds it, and they become one proxy, built as
// the same resources in one file would be. Nothing is patched into the
// model afterwards: the builder sees the joined resources from the start.
//
// A bootstrap (or a config dump with its bootstrap) is one Envoy process:
// it takes in resources that no other part holds, but two of them are
// never joined into one. A name that several parts hold is joined with
// none of them, and said so: which one the configuration means is not
// known. What a deployment still names and nobody holds is reported as a
// note (CodeUnresolved), so that what was not checked is on screen.

// CodeUnresolved: a resource the configuration names is not among the
// files linted, so what depends on it is not checked.
const CodeUnresolved = model.CodeEnvoyUnresolved

// Part is one configuration of a file, read and checked but not yet built:
// the resources of a bootstrap, of a config dump, or of a file of xDS
// resources. Every Part of a Read must be passed to Join or Release: until
// then the messages inside its Anys are held in memory.
type Part struct {
	c      *collection
	entry  string // the proxy's name: the file, or "file group"
	file   string
	target model.Target
	hold   *hold
}

// File is the file the part was read from.
func (p *Part) File() string { return p.file }

// hold keeps the Anys a read decoded until its parts are built (anys.go).
type hold struct {
	release func()
	done    bool
}

func (h *hold) end() {
	if h != nil && !h.done {
		h.done = true
		h.release()
	}
}

// Release ends what parts hold without building them.
func Release(parts []*Part) {
	for _, p := range parts {
		p.hold.end()
	}
}

// ref is a name a part refers to, where it is written.
type ref struct {
	name string
	pos  model.Pos
	// by says what refers to it, for messages: a listener's name.
	by string
}

// refKind is a kind of reference, in the order Join resolves them.
type refKind int

const (
	refRoutes    refKind = iota // rds.route_config_name → RouteConfiguration.name
	refCluster                  // route.cluster → Cluster.name
	refEndpoints                // EDS cluster → ClusterLoadAssignment.cluster_name
	refKinds
)

// partNames is what a part holds and what it refers to, by kind.
type partNames struct {
	holds [refKinds]map[string]bool
	refs  [refKinds][]ref
}

// takes reports whether a part may take resources of a kind from other
// parts. A bootstrap takes clusters only from CDS: without a cds_config,
// the clusters it names and does not hold are nowhere (the loader reports
// those of route tables Envoy validates, checks.go). Route configurations
// come over RDS and endpoints over EDS, from outside a bootstrap always.
func takes(c *collection, kind refKind) bool {
	return kind != refCluster || !c.whole || c.cds
}

// Join builds the proxies of a deployment from the parts of every file
// linted together, joining parts that name each other's resources, and
// notes what the deployment names and no part holds. Proxies come in the
// order of their first parts; Proxy.Entry is the first part's, and
// Proxy.Sources lists every file, when more than one. Join releases the parts.
func Join(parts []*Part) (proxies []*model.Proxy, diags []model.Diagnostic) {
	defer Release(parts)
	names := make([]partNames, len(parts))
	for i, p := range parts {
		names[i] = namesOf(p)
	}
	j := newJoiner(parts, names)
	j.joinLoose()
	j.attach()
	groups := j.deployments()
	// A part built into one deployment only gives its listeners to that
	// build, which lets each go once built; one attached to several
	// bootstraps is built with each.
	uses := make([]int, len(parts))
	for _, group := range groups {
		for _, i := range group {
			uses[i]++
		}
	}
	for _, group := range groups {
		proxies, diags = buildDeployment(parts, names, group, uses, j.ambiguous, proxies, diags)
	}
	return proxies, diags
}

// buildDeployment builds the parts of one deployment into one proxy and
// notes what it names and does not hold. No input may crash the run: a
// failure is reported at the first part's file.
func buildDeployment(parts []*Part, names []partNames, group, uses []int, ambiguous map[ambiguity][]int, proxies []*model.Proxy, diags []model.Diagnostic) (_ []*model.Proxy, _ []model.Diagnostic) {
	first := parts[group[0]]
	defer func() {
		if r := recover(); r != nil {
			diags = append(diags, model.Diagnostic{
				Code: CodeSyntax, Severity: model.Error, Pos: model.Pos{File: first.file, Line: 1, Col: 1}, Fatal: true,
				Message: fmt.Sprintf("internal error while building this Envoy configuration: %v\n%s", r, debug.Stack()),
			})
		}
	}()
	c := &collection{file: first.file, own: true}
	var joined []string
	seen := map[string]bool{first.file: true}
	for _, i := range group {
		p := parts[i]
		c.listeners = append(c.listeners, p.c.listeners...)
		c.clusters = append(c.clusters, p.c.clusters...)
		if uses[i] == 1 {
			// c holds them now, and builds them once.
			p.c.listeners, p.c.clusters = nil, nil
		} else if len(p.c.listeners)+len(p.c.clusters) > 0 {
			c.own = false
		}
		c.routes = append(c.routes, p.c.routes...)
		c.endpoints = append(c.endpoints, p.c.endpoints...)
		c.hcms = append(c.hcms, p.c.hcms...)
		c.vhosts = append(c.vhosts, p.c.vhosts...)
		c.whole = c.whole || p.c.whole
		if !seen[p.file] {
			seen[p.file] = true
			joined = append(joined, p.file)
		}
	}
	p := build(first.file, first.target, c)
	var failed []model.Diagnostic
	for _, i := range group {
		if d, ok := parts[i].c.errs.diagnostic(parts[i].file); ok {
			failed = append(failed, d)
		}
	}
	if len(failed) > 0 {
		// What the schema lacks was asked for: the deployment is
		// reported, not built.
		return proxies, append(diags, failed...)
	}
	p.Entry = first.entry
	if len(joined) > 0 {
		p.Sources = append([]string{first.file}, joined...)
	}
	proxies = append(proxies, p)
	return proxies, append(diags, unresolved(parts, names, group, ambiguous)...)
}

// ---- what a part holds and names ----

func namesOf(p *Part) partNames {
	var pn partNames
	for k := range pn.holds {
		pn.holds[k] = map[string]bool{}
	}
	c := p.c
	for _, r := range c.routes {
		pn.holds[refRoutes][r.msg.str("name")] = true
		pn.routeConfigRefs(r.msg, r.n, r.file, fmt.Sprintf("route configuration %q", r.msg.str("name")))
	}
	for _, cl := range c.clusters {
		pn.holds[refCluster][cl.msg.str("name")] = true
		if eds(cl.msg) {
			key, _ := cl.n.field("eds_cluster_config")
			pn.refs[refEndpoints] = append(pn.refs[refEndpoints], ref{edsName(cl.msg), posIn(cl.file, orNode(key, cl.n)), fmt.Sprintf("cluster %q", cl.msg.str("name"))})
		}
	}
	for _, e := range c.endpoints {
		pn.holds[refEndpoints][e.msg.str("cluster_name")] = true
	}
	for _, l := range c.listeners {
		forEachConnManager(l.msg, l.n, func(h msg, n *node) {
			pn.connManagerRefs(h, n, l.file, fmt.Sprintf("listener %q", l.msg.str("name")))
		})
	}
	for _, h := range c.hcms {
		pn.connManagerRefs(h.msg, h.n, h.file, fmt.Sprintf("connection manager %q", h.msg.str("stat_prefix")))
	}
	for _, vh := range c.vhosts {
		pn.virtualHostRefs(vh.msg, vh.n, vh.file, fmt.Sprintf("virtual host %q", vh.msg.str("name")))
	}
	return pn
}

// eds reports whether a cluster takes its endpoints from EDS: of type EDS,
// or with an eds_cluster_config, and without endpoints of its own.
func eds(cl msg) bool {
	if cl.has("load_assignment") {
		return false
	}
	return cl.enum("type") == "EDS" || cl.has("eds_cluster_config")
}

// forEachConnManager calls fn for every HTTP connection manager of a
// listener's filter chains.
func forEachConnManager(l msg, n *node, fn func(h msg, n *node)) {
	visit := func(fc msg, fcn *node) {
		for fi, f := range fc.list("filters") {
			hcm, ok := payload(f.sub("typed_config"))
			if !ok || hcm.name() != nameConnectionManager {
				continue
			}
			_, tc := fcn.get("filters").item(fi).field("typed_config")
			fn(hcm, tc)
		}
	}
	for i, fc := range l.list("filter_chains") {
		visit(fc, n.get("filter_chains").item(i))
	}
	if fc := l.sub("default_filter_chain"); fc.ok() {
		visit(fc, n.get("default_filter_chain"))
	}
}

func (pn *partNames) connManagerRefs(h msg, n *node, file, by string) {
	switch {
	case h.has("route_config"):
		pn.routeConfigRefs(h.sub("route_config"), n.get("route_config"), file, by)
	case h.has("rds"):
		key, rds := n.field("rds")
		at := orNode(key, n)
		if k, _ := rds.field("route_config_name"); k != nil {
			at = k
		}
		pn.refs[refRoutes] = append(pn.refs[refRoutes], ref{h.sub("rds").str("route_config_name"), posIn(file, at), by})
	}
}

func (pn *partNames) routeConfigRefs(rc msg, n *node, file, by string) {
	for i, vh := range rc.list("virtual_hosts") {
		pn.virtualHostRefs(vh, n.get("virtual_hosts").item(i), file, by)
	}
}

func (pn *partNames) virtualHostRefs(vh msg, n *node, file, by string) {
	for i, r := range vh.list("routes") {
		ra, raNode := r.sub("route"), n.get("routes").item(i).get("route")
		switch {
		case ra.str("cluster") != "":
			key, _ := raNode.field("cluster")
			pn.refs[refCluster] = append(pn.refs[refCluster], ref{ra.str("cluster"), posIn(file, orNode(key, raNode)), by})
		case ra.has("weighted_clusters"):
			wn := raNode.get("weighted_clusters").get("clusters")
			for ci, wc := range ra.sub("weighted_clusters").list("clusters") {
				pn.refs[refCluster] = append(pn.refs[refCluster], ref{wc.str("name"), posIn(file, orNode(wn.item(ci), raNode)), by})
			}
		}
	}
}

func posIn(file string, n *node) model.Pos {
	if n == nil {
		return model.Pos{File: file, Line: 1, Col: 1}
	}
	return model.Pos{File: file, Line: n.line, Col: n.col}
}

// ---- joining ----

// union joins the loose parts (xDS resources, not bootstraps) that name
// each other's resources into groups.
type union struct{ parent []int }

func newUnion(n int) *union {
	u := &union{parent: make([]int, n)}
	for i := range u.parent {
		u.parent[i] = i
	}
	return u
}

func (u *union) find(i int) int {
	for u.parent[i] != i {
		u.parent[i] = u.parent[u.parent[i]]
		i = u.parent[i]
	}
	return i
}

// join joins the groups of a and b, the lower index the root, so that a
// group is named by its first part.
func (u *union) join(a, b int) {
	a, b = u.find(a), u.find(b)
	if b < a {
		a, b = b, a
	}
	u.parent[b] = a
}

// ambiguity is a name several parts hold, none of them in the deployment
// that names it.
type ambiguity struct {
	kind refKind
	name string
}

// joiner works out the deployments of a run's parts.
type joiner struct {
	parts []*Part
	names []partNames
	// holders lists, by kind and name, the parts that hold a resource.
	holders [refKinds]map[string][]int
	loose   *union
	// attached lists, by loose group, the bootstraps it belongs to.
	attached  map[int][]int
	ambiguous map[ambiguity][]int
}

func newJoiner(parts []*Part, names []partNames) *joiner {
	j := &joiner{parts: parts, names: names, loose: newUnion(len(parts)), attached: map[int][]int{}, ambiguous: map[ambiguity][]int{}}
	for k := range j.holders {
		j.holders[k] = map[string][]int{}
		for i := range names {
			for name := range names[i].holds[k] {
				j.holders[k][name] = append(j.holders[k][name], i)
			}
		}
		for _, hs := range j.holders[k] {
			sort.Ints(hs)
		}
	}
	return j
}

func (j *joiner) whole(i int) bool { return j.parts[i].c.whole }

// missing calls fn for every name part i refers to and does not hold, of
// the kinds it takes from other parts.
func (j *joiner) missing(i int, fn func(kind refKind, r ref)) {
	for kind := refKind(0); kind < refKinds; kind++ {
		if !takes(j.parts[i].c, kind) {
			continue
		}
		for _, r := range j.names[i].refs[kind] {
			if !j.names[i].holds[kind][r.name] {
				fn(kind, r)
			}
		}
	}
}

// joinLoose joins the loose parts by the names they give each other,
// until nothing changes: a name is joined with the one group that holds
// it, and several groups holding it join none.
func (j *joiner) joinLoose() {
	for changed := true; changed; {
		changed = false
		for i := range j.parts {
			if j.whole(i) {
				continue
			}
			j.missing(i, func(kind refKind, r ref) {
				root := j.loose.find(i)
				var groups []int
				for _, h := range j.holders[kind][r.name] {
					if j.whole(h) {
						continue
					}
					hr := j.loose.find(h)
					if hr == root {
						return
					}
					if !contains(groups, hr) {
						groups = append(groups, hr)
					}
				}
				switch len(groups) {
				case 0:
				case 1:
					j.loose.join(root, groups[0])
					changed = true
				default:
					j.ambiguous[ambiguity{kind, r.name}] = j.looseHolders(kind, r.name)
				}
			})
		}
	}
}

func (j *joiner) looseHolders(kind refKind, name string) []int {
	var out []int
	for _, h := range j.holders[kind][name] {
		if !j.whole(h) {
			out = append(out, h)
		}
	}
	return out
}

// attach gives each loose group to the bootstraps it belongs to: those
// that take from it what they name and do not hold (clusters over CDS,
// routes over RDS, endpoints over EDS), and the one that holds what the
// group names and no loose part holds (a file of listeners whose routes
// forward to a bootstrap's static clusters). A group may belong to
// several: two Envoys served by one control plane.
func (j *joiner) attach() {
	add := func(group, w int) {
		if !contains(j.attached[group], w) {
			j.attached[group] = append(j.attached[group], w)
		}
	}
	for w := range j.parts {
		if !j.whole(w) {
			continue
		}
		j.missing(w, func(kind refKind, r ref) {
			var groups []int
			for _, h := range j.looseHolders(kind, r.name) {
				if g := j.loose.find(h); !contains(groups, g) {
					groups = append(groups, g)
				}
			}
			switch len(groups) {
			case 0:
			case 1:
				add(groups[0], w)
			default:
				j.ambiguous[ambiguity{kind, r.name}] = j.looseHolders(kind, r.name)
			}
		})
	}
	for i := range j.parts {
		if j.whole(i) {
			continue
		}
		g := j.loose.find(i)
		j.missing(i, func(kind refKind, r ref) {
			var wholes []int
			for _, h := range j.holders[kind][r.name] {
				if !j.whole(h) {
					return // held by a loose part: joinLoose decided
				}
				wholes = append(wholes, h)
			}
			switch len(wholes) {
			case 0:
			case 1:
				add(g, wholes[0])
			default:
				j.ambiguous[ambiguity{kind, r.name}] = wholes
			}
		})
	}
}

// deployments lists the parts of each deployment, in the order of their
// first parts: each bootstrap with the loose groups it belongs to, and
// each loose group that belongs to none.
func (j *joiner) deployments() [][]int {
	groups := map[int][]int{}
	var roots []int
	for i := range j.parts {
		if j.whole(i) {
			continue
		}
		r := j.loose.find(i)
		if _, ok := groups[r]; !ok {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], i)
	}
	var out [][]int
	for i := range j.parts {
		switch {
		case j.whole(i):
			d := []int{i}
			for _, r := range roots {
				if contains(j.attached[r], i) {
					d = append(d, groups[r]...)
				}
			}
			out = append(out, d)
		case j.loose.find(i) == i && len(j.attached[i]) == 0:
			out = append(out, groups[i])
		}
	}
	return out
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// ---- what is left unresolved ----

// unresolved notes what a deployment names and does not hold, once per
// kind, at the first place that names it.
func unresolved(parts []*Part, names []partNames, group []int, ambiguous map[ambiguity][]int) []model.Diagnostic {
	var diags []model.Diagnostic
	dump := false
	for _, i := range group {
		dump = dump || parts[i].c.dump
	}
	for kind := refKind(0); kind < refKinds; kind++ {
		held := map[string]bool{}
		for _, i := range group {
			for name := range names[i].holds[kind] {
				held[name] = true
			}
		}
		var missing []ref
		var amb []string
		seen := map[string]bool{}
		for _, i := range group {
			if !takes(parts[i].c, kind) {
				continue
			}
			for _, r := range names[i].refs[kind] {
				if held[r.name] || seen[r.name] {
					continue
				}
				seen[r.name] = true
				missing = append(missing, r)
				if hs, ok := ambiguous[ambiguity{kind, r.name}]; ok {
					amb = append(amb, fmt.Sprintf("%q (in %s)", r.name, filesOf(parts, hs)))
				}
			}
		}
		if len(missing) == 0 {
			continue
		}
		diags = append(diags, model.Diagnostic{
			Code: CodeUnresolved, Severity: model.Note, Pos: missing[0].pos,
			Message: unresolvedMessage(kind, missing, amb, dump),
		})
	}
	return diags
}

// filesOf names the files of parts: "a.yaml and b.yaml".
func filesOf(parts []*Part, idx []int) string {
	var files []string
	for _, i := range idx {
		if f := parts[i].file; !containsString(files, f) {
			files = append(files, f)
		}
	}
	if len(files) > 1 {
		return strings.Join(files[:len(files)-1], ", ") + " and " + files[len(files)-1]
	}
	return strings.Join(files, "")
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// shownNames is how many missing names a note lists.
const shownNames = 5

func quotedNames(rs []ref) string {
	var b strings.Builder
	for i, r := range rs {
		if i == shownNames {
			fmt.Fprintf(&b, " and %d more", len(rs)-shownNames)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", r.name)
	}
	return b.String()
}

func unresolvedMessage(kind refKind, missing []ref, amb []string, dump bool) string {
	names := quotedNames(missing)
	many := len(missing) > 1
	var msg string
	switch kind {
	case refRoutes:
		if many {
			msg = fmt.Sprintf("listeners take their routes over RDS from route configurations %s, which are not among the files linted: those routes are not checked.", names)
		} else {
			msg = fmt.Sprintf("%s takes its routes over RDS from route configuration %s, which is not among the files linted: those routes are not checked.", missing[0].by, names)
		}
	case refCluster:
		if many {
			msg = fmt.Sprintf("routes forward to clusters %s, which are not among the files linted: what depends on them (their servers, their connection pools, the hop behind them) is not checked, only what the routes do themselves (retries, timeouts).", names)
		} else {
			msg = fmt.Sprintf("routes forward to cluster %s, which is not among the files linted: what depends on it (its servers, its connection pool, the hop behind it) is not checked, only what the routes do themselves (retries, timeouts).", names)
		}
	case refEndpoints:
		if many {
			msg = fmt.Sprintf("the endpoints of EDS clusters %s are not among the files linted: their servers are unknown, so the hop behind them is not checked.", names)
		} else {
			msg = fmt.Sprintf("the endpoints of EDS cluster %s are not among the files linted: its servers are unknown, so the hop behind it is not checked.", names)
		}
	}
	if len(amb) > 0 {
		msg += " Several files linted together hold " + strings.Join(amb, ", ") + ", so none of them is joined: which one is meant is not known."
	}
	switch {
	case kind == refEndpoints && dump:
		return msg + " Envoy writes them into its config dump when asked (/config_dump?include_eds)."
	case many:
		return msg + " Lint the files that hold them with this one (name them together, or their directory)."
	}
	return msg + " Lint the file that holds it with this one (name them together, or their directory)."
}
