package brec_test

import (
	"testing"

	"github.com/sgformer/sgformer/sgformer/brec"
)

// Compare counts each test per category, in the order its records first have them, and in total
// against the oracles' answers on the same pairs: a pair no oracle record covers counts as one
// neither oracle distinguishes.
func TestCompare(t *testing.T) {
	oracles := []brec.Record{
		{Pair: 1, Test: "sswl", Distinguished: true}, {Pair: 2, Test: "sswl", Distinguished: true}, {Pair: 3, Test: "sswl"},
		{Pair: 1, Test: "2-fwl", Distinguished: true}, {Pair: 2, Test: "2-fwl", Distinguished: true}, {Pair: 3, Test: "2-fwl", Distinguished: true},
		{Pair: 1, Test: "1-wl"},
	}
	records := []brec.Record{
		{Pair: 3, Category: "CFI", Test: "m", Distinguished: true, Seconds: 1},
		{Pair: 1, Category: "Basic", Test: "m", Distinguished: true, Reliable: true, Seconds: 3, CPUSeconds: 2},
		{Pair: 2, Category: "Basic", Test: "m", Reliable: true, Seconds: 5},
		{Pair: 4, Category: "CFI", Test: "m", Distinguished: true, Reliable: true, Seconds: 7, CPUSeconds: 6},
		{Pair: 1, Category: "Basic", Test: "g", Reliable: true, Seconds: 1},
	}
	type row struct {
		test, category                                                string
		pairs, distinguished, sswl, beyondSSWL, beyondFWL, unreliable int
		secondsPerPair, cpuPerPair                                    float64
		beyondFWLPairs                                                int
	}
	want := []row{
		{"m", "CFI", 2, 2, 0, 2, 1, 1, 4, 6, 1},
		{"m", "Basic", 2, 1, 2, 0, 0, 0, 4, 2, 0},
		{"m", "total", 4, 3, 2, 2, 1, 1, 4, 4, 1},
		{"g", "Basic", 1, 0, 1, 0, 0, 0, 1, 0, 0},
		{"g", "total", 1, 0, 1, 0, 0, 0, 1, 0, 0},
	}
	got := brec.Compare(records, oracles)
	if len(got) != len(want) {
		t.Fatalf("%d comparisons, want %d: %+v", len(got), len(want), got)
	}
	for i, c := range got {
		cpu := 0.0
		if c.CPUPairs > 0 {
			cpu = c.CPUPerPair()
		}
		g := row{c.Test, c.Category, c.Pairs, c.Distinguished, c.SSWL, c.BeyondSSWL, c.BeyondFWL, c.Unreliable, c.SecondsPerPair(), cpu, len(c.BeyondFWLPairs)}
		if g != want[i] {
			t.Errorf("comparison %d: %+v, want %+v", i, g, want[i])
		}
	}
	if p := got[2].BeyondFWLPairs; len(p) != 1 || p[0].Pair != 4 {
		t.Errorf("beyond 2-FWL in total: %+v, want pair 4", p)
	}
}
