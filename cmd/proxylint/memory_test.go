package main

import (
	"runtime"
	"testing"
)

// With a large heap, collectLarge completes a collection.
func TestCollectLargeCollectsALargeHeap(t *testing.T) {
	big := make([]byte, largeHeap+(8<<20))
	for i := range big {
		big[i] = byte(i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	collectLarge()
	runtime.ReadMemStats(&after)
	if after.NumGC <= before.NumGC {
		t.Errorf("no collection with %d bytes in use", len(big))
	}
	runtime.KeepAlive(big)
}
