package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"

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

// tightGCPercent is how far the heap may grow while a large model is built
// and while the rules run on it, as a percentage of what was in use after
// the last collection (GOGC; the default is 100).
const tightGCPercent = 50

// tightHeap lets the heap grow by tightGCPercent instead of the default
// while a large configuration's model is built (its parse trees and the
// model are then both in use) and while the rules run on it (the model is
// then most of what is in use, and lives until they end). By default the
// collector lets the heap grow by as much as is in use again before it
// collects, room the garbage of building and checking takes, so that a
// run's peak was twice its live heap; on the 2000-server tree this holds
// it to about 1.5 times for a few more collections (docs/benchmarks.md).
// Builds of several configurations may overlap: the setting holds until
// the last ends. A user's GOGC is left as it is.
type tightHeap struct {
	mu    sync.Mutex
	holds int
	old   int
}

// hold tightens the heap's growth, when read (the bytes the work is about)
// is at least smallInput and the heap holds at least largeHeap, and returns
// what ends it.
func (h *tightHeap) hold(read int64) (release func()) {
	// The runtime reads GOGC from the process's environment.
	if read < smallInput || os.Getenv("GOGC") != "" || heapObjects() < largeHeap {
		return func() {}
	}
	h.mu.Lock()
	if h.holds == 0 {
		h.old = debug.SetGCPercent(tightGCPercent)
	}
	h.holds++
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.holds--; h.holds == 0 {
			debug.SetGCPercent(h.old)
		}
	}
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
