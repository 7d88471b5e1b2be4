package training

import (
	"errors"
	"time"
)

// ErrInterrupted reports training ended by Options.Stop.
var ErrInterrupted = errors.New("training: interrupted")

// stopper ends training early: at the next training step once stop is closed (Options.Stop,
// e.g. on Ctrl-C), and after the last epoch that ends before deadline (Options.Deadline, a job's
// time limit). Either may be zero.
type stopper struct {
	stop     <-chan struct{}
	deadline time.Time
}

// attach ends the steps' run, with ErrInterrupted, at the first step after stop is closed.
func (s stopper) attach(steps *epochSteps) {
	if s.stop == nil {
		return
	}
	steps.onStep(func() error {
		if s.stopped() {
			return ErrInterrupted
		}
		return nil
	})
}

// stopped reports whether stop is closed.
func (s stopper) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// pastDeadline reports whether another epoch as long as the one that just ended (took) would end
// after the deadline.
func (s stopper) pastDeadline(took time.Duration) bool {
	return !s.deadline.IsZero() && time.Now().Add(took).After(s.deadline)
}
