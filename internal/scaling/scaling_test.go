package scaling

import (
	"math"
	"testing"
)

// The step model against values worked by hand: one device computes alone; on n, the compute
// divides and each collective's bytes cross a ring, 2(n−1)/n of an all-reduce's and (n−1)/n of
// an all-gather's, plus its latency.
func TestStepModel(t *testing.T) {
	m := stepModel{compute: 0.8, gatherBytes: 1e9, reduceBytes: 2e9, ops: 100, bandwidth: 1e11, latency: 1e-5}
	for _, tc := range []struct {
		n          int
		comm, step float64
	}{
		{1, 0, 0.8},
		{2, (0.5e9+2e9)/1e11 + 1e-3, 0.4 + 0.025 + 1e-3},   // ½·1 GB + 2·½·2 GB
		{4, (0.75e9+3e9)/1e11 + 1e-3, 0.2 + 0.0375 + 1e-3}, // ¾·1 GB + 2·¾·2 GB
		{8, (0.875e9+3.5e9)/1e11 + 1e-3, 0.1 + 0.04375 + 1e-3},
	} {
		if got := m.communication(tc.n); math.Abs(got-tc.comm) > 1e-12 {
			t.Errorf("communication(%d) = %v, want %v", tc.n, got, tc.comm)
		}
		if got := m.step(tc.n); math.Abs(got-tc.step) > 1e-12 {
			t.Errorf("step(%d) = %v, want %v", tc.n, got, tc.step)
		}
	}
}
