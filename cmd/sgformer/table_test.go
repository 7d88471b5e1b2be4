package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// table takes its flags before or after the directory, keeps runs with other hyperparameters
// apart, and leaves unfinished runs out, saying which.
func TestTableCommand(t *testing.T) {
	dir := t.TempDir()
	for _, r := range []struct {
		name                  string
		seed, epochs, planned int
		batch                 int
		test                  float64
	}{
		{"a", 0, 10, 10, 32, 1.0}, {"b", 1, 10, 10, 32, 1.2}, {"c", 2, 10, 10, 128, 3.0}, {"d", 3, 4, 10, 32, 0.9},
	} {
		run := filepath.Join(dir, r.name)
		os.MkdirAll(run, 0o755)
		summary, _ := json.Marshal(map[string]any{"dataset": "ogbg-molesol", "model": "subgraphormer", "metric": "rmse", "epochs": r.epochs,
			"best_epoch": 1, "best_val": r.test - 0.1, "test_at_best_val": r.test, "sampling_ratio": 1, "pe_k": 8, "seed": r.seed})
		config, _ := json.Marshal(map[string]any{"model": "subgraphormer", "sampling_ratio": 1, "pe_k": 8, "seed": r.seed, "epochs": r.planned, "batch_size": r.batch})
		os.WriteFile(filepath.Join(run, "summary.json"), summary, 0o644)
		os.WriteFile(filepath.Join(run, "config.json"), config, 0o644)
	}
	for _, args := range [][]string{{"table", dir, "--digits", "2"}, {"table", "--digits", "2", dir}, {"table", "-digits=2", dir}} {
		code, stdout, stderr := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("sgformer %v: exit %d: %s", args, code, stderr)
		}
		for _, want := range []string{
			"**ogbg-molesol, subgraphormer, batch_size = 32** — test rmse at the best validation epoch (mean ± std over 2 seeds)",
			"| 1 (full bag) | 1.10 ± 0.10 |",
			"**ogbg-molesol, subgraphormer, batch_size = 128**",
			"| 1 (full bag) | 3.00 (1 seed) |",
			"- run " + filepath.Join(dir, "d") + ": 4 of 10 epochs, not included",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("sgformer %v lacks %q:\n%s", args, want, stdout)
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "table.md"))
	if err != nil || !strings.Contains(string(md), "4 of 10 epochs, not included") {
		t.Errorf("table.md: %v\n%s", err, md)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"table", dir, dir}, "want one directory, got 2"},
		{[]string{"table", dir, "--digits"}, "flag needs an argument"},
	} {
		if code, _, stderr := runCLI(t, "", tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("sgformer %v: exit %d, %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
