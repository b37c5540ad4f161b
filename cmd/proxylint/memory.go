package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// largeHeap is the heap, in bytes, above which collectLarge collects.
const largeHeap = 32 << 20

// collectLarge runs the garbage collector when the heap holds at least
// largeHeap bytes. It is called where most of the heap has just become
// garbage (the model, once the findings are made), so that the heap's next
// growth is measured from what is still in use: otherwise the collector
// lets it grow to twice what was in use at its last cycle, when the model
// was, and a large configuration's report takes that room on top of the
// model's. A small run never pays for it.
func collectLarge() {
	if heapObjects() >= largeHeap {
		runtime.GC()
	}
}

// rulesGCPercent is how far the heap may grow while the rules run on a
// large model, as a percentage of what was in use after the last
// collection (GOGC; the default is 100).
const rulesGCPercent = 50

// whileRules lets the heap grow by rulesGCPercent instead of the default
// while the rules run, when the heap holds at least largeHeap bytes, and
// returns what restores the setting. The model is then most of what is in
// use, and it lives until the rules end: by default the collector lets
// the heap grow by as much as the model again before it collects, room
// the rules' garbage takes, so that a run's peak is twice its model. On
// the 2000-server tree this holds the peak heap to 1.5 times the model
// for a few more collections (docs/benchmarks.md). A user's GOGC is left
// as it is.
func whileRules() (restore func()) {
	// The runtime reads GOGC from the process's environment.
	if os.Getenv("GOGC") != "" || heapObjects() < largeHeap {
		return func() {}
	}
	old := debug.SetGCPercent(rulesGCPercent)
	return func() { debug.SetGCPercent(old) }
}

// heapObjects is the bytes the heap's objects take, live or not yet
// collected.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
