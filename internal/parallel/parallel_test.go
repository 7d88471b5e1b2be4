package parallel

import (
	"sync/atomic"
	"testing"
)

// Every index is handed out exactly once, whatever the number of workers, and none when n is 0.
func TestFor(t *testing.T) {
	for _, tc := range []struct{ n, workers int }{{0, 4}, {1, 4}, {100, 1}, {100, 3}, {100, 0}, {5, 50}} {
		calls := make([]atomic.Int32, tc.n)
		For(tc.n, tc.workers, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("n %d, %d workers: index %d called %d times", tc.n, tc.workers, i, c)
			}
		}
	}
}
