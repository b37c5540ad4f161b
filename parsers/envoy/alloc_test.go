package envoy

import (
	"testing"

	"github.com/proxylint/proxylint/bench/gen"
	"github.com/proxylint/proxylint/internal/racedetect"
)

// maxAllocsPerRoute bounds the allocations a load of a generated bootstrap
// makes for each route it adds (with its share of the listeners and
// clusters): 82.6 before a retry policy's identity stopped being
// marshalled, the fast YAML reader allocated its collections' entries
// once each and the direct reader its messages with their fields, and
// plain words were typed without the YAML reader's resolver; 44.6 after.
const maxAllocsPerRoute = 47

// TestLoadAllocationsPerRoute holds the allocations of loading a
// bootstrap (reading, validating and building it) per added route to
// maxAllocsPerRoute, between two sizes, so that the fixed costs (the
// schema, validation's plans) do not count.
func TestLoadAllocationsPerRoute(t *testing.T) {
	if testing.Short() {
		t.Skip("loads generated bootstraps of 4 and 16 listeners several times")
	}
	if racedetect.Enabled {
		// sync.Pool drops what is put into it at random under the race
		// detector: the count is not that of the program users run.
		t.Skip("allocations are counted without the race detector")
	}
	// Measured as a run reads it: the direct reader alone, without the
	// comparison with protojson that TestMain turns on.
	was := crossCheck.on
	crossCheck.on = false
	defer func() { crossCheck.on = was }()
	const routes = 40
	allocs := func(listeners int) float64 {
		src := gen.EnvoyBootstrap{Listeners: listeners, RoutesPerListener: routes, Clusters: 10 * listeners}.YAML()
		return testing.AllocsPerRun(3, func() {
			r := LoadBytes("bootstrap.yaml", src, Options{})
			if len(r.Proxies) != 1 || len(r.Diagnostics) != 0 {
				t.Fatal(diagStrings(r))
			}
		})
	}
	small, large := allocs(4), allocs(16)
	perRoute := (large - small) / float64((16-4)*routes)
	t.Logf("%.0f and %.0f allocations: %.1f per added route", small, large, perRoute)
	if perRoute > maxAllocsPerRoute {
		t.Errorf("a load allocates %.1f times per added route, more than %d", perRoute, maxAllocsPerRoute)
	}
}
