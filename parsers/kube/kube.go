// Package kube reads the Kubernetes resources that configure a proxy —
// Istio's VirtualService and DestinationRule — from manifests as kubectl
// and `helm template` write them (YAML documents separated by "---",
// Lists with items, or JSON), into proxylint's model, so that the rules
// written for Envoy and nginx run on them unchanged. Every value carries
// the manifest line that set it, or, for the platform's defaults, the
// resource that inherits it and a note naming the default's source.
package kube

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/internal/lazyre"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/envoy"
)

// Diagnostic codes of this loader; each is a rule ID (rules/kube_load.go).
const (
	// CodeSyntax: the file is not YAML or JSON.
	CodeSyntax = "kube-syntax"
	// CodeInvalid: a field the platform would refuse (a duration that is
	// not one, a negative count); the loader ignores the field.
	CodeInvalid = "kube-invalid"
	// CodeIgnored: a field the platform accepts and then ignores.
	CodeIgnored = "kube-ignored"
)

// Options control loading.
type Options struct {
	// Target is the platform release: its product must be model.Istio,
	// else the newest Istio release is assumed.
	Target model.Target
}

// Result is what one file held.
type Result struct {
	// Proxies hold what the resources configure: one for Istio's
	// resources, one for ingress-nginx's; none when the file holds no
	// resource the loader reads.
	Proxies     []*model.Proxy
	File        *model.File
	Diagnostics []model.Diagnostic
	// Read counts the resources read, by kind; Linked counts the
	// Services and workloads read for linking only, and Skipped the
	// documents of other kinds left out, both by "apiVersion kind".
	Read    map[string]int
	Linked  map[string]int
	Skipped map[string]int
	// Services and Workloads are the cluster objects read for linking.
	Services  []*model.Service
	Workloads []*model.Workload
}

// kindRE finds a document kind this package reads at the head of a YAML
// or JSON file, at the top of a document or of a List item.
var kindRE = lazyre.New(`(?m)(^[ \t-]*kind[ \t]*:[ \t]*["']?|"kind"\s*:\s*")(VirtualService|DestinationRule|HTTPRoute|GRPCRoute|Ingress|BackendTrafficPolicy|IstioOperator)\b`)

// apiVersionRE: a Kubernetes object names its API group and version.
var apiVersionRE = lazyre.New(`(?m)(^[ \t-]*apiVersion[ \t]*:|"apiVersion"\s*:)`)

// Detect reports whether the start of a file is a Kubernetes manifest
// holding a resource this package reads.
func Detect(head []byte) bool {
	return bytes.IndexByte(head, 0) < 0 && apiVersionRE().Match(head) && kindRE().Match(head)
}

// object is one Kubernetes resource of a manifest.
type object struct {
	APIVersion, Kind string
	Name, Namespace  string
	Node             *yaml.Node // the resource's mapping
	Spec             *yaml.Node // nil when absent
}

// loader holds the state of one file.
type loader struct {
	path   string
	src    []byte
	target model.Target
	diags  []model.Diagnostic
	mesh   *meshRetry // meshConfig.defaultHttpRetryPolicy (mesh.go)
	// comments inside embedded YAML (a ConfigMap's mesh string)
	comments []model.Comment
}

func (l *loader) pos(n *yaml.Node) model.Pos {
	if n == nil {
		return model.Pos{File: l.path}
	}
	return model.Pos{File: l.path, Line: int32(n.Line), Col: int32(n.Column)}
}

func (l *loader) diag(code string, sev model.Severity, n *yaml.Node, format string, args ...any) {
	l.diags = append(l.diags, model.Diagnostic{Code: code, Severity: sev, Pos: l.pos(n), Message: fmt.Sprintf(format, args...)})
}

// invalid reports a field the platform refuses.
func (l *loader) invalid(n *yaml.Node, format string, args ...any) {
	l.diag(CodeInvalid, model.Error, n, format, args...)
}

var yamlLineRE = lazyre.New(`^yaml: line (\d+): (.*)$`)

