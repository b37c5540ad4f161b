// Package memtest measures what a test's code keeps on the heap.
package memtest

import "runtime"

// LiveHeap is the heap in use after a collection: what is still
// reachable, whenever the collector last ran.
func LiveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
