package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sgformer/sgformer/internal/gpuresult"
)

// fakeSGFormer stands for `sgformer train` in the working directory's build/gpu/bin: it notes
// its arguments in OUT/args.txt, after a variable that scripts/gpu-env.sh sets, writes run.json
// and one metrics.jsonl line per epoch up to --epochs, and, with $FAKE_SLOW set, waits before
// each epoch; on SIGTERM it notes "saved" and exits, as sgformer saves the epoch in progress.
const fakeSGFormer = `#!/bin/sh
out=; epochs=
for a in "$@"; do
	case $prev in --out) out=$a ;; --epochs) epochs=$a ;; esac
	prev=$a
done
mkdir -p "$out"
echo "$GOMLX_NO_AUTO_INSTALL $@" >>"$out/args.txt"
[ -f "$out/run.json" ] || echo '{}' >"$out/run.json"
trap 'echo saved >"$out/saved"; exit 0' TERM
n=$(grep -c . "$out/metrics.jsonl" 2>/dev/null)
while [ "${n:-0}" -lt "$epochs" ]; do
	if [ -n "$FAKE_SLOW" ]; then sleep 30 & wait; fi
	n=$((n + 1))
	echo '{"epoch":'$n'}' >>"$out/metrics.jsonl"
done
`

// zincJob prepares a tree with the fake sgformer and committed runs, and a job of a zinc piece.
func zincJob(t *testing.T, committed map[int]int) *job {
	t.Helper()
	t.Chdir(t.TempDir())
	write(t, ".", sgformer, fakeSGFormer)
	if err := os.Chmod(sgformer, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, ".", "scripts/gpu-env.sh", "echo gpu-env: found\nexport GOMLX_NO_AUTO_INSTALL=1\n")
	cfg := config{work: "work", results: "results", zincBudget: 540 * time.Second, zincEpochs: 2}
	for seed, epochs := range committed {
		run := filepath.Join(cfg.results, "runs", "seed-"+strconv.Itoa(seed))
		write(t, run, "run.json", "{}")
		write(t, run, "metrics.jsonl", strings.Repeat(`{"epoch":1}`+"\n", epochs))
	}
	dir := filepath.Join(cfg.work, "zinc")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &job{cfg: cfg, dir: dir, left: 540 * time.Second, out: &lockedWriter{w: &strings.Builder{}}}
}

// zinc starts a seed without a committed run from scratch, continues one with a committed run
// (copied, not touched), leaves one that has all its epochs, and reports each seed's epochs.
func TestZinc(t *testing.T) {
	j := zincJob(t, map[int]int{5: 1, 7: 2})
	if err := zinc(context.Background(), j, piece{arg: "zinc:3,5,7", kind: "zinc", seeds: []int{3, 5, 7}}); err != nil {
		t.Fatal(err)
	}
	var r gpuresult.Zinc
	if err := readJSON(j.path("result.json"), &r); err != nil {
		t.Fatal(err)
	}
	want := []gpuresult.ZincSeed{{Seed: 3, FromEpoch: 0, ToEpoch: 2}, {Seed: 5, FromEpoch: 1, ToEpoch: 2}, {Seed: 7, FromEpoch: 2, ToEpoch: 2}}
	if len(r.Seeds) != 3 || r.Seeds[0] != want[0] || r.Seeds[1] != want[1] || r.Seeds[2] != want[2] {
		t.Errorf("seeds %+v, want %+v", r.Seeds, want)
	}
	for seed, want := range map[int]string{
		3: "1 train --dataset zinc12k --data-dir build/gpu/data/zinc12k --seed 3 --epochs 2 --time-limit 8m30s --cache-dir build/gpu/cache --backend xla:cuda --out work/runs/seed-3\n",
		5: "1 train --resume --epochs 2 --time-limit 8m30s --cache-dir build/gpu/cache --backend xla:cuda --out work/runs/seed-5\n",
		7: "missing",
	} {
		if got := readFile(t, filepath.Join("work/runs/seed-"+strconv.Itoa(seed), "args.txt")); got != want {
			t.Errorf("seed %d ran with %q, want %q", seed, got, want)
		}
	}
	if got := readFile(t, "results/runs/seed-5/metrics.jsonl"); got != `{"epoch":1}`+"\n" {
		t.Errorf("the committed run changed: %q", got)
	}
	if got := readFile(t, j.path("gpu-env.txt")); got != "gpu-env: found\n" {
		t.Errorf("gpu-env.txt = %q", got)
	}
}

// At the piece's deadline every run gets SIGTERM and the piece waits for them to save before
// it writes its result.
func TestZincDeadline(t *testing.T) {
	j := zincJob(t, nil)
	t.Setenv("FAKE_SLOW", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := zinc(ctx, j, piece{arg: "zinc:0,1", kind: "zinc", seeds: []int{0, 1}})
	if exitStatus(ctx, err) != 124 {
		t.Errorf("exit status %d (%v), want 124", exitStatus(ctx, err), err)
	}
	for _, s := range []string{"0", "1"} {
		if got := readFile(t, "work/runs/seed-"+s+"/saved"); got != "saved\n" {
			t.Errorf("seed %s did not save on SIGTERM: %q", s, got)
		}
	}
	var r gpuresult.Zinc
	if err := readJSON(j.path("result.json"), &r); err != nil || len(r.Seeds) != 2 || r.Seeds[0].ToEpoch != 0 {
		t.Errorf("result %+v, %v", r, err)
	}
}

// Under the margin for the last checkpoint there is no time to train.
func TestZincNoTime(t *testing.T) {
	j := zincJob(t, nil)
	j.left = 25 * time.Second
	if err := zinc(context.Background(), j, piece{arg: "zinc:0", kind: "zinc", seeds: []int{0}}); err == nil || !strings.Contains(err.Error(), "no time left for training") {
		t.Errorf("error %v", err)
	}
}
