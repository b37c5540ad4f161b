package workers

import (
	"sync/atomic"
	"testing"
)

func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, c := range []struct{ n, k int }{{0, 4}, {1, 4}, {5, 1}, {5, 0}, {100, 3}, {3, 100}} {
		got := make([]int32, c.n)
		var calls atomic.Int32
		Each(c.n, c.k, func(i int) {
			got[i]++
			calls.Add(1)
		})
		if int(calls.Load()) != c.n {
			t.Errorf("n=%d k=%d: %d calls", c.n, c.k, calls.Load())
		}
		for i, g := range got {
			if g != 1 {
				t.Errorf("n=%d k=%d: index %d called %d times", c.n, c.k, i, g)
			}
		}
	}
}

// With fewer than two workers the calls are made in order, on the calling
// goroutine.
func TestEachInOrderWithOneWorker(t *testing.T) {
	var order []int
	Each(5, 1, func(i int) { order = append(order, i) })
	for i, v := range order {
		if v != i {
			t.Fatalf("order %v", order)
		}
	}
}

func TestEachRunsOnAtMostKGoroutines(t *testing.T) {
	for _, k := range []int{2, 3} {
		var running, most atomic.Int32
		Each(200, k, func(int) {
			now := running.Add(1)
			for {
				m := most.Load()
				if now <= m || most.CompareAndSwap(m, now) {
					break
				}
			}
			for range 1000 {
				_ = running.Load()
			}
			running.Add(-1)
		})
		if m := most.Load(); m > int32(k) {
			t.Errorf("k=%d: %d calls ran at once", k, m)
		}
	}
}
