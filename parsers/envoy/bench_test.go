package envoy

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/proxylint/proxylint/bench/gen"
)

// BenchmarkLoadBootstrap loads a 256-line bootstrap: the YAML, protojson,
// validation and model steps together.
func BenchmarkLoadBootstrap(b *testing.B) {
	src, err := os.ReadFile("testdata/bootstrap.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		r := LoadBytes("bootstrap.yaml", src, Options{})
		if len(r.Proxies) != 1 || len(r.Diagnostics) != 0 {
			b.Fatal(diagStrings(r))
		}
	}
}

// BenchmarkLoadConfigDump loads a 246 KB YAML config dump of an Istio
// sidecar from the corpus.
func BenchmarkLoadConfigDump(b *testing.B) {
	dir := requireCorpus(b)
	src, err := os.ReadFile(filepath.Join(dir, "istio__istio/istioctl/pkg/authz/testdata/configdump.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		LoadBytes("configdump.yaml", src, Options{})
	}
}

// BenchmarkLoadGenerated loads bench/gen bootstraps of 64 and 256
// listeners (2,560 and 10,240 routes; 1 MB and 3.9 MB of YAML), the
// largest sizes `go run ./bench envoy` times.
func BenchmarkLoadGenerated(b *testing.B) {
	for _, l := range []int{64, 256} {
		src := gen.EnvoyBootstrap{Listeners: l, RoutesPerListener: 40, Clusters: 10 * l}.YAML()
		b.Run(fmt.Sprintf("listeners-%d", l), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				r := LoadBytes("bootstrap.yaml", src, Options{})
				if len(r.Proxies) != 1 || len(r.Diagnostics) != 0 {
					b.Fatal(diagStrings(r))
				}
			}
		})
	}
}
