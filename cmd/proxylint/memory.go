package main

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/proxylint/proxylint/model"
)

// largeHeap is the heap, in bytes, above which collectLarge collects.
const largeHeap = 32 << 20

// smallInput is the size of the files read below which a run's heap stays
// far from largeHeap (the model takes some twelve times the bytes of an
// nginx configuration, about forty times those of an Envoy bootstrap): such
// a run does not ask the runtime how large its heap is, which costs a
// one-file lint more than the rest of its work (runtime/metrics' start-up,
// or ReadMemStats' page faults).
const smallInput = 256 << 10

// collectLarge runs the garbage collector when the heap holds at least
// largeHeap bytes. It is called where most of the heap has just become
// garbage (the model, once the findings are made), so that the heap's next
// growth is measured from what is still in use: otherwise the collector
// lets it grow to twice what was in use at its last cycle, when the model
// was, and a large configuration's report takes that room on top of the
// model's. A small run never pays for it.
func collectLarge(read int64) {
	if read >= smallInput && heapObjects() >= largeHeap {
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
func whileRules(read int64) (restore func()) {
	// The runtime reads GOGC from the process's environment.
	if read < smallInput || os.Getenv("GOGC") != "" || heapObjects() < largeHeap {
		return func() {}
	}
	old := debug.SetGCPercent(rulesGCPercent)
	return func() { debug.SetGCPercent(old) }
}

// bytesRead is the size of the files a model was read from.
func bytesRead(m *model.Model) int64 {
	var n int64
	for _, f := range m.Files {
		n += int64(len(f.Source))
	}
	return n
}

// heapObjects is the bytes the heap's objects take, live or not yet
// collected.
func heapObjects() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
