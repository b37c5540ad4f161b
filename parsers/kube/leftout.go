package kube

import (
	"fmt"
	"strings"

	"github.com/proxylint/proxylint/model"
)

// otherClasses says why a file that holds Ingresses yields nothing to
// lint when each names an ingress class other than nginx's (Istio's
// samples write `kubernetes.io/ingress.class: istio`): the file is a valid
// manifest that this loader does not model, which is a note, not a
// failure to read it.
func (l *loader) otherClasses(res *Result, objs []*object) {
	if len(res.Proxies) > 0 || len(res.Diagnostics) > 0 {
		return
	}
	var names, classes []string
	var first *object
	for _, o := range objs {
		if o.Kind != "Ingress" || nginxClass(o) {
			continue
		}
		if first == nil {
			first = o
		}
		class := scalar(get(o.Spec, "ingressClassName"))
		if class == "" {
			class = scalar(get(get(get(o.Node, "metadata"), "annotations"), "kubernetes.io/ingress.class"))
		}
		names = appendNew(names, o.Name)
		classes = appendNew(classes, fmt.Sprintf("%q", class))
	}
	if first == nil {
		l.meshAlone(res, objs)
		return
	}
	res.Diagnostics = append(res.Diagnostics, model.Diagnostic{
		Code: "load-error", Severity: model.Note, Pos: l.pos(first.Node),
		Message: fmt.Sprintf("%s: Ingress %s names ingress class %s; proxylint reads the Ingresses of ingress-nginx only, so nothing here is linted",
			l.path, strings.Join(names, ", "), strings.Join(classes, ", ")),
	})
}

// meshAlone says why a file that holds a mesh config and no route yields
// nothing to lint: the mesh's default retry policy is applied to the
// routes of the same file (istio/istio's tests/integration/base.yaml is
// an IstioOperator alone).
func (l *loader) meshAlone(res *Result, objs []*object) {
	for _, o := range objs {
		if !meshSource(o) {
			continue
		}
		name := o.Kind + " " + o.Name
		if o.Name == "" {
			name = o.Kind
		}
		res.Diagnostics = append(res.Diagnostics, model.Diagnostic{
			Code: "load-error", Severity: model.Note, Pos: l.pos(o.Node),
			Message: fmt.Sprintf("%s: %s configures Istio, not routes: proxylint applies its mesh config to the VirtualServices and routes of the same file, and this file holds none, so nothing here is linted",
				l.path, name),
		})
		return
	}
}
