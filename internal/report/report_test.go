package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/record"
	"github.com/sgformer/sgformer/sgformer/training"
)

// benchFixture is the parts of scripts/bench-recipes.sh's output, with round numbers: on
// ogbg-molesol an epoch of 29 steps of 0.05 s and 8 inference batches of 0.01 s (1.53 s, 0.13 h
// for 100 epochs × 3 seeds); on ZINC-12k 79 steps of 5 s and 16 batches of 2 s (427 s, 142 h
// for 400 epochs × 3 seeds); Peptides-func measured on 4 graphs of the recipe's 128; after the
// header of scripts/lib/record.sh.
const benchFixture = `# command: scripts/bench-recipes.sh
# commit: abc1234
# date: 2026-11-28T16:00Z
# machine: 2 cores
# load: 0.1 0.2 0.3
== shared data
{"ogbg_molbace":true,"ogbg_molesol":true,"ogbg_molhiv":true,"peptides_func":true,"zinc12k":true}
== ogbg-molesol
BenchmarkRecipeStep/ogbg-molesol/ratio=1/recipe/train-2      2  100000000 ns/op  0.05 cpu_s/op  1.45 cpu_s/epoch  32 graphs/batch  32 recipe_batch  29 steps/epoch
BenchmarkRecipeStep/ogbg-molesol/ratio=1/recipe/inference-2  2   20000000 ns/op  0.01 cpu_s/op  0.08 cpu_s/epoch  0.04 test_cpu_s  32 graphs/batch  32 recipe_batch   8 batches/epoch  4 test_batches
peak RSS 1000 kB, wall 10 s, CPU 100%
== zinc12k
BenchmarkRecipeStep/zinc12k/ratio=1/recipe/train-2      2  9000000000 ns/op  5 cpu_s/op  395 cpu_s/epoch  128 graphs/batch  128 recipe_batch  79 steps/epoch
BenchmarkRecipeStep/zinc12k/ratio=1/recipe/inference-2  2  3000000000 ns/op  2 cpu_s/op  32 cpu_s/epoch  16 test_cpu_s  128 graphs/batch  128 recipe_batch  16 batches/epoch  8 test_batches
BenchmarkRecipeStep/zinc12k/ratio=1/gin/train-2      2  20000000 ns/op  0.01 cpu_s/op  0.79 cpu_s/epoch  128 graphs/batch  128 recipe_batch  79 steps/epoch
BenchmarkRecipeStep/zinc12k/ratio=1/gin/inference-2  2  10000000 ns/op  0.005 cpu_s/op  0.08 cpu_s/epoch  0.04 test_cpu_s  128 graphs/batch  128 recipe_batch  16 batches/epoch  8 test_batches
== peptides-func
BenchmarkRecipeStep/peptides-func/ratio=0.3/recipe/train-2      2  2000000000 ns/op  1 cpu_s/op  2720 cpu_s/epoch  4 graphs/batch  128 recipe_batch  85 steps/epoch
BenchmarkRecipeStep/peptides-func/ratio=0.3/recipe/inference-2  2  1000000000 ns/op  0.5 cpu_s/op  1824 cpu_s/epoch  912 test_cpu_s  4 graphs/batch  128 recipe_batch  114 batches/epoch  57 test_batches
== ogbg-molhiv
exit status 137
`

