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
	"slices"
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
	CodeSyntax = model.CodeKubeSyntax
	// CodeInvalid: a field the platform would refuse (a duration that is
	// not one, a negative count); the loader ignores the field.
	CodeInvalid = model.CodeKubeInvalid
	// CodeIgnored: a field the platform accepts and then ignores.
	CodeIgnored = model.CodeKubeIgnored
)

// Options control loading.
type Options struct {
	// Target is the platform release: its product must be model.Istio,
	// model.EnvoyGateway, model.IngressNginx, model.NginxIngress,
	// model.Contour or model.Traefik, else the newest Istio release is
	// assumed.
	Target model.Target
	// Targets are further releases, one per product (--target repeated);
	// Target, when set, comes first.
	Targets []model.Target
}

// target is the release the resources of product p are read for: the
// one named, else the newest.
func (o Options) target(p model.Product) model.Target {
	for _, t := range append([]model.Target{o.Target}, o.Targets...) {
		if t.Product == p {
			return t
		}
	}
	return model.Target{Product: p}
}

// Result is what the manifests of one run hold, joined (Link).
type Result struct {
	// Proxies hold what the resources configure: one for Istio's
	// resources (or Envoy Gateway's), one for ingress-nginx's, one for
	// NGINX Inc's Ingress controller; none when no manifest holds a
	// resource the loader reads.
	Proxies []*model.Proxy
	// File is the first manifest's file, Files every manifest's.
	File        *model.File
	Files       []*model.File
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
	// Idle lists the manifests that configure no proxy: nothing in them
	// was read into a proxy, and the loader has nothing to say of them.
	Idle []Idle
}

// Idle is a manifest that configures no proxy.
type Idle struct {
	Path string
	// Reason says why, for a skipped file: "a Kubernetes resource
	// proxylint does not read (Gateway)".
	Reason string
	// Linked is set when it holds Services or workloads, read to link
	// routes to the workloads behind them.
	Linked bool
}

// kindRE finds a document kind this package reads at the head of a YAML
// or JSON file, at the top of a document or of a List item.
var kindRE = lazyre.New(`(?m)(^[ \t-]*kind[ \t]*:[ \t]*["']?|"kind"\s*:\s*")(VirtualService|DestinationRule|HTTPRoute|GRPCRoute|Ingress|BackendTrafficPolicy|ClientTrafficPolicy|IstioOperator|VirtualServer|VirtualServerRoute|HTTPProxy|IngressRoute|Middleware)\b`)

// apiVersionRE: a Kubernetes object names its API group and version.
var apiVersionRE = lazyre.New(`(?m)(^[ \t-]*apiVersion[ \t]*:|"apiVersion"\s*:)`)

// Detect reports whether the start of a file is a Kubernetes manifest
// holding a resource this package reads.
func Detect(head []byte) bool {
	return bytes.IndexByte(head, 0) < 0 && apiVersionRE().Match(head) && kindRE().Match(head)
}

// manifestRE finds the two keys every Kubernetes object has at the top
// level of a YAML document (column 0), or in JSON; objectKindRE a kind as
// Kubernetes names them.
var (
	topAPIVersionRE = lazyre.New(`(?m)(^apiVersion[ \t]*:[ \t]*["']?[a-z0-9][a-z0-9.-]*(/[a-z0-9]+)?["']?[ \t]*(#.*)?$|"apiVersion"\s*:\s*"[a-z0-9][a-z0-9.-]*(/[a-z0-9]+)?")`)
	topKindRE       = lazyre.New(`(?m)(^kind[ \t]*:[ \t]*["']?[A-Z][A-Za-z0-9]*["']?[ \t]*(#.*)?$|"kind"\s*:\s*"[A-Z][A-Za-z0-9]*")`)
)

// DetectManifest reports whether the start of a file is a Kubernetes
// manifest of any kind: a document with apiVersion and kind at its top
// level, as every Kubernetes object has (a Deployment, a ConfigMap, a
// Kustomization). Such a file is read as manifests, and one that
// configures no proxy is skipped, not taken for nginx or Envoy.
func DetectManifest(head []byte) bool {
	return bytes.IndexByte(head, 0) < 0 && topAPIVersionRE().Match(head) && topKindRE().Match(head)
}

