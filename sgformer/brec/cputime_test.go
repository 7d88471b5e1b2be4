package brec

import (
	"testing"
	"time"
)

// cpuSeconds counts the process's work, not the time it waits: a sleep adds almost nothing,
// a busy loop what it ran (its wall time bounded, for a machine whose cores are busy).
func TestCPUSeconds(t *testing.T) {
	t0 := cpuSeconds()
	time.Sleep(300 * time.Millisecond)
	if slept := cpuSeconds() - t0; slept > 0.1 {
		t.Errorf("a sleep of 0.3 s took %.3f CPU seconds", slept)
	}
	t1, end := cpuSeconds(), time.Now().Add(20*time.Second)
	for cpuSeconds()-t1 < 0.05 && time.Now().Before(end) {
	}
	if busy := cpuSeconds() - t1; busy < 0.05 {
		t.Errorf("a busy loop of 20 s took %.3f CPU seconds", busy)
	}
}