// errorLine reads the line of a YAML reader's error. The reader counts
// lines from 0 for a parser's problems (an unclosed collection, a missing
// key: the line given is where the collection opened) and from 1 for a
// scanner's; the parser's problems all start "did not find expected" or
// "found" followed by a directive or document problem.
func errorLine(err error) (int, string) {
	m := yamlLineRE().FindStringSubmatch(err.Error())
	if m == nil {
		return 1, strings.TrimPrefix(err.Error(), "yaml: ")
	}
	line, _ := strconv.Atoi(m[1])
	if parserProblem[m[2]] {
		line++
	}
	return max(line, 1), m[2]
}

// parserProblem are the problems go.yaml.in/yaml/v3's parser (not its
// scanner) reports (parserc.go).
var parserProblem = map[string]bool{
	"did not find expected ',' or ']'": true, "did not find expected ',' or '}'": true,
	"did not find expected '-' indicator": true, "did not find expected <document start>": true,
	"did not find expected key": true, "did not find expected node content": true,
	"found duplicate %TAG directive": true, "found duplicate %YAML directive": true,
	"found incompatible YAML document": true, "found undefined tag handle": true,
}

// LoadBytes reads the manifests of one file.
func LoadBytes(path string, src []byte, opts Options) Result {
	l := &loader{path: path, src: src, target: opts.Target}
	if l.target.Product != model.Istio {
		l.target = model.Target{Product: model.Istio}
	}
	res := Result{
		File:    &model.File{Path: path, Source: src, Comments: envoy.Comments(path, src), Editor: NewEditor(path, src)},
		Read:    map[string]int{},
		Linked:  map[string]int{},
		Skipped: map[string]int{},
	}
	objs, err := l.documents(src)
	if err != nil {
		line, msg := errorLine(err)
		res.Diagnostics = append(res.Diagnostics, model.Diagnostic{
			Code: CodeSyntax, Severity: model.Error, Fatal: true,
			Pos:     model.Pos{File: path, Line: int32(line), Col: 1},
			Message: fmt.Sprintf("%s is not a YAML or JSON manifest proxylint can read: %s", path, msg),
		})
		return res
	}
	var vss, routes, drs, svcs, ings, cms, btps, meshes []*object
	for _, o := range objs {
		switch {
		case o.Kind == "VirtualService" && istioNetworking(o.APIVersion):
			vss = append(vss, o)
		case (o.Kind == "HTTPRoute" || o.Kind == "GRPCRoute") && gatewayAPI(o.APIVersion):
			routes = append(routes, o)
		case (o.Kind == "BackendTrafficPolicy" || o.Kind == "ClientTrafficPolicy") && o.APIVersion == "gateway.envoyproxy.io/v1alpha1":
			btps = append(btps, o)
		case o.Kind == "DestinationRule" && istioNetworking(o.APIVersion):
			drs = append(drs, o)
		case o.Kind == "Ingress" && (o.APIVersion == "networking.k8s.io/v1" || o.APIVersion == "networking.k8s.io/v1beta1" || o.APIVersion == "extensions/v1beta1") && nginxClass(o):
			ings = append(ings, o)
		case o.Kind == "ConfigMap" && o.APIVersion == "v1" && controllerConfigMap(o):
			cms = append(cms, o)
			continue // read with the Ingresses it configures
		case meshSource(o):
			meshes = append(meshes, o)
			continue // read with the Istio resources it configures
		case o.Kind == "Service" && o.APIVersion == "v1":
			svcs = append(svcs, o)
			res.Services = append(res.Services, l.service(o))
			res.Linked[o.APIVersion+" "+o.Kind]++
			continue // read for linking, and for its ports
		case workloadKind(o):
			res.Workloads = append(res.Workloads, l.workload(o))
			res.Linked[o.APIVersion+" "+o.Kind]++
			continue
		default:
			res.Skipped[o.APIVersion+" "+o.Kind]++
			continue
		}
		res.Read[o.Kind]++
	}
	if len(ings) > 0 {
		t := opts.Target
		if t.Product != model.IngressNginx {
			t = model.Target{Product: model.IngressNginx}
		}
		p := &model.Proxy{Product: model.IngressNginx, Target: t, Entry: path, Pos: model.Pos{File: path, Line: 1, Col: 1}, Context: "main"}
		l.ingressNginx(p, ings, cms)
		res.Proxies = append(res.Proxies, p)
		if len(cms) > 0 {
			res.Read["ConfigMap"] += len(cms)
		}
	} else {
		for _, c := range cms {
			res.Skipped[c.APIVersion+" "+c.Kind]++
		}
	}
	if opts.Target.Product == model.EnvoyGateway && len(routes)+len(btps) > 0 {
		// Gateway API routes as Envoy Gateway translates them.
		p := &model.Proxy{Product: model.EnvoyGateway, Target: opts.Target, Entry: path, Pos: model.Pos{File: path, Line: 1, Col: 1}, Context: "main"}
		l.envoyGateway(p, routes, btps)
		res.Proxies = append(res.Proxies, p)
		routes = nil
	} else {
		for _, b := range btps {
			res.Read[b.Kind]--
			res.Skipped[b.APIVersion+" "+b.Kind]++
		}
		for _, b := range btps {
			if res.Read[b.Kind] == 0 {
				delete(res.Read, b.Kind)
			}
		}
	}
	if len(vss)+len(routes)+len(drs) > 0 {
		p := &model.Proxy{Product: model.Istio, Target: l.target, Entry: path, Pos: model.Pos{File: path, Line: 1, Col: 1}, Context: "main"}
		l.mesh = l.meshRetryPolicy(meshes)
		l.istio(p, vss, routes, drs, svcs)
		res.Proxies = append(res.Proxies, p)
		for _, o := range meshes {
			res.Read[o.Kind]++
		}
	} else {
		for _, o := range meshes {
			res.Skipped[o.APIVersion+" "+o.Kind]++
		}
	}
	res.Diagnostics = append(res.Diagnostics, l.diags...)
	l.addComments(res.File)
	l.otherClasses(&res, objs)
	return res
}

