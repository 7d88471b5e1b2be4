package training

import (
	"slices"
	"sync/atomic"
	"testing"
)

// runAhead yields the sequence in order, and stop frees every item built and not taken,
// whether the sequence ended or was cut short.
func TestRunAhead(t *testing.T) {
	seq := func(n int, built *atomic.Int32) func(func(int) bool) {
		return func(yield func(int) bool) {
			for i := range n {
				built.Add(1)
				if !yield(i) {
					return
				}
			}
		}
	}
	for _, take := range []int{0, 1, 3, 10} {
		var built, dropped atomic.Int32
		a := runAhead(seq(10, &built), func(int) { dropped.Add(1) })
		var got []int
		for range take {
			x, ok := a.next()
			if !ok {
				t.Fatalf("take %d: ended after %v", take, got)
			}
			got = append(got, x)
		}
		a.stop()
		if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}[:take]; !slices.Equal(got, want) {
			t.Errorf("take %d: got %v", take, got)
		}
		if int(built.Load()) != take+int(dropped.Load()) {
			t.Errorf("take %d: %d built, %d dropped", take, built.Load(), dropped.Load())
		}
	}
	var a *ahead[int]
	a.stop() // nothing under way
}
