package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/training"
)

// The training commands end to end on a small synthetic dataset: train, resume, eval,
// predict, and the comparison table.
func TestTrainEvalPredict(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	small := []string{"--dataset", "synthetic", "--synthetic-graphs", "40", "--layers", "1", "--hidden", "12", "--batch-size", "16", "--backend", "go"}
	// A time limit shorter than an epoch: one epoch, then a checkpoint to resume from.
	code, stdout, stderr := runCLI(t, "", append([]string{"train", "--out", run, "--epochs", "2", "--time-limit", "1ns", "--model", "subgraphormer"}, small...)...)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum["epochs"] != 1.0 || sum["model"] != "subgraphormer" {
		t.Fatalf("train summary %q: %v", stdout, err)
	}
	// stderr is not a terminal here: epoch lines with the ETA, no progress bar redrawn in place.
	if !strings.Contains(stderr, "epoch 1/2") || !strings.Contains(stderr, "eta ") || strings.Contains(stderr, "steps/") || strings.Contains(stderr, "\r") || !strings.Contains(stderr, "stopped after epoch 1 of 2") {
		t.Errorf("progress on stderr: %q", stderr)
	}
	code, _, stderr = runCLI(t, "", "train", "--out", run, "--resume", "--epochs", "2", "--backend", "go")
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	f, _ := os.Open(filepath.Join(run, "metrics.jsonl"))
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"epoch", "train_loss", "val", "test", "lr", "seconds"} {
			if _, ok := rec[key]; !ok {
				t.Fatalf("metrics line %d lacks %q: %v", lines, key, rec)
			}
		}
	}
	f.Close()
	if lines != 2 {
		t.Fatalf("%d metrics lines after resuming to 2 epochs", lines)
	}

	code, stdout, stderr = runCLI(t, "", "eval", "--run", run, "--backend", "go")
	var ev map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &ev) != nil || ev["val"] == nil || ev["test"] == nil {
		t.Fatalf("eval: exit %d, %q, %s", code, stdout, stderr)
	}
	// The latest checkpoint evaluates as the last epoch's record says; BatchNorm recalibrated,
	// the same weights evaluate otherwise.
	var last map[string]any
	if err := json.Unmarshal(lastLine(t, filepath.Join(run, "metrics.jsonl")), &last); err != nil {
		t.Fatal(err)
	}
	var evals [2]map[string]any
	for i, extra := range [][]string{nil, {"--recalibrate-bn"}} {
		code, stdout, stderr = runCLI(t, "", append([]string{"eval", "--run", run, "--backend", "go", "--checkpoint", "latest"}, extra...)...)
		if code != 0 || json.Unmarshal([]byte(stdout), &evals[i]) != nil || evals[i]["epoch"] != 2.0 || evals[i]["recalibrated_bn"] != (i == 1) {
			t.Fatalf("eval --checkpoint latest %v: exit %d, %q, %s", extra, code, stdout, stderr)
		}
	}
	if evals[0]["val"] != last["val"] || evals[0]["test"] != last["test"] || evals[1]["val"] == last["val"] {
		t.Fatalf("epoch 2's record %v; eval --checkpoint latest %v, and with --recalibrate-bn %v", last, evals[0], evals[1])
	}
	if code, _, stderr := runCLI(t, "", "eval", "--run", run, "--checkpoint", "first"); code != 2 || !strings.Contains(stderr, "want best or latest") {
		t.Fatalf("eval --checkpoint first: exit %d, %s", code, stderr)
	}
	graphJSON := `{"num_nodes": 4, "edges": [[0,1],[1,2],[2,3],[3,0],[0,2],[1,3]], "node_features": [0,0,0,0], "edge_features": [1,1,1,1,1,1]}`
	var preds [2]string
	for i := range preds {
		code, preds[i], stderr = runCLI(t, graphJSON, "predict", "--run", run, "--graph", "-", "--backend", "go")
		if code != 0 || !strings.HasPrefix(preds[i], `{"prediction":[`) {
			t.Fatalf("predict: exit %d, %q, %s", code, preds[i], stderr)
		}
	}
	if preds[0] != preds[1] {
		t.Fatalf("predict is not deterministic: %s then %s", preds[0], preds[1])
	}
	for _, tc := range []struct{ graph, want string }{
		{`{"num_nodes": 2, "edges": [[0,1]]}`, `the model needs 1 integer node feature(s) per node ("node_features")`},
		{`{"num_nodes": 2, "edges": [[0,1]], "node_features": [0, 5], "edge_features": [1]}`, "node feature column 0 has category 5, outside the vocabulary [0, 1)"},
	} {
		code, _, stderr = runCLI(t, tc.graph, "predict", "--run", run, "--graph", "-", "--backend", "go")
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("predict %s: exit %d, %q; want %q", tc.graph, code, stderr, tc.want)
		}
	}

	// A run stopped before its first checkpoint: its files (its data source and hyperparameters),
	// no checkpoint.
	early := t.TempDir()
	for _, name := range []string{"run.json", training.ConfigFile} {
		raw, err := os.ReadFile(filepath.Join(run, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(early, name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"train", "--out", run, "--epochs", "1"}, 1, "already holds a run"},
		{[]string{"train", "--out", t.TempDir(), "--resume"}, 1, "holds no run (it stopped before it began, or never started); run the same command without --resume"},
		{[]string{"train", "--out", early, "--resume"}, 1, "has no checkpoint yet (it stopped before its first epoch ended); run the same command without --resume"},
		{[]string{"train"}, 2, "--out RUN is required"},
		{[]string{"train", "--out", "x", "--epochs", "abc"}, 2, `invalid value "abc" for flag -epochs: want an integer`},
		{[]string{"train", "--out", "x", "--lr", "fast"}, 2, `invalid value "fast" for flag -lr: want a finite number`},
		{[]string{"train", "--out", "x", "--model", "gat"}, 2, `unknown model "gat"`},
		{[]string{"train", "--out", "x", "--hidden", "10"}, 2, "must be a multiple of 3·heads"},
		{[]string{"train", "--out", "x", "--backend", "tpu"}, 2, `--backend: backend: unknown backend "tpu": want go, xla:cpu or xla:cuda`},
		{[]string{"eval", "--run", t.TempDir()}, 1, "is not a run directory"},
	} {
		args := tc.args
		if args[0] == "train" {
			args = append(args, small[:4]...)
		}
		code, _, stderr := runCLI(t, "", args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("sgformer %v: exit %d, %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

func TestCompareCommand(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "", "compare", "--out", out, "--epochs", "1", "--models", "subgraphormer,gin",
		"--dataset", "synthetic", "--synthetic-graphs", "30", "--layers", "1", "--hidden", "12", "--backend", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "| subgraphormer |") || !strings.Contains(stdout, "| gin |") {
		t.Fatalf("table %q", stdout)
	}
	for _, f := range []string{"compare.json", "compare.md", "subgraphormer/summary.json", "gin/metrics.jsonl"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// The OGB recipe end to end on a slice of ogbg-molesol: MSE training, RMSE model selection.
func TestTrainOGB(t *testing.T) {
	dir := shareddata.Dir(t, "ogbg_molesol")
	run := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, "", "train", "--dataset", "ogbg-molesol", "--data-dir", dir, "--cache-dir", t.TempDir(),
		"--train-subset", "16", "--epochs", "1", "--layers", "1", "--hidden", "12", "--out", run, "--backend", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum["metric"] != "rmse" || sum["train_graphs"] != 16.0 || !(sum["test_at_best_val"].(float64) > 0) {
		t.Fatalf("summary %s: %v", stdout, err)
	}
}

// ASAM with the warm-up-then-cosine schedule through -set: the learning rates of the epochs
// follow the schedule.
func TestTrainASAMCosine(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLI(t, "", "train", "--dataset", "synthetic", "--synthetic-graphs", "24", "--layers", "1", "--hidden", "12",
		"--batch-size", "12", "--epochs", "3", "--lr", "0.01", "-set", "optimizer=asam;schedule=cosine;warmup_epochs=2;min_learning_rate=0",
		"--out", run, "--backend", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs, err := training.ReadRecords(filepath.Join(run, training.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.005, 0.01, 0}
	for i, r := range recs {
		if math.Abs(r.LR-want[i]) > 1e-12 || math.IsNaN(r.TrainLoss) {
			t.Fatalf("epoch %d: lr %v loss %v, want lr %v", r.Epoch, r.LR, r.TrainLoss, want[i])
		}
	}
}

// A run given a relative --data-dir records it absolute: eval works from another directory,
// --resume accepts the same directory spelled otherwise, and eval --data-dir reads the data
// from where it is now.
func TestDataDirTravels(t *testing.T) {
	shared := shareddata.Dir(t, "ogbg_molesol")
	work := t.TempDir()
	if err := os.Symlink(shared, filepath.Join(work, "molesol")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	run := filepath.Join(t.TempDir(), "run")
	cache := t.TempDir()
	if code, _, stderr := runCLI(t, "", "train", "--dataset", "ogbg-molesol", "--data-dir", "molesol", "--cache-dir", cache,
		"--train-subset", "16", "--epochs", "1", "--layers", "1", "--hidden", "12", "--out", run, "--backend", "go"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	src, err := training.ReadSource(run)
	if err != nil || src.DataDir != filepath.Join(work, "molesol") {
		t.Fatalf("recorded data_dir %q (%v), want %q", src.DataDir, err, filepath.Join(work, "molesol"))
	}
	t.Chdir(t.TempDir())
	if code, _, stderr := runCLI(t, "", "eval", "--run", run, "--cache-dir", cache, "--backend", "go"); code != 0 {
		t.Fatalf("eval from elsewhere: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "train", "--resume", "--out", run, "--data-dir", shared, "--epochs", "2", "--cache-dir", cache, "--backend", "go"); code != 0 {
		t.Fatalf("resume with the same data directory spelled otherwise: exit %d: %s", code, stderr)
	}
	if err := os.Remove(filepath.Join(work, "molesol")); err != nil { // the data moved
		t.Fatal(err)
	}
	if code, _, _ := runCLI(t, "", "eval", "--run", run, "--cache-dir", cache, "--backend", "go"); code == 0 {
		t.Fatal("eval without the data succeeded")
	}
	if code, _, stderr := runCLI(t, "", "eval", "--run", run, "--data-dir", shared, "--cache-dir", cache, "--backend", "go"); code != 0 {
		t.Fatalf("eval --data-dir: exit %d: %s", code, stderr)
	}
}

// lastLine returns the last line of the file at path.
func lastLine(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
	return lines[len(lines)-1]
}
