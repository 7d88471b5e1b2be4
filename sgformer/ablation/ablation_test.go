package ablation_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/sgformer/ablation"
	"github.com/sgformer/sgformer/sgformer/training"
)

func TestNewStat(t *testing.T) {
	for _, tc := range []struct {
		values    []float64
		mean, std float64
		formatted string
	}{
		{[]float64{1, 2, 3, 4}, 2.5, math.Sqrt(1.25), "2.500 ± 1.118"},
		{[]float64{0.7}, 0.7, 0, "0.700 (1 seed)"},
		{[]float64{2, 2, 2}, 2, 0, "2.000 ± 0.000"},
	} {
		s := ablation.NewStat(tc.values)
		if math.Abs(s.Mean-tc.mean) > 1e-15 || math.Abs(s.Std-tc.std) > 1e-15 || s.N != len(tc.values) || s.Format(3) != tc.formatted {
			t.Errorf("NewStat(%v) = %+v %q, want mean %v std %v %q", tc.values, s, s.Format(3), tc.mean, tc.std, tc.formatted)
		}
	}
	if s := ablation.NewStat(nil); s.N != 0 || !math.IsNaN(s.Mean) {
		t.Errorf("NewStat(nil) = %+v", s)
	}
}

func writeSummary(t *testing.T, dir string, s training.Summary) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(s)
	if err := os.WriteFile(filepath.Join(dir, training.SummaryFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCollect(t *testing.T) {
	root := t.TempDir()
	cell := func(ratio float64, k, seed int, val, test float64) training.Summary {
		return training.Summary{Dataset: "ogbg-molesol", Model: "subgraphormer", Metric: "rmse", Epochs: 5, BestEpoch: 3,
			BestValid: val, TestAtBest: test, SamplingRatio: ratio, PEK: k, Seed: seed}
	}
	writeSummary(t, filepath.Join(root, "a"), cell(0.5, 8, 0, 1.0, 1.2))
	writeSummary(t, filepath.Join(root, "b"), cell(0.5, 8, 1, 1.2, 1.6))
	writeSummary(t, filepath.Join(root, "c"), cell(1, 0, 0, 0.9, 1.1))
	writeSummary(t, filepath.Join(root, "d", "e"), cell(0.5, 0, 0, 1.1, 1.3))
	unfinished := cell(1, 8, 0, 0, 0)
	unfinished.BestEpoch = 0
	writeSummary(t, filepath.Join(root, "f"), unfinished)
	rows, err := ablation.Collect(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(rows), rows)
	}
	// Ratios descending, then k ascending.
	if rows[0].SamplingRatio != 1 || rows[1].SamplingRatio != 0.5 || rows[1].PEK != 0 || rows[2].PEK != 8 {
		t.Fatalf("order: %+v", rows)
	}
	if r := rows[2]; r.Test.N != 2 || math.Abs(r.Test.Mean-1.4) > 1e-12 || math.Abs(r.Test.Std-0.2) > 1e-12 || math.Abs(r.Valid.Mean-1.1) > 1e-12 {
		t.Errorf("cell (0.5, 8): %+v", r)
	}
	md := ablation.Markdown(rows, 3)
	for _, want := range []string{
		"**ogbg-molesol, subgraphormer** — test rmse",
		"| sampling ratio | no PE | PE k = 8 |",
		"| 1 (full bag) | 1.100 (1 seed) | — |",
		"| 0.5 | 1.300 (1 seed) | 1.400 ± 0.200 (n = 2) |",
		"| ogbg-molesol | subgraphormer | 0.5 | 8 | 1.100 ± 0.100 | 1.400 ± 0.200 | 0, 1 | 5, 5 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// Tables puts each row in its (ratio, k) cell, per dataset and model, with nil for holes.
func TestTables(t *testing.T) {
	row := func(dataset string, ratio float64, k int) ablation.Row {
		return ablation.Row{Dataset: dataset, Model: "subgraphormer", Metric: "rmse", SamplingRatio: ratio, PEK: k}
	}
	rows := []ablation.Row{row("a", 1, 8), row("a", 0.5, 0), row("a", 0.5, 8), row("b", 0.2, 0)}
	tables := ablation.Tables(rows)
	if len(tables) != 2 {
		t.Fatalf("%d tables, want 2", len(tables))
	}
	a := tables[0]
	if a.Dataset != "a" || !slices.Equal(a.Ratios, []float64{1, 0.5}) || !slices.Equal(a.PEKs, []int{0, 8}) {
		t.Fatalf("table a: ratios %v, k %v", a.Ratios, a.PEKs)
	}
	if a.Cells[0][0] != nil || a.Cells[0][1] != &rows[0] || a.Cells[1][0] != &rows[1] || a.Cells[1][1] != &rows[2] {
		t.Errorf("table a cells %v", a.Cells)
	}
	if b := tables[1]; b.Dataset != "b" || len(b.Cells) != 1 || b.Cells[0][0] != &rows[3] {
		t.Errorf("table b %+v", b)
	}
	if ablation.PEName(0) != "no PE" || ablation.PEName(8) != "PE k = 8" || ablation.RatioName(1) != "1 (full bag)" || ablation.RatioName(0.05) != "0.05" {
		t.Error("names")
	}
}

func TestCollectErrors(t *testing.T) {
	root := t.TempDir()
	if _, err := ablation.Collect(root); err == nil || !strings.Contains(err.Error(), "no finished run") {
		t.Errorf("empty: %v", err)
	}
	if _, err := ablation.Collect(filepath.Join(root, "missing")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing: %v", err)
	}
	s := training.Summary{Dataset: "d", Model: "m", BestEpoch: 1, SamplingRatio: 1, PEK: 8, Seed: 2}
	writeSummary(t, filepath.Join(root, "x"), s)
	writeSummary(t, filepath.Join(root, "y"), s)
	if _, err := ablation.Collect(root); err == nil || !strings.Contains(err.Error(), "with the same seed 2") {
		t.Errorf("duplicate seed: %v", err)
	}
	os.WriteFile(filepath.Join(root, "y", training.SummaryFile), []byte("{"), 0o644)
	if _, err := ablation.Collect(root); err == nil || !strings.Contains(err.Error(), filepath.Join("y", training.SummaryFile)) {
		t.Errorf("corrupt: %v", err)
	}
}
