package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
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
		fmt.Fprintf(&b, "Device calls (`%s/pieces.jsonl`, from `scripts/gpu-run.sh`; timings are compared only within a call):\n\n", dir)
		b.WriteString("| call began | GPU | build | piece | exit status | seconds |\n|---|---|---|---|---:|---:|\n")
		for _, p := range pieces {
			fmt.Fprintf(&b, "| %s | %s | %s | `%s` | %d | %.0f |\n", p.Call, p.GPU, p.Build, p.Piece, p.RC, p.Seconds)
		}
		if err := parityParagraph(&b, dir, pieces); err != nil {
			return "", err
		}
		if err := speedTable(&b, dir, pieces); err != nil {
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

// speedTable writes the training-epoch and test-pass times of ours and of PyG from the latest
// call that timed any of them, beside the paper's.
func speedTable(b *strings.Builder, dir string, pieces []gpuresult.Piece) error {
	timing := func(p gpuresult.Piece) bool {
		return (strings.HasPrefix(p.Piece, "speed:") || p.Piece == "pyg") && p.RC == 0
	}
	call := ""
	for _, p := range pieces {
		if timing(p) {
			call = p.Call
		}
	}
	if call == "" {
		return nil
	}
	fmt.Fprintf(b, "\nSpeed, ZINC-12k recipe (batch 128, 6 × 96, k = 8), the call of %s (`%s/`):\n\n", call, dir)
	b.WriteString("| implementation | train epoch (s) | of which waiting for batches (s) | test pass (s) | GPU memory (MiB) | GPU utilisation (%) |\n|---|---:|---:|---:|---:|---:|\n")
	b.WriteString("| the paper (A100, PyTorch Geometric) | 9.60 | | 0.95 | | |\n")
	pygTrain := map[string]float64{}
	var ours []gpuresult.Speed
	for _, p := range pieces {
		if p.Call != call || !timing(p) {
			continue
		}
		if p.Piece == "speed:sparse" || p.Piece == "speed:dense" {
			var r gpuresult.Speed
			if err := json.Unmarshal(p.Result, &r); err != nil {
				return fmt.Errorf("%s of %s: %w", p.Piece, call, err)
			}
			ours = append(ours, r)
			continue
		}
		var r gpuresult.PyG
		if err := json.Unmarshal(p.Result, &r); err != nil {
			return fmt.Errorf("pyg of %s: %w", call, err)
		}
		for _, mode := range []string{"onthefly", "precomputed"} {
			m, ok := r[mode]
			if !ok || len(m.Summary) == 0 {
				return fmt.Errorf("pyg of %s: no summary of %s", call, mode)
			}
			pygTrain[mode] = m.Summary[0].Train
			fmt.Fprintf(b, "| PyG, product graph %s | %.2f | | %.2f | %s | %s |\n", map[string]string{"onthefly": "on the fly", "precomputed": "precomputed"}[mode],
				m.Summary[0].Train, m.Summary[0].Test, optional(m.SMI.MemMax, "%.0f"), optional(m.SMI.UtilMean, "%.0f"))
		}
	}
	var ratios []string
	for _, r := range ours {
		fmt.Fprintf(b, "| sgformer, %s (%s) | %.2f | %.2f | %.2f | %s | %s |\n", r.Execution, r.Backend, r.TrainEpoch, r.Batching, r.TestPass, optional(r.SMI.MemMax, "%.0f"), optional(r.SMI.UtilMean, "%.0f"))
		for _, m := range []string{"onthefly", "precomputed"} {
			if t, ok := pygTrain[m]; ok {
				ratios = append(ratios, fmt.Sprintf("%s / PyG %s = %.2f", r.Execution, m, r.TrainEpoch/t))
			}
		}
	}
	b.WriteString("\nPyG: medians over the epochs after the first. sgformer: the last epoch of the piece, from its metrics.jsonl (the training steps, of which waiting for batches built on the host while the step before ran, and half of the validation and test passes); memory and utilisation: nvidia-smi's samples every 0.5 s over the whole piece (the largest memory.used; the mean of the non-zero utilisations).")
	if len(ratios) > 0 {
		fmt.Fprintf(b, " Training epoch, ours over PyG's: %s.", strings.Join(ratios, "; "))
	}
	b.WriteString("\n")
	return nil
}

// optional formats *v, or leaves the cell empty.
func optional(v *float64, format string) string {
	if v == nil {
		return ""
	}
	return fmt.Sprintf(format, *v)
}
