package metrics

import (
	"math"
	"testing"
)

func col(xs ...float64) [][]float64 {
	out := make([][]float64, len(xs))
	for i, x := range xs {
		out[i] = []float64{x}
	}
	return out
}

func TestROCAUC(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name          string
		scores, label [][]float64
		want          float64
	}{
		// Positives 0.8, 0.4; negatives 0.6, 0.1: pairs (0.8>0.6), (0.8>0.1), (0.4<0.6), (0.4>0.1) → 3/4.
		{"simple", col(0.8, 0.6, 0.4, 0.1), col(1, 0, 1, 0), 0.75},
		{"perfect", col(0.9, 0.8, 0.2), col(1, 1, 0), 1},
		{"reversed", col(0.1, 0.8, 0.9), col(1, 0, 0), 0},
		// All scores equal: every pair ties, 1/2.
		{"all equal", col(0.5, 0.5, 0.5, 0.5), col(1, 0, 1, 0), 0.5},
		// Positive 0.7 ties negative 0.7 (½), beats 0.2 (1); positive 0.2 ties 0.2 (½), loses to 0.7 (0) → 2/4.
		{"ties", col(0.7, 0.7, 0.2, 0.2), col(1, 0, 1, 0), 0.5},
		// NaN labels are skipped: as "simple".
		{"missing", col(0.8, 0.6, 0.99, 0.4, 0.1), col(1, 0, nan, 1, 0), 0.75},
	}
	for _, tc := range tests {
		got, err := ROCAUC(tc.scores, tc.label)
		if err != nil || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: ROC-AUC %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	// Two tasks: the second has one class only and is left out, as OGB does.
	pred := [][]float64{{0.8, 0.1}, {0.6, 0.2}, {0.4, 0.3}, {0.1, 0.4}}
	label := [][]float64{{1, 1}, {0, 1}, {1, nan}, {0, 1}}
	if got, err := ROCAUC(pred, label); err != nil || got != 0.75 {
		t.Errorf("two tasks: %v, %v; want 0.75", got, err)
	}
	if _, err := ROCAUC(col(0.1, 0.2), col(1, 1)); err == nil {
		t.Error("a single class gave no error")
	}
	if _, err := ROCAUC(col(0.1), col(2)); err == nil {
		t.Error("label 2 accepted")
	}
}

func TestAveragePrecision(t *testing.T) {
	tests := []struct {
		name          string
		scores, label [][]float64
		want          float64
	}{
		// Ranked 0.8(+), 0.6(−), 0.4(+), 0.1(−): recall ½ at precision 1, then 1 at precision ⅔.
		{"simple", col(0.8, 0.6, 0.4, 0.1), col(1, 0, 1, 0), 0.5*1 + 0.5*2.0/3},
		{"perfect", col(0.9, 0.8, 0.2), col(1, 1, 0), 1},
		// All equal: one threshold, recall 1 at precision ½ (the positive rate).
		{"all equal", col(0.5, 0.5, 0.5, 0.5), col(1, 0, 1, 0), 0.5},
		// Tie at the top between a positive and a negative: recall ½ at precision ½, then 1 at ⅔.
		{"tie", col(0.9, 0.9, 0.5, 0.1), col(1, 0, 1, 0), 0.5*0.5 + 0.5*2.0/3},
	}
	for _, tc := range tests {
		got, err := AveragePrecision(tc.scores, tc.label)
		if err != nil || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: AP %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}
