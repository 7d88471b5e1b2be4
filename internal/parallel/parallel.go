// Package parallel runs independent pieces of work on several goroutines.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(i) for every i in [0, n) on workers goroutines (GOMAXPROCS when workers ≤ 0),
// each taking the next index not yet taken, and returns once every call has returned. The calls
// run concurrently: fn(i) may write only to what belongs to i, or must synchronise.
func For(n, workers int, fn func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}
