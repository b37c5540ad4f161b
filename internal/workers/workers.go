// Package workers runs independent pieces of work side by side.
package workers

import "sync"

// Each calls do(i) for every i in [0, n), on at most k goroutines, and
// returns when every call has returned. With k or n below 2 it calls them
// in order on the calling goroutine: starting goroutines (and the threads
// to run them) costs more than a little work saves. do must only write what
// belongs to its i.
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
	next := make(chan int)
	var wg sync.WaitGroup
	for range k {
		wg.Go(func() {
			for i := range next {
				do(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
