package chain

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// A request's way through a cluster: a route that forwards to a cluster
// service (an Ingress backend, a mesh route's destination, an upstream
// server named "api.shop.svc.cluster.local") passes it to the mesh's
// routing for that host when a loaded configuration has one, and then to
// the Service, which sends it to a workload whose pods its selector picks.

// takesHost reports whether a listener takes the requests of host: a
// listener a gateway runs (Via) takes those of its hosts alone, as the
// gateway picks its virtual host by the Host header; host "" (not known)
// and a listener of no hosts take any.
func takesHost(l *model.Listener, host string) bool {
	if !l.Via.Valid() || host == "" || len(l.Hosts) == 0 {
		return true
	}
	host = strings.ToLower(host)
	for _, h := range l.Hosts {
		if hostsMeet(strings.ToLower(h), host) {
			return true
		}
	}
	return false
}

// hostsMeet reports whether two host names, either of which may be a
// "*" or "*.domain" wildcard, can name the same host.
func hostsMeet(a, b string) bool {
	switch {
	case a == "*" || b == "*" || a == b:
		return true
	case strings.HasPrefix(a, "*.") && strings.HasPrefix(b, "*."):
		return strings.HasSuffix(a[1:], b[1:]) || strings.HasSuffix(b[1:], a[1:])
	case strings.HasPrefix(a, "*."):
		return strings.HasSuffix(b, a[1:])
	case strings.HasPrefix(b, "*."):
		return strings.HasSuffix(a, b[1:])
	}
	return false
}

// meshLinks links a route that forwards to a cluster service to the
// listeners of other loaded configurations that route every request a
// mesh client sends to that host (Listener.MeshHosts). A route whose pool
// is itself the mesh's (a mesh route's destination) reaches the service
// directly: the mesh routes a request once.
func meshLinks(proxies []*model.Proxy, related func(a, b *model.Proxy) Relation) []*model.Link {
	byHost := map[string][]*model.Listener{}
	for _, p := range proxies {
		for _, l := range p.Listeners {
			for _, h := range l.MeshHosts {
				if ref, ok := model.ServiceOfHost(h, 0); ok {
					byHost[ref.Key()] = append(byHost[ref.Key()], l)
				}
			}
		}
	}
	if len(byHost) == 0 {
		return nil
	}
	var links []*model.Link
	for _, p := range proxies {
		for _, r := range p.Routes() {
			if r.Forward == nil || r.Forward.Upstream == nil || r.Forward.Upstream.Mesh {
				continue
			}
			path, known := forwardedPath(r)
			// Several servers may stand for one Service (a controller's
			// server per endpoint): one link per listener.
			linked := map[*model.Listener]bool{}
			for _, s := range r.Forward.Upstream.Servers {
				ref, ok := model.ServiceOf(s)
				if s.Down || !ok {
					continue
				}
				for _, l := range byHost[ref.Key()] {
					if l == r.Listener || linked[l] || related(p, l.Proxy) == Unrelated || !takesHost(l, r.Host) {
						continue
					}
					linked[l] = true
					links = append(links, &model.Link{From: r, Server: s, Listener: l, To: landingRoute(l, path, known)})
				}
			}
		}
	}
	return links
}

// relatedFiles says whether objects of two files link: both named on the
// command line, or the files close in the tree. The Services of a run
// always link the routes of its Kubernetes manifests, which the loader
// joined into one deployment.
func relatedFiles(a string, aNamed bool, b string, bNamed bool) bool {
	return aNamed && bNamed || neighbours(a, b)
}

// clusterTails lists the ways a request continues from route r through
// the cluster: for each service its upstream names, the Service hop, then
// one way per workload it selects. ends is set for each way that stops
// short of the workload (a Service not in the input, or one that selects
// nothing), which a note on its last step explains. nil when r forwards
// to no cluster service.
func clusterTails(cx *clusterIndex, r *model.Route) (tails [][]Step, ends []bool) {
	if r.Forward == nil || r.Forward.Upstream == nil {
		return nil, nil
	}
	u := r.Forward.Upstream
	seen := map[model.ServiceRef]bool{}
	for _, s := range u.Servers {
		ref, ok := model.ServiceOf(s)
		if s.Down || !ok || seen[ref] {
			continue
		}
		seen[ref] = true
		svc := cx.findService(r, ref)
		if svc == nil {
			step := Step{Kind: model.HopService, Name: "Service " + ref.Key() + refPort(ref), Attempts: 1,
				Note: "is not in the input: the path ends here"}
			tails, ends = append(tails, []Step{step}), append(ends, true)
			continue
		}
		step := Step{Kind: model.HopService, Service: svc, Pos: svc.Pos, Attempts: 1}
		sp, hasPort := svc.Port(ref)
		step.Name = "Service " + svc.Key() + refPort(ref)
		if hasPort {
			step.Name = "Service " + svc.Key() + ":" + strconv.Itoa(sp.Port)
		}
		if !u.Mesh {
			cx.meshPool(svc, &step)
		}
		if !hasPort {
			step.Note = fmt.Sprintf("has no port %s: the path ends here", refPort(ref)[1:])
			if refPort(ref) == "" {
				step.Note = "has several ports and the route names none: the path ends here"
			}
			tails, ends = append(tails, []Step{step}), append(ends, true)
			continue
		}
		var ws []*model.Workload
		for _, w := range cx.selectable(svc) {
			if svc.Selects(w) && relatedFiles(svc.Pos.File, svc.Named, w.Pos.File, w.Named) {
				ws = append(ws, w)
			}
		}
		if len(ws) == 0 {
			step.Note = fmt.Sprintf("selects no workload in the input (selector %s): the path ends here", svc.SelectorString())
			if len(svc.Selector) == 0 {
				step.Note = "has no selector (its endpoints are kept by hand): the path ends here"
			}
			tails, ends = append(tails, []Step{step}), append(ends, true)
			continue
		}
		for _, w := range ws {
			ws := Step{Kind: model.HopWorkload, Workload: w, Pos: w.Pos, Name: w.Kind + " " + w.Namespace + "/" + w.Name, Attempts: 1}
			if port, ok := w.TargetPort(sp); ok {
				ws.Name += ":" + strconv.Itoa(port)
			} else {
				ws.Note = fmt.Sprintf("has no container port named %q, the Service's targetPort", sp.Target)
			}
			tails, ends = append(tails, []Step{step, ws}), append(ends, false)
		}
	}
	return tails, ends
}