// istioNetworking reports whether v is an API version of Istio's
// networking resources.
func istioNetworking(v string) bool {
	switch v {
	case "networking.istio.io/v1", "networking.istio.io/v1beta1", "networking.istio.io/v1alpha3":
		return true
	}
	return false
}

// documents splits a manifest into its resources: every YAML document,
// and the items of Lists (kind: List, or any kind ending in "List" that
// has items, as kubectl get -o yaml writes them).
func (l *loader) documents(src []byte) ([]*object, error) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var out []*object
	seen := map[*yaml.Node]bool{}
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(doc.Content) == 0 {
			continue
		}
		l.collect(doc.Content[0], &out, seen)
	}
}

// collect reads each mapping once: Lists whose items are aliases of one
// another would otherwise be read again at every reference, exponentially
// many times.
func (l *loader) collect(n *yaml.Node, out *[]*object, seen map[*yaml.Node]bool) {
	if n.Kind != yaml.MappingNode || seen[n] {
		return
	}
	seen[n] = true
	o := &object{Node: n}
	o.APIVersion = scalar(get(n, "apiVersion"))
	o.Kind = scalar(get(n, "kind"))
	if o.Kind == "" {
		return
	}
	if strings.HasSuffix(o.Kind, "List") {
		if items := get(n, "items"); items != nil && items.Kind == yaml.SequenceNode {
			for _, it := range items.Content {
				l.collect(it, out, seen)
			}
			return
		}
	}
	md := get(n, "metadata")
	o.Name = scalar(get(md, "name"))
	o.Namespace = scalar(get(md, "namespace"))
	o.Spec = get(n, "spec")
	*out = append(*out, o)
}

// get returns the value of key in mapping n, nil when n is not a mapping
// or has no such key.
func get(n *yaml.Node, key string) *yaml.Node {
	_, v := getKV(n, key)
	return v
}

// getKV returns the key node and the value of key in mapping n.
func getKV(n *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if n == nil {
		return nil, nil
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			v := n.Content[i+1]
			if v.Kind == yaml.AliasNode && v.Alias != nil {
				v = v.Alias
			}
			return n.Content[i], v
		}
	}
	return nil, nil
}

// scalar is the text of a scalar node, "" otherwise (null included).
func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

// items are the elements of a sequence node.
func items(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}
