package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A 2 × 2 × 2 grid on the synthetic task: every cell trained, the table rendered; a second
// call skips finished cells and resumes an interrupted one.
func TestAblateAndTable(t *testing.T) {
	out := t.TempDir()
	args := []string{"ablate", "--out", out, "--ratios", "1,0.5", "--pe-k", "0,4", "--seeds", "0,1", "--epochs", "1",
		"--dataset", "synthetic", "--synthetic-graphs", "24", "--layers", "1", "--hidden", "12", "--batch-size", "12", "--backend", "go"}
	code, stdout, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"| sampling ratio | no PE | PE k = 4 |", "| 1 (full bag) |", "| 0.5 |", "| 0, 1 | 1, 1 |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	var rows []map[string]any
	raw, _ := os.ReadFile(filepath.Join(out, "table.json"))
	if err := json.Unmarshal(raw, &rows); err != nil || len(rows) != 4 {
		t.Fatalf("table.json: %d rows, %v", len(rows), err)
	}

	// Interrupt one cell (its run was cut after the checkpoint of epoch 1 of 2) and extend the
	// grid to 2 epochs: every cell resumes from its checkpoint.
	cell := cellDir(out, "subgraphormer", 0.5, 4, 1)
	if err := os.Remove(filepath.Join(cell, "summary.json")); err != nil {
		t.Fatal(err)
	}
	args[len(args)-13] = "2" // --epochs
	if args[len(args)-14] != "--epochs" {
		t.Fatalf("args layout: %v", args)
	}
	code, _, stderr = runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	recs, err := os.ReadFile(filepath.Join(cell, "metrics.jsonl"))
	if err != nil || strings.Count(string(recs), "\n") != 2 {
		t.Fatalf("resumed cell: %q, %v", recs, err)
	}
	// A third call has nothing left to do.
	code, _, stderr = runCLI(t, "", args...)
	if code != 0 || strings.Count(stderr, ": done (") != 8 {
		t.Fatalf("third run: exit %d, want 8 cells done: %s", code, stderr)
	}

	// A time limit already over when the grid is extended: nothing starts (within a cell,
	// training stops at the limit as sgformer train does).
	args[len(args)-13] = "3"
	code, _, stderr = runCLI(t, "", append(args, "--time-limit", "1ns")...)
	if code != 0 || !strings.Contains(stderr, "time limit reached") || strings.Contains(stderr, "epoch 3/3") {
		t.Fatalf("time-limited run: exit %d, want a stop before any epoch: %s", code, stderr)
	}

	code, stdout, _ = runCLI(t, "", "table", out)
	if code != 0 || !strings.Contains(stdout, "| 0, 1 | 2, 2 |") {
		t.Fatalf("table: exit %d:\n%s", code, stdout)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"table"}, "want one directory"},
		{[]string{"table", filepath.Join(out, "nothing")}, "no such file"},
		{[]string{"ablate", "--out", out, "--ratios", "1,x"}, `--ratios: "x" is not a number`},
		{[]string{"ablate", "--out", out, "--seeds", "1,1"}, "--seeds lists 1 twice"},
		{[]string{"ablate", "--out", out, "--seed", "1"}, "flag provided but not defined: -seed"},
	} {
		if code, _, stderr := runCLI(t, "", tc.args...); code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("sgformer %v: exit %d, %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
}