func refPort(ref model.ServiceRef) string {
	switch {
	case ref.Port != 0:
		return ":" + strconv.Itoa(ref.Port)
	case ref.PortName != "":
		return ":" + ref.PortName
	}
	return ""
}

// clusterIndex holds the cluster objects of a model by what the paths
// look them up by, each list in the model's order, so that listing the
// paths through a cluster of many Services stays linear in its size.
type clusterIndex struct {
	services map[string][]*model.Service // by Key
	// workloads are by namespace and label ("k=v"): those a selector
	// may pick carry each of its labels.
	workloads map[string]map[string][]*model.Workload
	// meshes are the mesh's pools by the key of the service their first
	// server names, with the proxy that keeps each.
	meshes map[string][]meshUpstream
}

type meshUpstream struct {
	proxy *model.Proxy
	u     *model.Upstream
}

func newClusterIndex(m *model.Model) *clusterIndex {
	cx := &clusterIndex{services: map[string][]*model.Service{}, workloads: map[string]map[string][]*model.Workload{}, meshes: map[string][]meshUpstream{}}
	for _, s := range m.Services {
		cx.services[s.Key()] = append(cx.services[s.Key()], s)
	}
	for _, w := range m.Workloads {
		byLabel := cx.workloads[w.Namespace]
		if byLabel == nil {
			byLabel = map[string][]*model.Workload{}
			cx.workloads[w.Namespace] = byLabel
		}
		for k, v := range w.Labels {
			byLabel[k+"="+v] = append(byLabel[k+"="+v], w)
		}
	}
	for _, p := range m.Proxies {
		for _, u := range p.Upstreams {
			if !u.Mesh || len(u.Servers) == 0 {
				continue
			}
			if ref, ok := model.ServiceOf(u.Servers[0]); ok {
				cx.meshes[ref.Key()] = append(cx.meshes[ref.Key()], meshUpstream{p, u})
			}
		}
	}
	return cx
}

// selectable lists, in the model's order, the workloads of the Service's
// namespace that carry one label of its selector (the first in key
// order): the only ones it may select. None for a Service without one.
func (cx *clusterIndex) selectable(svc *model.Service) []*model.Workload {
	first := ""
	for k := range svc.Selector {
		if first == "" || k < first {
			first = k
		}
	}
	if first == "" {
		return nil
	}
	return cx.workloads[svc.Namespace][first+"="+svc.Selector[first]]
}

// findService finds the Service a route's server names among those of
// files related to the route's.
func (cx *clusterIndex) findService(r *model.Route, ref model.ServiceRef) *model.Service {
	var p *model.Proxy
	if r.Listener != nil {
		p = r.Listener.Proxy
	}
	for _, s := range cx.services[ref.Key()] {
		if p == nil || p.Product.Kubernetes() || relatedFiles(p.Entry, p.Named, s.Pos.File, s.Named) {
			return s
		}
	}
	return nil
}

// meshPool shows on a Service hop the pool a service mesh keeps to it
// (every meshed client's sidecar), when a loaded configuration has one:
// the one for the whole host before those of subsets.
func (cx *clusterIndex) meshPool(svc *model.Service, step *Step) {
	var best *model.Upstream
	for _, mu := range cx.meshes[svc.Key()] {
		p, u := mu.proxy, mu.u
		if !p.Product.Kubernetes() && !relatedFiles(p.Entry, p.Named, svc.Pos.File, svc.Named) {
			continue
		}
		if best == nil || u.Name == u.Servers[0].Address.Host && best.Name != best.Servers[0].Address.Host {
			best = u
		}
	}
	if best != nil && best.PoolIdle.Valid() {
		step.PoolIdle, step.Lifetime = best.PoolIdle, best.PoolLifetime
	}
}
