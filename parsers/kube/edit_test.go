package kube

import (
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/proxylint/proxylint/model"
)

func applyEdits(t testing.TB, src []byte, edits []model.Edit) []byte {
	t.Helper()
	sorted := append([]model.Edit{}, edits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	var out bytes.Buffer
	at := 0
	for _, e := range sorted {
		if e.Start < at || e.End < e.Start || e.End > len(src) {
			t.Fatalf("edit %+v overlaps another or lies outside the file", e)
		}
		out.Write(src[at:e.Start])
		out.WriteString(e.New)
		at = e.End
	}
	out.Write(src[at:])
	return out.Bytes()
}

// TestEditorOnTheModel sets a timeout on every VirtualService route of a
// manifest, in YAML and in JSON, through the editor and the model's
// positions alone: the timeout's own when it is written, else the route
// that its default points at. The result loads without a diagnostic and
// every route has the timeout.
func TestEditorOnTheModel(t *testing.T) {
	src, err := os.ReadFile("../../fixtures/retry-timeout-write/istio-bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		b, err := json.MarshalIndent(v, "", "    ")
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	inputs := map[string][]byte{"istio-bad.yaml": src}
	if len(docs) == 1 {
		inputs["istio-bad.json"] = []byte(docs[0] + "\n")
	} else {
		inputs["istio-bad.json"] = []byte(`{"apiVersion": "v1", "kind": "List", "items": [` + strings.Join(docs, ", ") + "]}\n")
	}
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			res := LoadBytes(name, src, Options{})
			ed, ok := res.File.Tree()
			if !ok {
				t.Fatal("the file has no tree editor")
			}
			var edits []model.Edit
			routes := 0
			for _, p := range res.Proxies {
				for _, r := range p.Routes() {
					to := r.Envoy.Timeout
					var e []model.Edit
					var err error
					if to.Explicit() {
						e, err = ed.SetValue(to.Pos(), model.String("10s"))
					} else {
						e, err = ed.SetField(to.Pos(), "timeout", model.String("10s"))
					}
					if err != nil {
						t.Fatalf("%s: %v", r.Name, err)
					}
					edits = append(edits, e...)
					routes++
				}
			}
			if routes == 0 {
				t.Fatal("no route")
			}
			out := applyEdits(t, res.File.Source, edits)
			again := LoadBytes(name, out, Options{})
			for _, d := range again.Diagnostics {
				if d.Code == CodeSyntax || d.Code == CodeInvalid {
					t.Errorf("%s\n%s", d, out)
				}
			}
			n := 0
			for _, p := range again.Proxies {
				for _, r := range p.Routes() {
					n++
					if to := r.Envoy.Timeout; !to.Explicit() || to.Value != 10*time.Second {
						t.Errorf("%s: timeout %v\n%s", r.Name, to, out)
					}
				}
			}
			if n != routes {
				t.Errorf("%d routes, not %d", n, routes)
			}
		})
	}
}
