package training

import (
	"testing"
	"time"
)

// A stopper stops once its channel is closed (a nil one never), and when another epoch as long
// as the last would end after its deadline (a zero one never).
func TestStopper(t *testing.T) {
	open, closed := make(chan struct{}), make(chan struct{})
	close(closed)
	now := time.Now()
	for _, tc := range []struct {
		name          string
		s             stopper
		took          time.Duration
		stopped, past bool
	}{
		{"none", stopper{}, time.Hour, false, false},
		{"open", stopper{stop: open}, 0, false, false},
		{"closed", stopper{stop: closed}, 0, true, false},
		{"an hour left, an epoch of a minute", stopper{deadline: now.Add(time.Hour)}, time.Minute, false, false},
		{"a minute left, an epoch of an hour", stopper{deadline: now.Add(time.Minute)}, time.Hour, false, true},
		{"past it", stopper{deadline: now.Add(-time.Minute)}, 0, false, true},
	} {
		if got := tc.s.stopped(); got != tc.stopped {
			t.Errorf("%s: stopped %v, want %v", tc.name, got, tc.stopped)
		}
		if got := tc.s.pastDeadline(tc.took); got != tc.past {
			t.Errorf("%s: past the deadline %v, want %v", tc.name, got, tc.past)
		}
	}
}
