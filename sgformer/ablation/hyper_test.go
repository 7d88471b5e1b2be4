package ablation_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/sgformer/ablation"
	"github.com/sgformer/sgformer/sgformer/training"
)

// writeRun writes a run directory: its summary and its config.json (the hyperparameters the
// training package records), with the given overrides of a molesol-like configuration.
func writeRun(t *testing.T, dir string, s training.Summary, config map[string]any) {
	t.Helper()
	writeSummary(t, dir, s)
	c := map[string]any{"model": s.Model, "sampling_ratio": s.SamplingRatio, "pe_k": s.PEK, "seed": s.Seed,
		"epochs": s.Epochs, "batch_size": 32, "dropout": 0.5, "learning_rate": 0.001}
	for k, v := range config {
		c[k] = v
	}
	raw, _ := json.Marshal(c)
	if err := os.WriteFile(filepath.Join(dir, training.ConfigFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(ratio float64, k, seed, epochs int, test float64) training.Summary {
	return training.Summary{Dataset: "ogbg-molesol", Model: "subgraphormer", Metric: "rmse", Epochs: epochs, BestEpoch: 1,
		BestValid: test - 0.1, TestAtBest: test, SamplingRatio: ratio, PEK: k, Seed: seed}
}

// Runs that differ in a hyperparameter other than the seed are not averaged together: each
// setting gets its own table, titled with what differs.
func TestCollectSeparatesHyperparameters(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "a"), run(1, 8, 0, 10, 1.0), nil)
	writeRun(t, filepath.Join(root, "b"), run(1, 8, 1, 10, 1.2), nil)
	writeRun(t, filepath.Join(root, "c"), run(1, 8, 2, 10, 3.0), map[string]any{"batch_size": 128})
	writeRun(t, filepath.Join(root, "d"), run(1, 8, 3, 10, 5.0), map[string]any{"batch_size": 128, "dropout": 0})
	c, err := ablation.CollectAll(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 3 {
		t.Fatalf("%d rows, want 3 (batch 32, batch 128, batch 128 without dropout): %+v", len(c.Rows), c.Rows)
	}
	for _, r := range c.Rows {
		if r.Test.N == 2 && r.Test.Mean != 1.1 {
			t.Errorf("the batch-32 cell averages %v", r.Test)
		}
	}
	md := c.Markdown(3)
	for _, want := range []string{
		"**ogbg-molesol, subgraphormer, batch_size = 32, dropout = 0.5** — test rmse",
		"**ogbg-molesol, subgraphormer, batch_size = 128, dropout = 0.5** — test rmse",
		"**ogbg-molesol, subgraphormer, batch_size = 128, dropout = 0** — test rmse",
		"| 1 (full bag) | 3.000 (1 seed) |",
		"| 1 (full bag) | 1.100 ± 0.100 |",
		"| batch_size = 128, dropout = 0 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if tables := ablation.Tables(c.Rows); len(tables) != 3 {
		t.Errorf("%d tables, want 3", len(tables))
	}
}

// One seed has no spread: its cell says so instead of "± 0"; the number of seeds is given.
func TestOneSeed(t *testing.T) {
	if got := ablation.NewStat([]float64{0.7}).Format(3); got != "0.700 (1 seed)" {
		t.Errorf("one seed: %q", got)
	}
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "a"), run(1, 0, 0, 10, 1.0), nil)
	writeRun(t, filepath.Join(root, "b"), run(0.5, 0, 0, 10, 2.0), nil)
	writeRun(t, filepath.Join(root, "c"), run(0.5, 0, 1, 10, 2.5), nil)
	c, err := ablation.CollectAll(root)
	if err != nil {
		t.Fatal(err)
	}
	md := c.Markdown(2)
	if strings.Contains(md, "± 0.00") {
		t.Errorf("a single seed shown with a zero spread:\n%s", md)
	}
	for _, want := range []string{"| 1 (full bag) | 1.00 (1 seed) |", "| 0.5 | 2.25 ± 0.25 (n = 2) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// Runs that stopped before their planned epochs are not results: they are left out and listed.
func TestUnfinishedRuns(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "done"), run(1, 8, 0, 100, 1.0), nil)
	partial := run(1, 8, 1, 42, 0.5)
	writeRun(t, filepath.Join(root, "partial"), partial, map[string]any{"epochs": 100})
	none := run(1, 8, 2, 0, 0)
	none.BestEpoch = 0
	writeRun(t, filepath.Join(root, "started"), none, map[string]any{"epochs": 100})
	c, err := ablation.CollectAll(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 || c.Rows[0].Test.N != 1 || c.Rows[0].Test.Mean != 1.0 {
		t.Fatalf("rows %+v, want the finished run only", c.Rows)
	}
	if len(c.Unfinished) != 2 || c.Unfinished[0].Epochs != 42 || c.Unfinished[0].Planned != 100 {
		t.Fatalf("unfinished %+v", c.Unfinished)
	}
	md := c.Markdown(3)
	for _, want := range []string{
		"run " + filepath.Join(root, "partial") + ": 42 of 100 epochs, not included",
		"run " + filepath.Join(root, "started") + ": 0 of 100 epochs, not included",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	rows, err := ablation.Collect(root)
	if err != nil || len(rows) != 1 {
		t.Errorf("Collect: %d rows, %v", len(rows), err)
	}
	// Nothing finished: an error that names the unfinished runs.
	os.RemoveAll(filepath.Join(root, "done"))
	if _, err := ablation.Collect(root); err == nil || !strings.Contains(err.Error(), "2 unfinished") {
		t.Errorf("only unfinished runs: %v", err)
	}
}

// Runs written before config.json was JSON hold GoMLX's settings listing; it is read too.
func TestLegacyConfig(t *testing.T) {
	root := t.TempDir()
	for i, batch := range []string{"32", "128"} {
		dir := filepath.Join(root, batch)
		writeSummary(t, dir, run(1, 4, i, 40, 1))
		legacy := "\t\"/batch_size\": (int) " + batch + "\n\t\"/dropout\": (float64) 0\n\t\"/epochs\": (int) 40\n\t\"/model\": (string) gin\n\t\"/residual\": (bool) false\n"
		os.WriteFile(filepath.Join(dir, training.ConfigFile), []byte(legacy), 0o644)
	}
	c, err := ablation.CollectAll(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 2 || c.Rows[0].Hyperparameters["batch_size"] != 128.0 || c.Rows[0].Hyperparameters["residual"] != false {
		t.Fatalf("rows %+v", c.Rows)
	}
	os.WriteFile(filepath.Join(root, "32", training.ConfigFile), []byte("\t\"/batch_size\": (int) x\n"), 0o644)
	if _, err := ablation.CollectAll(root); err == nil || !strings.Contains(err.Error(), "config.json:1: int value \"x\"") {
		t.Errorf("malformed legacy config: %v", err)
	}
}
