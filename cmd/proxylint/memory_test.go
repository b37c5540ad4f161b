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

// With a large heap and a large input the heap's growth is held to
// tightGCPercent until the last hold ends, then the setting in effect before
// is restored; a small heap or input, or a GOGC the user set, is left alone.
func TestTightHeapHoldsGrowthOnALargeHeap(t *testing.T) {
	gcPercent := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	defer debug.SetGCPercent(debug.SetGCPercent(80))
	t.Setenv("GOGC", "")
	h := &tightHeap{}
	runtime.GC()
	release := h.hold(smallInput)
	assert.Equal(t, 80, gcPercent(), "a small heap")
	release()

	big := make([]byte, largeHeap+(8<<20))
	for i := range big {
		big[i] = byte(i)
	}
	release = h.hold(smallInput - 1)
	assert.Equal(t, 80, gcPercent(), "a small input")
	release()
	first := h.hold(smallInput)
	assert.Equal(t, tightGCPercent, gcPercent(), "a large heap")
	second := h.hold(smallInput)
	first()
	assert.Equal(t, tightGCPercent, gcPercent(), "held by the second")
	second()
	assert.Equal(t, 80, gcPercent(), "restored after the last")

	t.Setenv("GOGC", "80")
	release = h.hold(smallInput)
	assert.Equal(t, 80, gcPercent(), "the user's GOGC")
	release()
	runtime.KeepAlive(big)
}
