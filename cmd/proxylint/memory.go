package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"

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

// The program's garbage-collector policy, set once when it starts
// (gcPolicy): no collection while the heap is below floorHeap, and above it
// a collection whenever the heap has grown by heapGrowth percent of what
// the last one left in use.
//
// A run is short and its heap mostly grows: the sources, the parse trees
// and the model live until the findings are made. The runtime's default
// (GOGC=100) collects first at 4 MB and then each time the heap doubles, so
// that a small run spends its collections on a heap it is about to free at
// exit, and a large one peaks at twice what it holds. Below the floor the
// whole run fits in less memory than the default would reach on the
// 2,000-server tree; above it a large configuration's peak is held to 1.5
// times its live heap, once that heap passes bigHeap to 1.25 times, and
// past hugeHeap to 1.15 times: there each collection costs more, but the
// room it leaves is what takes a large run past the memory a machine or a
// CI runner has to give, and past a budget of 20 bytes per input byte
// plus 50 MB (docs/benchmarks.md has the measurements).
const (
	floorHeap      = 72 << 20
	heapGrowth     = 50
	bigHeap        = 256 << 20
	bigHeapGrowth  = 25
	hugeHeap       = 512 << 20
	hugeHeapGrowth = 15
)

// gcPolicy sets the policy above, unless the user has set GOGC or
// GOMEMLIMIT, which the runtime then follows as it is.
func gcPolicy(getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	// The first collection comes when the heap reaches GOGC percent of
	// the runtime's 4 MB minimum.
	debug.SetGCPercent(100 * floorHeap / (4 << 20))
	armGCTuner()
}

// armGCTuner has the next collection call tuneGC: a finalizer runs once
// the collection that found its object unreachable is over.
func armGCTuner() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		tuneGC()
		armGCTuner()
	})
}

// gcSentinel is a heap object of its own (an object without pointers
// smaller than 16 bytes may share a block, and its finalizer not run).
type gcSentinel struct {
	_ [2]*byte
}

// tuneGC sets the growth for the next collection from what the last one
// left in use (gcPercentFor).
func tuneGC() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	debug.SetGCPercent(gcPercentFor(sample[0].Value.Uint64()))
}

// gcPercentFor is the growth that puts the next collection at floorHeap
// or at heapGrowth percent above the live heap, whichever is more, at
// bigHeapGrowth percent above a live heap of bigHeap or more, and at
// hugeHeapGrowth percent above one of hugeHeap or more.
func gcPercentFor(live uint64) int {
	live = max(live, 1)
	if live >= hugeHeap {
		return hugeHeapGrowth
	}
	if live >= bigHeap {
		return bigHeapGrowth
	}
	if goal := live * (100 + heapGrowth) / 100; goal < floorHeap {
		return int((floorHeap - live) * 100 / live)
	}
	return heapGrowth
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
