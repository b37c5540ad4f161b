package envoy

import (
	"fmt"
	"testing"

	"github.com/proxylint/proxylint/bench/gen"
)

// A large file found to be Envoy's by DetectDepth is read from the tree
// DetectDepth parsed, once, and read as it is without it; a Read of other
// bytes, or of another path, parses its own.
func TestReadTakesTheDetectedTree(t *testing.T) {
	src := gen.EnvoyBootstrap{Listeners: 80, RoutesPerListener: 40, Clusters: 800}.YAML()
	if len(src) < detectedKeep {
		t.Fatalf("the bootstrap is %d bytes, below %d", len(src), detectedKeep)
	}
	summary := func(r Result) string {
		proxies, diags := Join(r.Parts)
		return fmt.Sprintf("%v %v %d %d", diagStrings(r), diags, len(proxies), len(r.File.Source))
	}
	kept := &Kept{}
	want := summary(Read("b.yaml", src, Options{}))
	if ok, _ := DetectDepth("b.yaml", src, kept); !ok {
		t.Fatal("not detected")
	}
	if kept.docs == nil {
		t.Fatal("DetectDepth kept no tree")
	}
	if got := summary(Read("b.yaml", src, Options{Kept: kept})); got != want {
		t.Errorf("read from the detected tree: %s, want %s", got, want)
	}
	if kept.docs != nil {
		t.Error("Read left the detected tree kept")
	}
	// Another path, then other bytes: parsed anew, the kept tree let go.
	other := append([]byte("# another\n"), src...)
	DetectDepth("b.yaml", src, kept)
	if got := summary(Read("c.yaml", src, Options{Kept: kept})); got != want {
		t.Errorf("another path: %s, want %s", got, want)
	}
	DetectDepth("b.yaml", src, kept)
	wantOther := summary(Read("b.yaml", other, Options{Kept: kept}))
	if kept.docs != nil {
		t.Error("a Read of other bytes left the detected tree kept")
	}
	if got := summary(Read("b.yaml", other, Options{})); got != wantOther {
		t.Errorf("other bytes: %s, want %s", got, wantOther)
	}
}
