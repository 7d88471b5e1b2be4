package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Nonsense hyperparameters are usage errors (exit status 2) that name the parameter, and on
// --resume a flag that contradicts the run's configuration is one too, except --epochs,
// --devices and --time-limit; the configuration file follows an extended run, and fewer epochs
// than the run has done are refused. eval and predict refuse a --devices the backend cannot give.
func TestNonsenseFlags(t *testing.T) {
	small := []string{"--dataset", "synthetic", "--synthetic-graphs", "20", "--layers", "1", "--hidden", "12", "--batch-size", "16", "--backend", "go"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--epochs", "0"}, "epochs = 0, want at least 1"},
		{[]string{"--epochs", "-3"}, "epochs = -3, want at least 1"},
		{[]string{"--lr", "-1"}, "learning_rate = -1, want a positive rate"},
		{[]string{"--lr", "0"}, "learning_rate = 0, want a positive rate"},
		{[]string{"--sampling-ratio", "1.5"}, "sampling_ratio = 1.5, want (0, 1]"},
		{[]string{"--batch-size", "0"}, "batch_size = 0, want at least 1"},
		{[]string{"--lr", "inf"}, `invalid value "inf" for flag -lr: want a finite number`},
		{[]string{"--lr", "nan"}, `invalid value "nan" for flag -lr: want a finite number`},
		{[]string{"--checkpoint-every", "-1m"}, "--checkpoint-every -1m0s: want 0"},
		{[]string{"--time-limit", "-5m"}, "--time-limit -5m0s: want 0 (none) or a positive duration"},
		{[]string{"--backend", "xla:cpu", "--backend", "gpu"}, `--backend: backend: unknown backend "gpu": want go, xla:cpu or xla:cuda`},
		{[]string{"--train-subset", "100000"}, "--train-subset 100000: the training split has 16 graphs"},
		{[]string{"--train-subset", "-1"}, "--train-subset -1"},
		{[]string{"-set", "tuple_k=1"}, "tuple_k = 1, want at least 2"},
		{[]string{"--devices", "2"}, "devices = 2, but backend go has 1 device(s)"},
		{[]string{"--devices", "two"}, `devices = "two", want a positive number of devices or "all"`},
		{[]string{"--devices", "2", "--execution", "dense"}, "devices = 2 needs execution = sparse"},
	} {
		args := append(append([]string{"train", "--out", filepath.Join(t.TempDir(), "run")}, small...), tc.args...)
		code, _, stderr := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}

	run := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := runCLI(t, "", append([]string{"train", "--out", run, "--epochs", "1"}, small...)...); code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--layers", "3"}, "--layers 3 contradicts the run's layers = 1"},
		{[]string{"-set", "dropout=0.5"}, "dropout=0.5 contradicts the run's dropout = 0"},
		{[]string{"--dataset", "zinc12k"}, "--dataset zinc12k contradicts the run's dataset synthetic"},
		// --devices may change on --resume, but not beyond the backend's devices.
		{[]string{"--devices", "2"}, "devices = 2, but backend go has 1 device(s)"},
	} {
		code, _, stderr := runCLI(t, "", append([]string{"train", "--out", run, "--resume", "--backend", "go"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("resume %v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	// eval and predict check --devices before any work, whatever the run trained on.
	graphJSON := `{"num_nodes": 2, "edges": [[0,1]], "node_features": [0, 0], "edge_features": [1]}`
	for _, cmd := range [][]string{{"eval"}, {"predict", "--graph", "-"}} {
		for devices, want := range map[string]string{"2": "devices = 2, but backend go has 1 device(s)", "none": `devices = "none", want a positive number`} {
			code, _, stderr := runCLI(t, graphJSON, append(cmd, "--run", run, "--backend", "go", "--devices", devices)...)
			if code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("%s --devices %s: exit %d, %q; want 2 and %q", cmd[0], devices, code, stderr, want)
			}
		}
	}
	// Flags that agree with the run, and --epochs, may be given.
	code, _, stderr := runCLI(t, "", "train", "--out", run, "--resume", "--backend", "go", "--layers", "1", "--epochs", "2")
	if code != 0 {
		t.Fatalf("resume to 2 epochs: exit %d: %s", code, stderr)
	}
	raw, _ := os.ReadFile(filepath.Join(run, "config.json"))
	var config map[string]any
	if err := json.Unmarshal(raw, &config); err != nil || config["epochs"] != 2.0 {
		t.Errorf("config.json after extending the run: %s (%v)", raw, err)
	}
	// Fewer epochs than the run has done: refused, the configuration left as it was.
	code, _, stderr = runCLI(t, "", "train", "--out", run, "--resume", "--backend", "go", "--epochs", "1")
	if after, _ := os.ReadFile(filepath.Join(run, "config.json")); code != 2 || !strings.Contains(stderr, "has done 2 epochs, and 1 were asked") || string(after) != string(raw) {
		t.Errorf("resume to 1 epoch after 2: exit %d, %q; config.json %s", code, stderr, after)
	}
}
