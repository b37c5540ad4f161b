package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/proxylint/proxylint/bench/gen"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// BenchmarkRules measures the rule engine alone: every rule that runs by
// default, suppressions and sorting, over a model already loaded.
func BenchmarkRules(b *testing.B) {
	for _, n := range []int{10, 200, 2000} {
		b.Run(fmt.Sprintf("gen-%d", n), func(b *testing.B) {
			benchRun(b, benchGenModel(b, n), &rules.Options{})
		})
	}
	b.Run("corpus", func(b *testing.B) {
		dir, err := filepath.Abs("../../shared/corpus/nginx")
		if err == nil {
			_, err = os.Stat(dir)
		}
		if err != nil {
			b.Skipf("corpus not available: %v", err)
		}
		m := load.Load([]string{dir}, load.Options{Targets: []model.Target{{Product: model.Nginx}}})
		benchRun(b, m, &rules.Options{})
	})
}

// BenchmarkRule runs one rule at a time on the generated tree of 2000
// servers, to tell which rule costs what.
func BenchmarkRule(b *testing.B) {
	m := benchGenModel(b, 2000)
	for _, r := range rules.All() {
		if r.Check == nil {
			continue
		}
		b.Run(r.ID, func(b *testing.B) {
			opts := &rules.Options{Enable: map[string]bool{r.ID: true}, Disable: map[string]bool{}}
			for _, other := range rules.All() {
				if other.ID != r.ID {
					opts.Disable[other.ID] = true
				}
			}
			benchRun(b, m, opts)
		})
	}
}

func benchRun(b *testing.B, m *model.Model, opts *rules.Options) {
	routes := 0
	for _, p := range m.Proxies {
		routes += len(p.Routes())
	}
	b.ReportAllocs()
	var findings []rules.Finding
	for b.Loop() {
		findings = rules.Run(m, opts)
	}
	b.ReportMetric(float64(routes), "routes/op")
	b.ReportMetric(float64(len(findings)), "findings/op")
}

// benchGenModel loads a generated tree of n servers.
func benchGenModel(b *testing.B, n int) *model.Model {
	main, err := gen.NginxTree{Servers: n}.Write(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	m := load.Load([]string{main}, load.Options{Targets: []model.Target{{Product: model.Nginx}}})
	for _, d := range m.Diagnostics {
		if d.Fatal {
			b.Fatalf("generated tree does not load: %v", d)
		}
	}
	return m
}
