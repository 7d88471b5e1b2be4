package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each piece of scripts/bench-runs.sh gets its row: CPU hours from GNU time's wall and CPU share,
// the steady epoch as recorded (the median of all epochs for the authors' code, the epoch's
// training and test for PyTorch Geometric), the test metric; a piece without a file
// reads "not run yet", one that failed says how, and a file whose part names another piece is
// an error.
func TestRunsSection(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "runs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(piece, body string) {
		writeRecords(t, filepath.Join(dir, piece+".jsonl"), "== "+piece+"\n"+body)
	}
	write("molesol-xla", `{"metric":"rmse","test_at_best_val":0.8862,"programs":38,"compile_seconds":164.3}
peak RSS 1819892 kB, wall 298.36 s, CPU 156%
epoch seconds: 50.8 1.1 9.3 1.3 1.2
epoch programs: 14 0 2 0 0
steady epoch seconds: 1.2
`)
	write("molesol-authors", `epoch 99 done
{"metric":"rmse (OGB Evaluator)","test_at_best_val":0.95}
peak RSS 1048576 kB, wall 720 s, CPU 190%
epoch seconds: 7.2 7.0 7.4
`)
	write("zinc-pyg", `{"product":"precomputed","train_graphs":10000}
{"epoch":1,"train_seconds":350.5,"test_seconds":10.5,"test_mae":0.81}
{"summary":true,"train_seconds_median":350.5,"test_seconds_median":10.5}
peak RSS 8388608 kB, wall 400 s, CPU 199%
`)
	write("zinc-go", "exit status 137\npeak RSS 1 kB, wall 10 s, CPU 100%\n")
	got, err := runsSection("runs")(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| ogbg-molesol, 100 epochs | `xla:cpu` | 5.0 min | 0.13 | 1.7 GiB | 38 (164 s) | 1.2 s | rmse 0.886 | — |",
		"| ogbg-molesol, 100 epochs | the authors' code, 2 threads | 12.0 min | 0.38 | 1.0 GiB | — | 7.2 s | rmse 0.950 | — |",
		"| ZINC-12k, 1 epoch | PyTorch Geometric (test set only) | 6.7 min | 0.22 | 8.0 GiB | — | 361.0 s | mae 0.810 | — |",
		"| ZINC-12k, 1 epoch | `go` | failed (exit status 137) |",
		"| ogbg-molesol, 100 epochs | `go` | not run yet |",
		"- `runs/molesol-xla.jsonl`: scripts/x.sh at abc1234; 2026-11-28T16:00Z, 2 cores, load before: 0.1 0.2 0.3",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	write("peptides-go", "peak RSS 1 kB, wall 10 s, CPU 100%\n")
	if err := os.Rename(filepath.Join(dir, "peptides-go.jsonl"), filepath.Join(dir, "peptides-xla.jsonl")); err != nil {
		t.Fatal(err)
	}
	if _, err := runsSection("runs")(root); err == nil || !strings.Contains(err.Error(), "peptides-xla") {
		t.Errorf("a file whose part names another piece: %v", err)
	}
}
