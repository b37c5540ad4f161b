// Package workers runs independent pieces of work side by side.
package workers

import (
	"sync"
	"sync/atomic"
)

// Each calls do(i) for every i in [0, n), on at most k goroutines, and
// returns when every call has returned. With k or n below 2 it calls them
// in order on the calling goroutine: starting goroutines (and the threads
// to run them) costs more than a little work saves. do must only write what
// belongs to its i.
//
// The calling goroutine is one of the k, and each takes the next index
// from a shared counter: handing indices out over a channel parked and
// woke a goroutine for each of them, which cost a short run more CPU time
// than the work it spread.
func Each(n, k int, do func(i int)) {
	if k > n {
		k = n
	}
	if k < 2 {
		for i := range n {
			do(i)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			do(i)
		}
	}
	var wg sync.WaitGroup
	// Should the caller's share panic, the others finish before the
	// panic goes on: nothing is still writing when a caller recovers.
	defer wg.Wait()
	for range k - 1 {
		wg.Go(work)
	}
	work()
}
