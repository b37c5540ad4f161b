package main

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// With a large heap, collectLarge completes a collection.
func TestCollectLargeCollectsALargeHeap(t *testing.T) {
	big := make([]byte, largeHeap+(8<<20))
	for i := range big {
		big[i] = byte(i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	collectLarge(smallInput)
	runtime.ReadMemStats(&after)
	if after.NumGC <= before.NumGC {
		t.Errorf("no collection with %d bytes in use", len(big))
	}
	runtime.KeepAlive(big)
}

// After a collection the next is put at floorHeap while what is in use is
// small, and at heapGrowth percent above it once that passes the floor; a
// GOGC or GOMEMLIMIT the user set is left alone.
func TestGCPolicyFloorThenGrowth(t *testing.T) {
	gcPercent := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	defer debug.SetGCPercent(debug.SetGCPercent(80))
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		gcPolicy(func(name string) string {
			if name == env {
				return "100"
			}
			return ""
		})
		assert.Equal(t, 80, gcPercent(), "with %s set", env)
	}

	runtime.GC()
	tuneGC()
	// The heap of a test binary: a few megabytes, so the next collection
	// waits for many times that.
	assert.Greater(t, gcPercent(), 500, "a small heap")

	big := make([]byte, floorHeap)
	for i := range big {
		big[i] = byte(i)
	}
	runtime.GC()
	tuneGC()
	assert.Equal(t, heapGrowth, gcPercent(), "a heap above the floor")
	runtime.KeepAlive(big)
}

// Above bigHeap the heap grows by bigHeapGrowth percent between
// collections, below it by heapGrowth, and never to less than the floor.
func TestGCPercentForLiveHeap(t *testing.T) {
	assert.Equal(t, 100*(floorHeap-(8<<20))/(8<<20), gcPercentFor(8<<20), "8 MB: the next collection at the floor")
	assert.Equal(t, heapGrowth, gcPercentFor(floorHeap), "at the floor")
	assert.Equal(t, heapGrowth, gcPercentFor(bigHeap-1), "just below bigHeap")
	assert.Equal(t, bigHeapGrowth, gcPercentFor(bigHeap), "at bigHeap")
	assert.Equal(t, bigHeapGrowth, gcPercentFor(hugeHeap-1), "just below hugeHeap")
	assert.Equal(t, hugeHeapGrowth, gcPercentFor(hugeHeap), "at hugeHeap")
	assert.Equal(t, hugeHeapGrowth, gcPercentFor(2<<30), "2 GB")
	assert.Positive(t, gcPercentFor(0), "nothing in use")
}
