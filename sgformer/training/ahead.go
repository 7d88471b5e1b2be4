package training

import "iter"

// ahead runs a sequence on another goroutine, one item ahead of its consumer: the host builds
// the next batch while the backend runs the one taken (on a GPU, the two overlap).
type ahead[T any] struct {
	items chan T
	quit  chan struct{}
	drop  func(T) // frees an item built and never taken
}

// runAhead starts producing seq's items in order.
func runAhead[T any](seq iter.Seq[T], drop func(T)) *ahead[T] {
	a := &ahead[T]{items: make(chan T, 1), quit: make(chan struct{}), drop: drop}
	go func() {
		defer close(a.items)
		for x := range seq {
			select {
			case a.items <- x:
			case <-a.quit:
				drop(x)
				return
			}
		}
	}()
	return a
}

// next returns the next item, and false after the last.
func (a *ahead[T]) next() (T, bool) {
	x, ok := <-a.items
	return x, ok
}

// stop ends the production early, waits for it and frees what was built and not taken. A nil
// a is stopped already.
func (a *ahead[T]) stop() {
	if a == nil {
		return
	}
	close(a.quit)
	for x := range a.items {
		a.drop(x)
	}
}