// object is one Kubernetes resource of a manifest.
type object struct {
	APIVersion, Kind string
	Name, Namespace  string
	Node             *yaml.Node // the resource's mapping
	Spec             *yaml.Node // nil when absent
	// src is the manifest the object was read from; positions of its
	// nodes are in that file.
	src *Manifest
	// mesh is the MeshConfig of an istio ConfigMap, parsed from its data
	// with positions in the file (mesh.go); nil for other objects.
	mesh *yaml.Node
	// order is the object's place in the run: manifests in the order
	// given, then documents in file order.
	order int
	// used is set when a proxy reads the object, linked when it is read
	// for linking; controller is the Ingress controller an IngressClass
	// names, when it is one proxylint models.
	used, linked bool
	controller   *controller
	// service and workload are a Service's or a workload's fields as
	// the loader reads them, taken when the object is read: its tree is
	// then not kept (a run may hold many thousands of them, each a
	// hundred-odd bytes of text and kilobytes of tree). grpc says which
	// of the service's ports carry gRPC (destination.go).
	service  *model.Service
	grpc     []bool
	workload *model.Workload
}

// pos is where node n of the object stands: its manifest's file, and
// the node's line and column there.
func (o *object) pos(n *yaml.Node) model.Pos {
	if n == nil {
		return model.Pos{File: o.src.path}
	}
	return model.Pos{File: o.src.path, Line: int32(n.Line), Col: int32(n.Column)}
}

// Manifest is one file of Kubernetes manifests, parsed (Parse) and not
// yet joined with the other manifests of the run (Link).
type Manifest struct {
	path string
	src  []byte
	file *model.File
	objs []*object
	// kinds are the kinds of the documents, once each, in order;
	// dropped counts the documents of kinds no part of the loader reads
	// (their trees are not kept), by "apiVersion kind".
	kinds   []string
	dropped map[string]int
	diags   []model.Diagnostic
	// comments inside embedded YAML (a ConfigMap's mesh string)
	comments []model.Comment
	// syntax is set when the file is not YAML: nothing in it is read.
	syntax bool
	// used counts the resources Link read into a proxy.
	used int
}

// File is the manifest's file, with its source and comments.
func (m *Manifest) File() *model.File { return m.file }

// Path is the manifest's path.
func (m *Manifest) Path() string { return m.path }

// Size is how many bytes the manifest holds.
func (m *Manifest) Size() int { return len(m.src) }

// loader holds the state of one join: the target and the diagnostics.
type loader struct {
	target model.Target
	diags  []model.Diagnostic
	mesh   *meshRetry // meshConfig.defaultHttpRetryPolicy (mesh.go)
	// once holds the positions of diagnostics given once for all the
	// routes they concern.
	once map[model.Pos]bool
	// gateways are the run's Gateway API Gateways by name, for the
	// labels a policy's targetSelectors match.
	gateways map[string][]*object
	// services and workloads are the run's, for the endpoints a Service
	// has (cluster.go).
	services  []*model.Service
	workloads []*model.Workload
}

