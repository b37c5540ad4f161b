package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/proxylint/proxylint/bench/gen"
	"github.com/proxylint/proxylint/chain"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
)

// benchInput is a configuration the benchmarks lint: the paths to name
// and the directory includes may be read from.
type benchInput struct {
	name  string
	paths []string
	root  string
	// broken inputs hold files nginx would refuse: exit code 2 is
	// their right answer.
	broken bool
}

// benchInputs writes the one-file config and the generated trees, and
// adds the shared corpus when it is next to the repository. The
// environment variable PROXYLINT_BENCH_TREE names one more tree to lint
// (a directory holding nginx.conf, e.g. one gen_nginx.py wrote).
func benchInputs(b *testing.B) []benchInput {
	dir := b.TempDir()
	one := filepath.Join(dir, "one-file", "nginx.conf")
	if err := os.MkdirAll(filepath.Dir(one), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(one, []byte(gen.OneFile), 0o644); err != nil {
		b.Fatal(err)
	}
	inputs := []benchInput{{"one-file", []string{one}, filepath.Dir(one), false}}
	for _, n := range []int{10, 200, 2000} {
		tree := filepath.Join(dir, fmt.Sprintf("gen-%d", n))
		main, err := gen.NginxTree{Servers: n}.Write(tree)
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, benchInput{fmt.Sprintf("gen-%d", n), []string{main}, tree, false})
	}
	if corpus, err := filepath.Abs("../../../shared/corpus/nginx"); err == nil {
		if _, err := os.Stat(corpus); err == nil {
			inputs = append(inputs, benchInput{"corpus", []string{corpus}, corpus, true})
		}
	}
	if tree := os.Getenv("PROXYLINT_BENCH_TREE"); tree != "" {
		inputs = append(inputs, benchInput{"env-tree", []string{filepath.Join(tree, "nginx.conf")}, tree, false})
	}
	return inputs
}

// BenchmarkLint runs the whole command in-process: flags, loading, the
// model, the rules and the report, written to io.Discard. What it does not
// time is the process's start (the runtime and package initialisation),
// which `go run ./bench` measures.
func BenchmarkLint(b *testing.B) {
	for _, in := range benchInputs(b) {
		for _, format := range []string{"text", "json"} {
			b.Run(in.name+"/"+format, func(b *testing.B) {
				args := append([]string{"--no-config", "--include-root", in.root, "--format", format}, in.paths...)
				b.ReportAllocs()
				for b.Loop() {
					if code := run(args, io.Discard, io.Discard, noEnv); code == exitError && !in.broken {
						var out stringWriter
						run(args, &out, &out, noEnv)
						b.Fatalf("exit %d: %s", code, out)
					}
				}
			})
		}
	}
}

// BenchmarkLoad times loading alone as the command does it: finding the
// files, reading and parsing them with their includes, building the model
// and linking the proxies.
func BenchmarkLoad(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			opts := load.Options{Targets: []model.Target{{Product: model.Nginx}}, IncludeRoots: []string{in.root}}
			b.ReportAllocs()
			var m *model.Model
			for b.Loop() {
				m, _ = load.LoadScoped(in.paths, opts)
				chain.Analyze(m.Proxies, nil, 0)
			}
			var size int64
			for _, f := range m.Files {
				size += int64(len(f.Source))
			}
			b.SetBytes(size)
		})
	}
}

type stringWriter string

func (s *stringWriter) Write(p []byte) (int, error) {
	*s += stringWriter(p)
	return len(p), nil
}
