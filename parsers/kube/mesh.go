package kube

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/envoy"
)

// Istio's MeshConfig, where an input holds it. istiod reads it from the
// ConfigMap named "istio" ("istio-REVISION" for a revision) in its
// namespace, data key "mesh", a YAML document held as a string
// (pilot/pkg/bootstrap/mesh.go 1.24.0:32-34 and :120-126); an
// IstioOperator writes that ConfigMap from spec.meshConfig. Of the
// MeshConfig only defaultHttpRetryPolicy is read: istiod uses it, in
// place of its built-in default, for every route whose VirtualService
// sets no retries (pilot/pkg/networking/core/route/route.go 1.24.0:625-629,
// since 1.12.0:481), through the same ConvertPolicy as a retries block.

// meshRetry is meshConfig.defaultHttpRetryPolicy as the input sets it,
// with positions in the file of o, the ConfigMap or IstioOperator.
type meshRetry struct {
	o           *object
	key, policy *yaml.Node // defaultHttpRetryPolicy and its value
}

// meshSource reports whether o carries a MeshConfig istiod reads.
func meshSource(o *object) bool {
	switch {
	case o.Kind == "ConfigMap" && o.APIVersion == "v1":
		return (o.Name == "istio" || strings.HasPrefix(o.Name, "istio-")) && get(get(o.Node, "data"), "mesh") != nil
	case o.Kind == "IstioOperator" && strings.HasPrefix(o.APIVersion, "install.istio.io/"):
		return true
	}
	return false
}

// meshRank orders the sources of one run: the default revision's
// ConfigMap first (what istiod reads), then an IstioOperator without a
// revision, then the rest in the run's order.
func meshRank(o *object) int {
	switch {
	case o.Kind == "ConfigMap" && o.Name == "istio":
		return 0
	case o.Kind == "IstioOperator" && scalar(get(o.Spec, "revision")) == "":
		return 1
	}
	return 2
}

// meshRetryPolicy reads defaultHttpRetryPolicy from the best ranked source
// that holds a MeshConfig.
func (l *loader) meshRetryPolicy(srcs []*object) *meshRetry {
	var best *object
	var cfg *yaml.Node
	for _, o := range srcs {
		if best != nil && meshRank(o) >= meshRank(best) {
			continue
		}
		var c *yaml.Node
		if o.Kind == "ConfigMap" {
			c = o.mesh
		} else {
			c = get(o.Spec, "meshConfig")
		}
		if c != nil {
			best, cfg = o, c
		}
	}
	if best == nil {
		return nil
	}
	k, v := getKV(cfg, "defaultHttpRetryPolicy")
	if v == nil || v.Tag == "!!null" {
		return nil
	}
	return &meshRetry{o: best, key: k, policy: v}
}

// embeddedMesh parses the YAML document held by a ConfigMap's mesh key and
// moves its positions into the file: a literal block scalar (`mesh: |`, as
// Istio's chart and kubectl write it) keeps its lines, so each node keeps
// its line and column; a string in another style (quoted, as JSON holds
// it, or folded) cannot be mapped line by line, and every node points at
// the string.
func (m *Manifest) embeddedMesh(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(n.Value), &doc); err != nil {
		line, msg := errorLine(err)
		at := &yaml.Node{Line: n.Line, Column: n.Column}
		if n.Style == yaml.LiteralStyle {
			at.Line, at.Column = n.Line+line, m.blockIndent(n)+1
		}
		m.diags = append(m.diags, model.Diagnostic{Code: CodeInvalid, Severity: model.Error, Pos: model.Pos{File: m.path, Line: int32(at.Line), Col: int32(at.Column)},
			Message: fmt.Sprintf("data.mesh is not a MeshConfig istiod can read (%s); the mesh config is left out", msg)})
		return nil
	}
	if len(doc.Content) == 0 {
		return nil
	}
	indent := m.blockIndent(n)
	if n.Style == yaml.LiteralStyle {
		// Comments of the embedded YAML are comments of the file
		// (wants, suppressions), which the file's own scan skips as
		// part of a block scalar.
		for _, c := range envoy.Comments(m.path, []byte(n.Value)) {
			c.Pos.Line += int32(n.Line)
			c.Pos.Col += int32(indent)
			m.comments = append(m.comments, c)
		}
	}
	var move func(*yaml.Node)
	seen := map[*yaml.Node]bool{}
	move = func(x *yaml.Node) {
		if x == nil || seen[x] {
			return
		}
		seen[x] = true
		if n.Style == yaml.LiteralStyle {
			x.Line, x.Column = n.Line+x.Line, x.Column+indent
		} else {
			x.Line, x.Column = n.Line, n.Column
		}
		for _, c := range x.Content {
			move(c)
		}
	}
	move(doc.Content[0])
	return doc.Content[0]
}

// blockIndent is the indentation of a literal block scalar's content,
// which the parser does not keep: the leading spaces of its first
// non-blank line in the file, less those the value itself keeps.
func (m *Manifest) blockIndent(n *yaml.Node) int {
	for k, line := range strings.Split(n.Value, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		src := m.line(n.Line + 1 + k)
		return (len(src) - len(strings.TrimLeft(src, " "))) - (len(line) - len(strings.TrimLeft(line, " ")))
	}
	return 0
}

// line is line i (from 1) of the file, "" past its end.
func (m *Manifest) line(i int) string {
	src := m.src
	for ; i > 1 && len(src) > 0; i-- {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return ""
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return strings.TrimSuffix(string(src), "\r")
}

// addComments adds the comments found inside embedded YAML to the file's,
// in line order.
func (m *Manifest) addComments() {
	if len(m.comments) == 0 {
		return
	}
	f := m.file
	f.Comments = append(f.Comments, m.comments...)
	sort.SliceStable(f.Comments, func(i, j int) bool { return f.Comments[i].Pos.Line < f.Comments[j].Pos.Line })
}