func (l *loader) diag(code model.Code, sev model.Severity, pos model.Pos, format string, args ...any) {
	l.diags = append(l.diags, model.Diagnostic{Code: code, Severity: sev, Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// invalid reports a field the platform refuses.
func (l *loader) invalid(pos model.Pos, format string, args ...any) {
	l.diag(CodeInvalid, model.Error, pos, format, args...)
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

// LoadBytes reads the manifests of one file: Link of that file alone.
func LoadBytes(path string, src []byte, opts Options) Result {
	return Link([]*Manifest{Parse(path, src)}, opts)
}

// Parse reads one file of manifests into its resources, keeping those
// some part of the loader reads. Files are parsed independently (in
// parallel, by the caller) and then joined by Link.
func Parse(path string, src []byte) *Manifest {
	m := &Manifest{path: path, src: src, dropped: map[string]int{},
		file: &model.File{Path: path, Source: src, Comments: envoy.Comments(path, src), Editor: NewEditor(path, src)}}
	err := m.documents(src)
	m.file.Generated = generatedBy(src)
	if err != nil {
		line, msg := errorLine(err)
		m.objs, m.kinds, m.dropped, m.syntax = nil, nil, map[string]int{}, true
		m.diags = append(m.diags[:0], model.Diagnostic{
			Code: CodeSyntax, Severity: model.Error, Fatal: true,
			Pos:     model.Pos{File: path, Line: int32(line), Col: 1},
			Message: fmt.Sprintf("%s is not a YAML or JSON manifest proxylint can read: %s", path, msg),
		})
		m.comments = nil
		return m
	}
	for _, o := range m.objs {
		if meshSource(o) && o.Kind == "ConfigMap" {
			o.mesh = m.embeddedMesh(get(get(o.Node, "data"), "mesh"))
		}
	}
	m.addComments()
	return m
}

// Link joins the manifests of one run into the proxies they configure:
// every reference is resolved across all of them (a route's parentRefs
// and backendRefs, a policy's targetRefs and targetSelectors, a
// DestinationRule's host, a Service's ports, an Ingress's class, the
// mesh config), as the platform resolves it in a cluster where they were
// all applied, in the order given (kubectl apply -f DIR applies files in
// name order, a file's documents in order). docs/kubernetes.md, "One
// deployment", says how.
func Link(ms []*Manifest, opts Options) Result {
	res := Result{Read: map[string]int{}, Linked: map[string]int{}, Skipped: map[string]int{}}
	var objs []*object
	for _, m := range ms {
		m.used = 0
		for _, o := range m.objs {
			o.order, o.used, o.linked = len(objs), false, false
			objs = append(objs, o)
		}
		res.Files = append(res.Files, m.file)
		res.Diagnostics = append(res.Diagnostics, m.diags...)
		for k, n := range m.dropped {
			res.Skipped[k] += n
		}
	}
	if len(ms) > 0 {
		res.File = ms[0].file
	}
	l := &loader{target: opts.Target, once: map[model.Pos]bool{}, gateways: map[string][]*object{}}
	if l.target.Product != model.Istio {
		l.target = model.Target{Product: model.Istio}
	}
	j := l.join(objs, opts, &res)
	res.Diagnostics = append(res.Diagnostics, l.diags...)
	l.leftOut(&res, ms, j)
	// Every proxy is joined from the manifests of the run, but those
	// that configure no proxy.
	idle := map[string]bool{}
	for _, i := range res.Idle {
		idle[i.Path] = true
	}
	var joinedFrom []string
	for _, m := range ms {
		if !idle[m.path] && !slices.Contains(joinedFrom, m.path) {
			joinedFrom = append(joinedFrom, m.path)
		}
	}
	if len(joinedFrom) > 1 {
		for _, p := range res.Proxies {
			p.Sources = joinedFrom
		}
	}
	return res
}

// use counts o as read into a proxy.
func (o *object) use(res *Result) {
	if o.used {
		return
	}
	o.used = true
	o.src.used++
	res.Read[o.Kind]++
}

// joined is what a join found, for leftOut.
type joined struct {
	gatewayRoutes int
	otherClass    []*object
}

// join builds the proxies from every resource of the run; a resource
// that no proxy reads is counted as skipped.
func (l *loader) join(objs []*object, opts Options, res *Result) joined {
	var j joined
	var vss, routes, drs, svcs, ings, classes, cms, btps, meshes, incVSs, hps, traefiks, istioGws []*object
	ingressRoutes := false
	for _, o := range objs {
		switch {
		case vsKind(o):
			incVSs = append(incVSs, o)
		case httpProxyKind(o):
			hps = append(hps, o)
		case o.Kind == "HTTPProxy" && strings.HasPrefix(o.APIVersion, "projectcontour.io/"):
			l.diag(CodeIgnored, model.Warning, o.pos(get(o.Node, "apiVersion")),
				"HTTPProxy %s is ignored: Contour serves HTTPProxy as projectcontour.io/v1 only, since 1.0 (its CRD has no other version), so the API server refuses %s: write apiVersion: projectcontour.io/v1", o.Name, o.APIVersion)
			o.used = true
			o.src.used++
		case traefikKind(o):
			traefiks = append(traefiks, o)
			ingressRoutes = ingressRoutes || o.Kind == "IngressRoute"
		case o.Kind == "VirtualService" && istioNetworking(o.APIVersion):
			vss = append(vss, o)
		case (o.Kind == "HTTPRoute" || o.Kind == "GRPCRoute") && gatewayAPI(o.APIVersion):
			routes = append(routes, o)
		case (o.Kind == "BackendTrafficPolicy" || o.Kind == "ClientTrafficPolicy") && o.APIVersion == "gateway.envoyproxy.io/v1alpha1":
			btps = append(btps, o)
		case o.Kind == "DestinationRule" && istioNetworking(o.APIVersion):
			drs = append(drs, o)
		case ingressKind(o):
			ings = append(ings, o)
		case ingressClassKind(o):
			classes = append(classes, o)
		case istioGatewayKind(o):
			istioGws = append(istioGws, o)
		case o.Kind == "Gateway" && gatewayAPI(o.APIVersion):
			l.gateways[o.Name] = append(l.gateways[o.Name], o)
		case meshSource(o):
			meshes = append(meshes, o)
		case o.Kind == "ConfigMap" && o.APIVersion == "v1":
			cms = append(cms, o)
		case o.Kind == "Service" && o.APIVersion == "v1":
			svcs = append(svcs, o)
			res.Services = append(res.Services, o.service)
			res.Linked[o.APIVersion+" "+o.Kind]++
			o.linked = true
		case workloadKind(o):
			res.Workloads = append(res.Workloads, o.workload)
			res.Linked[o.APIVersion+" "+o.Kind]++
			o.linked = true
		}
	}
	j.gatewayRoutes = len(routes)
	l.services, l.workloads = res.Services, res.Workloads
	groups, other := l.ingressControllers(ings, classes, opts.Target)
	j.otherClass = other
	for _, ctl := range controllers {
		group := groups[ctl]
		var own []*object // the controller's own resources
		if ctl == nginxIncController {
			own = incVSs
		}
		if len(group)+len(own) == 0 {
			continue
		}
		t := opts.target(ctl.product)
		p := newProxy(ctl.product, t, earliest(append(append([]*object{}, group...), own...)))
		mine := ctl.configMaps(cms)
		l.ingresses(ctl, p, group, mine)
		if len(own) > 0 {
			var cm *object
			if len(mine) > 0 {
				cm = mine[0]
			}
			var vsList, vsrs []*object
			for _, o := range own {
				if o.Kind == "VirtualServer" {
					vsList = append(vsList, o)
				} else {
					vsrs = append(vsrs, o)
				}
			}
			l.virtualServers(p, vsList, vsrs, cm, res)
		}
		res.Proxies = append(res.Proxies, p)
		var claimed []*object
		for _, c := range classes {
			if c.controller == ctl {
				claimed = append(claimed, c)
			}
		}
		for _, o := range group {
			o.use(res)
		}
		for _, c := range append(mine, claimed...) {
			c.use(res)
		}
	}
	if ingressRoutes {
		p := newProxy(model.Traefik, opts.target(model.Traefik), earliest(traefiks))
		l.traefik(p, traefiks, res)
		res.Proxies = append(res.Proxies, p)
	}
	if len(hps) > 0 {
		p := newProxy(model.Contour, opts.target(model.Contour), earliest(hps))
		l.contour(p, hps, res)
		res.Proxies = append(res.Proxies, p)
	}
	if opts.Target.Product == model.EnvoyGateway && len(routes)+len(btps) > 0 {
		// Gateway API routes as Envoy Gateway translates them.
		p := newProxy(model.EnvoyGateway, opts.Target, earliest(append(append([]*object{}, routes...), btps...)))
		l.envoyGateway(p, routes, btps)
		res.Proxies = append(res.Proxies, p)
		for _, o := range routes {
			o.use(res)
		}
		for _, o := range btps {
			o.use(res)
		}
		routes = nil
	}
	if istio := append(append(append([]*object{}, vss...), routes...), drs...); len(istio) > 0 {
		p := newProxy(model.Istio, l.target, earliest(istio))
		l.mesh = l.meshRetryPolicy(meshes)
		m := l.istio(p, vss, routes, drs, svcs, istioGws)
		res.Proxies = append(res.Proxies, p)
		for _, g := range istioGws {
			if m.bound[g] {
				g.use(res)
			}
		}
		for _, o := range istio {
			o.use(res)
		}
		for _, o := range meshes {
			o.use(res)
		}
	}
	for _, o := range objs {
		if !o.used && !o.linked {
			res.Skipped[o.APIVersion+" "+o.Kind]++
		}
	}
	return j
}

// newProxy is the proxy of a product whose first resource is o: its
// entry is that resource's file.
func newProxy(product model.Product, t model.Target, o *object) *model.Proxy {
	return &model.Proxy{Product: product, Target: t, Entry: o.src.path, Pos: model.Pos{File: o.src.path, Line: 1, Col: 1}, Context: "main"}
}

// earliest is the first of objs in the run's order (the order of
// manifests, then of documents).
func earliest(objs []*object) *object {
	best := objs[0]
	for _, o := range objs[1:] {
		if o.order < best.order {
			best = o
		}
	}
	return best
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
// has items, as kubectl get -o yaml writes them). Resources of kinds no
// part of the loader reads are counted, and their trees not kept.
func (m *Manifest) documents(src []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		// An alias names a node of its own document only, so what was
		// read is remembered for one document: the trees of the others
		// are not held.
		seen := map[*yaml.Node]bool{}
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(doc.Content) == 0 {
			continue
		}
		m.collect(doc.Content[0], seen)
	}
}

// duplicateKeys reports a key written twice in one mapping of a resource.
// The API server's strict field validation, which kubectl asks for by
// default (--validate=strict), refuses such an object with a BadRequest;
// with validation off it keeps the last value. Aliases are not followed:
// the mapping they name is checked where it stands.
func (m *Manifest) duplicateKeys(n *yaml.Node, depth int) {
	if depth > maxKeyDepth {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		var seen map[string]*yaml.Node
		if len(n.Content) > 2 {
			seen = make(map[string]*yaml.Node, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if seen != nil && k.Kind == yaml.ScalarNode && k.ShortTag() != "!!merge" {
				if prev, dup := seen[k.Value]; dup {
					m.diags = append(m.diags, model.Diagnostic{Code: CodeInvalid, Severity: model.Error, Pos: model.Pos{File: m.path, Line: int32(k.Line), Col: int32(k.Column)},
						Message: fmt.Sprintf("duplicate key %q (first at line %d): the API server's strict field validation, kubectl's default (--validate=strict), refuses the object; without it the last value is kept", clipKey(k.Value), prev.Line)})
				} else {
					seen[k.Value] = k
				}
			}
			m.duplicateKeys(n.Content[i+1], depth+1)
		}
	case yaml.SequenceNode:
		for _, it := range n.Content {
			m.duplicateKeys(it, depth+1)
		}
	}
}

// maxKeyDepth bounds how deep duplicateKeys looks: the YAML reader has
// already bounded nesting, and real resources nest far less.
const maxKeyDepth = 200

// clipKey shortens a key quoted in a message.
func clipKey(k string) string {
	if len(k) > 100 {
		return k[:100] + "..."
	}
	return k
}

// collect reads each mapping once: Lists whose items are aliases of one
// another would otherwise be read again at every reference, exponentially
// many times.
func (m *Manifest) collect(n *yaml.Node, seen map[*yaml.Node]bool) {
	if n.Kind != yaml.MappingNode || seen[n] {
		return
	}
	seen[n] = true
	o := &object{Node: n, src: m}
	o.APIVersion = scalar(get(n, "apiVersion"))
	o.Kind = scalar(get(n, "kind"))
	if o.Kind == "" {
		return
	}
	m.duplicateKeys(n, 0)
	if strings.HasSuffix(o.Kind, "List") {
		if items := get(n, "items"); items != nil && items.Kind == yaml.SequenceNode {
			for _, it := range items.Content {
				m.collect(it, seen)
			}
			return
		}
	}
	md := get(n, "metadata")
	o.Name = scalar(get(md, "name"))
	o.Namespace = scalar(get(md, "namespace"))
	o.Spec = get(n, "spec")
	m.kinds = appendNew(m.kinds, o.Kind)
	if !kept(o) {
		m.dropped[o.APIVersion+" "+o.Kind]++
		return
	}
	switch {
	case o.Kind == "Service" && o.APIVersion == "v1":
		o.service, o.grpc = service(o), grpcPorts(o)
		o.compact()
	case workloadKind(o):
		o.workload = workload(o)
		o.compact()
	}
	m.objs = append(m.objs, o)
}

// compact drops the object's tree once what the loader reads of it is
// taken: its mapping keeps only its position.
func (o *object) compact() {
	o.Node = &yaml.Node{Kind: o.Node.Kind, Line: o.Node.Line, Column: o.Node.Column}
	o.Spec = nil
}

// kept reports whether some part of the loader reads objects like o: the
// rest are only counted.
func kept(o *object) bool {
	switch o.Kind {
	case "VirtualService", "DestinationRule", "HTTPRoute", "GRPCRoute", "BackendTrafficPolicy", "ClientTrafficPolicy",
		"Ingress", "IngressClass", "IstioOperator", "Service", "Deployment", "StatefulSet", "DaemonSet":
		return true
	case "VirtualServer", "VirtualServerRoute":
		return vsKind(o)
	case "HTTPProxy":
		return strings.HasPrefix(o.APIVersion, "projectcontour.io/") // v1 read, the others refused
	case "IngressRoute", "Middleware", "ServersTransport":
		return traefikKind(o)
	case "Gateway":
		return gatewayAPI(o.APIVersion) || istioNetworking(o.APIVersion) // Gateway API's for its labels
	case "ConfigMap":
		return controllerConfigMap(o) || meshSource(o)
	}
	return false
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