// A cell without runs is planned from the benchmark: needs data when its dataset is not at hand
// (or has no reader), not measured without a benchmark line, needs GPU above gpuHours or when
// its benchmark failed, else not run yet, with the CPU hours of 3 seeds; a baseline not measured
// apart takes the recipe's step, GIN its own; a step measured on fewer graphs than the batch is
// scaled.
func TestPlannedStatus(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "results/benchmarks"), 0o755); err != nil {
		t.Fatal(err)
	}
	recs, err := record.Parse(strings.NewReader(benchFixture))
	if err != nil {
		t.Fatal(err)
	}
	if err := record.Write(filepath.Join(root, BenchFile), recs); err != nil {
		t.Fatal(err)
	}
	rp, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cell          Cell
		status, hours string
	}{
		{OGBTable.Cell(Molesol, SubgraphormerPE, 1), "not run yet", "≈ 0.1"},  // 1.53 s × 300 epochs
		{OGBTable.Cell(Molesol, sswlPlus, 1), "not run yet", "≈ 0.1"},         // the recipe's step
		{ZINCTable.Cell("zinc12k", SubgraphormerPE, 1), "needs GPU", "≈ 142"}, // 427 s × 1,200 epochs
		{ZINCTable.Cell("zinc12k", gin, 1), "not run yet", "≈ 0.3"},           // (0.79 + 0.08) s × 1,200 epochs
		{ZINCTable.Cell("zinc-full", SubgraphormerPE, 1), "needs data: `zinc_full` is not in the shared data, and this machine cannot download it", "—"},
		{OGBTable.Cell("ogbg-molhiv", SubgraphormerPE, 1), "needs GPU: its benchmark did not finish on this machine (exit status 137)", "—"},
		{OGBTable.Cell(Molbace, SubgraphormerPE, 1), "not measured", "—"},
		{AlchemyTable.Cell("alchemy12k", SubgraphormerPE, 1), "needs data: `alchemy12k` is not in the shared data, and this machine cannot download it", "—"},
		// (32 × 1 s × 85 + 32 × 0.5 s × 114) × 200 epochs × 3 seeds = 757 h
		{PeptidesTable.Cell("peptides-func", SubgraphormerPE, 0.3), "needs GPU", "≈ 757"},
	} {
		cfg, _, err := cellConfig(tc.cell)
		if err != nil {
			t.Fatal(err)
		}
		o := rp.bench.plannedOutcome(tc.cell, cfg.Epochs)
		if o.Status != tc.status || o.Hours != tc.hours {
			t.Errorf("%s on %s at %g: %q, %q; want %q, %q", tc.cell.Model, tc.cell.Dataset, tc.cell.Ratio, o.Status, o.Hours, tc.status, tc.hours)
		}
		if !slices.Contains(statusKinds, o.kind) || !strings.HasPrefix(o.Status, o.kind) {
			t.Errorf("%s on %s at %g: kind %q of status %q", tc.cell.Model, tc.cell.Dataset, tc.cell.Ratio, o.kind, o.Status)
		}
	}
	if exit, _ := rp.bench.Value("ogbg-molhiv", "exit status", ""); exit != 137 {
		t.Errorf("ogbg-molhiv's exit status %v, want 137", exit)
	}
}

// A cell's runs are checked against its recipe: a run that differs says in what, and a run that
// does not take the cell's place in the table, scaled to the paper's percent for ROC-AUC.
func TestCellRunsAgainstRecipe(t *testing.T) {
	root := t.TempDir()
	write := func(c Cell, seed int, test float64, change map[string]any) {
		_, want, err := cellConfig(c)
		if err != nil {
			t.Fatal(err)
		}
		want[training.ParamSeed] = seed
		for k, v := range change {
			want[k] = v
		}
		dir := filepath.Join(root, RunFolder(c.Dataset), c.dir(), fmt.Sprintf("seed-%d", seed))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		config, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		summary := fmt.Sprintf(`{"epochs": 100, "best_epoch": 1, "best_val": 1, "test_at_best_val": %g, "seed": %d}`, test, seed)
		metrics := `{"epoch":1,"train_loss":1,"val":1,"test":1,"lr":0.001,"seconds":10,"best_epoch":1}` + "\n"
		for name, text := range map[string]string{"config.json": string(config), "summary.json": summary, "metrics.jsonl": metrics} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	esol, bace := OGBTable.Cell(Molesol, SubgraphormerPE, 1), OGBTable.Cell(Molbace, SubgraphormerPE, 1)
	write(esol, 0, 0.8, map[string]any{"pe_k": 8})
	write(esol, 1, 0.9, nil)
	for s, x := range []float64{0.84, 0.845, 0.85} {
		write(bace, s, x, nil)
	}
	rp, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	o, err := rp.Row(esol)
	if err != nil {
		t.Fatal(err)
	}
	if want := "partial: 2 of 3 seeds finished; not the recipe: pe_k 8 (recipe: 2)"; o.Status != want || o.Ours != "0.850 ± 0.050" {
		t.Errorf("molesol: %+v, want status %q", o, want)
	}
	o, err = rp.Row(bace)
	if err != nil {
		t.Fatal(err)
	}
	if o.Ours != "84.50 ± 0.41" || o.Status != "reproduced" || o.kind != "reproduced" {
		t.Errorf("molbace: %+v", o)
	}
	if !strings.HasPrefix(o.Epochs, "100, 100, 100 of 100") {
		t.Errorf("molbace epochs %q", o.Epochs)
	}
}
