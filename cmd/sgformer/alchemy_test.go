package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// Alchemy-12k from the command line: download refuses while alchemy_full's sums are not pinned,
// and train on a missing folder fails, both saying what to fetch and where to put it; train on
// the miniature of the download (data/testdata/alchemy) is refused as not the published dataset,
// and with --no-verify trains its 12 targets.
func TestAlchemyCLI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "alchemy12k")
	for _, args := range [][]string{
		{"download", "--dataset", "alchemy12k", "--data-dir", dir},
		{"train", "--dataset", "alchemy12k", "--data-dir", dir, "--out", filepath.Join(t.TempDir(), "run"), "--backend", "go"},
	} {
		code, _, stderr := runCLI(t, "", args...)
		for _, want := range []string{"not pinned yet", "https://www.chrsmrrs.com/graphkerneldatasets/alchemy_full.zip", "folder into " + dir, "train_al_10.index"} {
			if code != 1 || !strings.Contains(stderr, want) {
				t.Errorf("sgformer %s: exit %d, %q; want exit 1 and %q", args[0], code, stderr, want)
			}
		}
	}
	mini := filepath.Join("..", "..", "data", "testdata", "alchemy")
	train := []string{"train", "--dataset", "alchemy12k", "--data-dir", mini, "--cache-dir", t.TempDir(), "--epochs", "1",
		"--layers", "1", "--hidden", "24", "--pe-k", "2", "--batch-size", "4", "--backend", "go"}
	code, _, stderr := runCLI(t, "", append(train, "--out", filepath.Join(t.TempDir(), "run"))...)
	if code != 1 || !strings.Contains(stderr, "[4 2 2] train/val/test graphs, want [10000 1000 1000]") {
		t.Errorf("train on the miniature: exit %d, %q", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "", append(train, "--no-verify", "--out", filepath.Join(t.TempDir(), "run"))...)
	var sum map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &sum) != nil || sum["metric"] != "mae" {
		t.Fatalf("train --no-verify on the miniature: exit %d, %q, %s", code, stdout, stderr)
	}
}
