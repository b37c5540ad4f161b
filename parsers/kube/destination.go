package kube

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/model"
)

// upstream builds the cluster Envoy gets for a destination host and
// subset, with the pool settings of the DestinationRule for the host.
// at, in object ao, is where the destination is named.
func (l *loader) upstream(p *model.Proxy, host, subset string, port int, ao *object, at *yaml.Node, drs *drIndex) *model.Upstream {
	name := host
	if subset != "" {
		name += " subset " + subset
	}
	u := &model.Upstream{
		Proxy: p, Kind: "service", Name: name, Pos: ao.pos(at),
		Servers: []model.Server{{Address: model.Address{Host: host, Port: port, Pos: ao.pos(at)}, Raw: host, Pos: ao.pos(at)}},
		// Envoy answers a request whose pooled connection closed under
		// it with a reset, and retries it when the policy says so.
		ClosedUnderRequest: "reset",
		// Every sidecar in the mesh keeps this cluster to the host.
		Mesh: true,
	}
	p.Upstreams = append(p.Upstreams, u)
	dr := drs.find(host)
	var policy *yaml.Node
	if dr != nil {
		u.Pos = dr.pos(dr.Node)
		policy = get(dr.Spec, "trafficPolicy")
		for _, s := range items(get(dr.Spec, "subsets")) {
			if subset != "" && scalar(get(s, "name")) == subset {
				if sp := get(s, "trafficPolicy"); get(sp, "connectionPool") != nil {
					// A subset's connectionPool replaces the rule's.
					policy = sp
				}
			}
		}
		l.outlier(dr, get(policy, "outlierDetection"))
	}
	block := u.Pos
	pool := get(policy, "connectionPool")
	httpPool, tcpPool := get(pool, "http"), get(pool, "tcp")
	var drPolicy *yaml.Node
	if dr != nil {
		drPolicy = get(dr.Spec, "trafficPolicy")
	}
	l.retryLimit(u, dr, policy, drPolicy, block)

	u.PoolIdle = model.Default(defaultIdleTimeout, "connectionPool.http.idleTimeout", block)
	u.PoolIdle = u.PoolIdle.WithNote(noteIdle)
	if n := get(httpPool, "idleTimeout"); n != nil {
		if d, ok := l.dur(dr, n, "connectionPool.http.idleTimeout"); ok {
			u.PoolIdle = model.Set(d, "connectionPool.http.idleTimeout", "destination_rule", dr.pos(n))
		}
	} else if n := get(tcpPool, "idleTimeout"); n != nil {
		// Used for HTTP too when http.idleTimeout is unset (1.24.0:139-141).
		if d, ok := l.dur(dr, n, "connectionPool.tcp.idleTimeout"); ok {
			u.PoolIdle = model.Set(d, "connectionPool.tcp.idleTimeout", "destination_rule", dr.pos(n))
		}
	}
	u.PoolLifetime = model.Default(time.Duration(0), "connectionPool.tcp.maxConnectionDuration", block)
	if n := get(tcpPool, "maxConnectionDuration"); n != nil {
		if d, ok := l.dur(dr, n, "connectionPool.tcp.maxConnectionDuration"); ok {
			u.PoolLifetime = model.Set(d, "connectionPool.tcp.maxConnectionDuration", "destination_rule", dr.pos(n))
		}
	}
	// Requests per connection change nothing a rule judges: the value is
	// only checked.
	if n := get(httpPool, "maxRequestsPerConnection"); n != nil {
		l.count(dr, n, "connectionPool.http.maxRequestsPerConnection")
	}
	u.ConnectTimeout = model.Default(defaultConnectTimeout, "connectionPool.tcp.connectTimeout", block)
	u.ConnectTimeout = u.ConnectTimeout.WithNote(noteConnect)
	if n := get(tcpPool, "connectTimeout"); n != nil {
		if d, ok := l.dur(dr, n, "connectionPool.tcp.connectTimeout"); ok {
			u.ConnectTimeout = model.Set(d, "connectionPool.tcp.connectTimeout", "destination_rule", dr.pos(n))
		}
	}
	return u
}

// drIndex finds the DestinationRule for a host: an exact host first,
// then the longest wildcard ("*.example.com") that covers it; among
// equals the first in the run (Istio takes the oldest).
type drIndex struct {
	exact map[string]*object
	wild  []*object // in the run's order
	hosts map[*object]string
}

func newDRIndex(drs []*object) *drIndex {
	x := &drIndex{exact: map[string]*object{}, hosts: map[*object]string{}}
	for _, dr := range drs {
		h := fqdn(scalar(get(dr.Spec, "host")), dr.Namespace)
		x.hosts[dr] = h
		switch {
		case strings.HasPrefix(h, "*"):
			x.wild = append(x.wild, dr)
		case x.exact[h] == nil:
			x.exact[h] = dr
		}
	}
	return x
}

func (x *drIndex) find(host string) *object {
	if dr := x.exact[host]; dr != nil {
		return dr
	}
	var best *object
	for _, dr := range x.wild {
		h := x.hosts[dr]
		if strings.HasSuffix(host, strings.TrimPrefix(h, "*")) && (best == nil || len(h) > len(x.hosts[best])) {
			best = dr
		}
	}
	return best
}

// outlier reports outlierDetection.consecutiveErrors, which istiod has not
// read since 1.7 (pilot/pkg/networking/core/v1alpha3/cluster.go read it
// until 1.6.0:825; applyOutlierDetection reads consecutive5xxErrors and
// consecutiveGatewayErrors only).
func (l *loader) outlier(dr *object, od *yaml.Node) {
	k, v := getKV(od, "consecutiveErrors")
	if v == nil {
		return
	}
	l.diag(CodeIgnored, model.Warning, dr.pos(k),
		"outlierDetection.consecutiveErrors %s is ignored: Istio has not read it since 1.7, so no host is ejected on it; "+
			"write consecutive5xxErrors (or consecutiveGatewayErrors for 502, 503 and 504 only)", scalar(v))
}

// grpcPort reports whether a Service of the run declares the port a
// route reaches as gRPC (appProtocol grpc, or a port name "grpc" or
// "grpc-..."), Istio's protocol selection; with one port, that port.
func grpcPort(svcs map[string][]*object, host string, port int) bool {
	for _, s := range svcs[host] {
		ports := s.service.Ports
		for i, p := range ports {
			if port != 0 && p.Port != port || port == 0 && len(ports) != 1 {
				continue
			}
			if s.grpc[i] {
				return true
			}
		}
	}
	return false
}

// grpcPorts says which ports of a Service carry gRPC, in the order of
// its spec.ports: appProtocol grpc, or a name "grpc" or "grpc-...".
func grpcPorts(o *object) []bool {
	var out []bool
	for _, p := range items(get(o.Spec, "ports")) {
		name, proto := scalar(get(p, "name")), scalar(get(p, "appProtocol"))
		out = append(out, proto == "grpc" || name == "grpc" || strings.HasPrefix(name, "grpc-"))
	}
	return out
}

// servicesByHost indexes Services by their cluster host name.
func servicesByHost(svcs []*object) map[string][]*object {
	out := map[string][]*object{}
	for _, s := range svcs {
		h := fqdn(s.Name, s.Namespace)
		out[h] = append(out[h], s)
	}
	return out
}
