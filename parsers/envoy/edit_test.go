package envoy

import (
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

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

// safeDrainEdits turns http1_safe_max_connection_duration on for every
// listener that limits connection lifetime without it, through the editor
// and the model's positions alone: the flag's own position when it is
// written, else the connection manager that its default points at.
func safeDrainEdits(t *testing.T, res Result) []model.Edit {
	t.Helper()
	ed, ok := res.File.Tree()
	if !ok {
		t.Fatal("the file has no tree editor")
	}
	var edits []model.Edit
	for _, p := range res.Proxies {
		for _, l := range p.Listeners {
			if !l.MaxConnectionDuration.Explicit() || l.H1SafeMaxConnectionDuration.Value {
				continue
			}
			var e []model.Edit
			var err error
			if safe := l.H1SafeMaxConnectionDuration; safe.Explicit() {
				e, err = ed.SetValue(safe.Pos(), model.Bool(true))
			} else if opts, ok := ed.Lookup(safe.Pos(), "common_http_protocol_options"); ok {
				e, err = ed.InsertField(opts.KeyPos, model.Before, "http1_safe_max_connection_duration", model.Bool(true))
			} else {
				t.Fatalf("%s: the connection manager at %s has no common_http_protocol_options", l.Name, safe.Pos())
			}
			if err != nil {
				t.Fatalf("%s: %v", l.Name, err)
			}
			edits = append(edits, e...)
		}
	}
	return edits
}

// TestEditorOnTheModel makes the safe-drain repair on the rule's fixtures,
// in YAML, camelCase YAML, pretty and one-line JSON, and checks that the
// result loads without a diagnostic and drains safely.
func TestEditorOnTheModel(t *testing.T) {
	inputs := map[string][]byte{}
	for _, name := range []string{"bad.yaml", "camel-case.yaml"} {
		src, err := os.ReadFile("../../fixtures/envoy-h1-unsafe-drain/" + name)
		if err != nil {
			t.Fatal(err)
		}
		inputs[name] = src
		var v any
		if err := yaml.Unmarshal(src, &v); err != nil {
			t.Fatal(err)
		}
		pretty, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		compact, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		inputs[strings.TrimSuffix(name, ".yaml")+".json"] = pretty
		inputs[strings.TrimSuffix(name, ".yaml")+".min.json"] = compact
	}
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			res := LoadBytes(name, src, Options{})
			edits := safeDrainEdits(t, res)
			if len(edits) == 0 {
				t.Fatal("nothing to repair")
			}
			out := applyEdits(t, res.File.Source, edits)
			again := LoadBytes(name, out, Options{})
			for _, d := range again.Diagnostics {
				if d.Code == CodeSyntax || d.Code == CodeInvalid {
					t.Errorf("%s\n%s", d, out)
				}
			}
			for _, p := range again.Proxies {
				for _, l := range p.Listeners {
					if l.MaxConnectionDuration.Explicit() && !l.H1SafeMaxConnectionDuration.Value {
						t.Errorf("%s still drains unsafely\n%s", l.Name, out)
					}
				}
			}
			camel := strings.HasPrefix(name, "camel")
			if strings.Contains(string(out), "http1_safe") == camel || strings.Contains(string(out), "http1Safe") != camel {
				t.Errorf("the field is not in the file's case\n%s", out)
			}
			// One listener of each file gets a line of its own (in JSON
			// written on one line, none); bad.yaml's other listener has
			// its flag set in place.
			want := 1
			if strings.HasSuffix(name, ".min.json") {
				want = 0
			}
			if d := strings.Count(string(out), "\n") - strings.Count(string(src), "\n"); d != want {
				t.Errorf("%d lines added\n%s", d, out)
			}
		})
	}
}
