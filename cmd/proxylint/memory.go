package main

import (
	"runtime"
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
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() >= largeHeap {
		runtime.GC()
	}
}
