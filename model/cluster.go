package model

import (
	"sort"
	"strconv"
	"strings"
)

// What a cluster scheduler adds to the request's path: a Service, a name
// that spreads requests over the pods its selector picks, and the
// workloads (Deployments, StatefulSets) that run those pods. Loaders read
// them for linking only: they are not proxies and carry no timeouts.

// ServiceRef names a cluster service an upstream server reaches, and the
// port: a number, or the name of one of the service's ports.
type ServiceRef struct {
	Namespace, Name string
	Port            int
	PortName        string
}

// Key identifies the service: "namespace/name".
func (r ServiceRef) Key() string { return r.Namespace + "/" + r.Name }

// ServiceOf is the cluster service a server reaches: the one its loader
// named, else the one its host names as cluster DNS does
// ("name.namespace.svc" or "name.namespace.svc.cluster.local").
func ServiceOf(s Server) (ServiceRef, bool) {
	if s.Service != nil {
		return *s.Service, true
	}
	return ServiceOfHost(s.Address.Host, s.Address.Port)
}

// ServiceOfHost reads a cluster DNS name of a service.
func ServiceOfHost(host string, port int) (ServiceRef, bool) {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	h = strings.TrimSuffix(h, ".cluster.local")
	parts := strings.Split(h, ".")
	if len(parts) != 3 || parts[2] != "svc" || parts[0] == "" || parts[1] == "" || strings.Contains(parts[0], "*") {
		return ServiceRef{}, false
	}
	return ServiceRef{Namespace: parts[1], Name: parts[0], Port: port}, true
}

// Service is a cluster service (a Kubernetes Service).
type Service struct {
	Namespace, Name string
	Pos             Pos
	// Named is set when its file was named on the command line.
	Named bool
	Ports []ServicePort
	// Selector picks the pods by their labels; nil when the service has
	// none (its endpoints are kept by hand).
	Selector    map[string]string
	SelectorPos Pos
}

// Key identifies the service: "namespace/name".
func (s *Service) Key() string { return s.Namespace + "/" + s.Name }

// ServicePort is one port of a service and where it sends requests.
type ServicePort struct {
	Name string
	Port int
	// Target is the targetPort as written: a number, or the name of a
	// container port; "" sends to Port.
	Target string
	Pos    Pos
}

// Port finds the service port a reference names; with neither number
// nor name, the service's only port.
func (s *Service) Port(r ServiceRef) (ServicePort, bool) {
	for _, p := range s.Ports {
		if r.Port != 0 && p.Port == r.Port || r.Port == 0 && r.PortName != "" && p.Name == r.PortName {
			return p, true
		}
	}
	if r.Port == 0 && r.PortName == "" && len(s.Ports) == 1 {
		return s.Ports[0], true
	}
	return ServicePort{}, false
}

// Selects reports whether the service's selector picks the pods of w: the
// same namespace, and every label of the selector on the pods.
func (s *Service) Selects(w *Workload) bool {
	if len(s.Selector) == 0 || s.Namespace != w.Namespace {
		return false
	}
	for k, v := range s.Selector {
		if got, ok := w.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// SelectorString writes the selector as "k=v,k2=v2", keys sorted.
func (s *Service) SelectorString() string {
	var out []string
	for k, v := range s.Selector {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// Workload runs the pods a service may select (a Deployment, a
// StatefulSet).
type Workload struct {
	Kind, Namespace, Name string
	Pos                   Pos
	Named                 bool
	// Labels are the labels of its pods (the pod template's).
	Labels map[string]string
	// Ports are the ports its containers name.
	Ports []WorkloadPort
	// Replicas is how many pods it runs as its spec.replicas says; 0
	// when the manifest does not say (an autoscaler, or a DaemonSet,
	// decides).
	Replicas int
}

// WorkloadPort is a container port.
type WorkloadPort struct {
	Name string
	Port int
	Pos  Pos
}

// TargetPort resolves a service port's targetPort on the workload: the
// number, or the container port of that name. ok is false when a name
// names no container port.
func (w *Workload) TargetPort(p ServicePort) (int, bool) {
	switch {
	case p.Target == "":
		return p.Port, true
	case isDigits(p.Target):
		n, err := strconv.Atoi(p.Target)
		return n, err == nil
	}
	for _, c := range w.Ports {
		if c.Name == p.Target {
			return c.Port, true
		}
	}
	return 0, false
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
