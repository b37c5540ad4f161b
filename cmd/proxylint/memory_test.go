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

// With a large heap the rules run with rulesGCPercent, and the setting in
// effect before is restored after them; a small heap, or a GOGC the user
// set, is left alone.
func TestWhileRulesBoundsGrowthOnALargeHeap(t *testing.T) {
	gcPercent := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	defer debug.SetGCPercent(debug.SetGCPercent(80))
	t.Setenv("GOGC", "")
	runtime.GC()
	restore := whileRules(smallInput)
	assert.Equal(t, 80, gcPercent(), "a small heap")
	restore()

	big := make([]byte, largeHeap+(8<<20))
	for i := range big {
		big[i] = byte(i)
	}
	restore = whileRules(smallInput - 1)
	assert.Equal(t, 80, gcPercent(), "a small input")
	restore()
	restore = whileRules(smallInput)
	assert.Equal(t, rulesGCPercent, gcPercent(), "a large heap")
	restore()
	assert.Equal(t, 80, gcPercent(), "restored")

	t.Setenv("GOGC", "80")
	restore = whileRules(smallInput)
	assert.Equal(t, 80, gcPercent(), "the user's GOGC")
	restore()
	runtime.KeepAlive(big)
}
