package main

import (
	"math"
	"path/filepath"
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

func TestReadCollectives(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	writeRecords(t, path, `== collectives
{"op": "all-gather", "ops": 43, "bytes": 534656}
{"op": "all-reduce", "ops": 32, "bytes": 477772}
{"largest": "all-reduce", "bytes": 99936, "result": "(f32[694,2]{1,0}, f32[694,24]{1,0})", "dims": []}
{"largest": "all-gather", "bytes": 66624, "result": "f32[694,24]{1,0}", "dims": [694, 24]}
{"largest": "all-gather", "bytes": 1000, "result": "f32[10,25]{1,0}", "dims": [10, 25]}
`)
	c, err := readCollectives(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := (collectives{gatherBytes: 534656, reduceBytes: 477772, ops: 75, nodes: 694, width: 24}); c != want {
		t.Errorf("%+v, want %+v", c, want)
	}
	writeRecords(t, path, "== collectives\n{\"op\": \"all-gather\", \"ops\": 1, \"bytes\": 4}\n")
	if _, err := readCollectives(path); err == nil {
		t.Error("records without all-reduces and shapes: no error")
	}
}
