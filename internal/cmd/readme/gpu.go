package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sgformer/sgformer/internal/gpuresult"
)

// The GPU section of docs/gpu.md, rendered from what internal/cmd/gpurun (scripts/gpu-run.sh)
// brought back from the device and `gpu-run.sh collect` unpacked into results/zinc12k-gpu.

// gpuSection renders results/zinc12k-gpu: the device calls, parity, the speed table beside PyG
// and the paper, and the ZINC-12k seeds.
func gpuSection(dir string) func(root string) (string, error) {
	return func(root string) (string, error) {
		base := filepath.Join(root, dir)
		pieces, err := gpuresult.ReadPieces(filepath.Join(base, "pieces.jsonl"))
		if errors.Is(err, fs.ErrNotExist) {
			return "Status: prepared and dry-run on the CPU, **not yet run on a GPU**: no device has been lent to a\n" +
				"session so far (`" + dir + "/` holds nothing). Nothing below is a GPU measurement.\n", nil
		}
		if err != nil {
			return "", err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Device calls (`%s/pieces.jsonl`, from `scripts/gpu-run.sh`; each timing below names its call and GPU, and a comparison across calls says so):\n\n", dir)
		b.WriteString("| call began | GPU | build | piece | exit status | seconds |\n|---|---|---|---|---:|---:|\n")
		for _, p := range pieces {
			fmt.Fprintf(&b, "| %s | %s | %s | `%s` | %d | %.0f |\n", p.Call, p.GPU, p.Build, p.Piece, p.RC, p.Seconds)
		}
		if err := parityParagraph(&b, dir, pieces); err != nil {
			return "", err
		}
		if err := speedTable(&b, base, dir, pieces); err != nil {
			return "", err
		}
		runs, _ := filepath.Glob(filepath.Join(base, "runs", "seed-*"))
		if len(runs) > 0 {
			text, err := seedsSection(dir+"/runs", "0.063 ± 0.001")(root)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "\nZINC-12k, the paper's recipe for 400 epochs, the seeds trained at the same time on the one GPU (`%s/runs/`):\n\n%s", dir, text)
		}
		return b.String(), nil
	}
}

// parityParagraph writes the outcome of the latest parity piece, if there is one.
func parityParagraph(b *strings.Builder, dir string, pieces []gpuresult.Piece) error {
	var last *gpuresult.Piece
	for i := range pieces {
		if pieces[i].Piece == "parity" {
			last = &pieces[i]
		}
	}
	if last == nil {
		return nil
	}
	var r gpuresult.Parity
	if string(last.Result) == "null" || last.Result == nil {
		fmt.Fprintf(b, "\nParity: the piece of %s ended with exit status %d before comparing (`%s/parity/`).\n", last.Call, last.RC, dir)
		return nil
	}
	if err := json.Unmarshal(last.Result, &r); err != nil {
		return fmt.Errorf("parity of %s: %w", last.Call, err)
	}
	verdict := "within"
	if !r.Pass {
		verdict = "**over**"
	}
	fmt.Fprintf(b, "\nParity (the call of %s, `%s/parity/`): one checkpoint's validation and test MAE and four predictions with %s: largest relative difference %.2g, %s the tolerance %g.\n",
		last.Call, dir, strings.Join(r.Backends, " and "), r.MaxRelDiff, verdict, r.RTol)
	return nil
}

