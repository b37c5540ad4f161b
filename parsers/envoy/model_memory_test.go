package envoy

import (
	"runtime"
	"testing"

	"github.com/proxylint/proxylint/bench/gen"
	"github.com/proxylint/proxylint/internal/memtest"
)

// TestModelHeldPerRoute holds what one Envoy route costs once its
// bootstrap is built and the tree let go (the source, read before, not
// counted): the route, its Envoy knobs, its forward and settings, with its
// share of the listeners and clusters. It was 3,066 bytes with settings of
// 88 bytes and a whole Methods in each route and its retry policy; 1,369
// with settings of 24.
func TestModelHeldPerRoute(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 10,240 routes with the collector run between steps")
	}
	was := crossCheck.on
	crossCheck.on = false
	defer func() { crossCheck.on = was }()
	spec := gen.EnvoyBootstrap{Listeners: 256, RoutesPerListener: 40, Clusters: 2560}
	src := spec.YAML()
	LoadBytes("warm.yaml", gen.EnvoyBootstrap{Listeners: 2, RoutesPerListener: 4, Clusters: 4}.YAML(), Options{})
	base := memtest.LiveHeap()
	res := LoadBytes("bootstrap.yaml", src, Options{})
	held := memtest.LiveHeap() - base
	if len(res.Proxies) != 1 || len(res.Diagnostics) != 0 {
		t.Fatalf("%d proxies, diagnostics %v", len(res.Proxies), diagStrings(res))
	}
	routes := len(res.Proxies[0].Routes())
	if routes != spec.Routes() {
		t.Fatalf("%d routes, want %d", routes, spec.Routes())
	}
	perRoute := float64(held) / float64(routes)
	t.Logf("%d routes (%d bytes of source): %d bytes held, %.0f a route", routes, len(src), held, perRoute)
	if perRoute > 1600 {
		t.Errorf("the model holds %.0f bytes a route, more than 1,600", perRoute)
	}
	runtime.KeepAlive(res)
	runtime.KeepAlive(src)
}
