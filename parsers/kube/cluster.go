package kube

import (
	"bytes"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/internal/lazyre"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/envoy"
)

// firstMatch is how a mesh picks the route of a VirtualService: the first
// http entry that matches, as Envoy does.
var firstMatch = envoy.FirstMatch

// Services and the workloads whose pods they select are read for linking
// only: they place a request's path through the cluster (a route → the
// Service it names → the Deployment or StatefulSet behind it), and carry
// nothing the rules check.

// linkedKindRE finds a Service or workload at the head of a manifest.
var linkedKindRE = lazyre.New(`(?m)(^[ \t-]*kind[ \t]*:[ \t]*["']?|"kind"\s*:\s*")(Service|Deployment|StatefulSet|DaemonSet)(["']|[ \t]*(#.*)?$)`)

// DetectLinked reports whether the start of a file is a Kubernetes
// manifest holding a Service or a workload, read for linking.
func DetectLinked(head []byte) bool {
	return bytes.IndexByte(head, 0) < 0 && apiVersionRE().Match(head) && linkedKindRE().Match(head)
}

// workloadKind reports whether an object is a workload whose pod template
// a Service may select.
func workloadKind(o *object) bool {
	switch o.Kind {
	case "Deployment", "StatefulSet", "DaemonSet":
		return o.APIVersion == "apps/v1"
	}
	return false
}

func namespace(o *object) string {
	if o.Namespace == "" {
		return "default"
	}
	return o.Namespace
}

// service reads a Service's ports and selector.
func service(o *object) *model.Service {
	s := &model.Service{Namespace: namespace(o), Name: o.Name, Pos: o.pos(o.Node)}
	if k, sel := getKV(o.Spec, "selector"); sel != nil && sel.Kind == yaml.MappingNode {
		s.Selector = labels(sel)
		s.SelectorPos = o.pos(k)
	}
	for _, p := range items(get(o.Spec, "ports")) {
		n, _ := strconv.Atoi(scalar(get(p, "port")))
		s.Ports = append(s.Ports, model.ServicePort{Name: scalar(get(p, "name")), Port: n, Target: scalar(get(p, "targetPort")), Pos: o.pos(p)})
	}
	return s
}

// workload reads the labels and container ports of a workload's pod
// template.
func workload(o *object) *model.Workload {
	w := &model.Workload{Kind: o.Kind, Namespace: namespace(o), Name: o.Name, Pos: o.pos(o.Node)}
	tmpl := get(o.Spec, "template")
	w.Labels = labels(get(get(tmpl, "metadata"), "labels"))
	for _, c := range items(get(get(tmpl, "spec"), "containers")) {
		for _, p := range items(get(c, "ports")) {
			n, _ := strconv.Atoi(scalar(get(p, "containerPort")))
			w.Ports = append(w.Ports, model.WorkloadPort{Name: scalar(get(p, "name")), Port: n, Pos: o.pos(p)})
		}
	}
	return w
}

func labels(n *yaml.Node) map[string]string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = scalar(n.Content[i+1])
	}
	return out
}

// meshHosts are the service hosts a VirtualService routes for every
// client in the mesh: its hosts, when it binds to the mesh (no gateways,
// or "mesh" among them) and they name cluster services.
func meshHosts(vs *object) []string {
	if gws := items(get(vs.Spec, "gateways")); len(gws) > 0 {
		mesh := false
		for _, g := range gws {
			mesh = mesh || scalar(g) == "mesh"
		}
		if !mesh {
			return nil
		}
	}
	var out []string
	for _, h := range items(get(vs.Spec, "hosts")) {
		host := fqdn(scalar(h), vs.Namespace)
		if _, ok := model.ServiceOfHost(host, 0); ok {
			out = appendNew(out, host)
		}
	}
	return out
}

// serviceRef names the Service an Ingress backend reaches, by port
// number or port name.
func serviceRef(ns, name, port string) *model.ServiceRef {
	r := &model.ServiceRef{Namespace: ns, Name: name}
	if n, err := strconv.Atoi(port); err == nil {
		r.Port = n
	} else {
		r.PortName = port
	}
	return r
}
