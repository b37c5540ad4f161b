package report

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/proxylint/proxylint/bench/gen"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// BenchmarkReport measures each output format alone, writing to
// io.Discard the findings of a run already made. Every iteration starts
// from a fresh Input, as the command does, so the caches an Input keeps
// (sources, line starts, fingerprints) are rebuilt each time.
func BenchmarkReport(b *testing.B) {
	formats := []struct {
		name  string
		write func(io.Writer, *Input) error
	}{
		{"text", func(w io.Writer, in *Input) error { return Text(w, in, false) }},
		{"text-color", func(w io.Writer, in *Input) error { return Text(w, in, true) }},
		{"json", JSON},
		{"sarif", SARIF},
		{"github", GitHub},
	}
	inputs := []struct {
		name string
		load func(*testing.B) *model.Model
	}{
		{"gen-10", func(b *testing.B) *model.Model { return benchGenModel(b, 10) }},
		{"gen-200", func(b *testing.B) *model.Model { return benchGenModel(b, 200) }},
		{"gen-2000", func(b *testing.B) *model.Model { return benchGenModel(b, 2000) }},
		{"corpus", benchCorpusModel},
	}
	for _, src := range inputs {
		b.Run(src.name, func(b *testing.B) {
			m := src.load(b)
			findings := rules.Run(m, &rules.Options{})
			for _, f := range formats {
				b.Run(f.name, func(b *testing.B) {
					b.ReportAllocs()
					var w countingWriter
					for b.Loop() {
						w = 0
						in := &Input{Findings: findings, Files: m.Files, Rules: rules.All(), Version: "bench", Dir: "/", Diagnostics: m.Diagnostics}
						if err := f.write(&w, in); err != nil {
							b.Fatal(err)
						}
					}
					b.SetBytes(int64(w))
					b.ReportMetric(float64(len(findings)), "findings/op")
				})
			}
		})
	}
}

// countingWriter discards what it is given and counts the bytes.
type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

func benchGenModel(b *testing.B, n int) *model.Model {
	main, err := gen.NginxTree{Servers: n}.Write(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	m := load.Load([]string{main}, load.Options{Targets: []model.Target{{Product: model.Nginx}}})
	return m
}

func benchCorpusModel(b *testing.B) *model.Model {
	dir, err := filepath.Abs("../../../shared/corpus/nginx")
	if err == nil {
		_, err = os.Stat(dir)
	}
	if err != nil {
		b.Skipf("corpus not available: %v", err)
	}
	m := load.Load([]string{dir}, load.Options{Targets: []model.Target{{Product: model.Nginx}}})
	return m
}
