package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/proxylint/proxylint/bench/gen"
	"github.com/proxylint/proxylint/model"
)

// BenchmarkBuild measures model resolution alone: Build on configurations
// already loaded, which resolves every inherited and default value of every
// route. Reading and parsing are not timed.
func BenchmarkBuild(b *testing.B) {
	target := model.Target{Product: model.Nginx}
	for _, n := range []int{10, 200, 2000} {
		b.Run(fmt.Sprintf("gen-%d", n), func(b *testing.B) {
			main, err := gen.NginxTree{Servers: n}.Write(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			cfg := Load(main, Options{})
			if cfg.Syntax || len(cfg.Diagnostics) > 0 {
				b.Fatalf("generated tree does not load cleanly: %v", cfg.Diagnostics)
			}
			benchBuild(b, []*Config{cfg}, target)
		})
	}
	b.Run("corpus", func(b *testing.B) {
		benchBuild(b, benchCorpusConfigs(b), target)
	})
}

func benchBuild(b *testing.B, cfgs []*Config, target model.Target) {
	var size int64
	for _, c := range cfgs {
		for _, f := range c.Files {
			size += int64(len(f.Source))
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	proxies := make([]*model.Proxy, len(cfgs))
	for b.Loop() {
		for i, c := range cfgs {
			proxies[i] = Build(c, target)
		}
	}
	routes := 0
	for _, p := range proxies {
		routes += len(p.Routes())
	}
	b.ReportMetric(float64(routes), "routes/op")
}

// benchCorpusConfigs loads every nginx file of the shared corpus that
// parses (skipping the benchmark when the corpus is not next to the
// repository).
func benchCorpusConfigs(b *testing.B) []*Config {
	dir, err := filepath.Abs("../../../shared/corpus/nginx")
	if err == nil {
		_, err = os.Stat(dir)
	}
	if err != nil {
		b.Skipf("corpus not available: %v", err)
	}
	var cfgs []*Config
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if cfg := Load(p, Options{Roots: []string{dir}}); cfg.Main != nil && !cfg.Syntax {
			cfgs = append(cfgs, cfg)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return cfgs
}
