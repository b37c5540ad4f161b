package envoy

import (
	"runtime"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/proxylint/proxylint/bench/gen"
	"github.com/proxylint/proxylint/internal/memtest"
)

// A load holds, per byte of a generated bootstrap, at most what these
// bounds allow: once read, the source, the positioned tree and the
// messages (8.1 bytes a byte; 10.2 with set fields of 48 bytes and tree
// nodes of 64, and the direct reader's messages in dynamicpb made it 18);
// once built, the model alone (7.3).
// The heap is measured after a collection, so the figures do not depend on
// when the collector runs; they change only with what a load keeps.
func TestLoadHoldsBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a 1 MB bootstrap with the collector run between steps")
	}
	// Measured as a run reads it: the direct reader alone, without the
	// comparison with protojson that TestMain turns on.
	was := crossCheck.on
	crossCheck.on = false
	defer func() { crossCheck.on = was }()
	if _, err := loadSchema(); err != nil {
		t.Fatal(err)
	}
	src := gen.EnvoyBootstrap{Listeners: 64, RoutesPerListener: 40, Clusters: 640}.YAML()
	// A first load builds what the run keeps for any file (the schema's
	// types, validation's plans).
	LoadBytes("warm.yaml", src, Options{})
	base := memtest.LiveHeap()
	res := Read("bootstrap.yaml", src, Options{})
	read := memtest.LiveHeap() - base
	proxies, diags := Join(res.Parts)
	res.Parts = nil
	built := memtest.LiveHeap() - base
	if len(proxies) != 1 || len(diags) != 0 || len(res.Diagnostics) != 0 {
		t.Fatalf("%d proxies, diagnostics %v %v", len(proxies), diags, res.Diagnostics)
	}
	perByte := func(n uint64) float64 { return float64(n) / float64(len(src)) }
	t.Logf("%d bytes: %.1f bytes a byte once read, %.1f once built", len(src), perByte(read), perByte(built))
	if perByte(read) > 10 {
		t.Errorf("once read, the load holds %.1f bytes per byte of input, more than 10", perByte(read))
	}
	if perByte(built) > 10 {
		t.Errorf("once built, the load holds %.1f bytes per byte of input, more than 10", perByte(built))
	}
	runtime.KeepAlive(proxies)
	runtime.KeepAlive(res)
}

// While the model is built, each listener and cluster of a bootstrap is
// let go once built: its entry in the collection is cleared and the
// messages its Anys hold are released, so that the tree, the messages and
// the model of a large configuration are not all held at once.
func TestBuiltResourcesAreLetGo(t *testing.T) {
	src := gen.EnvoyBootstrap{Listeners: 3, RoutesPerListener: 4, Clusters: 6}.YAML()
	r := Read("bootstrap.yaml", src, Options{})
	if len(r.Parts) != 1 || len(r.Diagnostics) != 0 {
		t.Fatalf("%d parts, diagnostics %v", len(r.Parts), diagStrings(r))
	}
	defer Release(r.Parts)
	c := r.Parts[0].c
	if len(c.listeners) != 3 || len(c.clusters) != 6 {
		t.Fatalf("%d listeners, %d clusters", len(c.listeners), len(c.clusters))
	}
	var hcms []protoreflect.Message
	for _, l := range c.listeners {
		for _, fc := range l.msg.list("filter_chains") {
			for _, f := range fc.list("filters") {
				hcms = append(hcms, f.sub("typed_config").m)
			}
		}
	}
	c.own = true
	p := build("bootstrap.yaml", r.Parts[0].target, c)
	if len(p.Listeners) != 3 || len(p.Upstreams) != 6 || len(p.Routes()) != 12 {
		t.Fatalf("built %d listeners, %d upstreams, %d routes", len(p.Listeners), len(p.Upstreams), len(p.Routes()))
	}
	for i, l := range c.listeners {
		if l != (res{}) {
			t.Errorf("listener %d is still held once built", i)
		}
	}
	for i, cl := range c.clusters {
		if cl != (res{}) {
			t.Errorf("cluster %d is still held once built", i)
		}
	}
	if len(hcms) != 3 {
		t.Fatalf("%d connection managers", len(hcms))
	}
	unpacked.Lock()
	defer unpacked.Unlock()
	for i, a := range hcms {
		if r, ok := unpacked.m[a]; !ok || !r.released || r.m != nil {
			t.Errorf("the connection manager of listener %d is still held once built", i)
		}
	}
}
