package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/record"
	"github.com/sgformer/sgformer/internal/report"
)

// The generated sections of README.md and docs/reproduction.md are what the code and results/
// give today.
func TestREADMEIsCurrent(t *testing.T) {
	if err := renderAll("../../..", true); err != nil {
		t.Error(err)
	}
}

// The files the renderer warns of: those under results/ that git neither tracks nor ignores,
// but for runs' checkpoints.
func TestUntrackedResults(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"results/run/summary.json", "results/run/checkpoint/state.json", "results/new.jsonl", "docs/x.md"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "results/run/summary.json"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Skipf("git %v: %v %s", args, err, out)
		}
	}
	if got := untrackedResults(root); !slices.Equal(got, []string{"results/new.jsonl"}) {
		t.Errorf("untracked results %q, want [results/new.jsonl]", got)
	}
}

// The GPU section says plainly when nothing has run, and otherwise renders the records of what
// the device calls brought back (testdata's are internal/gpuresult's testdata/calls converted):
// parity, of each timing piece the latest call that timed it (a skipped piece or a failed one
// without timings later does not count; one stopped after its epochs does, from its folder),
// and the seeds so far; a timing without a figure the table needs is an error.
func TestGPUSection(t *testing.T) {
	empty, err := gpuSection("results/zinc12k-gpu")(t.TempDir())
	if err != nil || !strings.Contains(empty, "**not yet run on a GPU**") {
		t.Errorf("without results: %q, %v", empty, err)
	}
	got, err := gpuSection("results/zinc12k-gpu")("testdata/gpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 2026-12-01T12:00:00Z | NVIDIA H100 80GB HBM3 | ccccccc | `speed:sparse` | 124 | 500 |",
		"Parity (the call of 2026-12-01T11:00:00Z, `results/zinc12k-gpu/parity/`): one checkpoint's validation and test MAE and four predictions with go and xla:cuda: largest relative difference 0.00021, within the tolerance 0.001.",
		"| PyG, product graph on the fly | NVIDIA H100 80GB HBM3, 2026-12-01T11:00:00Z | 16.32 | | 1.10 | 4000 | 1500 | 20 |",
		"| PyG, product graph precomputed | NVIDIA H100 80GB HBM3, 2026-12-01T11:00:00Z | 8.16 | | 0.70 | 4000 | 1490 | 35 |",
		"| sgformer, sparse (xla:cuda) (piece stopped with exit status 124 after its epochs) | NVIDIA H100 80GB HBM3, 2026-12-01T12:00:00Z | 3.50 | 0.02 | 0.10 | 3245 | 1024 | 20 |",
		"| sgformer, dense (xla:cuda) | NVIDIA H100 80GB HBM3, 2026-12-01T11:00:00Z | 7.90 | 0.80 | 1.60 | 9000 |  | 70 |",
		"sparse over PyG on the fly: 4.66× (different calls, the same GPU model); sparse over PyG precomputed: 2.33× (different calls, the same GPU model); dense over PyG on the fly: 2.07× (the same call); dense over PyG precomputed: 1.03× (the same call)",
		"sparse: training step 26.8 ms, not reached: inference, building the batch on the host; dense: training step 50.0 ms (the host busy launching it 10.0 ms), inference 20.0 ms, building the batch on the host 10.0 ms.",
		"What XLA runs, dense (`results/zinc12k-gpu/speed-dense/xla-summary.json`, summarised from XLA's dump of the benchmarks' programs). The training step runs 1266 operations on the GPU (1204 kernels XLA generated, 36 cuBLAS matrix products, 26 copies, launched as CUDA graphs) on 602 arguments (12.2 MB); its most frequent kernels `input_reduce_fusion` × 387, `loop_add_subtract_fusion` × 155, `input_scatter_fusion` × 131; its instructions read and write at most 25.0 GB, 0.50 TB/s over the 50.0 ms benchmarked (15 % of the NVIDIA H100 80GB HBM3's 3.35 TB/s). The inference pass runs 233 operations on the GPU (233 kernels XLA generated) on 233 arguments (9.9 MB); its most frequent kernels `input_scatter_fusion` × 51; its instructions read and write at most 4.0 GB, 0.20 TB/s over the 20.0 ms benchmarked (6 % of the NVIDIA H100 80GB HBM3's 3.35 TB/s).",
		"| 0 | 3 of 400 | 3 | 0.5000 | 0.4000 | 291,471 | 30 |",
		"mean ± std over 2 seeds: **0.500 ± 0.100** (the paper: 0.063 ± 0.001) — the runs are not finished",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "What XLA runs, sparse") {
		t.Error("an XLA summary for a piece whose folder has none")
	}
	if strings.Contains(got, "| 8.20 |") || strings.Contains(got, "| 4.08 |") {
		t.Error("the speed table shows an earlier call's timing")
	}
	recs, err := record.Read("testdata/gpu/results/zinc12k-gpu/records.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// render renders the section from the records recs changed by edit.
	render := func(edit func(record.Set) record.Set) (string, error) {
		root := t.TempDir()
		file := filepath.Join(root, "results/zinc12k-gpu/records.jsonl")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := record.Write(file, edit(slices.Clone(recs))); err != nil {
			t.Fatal(err)
		}
		return gpuSection("results/zinc12k-gpu")(root)
	}
	_, err = render(func(s record.Set) record.Set {
		return s.Where(func(r record.Record) bool { return r.What != "test pass" })
	})
	if err == nil || !strings.Contains(err.Error(), `no "test pass"`) {
		t.Errorf("records without the test pass: %v", err)
	}
	// A later parity piece that failed before comparing is the latest parity, not the earlier
	// one that passed; a utilisation of 0 is written, not left empty.
	got, err = render(func(s record.Set) record.Set {
		ctx := s[0].Context
		ctx.Date, ctx.Command = "2026-12-02T00:00:00Z", "scripts/gpu-run.sh parity"
		for i, r := range s {
			if r.Part == "pyg on the fly" && r.What == "GPU utilisation" {
				s[i].Value = 0
			}
		}
		return append(s, record.Record{Part: "parity", What: "exit status", Value: 1, Context: ctx},
			record.Record{Part: "parity", What: "seconds", Value: 5, Unit: "s", Context: ctx})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Parity: the piece of 2026-12-02T00:00:00Z ended with exit status 1 before comparing (`results/zinc12k-gpu/parity/`).",
		"| PyG, product graph on the fly | NVIDIA H100 80GB HBM3, 2026-12-01T11:00:00Z | 16.32 | | 1.10 | 4000 | 1500 | 0 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "largest relative difference") {
		t.Errorf("an earlier parity beside the latest, failed one:\n%s", got)
	}
}

// A cell's status follows its runs: partial until every seed has all its epochs, then
// reproduced when the mean ± std intervals overlap, else differs by so many paper stds.
func TestSamplingStatus(t *testing.T) {
	root := t.TempDir()
	write := func(cell string, seed, epochs, want int, test float64) {
		dir := filepath.Join(root, cell, fmt.Sprintf("seed-%d", seed))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		config := fmt.Sprintf(`{"epochs": %d, "model": "subgraphormer", "layers": 3, "hidden": 60, "pe_k": 0, "learning_rate": 0.001, "dropout": 0.5, "batch_size": 32, "sampling_ratio": 0.5, "eval_samples": 5}`, want)
		var metrics strings.Builder
		for e := 1; e <= epochs; e++ {
			fmt.Fprintf(&metrics, `{"epoch":%d,"train_loss":1,"val":%g,"test":%g,"lr":0.001,"seconds":10,"best_epoch":1}`+"\n", e, 1.0, test)
		}
		os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644)
		os.WriteFile(filepath.Join(dir, "metrics.jsonl"), []byte(metrics.String()), 0o644)
		summary := fmt.Sprintf(`{"epochs": %d, "best_epoch": 1, "best_val": 1, "test_at_best_val": %g, "seed": %d}`, epochs, test, seed)
		os.WriteFile(filepath.Join(dir, "summary.json"), []byte(summary), 0o644)
	}
	runs := report.RunFolder(report.Molesol)
	for s, x := range []float64{0.80, 0.82, 0.84} { // 0.82 ± 0.016
		write(runs+"/a_ratio-0.5", s, 4, 4, x)
		write(runs+"/b_ratio-0.5", s, 4, 4, x+0.2)
	}
	write(runs+"/c_ratio-0.5", 0, 4, 4, 0.8)
	write(runs+"/c_ratio-0.5", 1, 2, 4, 0.8)
	if err := os.MkdirAll(filepath.Join(root, runs, "d_ratio-0.5", "seed-0"), 0o755); err != nil { // no epoch yet
		t.Fatal(err)
	}
	cells := []report.Cell{
		{Model: "A", Folder: "a", Dataset: report.Molesol, Ratio: 0.5, Value: report.Value{Mean: "0.830", Std: "0.010"}, Mean: 0.83, Std: 0.01},
		{Model: "B", Folder: "b", Dataset: report.Molesol, Ratio: 0.5, Value: report.Value{Mean: "0.830", Std: "0.010"}, Mean: 0.83, Std: 0.01},
		{Model: "C", Folder: "c", Dataset: report.Molesol, Ratio: 0.5, Value: report.Value{Mean: "0.830", Std: "0.010"}, Mean: 0.83, Std: 0.01},
		{Model: "D", Folder: "d", Dataset: report.Molesol, Ratio: 0.5, Value: report.Value{Mean: "0.830", Std: "0.010"}, Mean: 0.83, Std: 0.01},
	}
	out, err := samplingSection("molesol-sampling", cells)(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| A | 50 % | 0.830 ± 0.010 | 0.820 ± 0.016 | 0, 1, 2 | 4, 4, 4 of 4 |",
		"reproduced",
		"| B | 50 % | 0.830 ± 0.010 | 1.020 ± 0.016 |", "differs: +19.0 paper std",
		"| C | 50 % | 0.830 ± 0.010 | 0.800 ± 0.000 | 0, 1 | 4, 2 of 4 |", "partial: 1 of 3 seeds finished",
		"| D | 50 % | 0.830 ± 0.010 | — |", "not measured",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}

	// The two starts: a cell with runs of both (A; C's GoMLX runs moved elsewhere), not one
	// with runs of one only (B).
	write("gomlx/a_ratio-0.5", 0, 4, 4, 0.9)
	write("earlier", 0, 3, 4, 0.7)
	starts, err := pairedSection("molesol-starts", cells, [2]string{"gomlx", runs}, map[string]string{"c_ratio-0.5": "earlier"})(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| A | 50 % | 0.830 ± 0.010 | 0.900 ± 0.000 (seed 0: 0.900, 4 ep) | 0.820 ± 0.016 (seed 0: 0.800, 4 ep; 1: 0.820, 4 ep; 2: 0.840, 4 ep) |",
		"| C | 50 % | 0.830 ± 0.010 | 0.700 ± 0.000 (seed 0: 0.700, 3 ep) |",
	} {
		if !strings.Contains(starts, want) {
			t.Errorf("missing %q in\n%s", want, starts)
		}
	}
	if strings.Contains(starts, "| B |") {
		t.Errorf("B has runs of one start only:\n%s", starts)
	}
	for _, want := range []string{"| model | ratio | paper | GoMLX's start | PyTorch's start |\n|---|", "Test RMSE at",
		"epochs trained; GoMLX's start: `gomlx/`", "GoMLX's start of c_ratio-0.5: the runs of `earlier`"} {
		if !strings.Contains(starts, want) {
			t.Errorf("missing %q in\n%s", want, starts)
		}
	}
}
