package envoy

import (
	"os"
	"path/filepath"
	"testing"
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