// speedTable writes the training-epoch and test-pass times of ours (speed:sparse, speed:dense)
// and of PyG beside the paper's: of each, the latest call that timed it.
func speedTable(b *strings.Builder, base, dir string, pieces []gpuresult.Piece) error {
	ours := map[string]timedSpeed{}
	for _, name := range []string{"speed:sparse", "speed:dense"} {
		t, ok, err := latestSpeed(base, pieces, name)
		if err != nil {
			return err
		}
		if ok {
			ours[name] = t
		}
	}
	var pyg *timedPyG
	for _, p := range pieces {
		if p.Piece != "pyg" || p.RC != 0 || skipped(p.Result) {
			continue
		}
		var r gpuresult.PyG
		if err := json.Unmarshal(p.Result, &r); err != nil {
			return fmt.Errorf("pyg of %s: %w", p.Call, err)
		}
		for _, mode := range pygModes {
			if m, ok := r[mode]; !ok || len(m.Summary) == 0 {
				return fmt.Errorf("pyg of %s: no summary of %s", p.Call, mode)
			}
		}
		pyg = &timedPyG{p, r}
	}
	if len(ours) == 0 && pyg == nil {
		return nil
	}
	fmt.Fprintf(b, "\nSpeed, ZINC-12k recipe (batch 128, 6 × 96, k = 8), of each the latest call that timed it (`%s/`):\n\n", dir)
	b.WriteString("| implementation | GPU, call began | train epoch (s) | of which waiting for batches (s) | test pass (s) | GPU memory (MiB) | of it the framework's tensors (MiB) | GPU utilisation (%) |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	b.WriteString("| the paper (PyTorch Geometric) | A100 | 9.60 | | 0.95 | | | |\n")
	if pyg != nil {
		for _, mode := range pygModes {
			m := pyg.r[mode]
			fmt.Fprintf(b, "| PyG, product graph %s | %s, %s | %.2f | | %.2f | %s | %s | %s |\n", pygModeNames[mode], pyg.p.GPU, pyg.p.Call,
				m.Summary[0].Train, m.Summary[0].Test, optional(m.SMI.MemMax, "%.0f"), optional(m.PeakMem, "%.0f"), optional(m.SMI.UtilMean, "%.0f"))
		}
	}
	var ratios, steps []string
	for _, name := range []string{"speed:sparse", "speed:dense"} {
		o, ok := ours[name]
		if !ok {
			continue
		}
		r := o.r
		status := ""
		if o.p.RC != 0 {
			status = fmt.Sprintf(" (piece stopped with exit status %d after its epochs)", o.p.RC)
		}
		var tensors *float64
		if r.DeviceBytes > 0 {
			mib := float64(r.DeviceBytes) / (1 << 20)
			tensors = &mib
		}
		fmt.Fprintf(b, "| sgformer, %s (%s)%s | %s, %s | %.2f | %.2f | %.2f | %s | %s | %s |\n", r.Execution, r.Backend, status, o.p.GPU, o.p.Call,
			r.TrainEpoch, r.Batching, r.TestPass, optional(r.SMI.MemMax, "%.0f"), optional(tensors, "%.0f"), optional(r.SMI.UtilMean, "%.0f"))
		if pyg != nil {
			where := "the same call"
			if pyg.p.Call != o.p.Call {
				where = "different calls"
				if pyg.p.GPU == o.p.GPU {
					where += ", the same GPU model"
				}
			}
			for _, mode := range pygModes {
				ratios = append(ratios, fmt.Sprintf("%s over PyG %s: %.2f× (%s)", r.Execution, pygModeNames[mode], pyg.r[mode].Summary[0].Train/r.TrainEpoch, where))
			}
		}
		var done, missing []string
		for _, bench := range []struct {
			name    string
			s, host *float64
		}{{"training step", r.TrainStep, r.TrainStepHost}, {"inference", r.Inference, r.InferenceHost}, {"building the batch on the host", r.Batch, nil}} {
			switch {
			case bench.s == nil:
				missing = append(missing, bench.name)
			case bench.host != nil:
				done = append(done, fmt.Sprintf("%s %.1f ms (the host busy launching it %.1f ms)", bench.name, *bench.s*1e3, *bench.host*1e3))
			default:
				done = append(done, fmt.Sprintf("%s %.1f ms", bench.name, *bench.s*1e3))
			}
		}
		if len(done) > 0 {
			if len(missing) > 0 {
				done = append(done, "not reached: "+strings.Join(missing, ", "))
			}
			steps = append(steps, r.Execution+": "+strings.Join(done, ", "))
		}
	}
	b.WriteString("\nPyG: medians over the epochs after the first. sgformer: medians over the epochs after the first that compiled no program (XLA compiles one per new batch shape), from the piece's metrics.jsonl: the training steps, of which waiting for batches built on the host while the step before ran, and half of the validation and test passes; memory and utilisation: nvidia-smi's samples every 0.5 s over the whole piece (the largest memory.used; the mean of the non-zero utilisations); the framework's tensors: PyTorch's largest `max_memory_allocated` of an epoch, and XLA's buffer assignment of our largest program (summary.json's `device_bytes`; empty for runs from before it was recorded).")
	if len(ratios) > 0 {
		fmt.Fprintf(b, " Training throughput, ours over PyG's (the inverse ratio of epoch times): %s.", strings.Join(ratios, "; "))
	}
	if len(steps) > 0 {
		fmt.Fprintf(b, " Per 128-molecule batch (`BenchmarkZINC*` of sgformer/training): %s.", strings.Join(steps, "; "))
	}
	b.WriteString("\n")
	for _, name := range []string{"speed:sparse", "speed:dense"} {
		if o, ok := ours[name]; ok {
			if err := xlaParagraph(b, base, dir, o); err != nil {
				return err
			}
		}
	}
	return nil
}

// bandwidth is the memory bandwidth of the GPUs by nvidia-smi's name, from NVIDIA's data
// sheets, in bytes per second: what XLA's programs are measured against.
var bandwidth = map[string]float64{"NVIDIA H100 80GB HBM3": 3.35e12, "NVIDIA H200": 4.8e12}

// xlaParagraph writes what XLA runs for the benchmarked programs of a speed piece, from the
// summary of its dump (gpuresult.XLASummaryFile in its folder), if it has one.
func xlaParagraph(b *strings.Builder, base, dir string, o timedSpeed) error {
	folder := gpuresult.Folder(o.p.Piece)
	data, err := os.ReadFile(filepath.Join(base, folder, gpuresult.XLASummaryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var s gpuresult.XLASummary
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("%s/%s/%s: %w", dir, folder, gpuresult.XLASummaryFile, err)
	}
	var parts []string
	for _, p := range s.Programs {
		what, seconds := "Program "+p.Module, (*float64)(nil)
		switch {
		case strings.HasPrefix(p.Module, "Trainer_"):
			what, seconds = "The training step", o.r.TrainStep
		case strings.Contains(p.Module, "benchInference"):
			what, seconds = "The inference pass", o.r.Inference
		}
		ops := 0
		for kind, n := range p.Thunks {
			if kind != "kCommandBuffer" {
				ops += n
			}
		}
		kinds := []string{fmt.Sprintf("%d kernels XLA generated", p.Thunks["kCustomKernel"]+p.Thunks["kKernel"])}
		for _, k := range []struct{ kind, name string }{{"kCublasLtMatmul", "cuBLAS matrix products"}, {"kGemm", "cuBLAS matrix products"}, {"kCopy", "copies"}} {
			if n := p.Thunks[k.kind]; n > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", n, k.name))
			}
		}
		graph := ""
		if p.Thunks["kCommandBuffer"] > 0 {
			graph = ", launched as CUDA graphs"
		}
		text := fmt.Sprintf("%s runs %d operations on the GPU (%s%s) on %d arguments (%.1f MB); its most frequent kernels %s; its instructions read and write at most %.1f GB",
			what, ops, strings.Join(kinds, ", "), graph, p.Parameters, float64(p.ParameterBytes)/1e6, topKernels(p.Kernels, 3), float64(p.BytesTouched)/1e9)
		if seconds != nil {
			rate := float64(p.BytesTouched) / *seconds
			text += fmt.Sprintf(", %.2f TB/s over the %.1f ms benchmarked", rate/1e12, *seconds*1e3)
			if peak, ok := bandwidth[o.p.GPU]; ok {
				text += fmt.Sprintf(" (%.0f %% of the %s's %.2f TB/s)", 100*rate/peak, o.p.GPU, peak/1e12)
			}
		}
		parts = append(parts, text)
	}
	fmt.Fprintf(b, "\nWhat XLA runs, %s (`%s/%s/%s`, summarised from XLA's dump of the benchmarks' programs). %s.\n", o.r.Execution, dir, folder, gpuresult.XLASummaryFile, strings.Join(parts, ". "))
	return nil
}

// topKernels names the n most frequent kinds of kernel, with their counts.
func topKernels(kernels map[string]int, n int) string {
	kinds := make([]string, 0, len(kernels))
	for k := range kernels {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if kernels[kinds[i]] != kernels[kinds[j]] {
			return kernels[kinds[i]] > kernels[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	var out []string
	for _, k := range kinds[:min(n, len(kinds))] {
		out = append(out, fmt.Sprintf("`%s` × %d", k, kernels[k]))
	}
	return strings.Join(out, ", ")
}

// pygModes are bench/pyg's product-graph modes, in the table's order, and their names there.
var (
	pygModes     = []string{"onthefly", "precomputed"}
	pygModeNames = map[string]string{"onthefly": "on the fly", "precomputed": "precomputed"}
)

// timedSpeed and timedPyG are a timing piece's record and its result.
type (
	timedSpeed struct {
		p gpuresult.Piece
		r gpuresult.Speed
	}
	timedPyG struct {
		p gpuresult.Piece
		r gpuresult.PyG
	}
)

// latestSpeed is the latest timing of the speed piece name (speed:sparse, speed:dense) among
// pieces, if any.
func latestSpeed(base string, pieces []gpuresult.Piece, name string) (timedSpeed, bool, error) {
	var latest timedSpeed
	found, last := false, -1
	for i, p := range pieces {
		if p.Piece == name {
			last = i
		}
	}
	for i, p := range pieces {
		if p.Piece != name {
			continue
		}
		r, ok, err := speedResult(base, p, i == last)
		if err != nil {
			return latest, false, err
		}
		if ok {
			latest, found = timedSpeed{p, r}, true
		}
	}
	return latest, found, nil
}

// speedResult is a speed piece's timings, if it has any: its result, or, for the latest piece
// of its name (whose folder collect left in base) stopped before it wrote one, what its folder
// holds.
func speedResult(base string, p gpuresult.Piece, latest bool) (gpuresult.Speed, bool, error) {
	var r gpuresult.Speed
	if len(p.Result) > 0 && string(p.Result) != "null" {
		if skipped(p.Result) {
			return r, false, nil
		}
		if err := json.Unmarshal(p.Result, &r); err != nil {
			return r, false, fmt.Errorf("%s of %s: %w", p.Piece, p.Call, err)
		}
		return r, len(r.Epochs) > 0, nil
	}
	if !latest || p.RC == 0 {
		return r, false, nil
	}
	folder := filepath.Join(base, gpuresult.Folder(p.Piece))
	r, err := gpuresult.ReadSpeed(folder, strings.TrimPrefix(p.Piece, "speed:"), gpuresult.DeviceBackend)
	if errors.Is(err, fs.ErrNotExist) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("%s of %s: %w", p.Piece, p.Call, err)
	}
	return r, true, nil
}

// skipped says whether a piece's result is gpuresult.Skipped: it never started.
func skipped(result json.RawMessage) bool {
	var s gpuresult.Skipped
	return json.Unmarshal(result, &s) == nil && s.Skipped != ""
}

// optional formats *v, or leaves the cell empty.
func optional(v *float64, format string) string {
	if v == nil {
		return ""
	}
	return fmt.Sprintf(format, *v)
}
