package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// The generated sections of README.md and docs/reproduction.md are what the code and results/
// give today.
func TestREADMEIsCurrent(t *testing.T) {
	if err := renderAll("../../..", true); err != nil {
		t.Error(err)
	}
}

// The GPU section says plainly when nothing has run, and otherwise renders what the device
// calls brought back: the speed table of the latest call that timed anything (a failed piece
// later does not count), parity, and the seeds so far.
func TestGPUSection(t *testing.T) {
	empty, err := gpuSection("results/zinc12k-gpu")(t.TempDir())
	if err != nil || !strings.Contains(empty, "**not yet run on a GPU**") {
		t.Errorf("without results: %q, %v", empty, err)
	}
	got, err := gpuSection("results/zinc12k-gpu")("testdata/gpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 2026-12-01T12:00:00Z | NVIDIA H100 80GB HBM3 | ccccccc | `speed:sparse` | 124 | 500 |",
		"Parity (the call of 2026-12-01T11:00:00Z, `results/zinc12k-gpu/parity/`): one checkpoint's validation and test MAE and four predictions with go and xla:cuda: largest relative difference 0.00021, within the tolerance 0.001.",
		"the call of 2026-12-01T11:00:00Z (`results/zinc12k-gpu/`)",
		"| PyG, product graph on the fly | 16.32 | | 1.10 | 4000 | 20 |",
		"| PyG, product graph precomputed | 8.16 | | 0.70 | 4000 | 35 |",
		"| sgformer, sparse (xla:cuda) | 4.08 | 0.75 | 0.16 | 2500 | 56 |",
		"| sgformer, dense (xla:cuda) | 7.90 | 0.80 | 1.60 | 9000 | 70 |",
		"sparse / PyG onthefly = 0.25; sparse / PyG precomputed = 0.50; dense / PyG onthefly = 0.48; dense / PyG precomputed = 0.97",
		"| 0 | 3 of 400 | 3 | 0.5000 | 0.4000 | 291,471 | 30 |",
		"mean ± std over 2 seeds: **0.500 ± 0.100** (the paper: 0.063 ± 0.001) — the runs are not finished",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "| sgformer, sparse (xla:cuda) | 8.20") {
		t.Error("the speed table shows an earlier call's timing")
	}
}
