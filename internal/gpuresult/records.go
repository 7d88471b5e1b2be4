package gpuresult

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sgformer/sgformer/internal/record"
)

// RecordsFile is the records of a results folder's pieces.jsonl (internal/record's format),
// which `gpu-run.sh collect` rewrites after every call and the documents are rendered from.
const RecordsFile = "records.jsonl"

// Records converts the pieces of dir/pieces.jsonl into records, in order: of every piece its
// exit status (Note: its error, or why it was skipped) and seconds; of a parity piece that
// compared, the largest relative difference, the tolerance and whether it passed; of a pyg
// piece, per product-graph mode (the parts "pyg on the fly", "pyg precomputed"), the timings,
// memory and utilisation; of a speed piece with timings, the same and its benchmarks. The
// folders in dir are the latest call's of each piece: the latest speed piece of a name stopped
// before its result.json is read from its folder, and the XLA summary in a speed folder
// belongs to the latest piece of that name with timings (the parts "speed:EXEC MODULE").
// The context of a call's records: its pieces as the command, its start as the date, its GPU
// as the machine and its build as the commit.
func Records(dir string) (record.Set, error) {
	pieces, err := ReadPieces(filepath.Join(dir, "pieces.jsonl"))
	if err != nil {
		return nil, err
	}
	timed := map[string]int{} // the latest speed piece of each name with timings
	speeds := make([]*Speed, len(pieces))
	for i, p := range pieces {
		if !strings.HasPrefix(p.Piece, "speed:") {
			continue
		}
		if speeds[i], err = speedOf(dir, p, isLast(pieces, i)); err != nil {
			return nil, err
		}
		if speeds[i] != nil {
			timed[p.Piece] = i
		}
	}
	var s record.Set
	for i, p := range pieces {
		ctx := record.Context{Command: command(pieces, p.Call), Commit: p.Build, Date: p.Call, Machine: p.GPU, Load: "not recorded"}
		recs, err := pieceRecords(p, speeds[i])
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w", p.Piece, p.Call, err)
		}
		if j, ok := timed[p.Piece]; ok && j == i {
			x, err := xlaRecords(dir, p.Piece, speeds[i])
			if err != nil {
				return nil, err
			}
			recs = append(recs, x...)
		}
		for _, r := range recs {
			r.Context = ctx
			s = append(s, r)
		}
	}
	return s, nil
}

// isLast says whether pieces[i] is the last piece of its name.
func isLast(pieces []Piece, i int) bool {
	for _, p := range pieces[i+1:] {
		if p.Piece == pieces[i].Piece {
			return false
		}
	}
	return true
}

// command is the device call that began at call, as gpu-run.sh was given it.
func command(pieces []Piece, call string) string {
	cmd := "scripts/gpu-run.sh"
	for _, p := range pieces {
		if p.Call == call {
			cmd += " " + p.Piece
		}
	}
	return cmd
}

// speedOf is a speed piece's timings, nil where it has none: its result, or, for the latest
// piece of its name stopped before writing one, what its folder holds.
func speedOf(dir string, p Piece, latest bool) (*Speed, error) {
	var r Speed
	switch {
	case len(p.Result) > 0 && string(p.Result) != "null":
		if skipReason(p.Result) != "" {
			return nil, nil
		}
		if err := json.Unmarshal(p.Result, &r); err != nil {
			return nil, fmt.Errorf("%s of %s: %w", p.Piece, p.Call, err)
		}
		if len(r.Epochs) == 0 {
			return nil, nil
		}
	case latest && p.RC != 0:
		var err error
		r, err = ReadSpeed(filepath.Join(dir, Folder(p.Piece)), strings.TrimPrefix(p.Piece, "speed:"), DeviceBackend)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w", p.Piece, p.Call, err)
		}
	default:
		return nil, nil
	}
	return &r, nil
}

// skipReason is why a piece never started, if its result is Skipped; "" otherwise.
func skipReason(result json.RawMessage) string {
	var s Skipped
	if json.Unmarshal(result, &s) != nil {
		return ""
	}
	return s.Skipped
}

// pieceRecords are a piece's records without their context; speed is its timings, if it is a
// speed piece that has some.
func pieceRecords(p Piece, speed *Speed) (record.Set, error) {
	skipped := skipReason(p.Result)
	s := record.Set{{Part: p.Piece, What: "exit status", Value: float64(p.RC), Note: p.Error + skipped},
		{Part: p.Piece, What: "seconds", Value: p.Seconds, Unit: "s"}}
	if skipped != "" {
		return s, nil
	}
	switch {
	case speed != nil:
		r := speed
		s = append(s, record.Record{Part: p.Piece, What: "train epoch", Value: r.TrainEpoch, Unit: "s", Labels: map[string]string{"backend": r.Backend}},
			record.Record{Part: p.Piece, What: "batch waiting", Value: r.Batching, Unit: "s"},
			record.Record{Part: p.Piece, What: "test pass", Value: r.TestPass, Unit: "s"})
		s = append(s, smiRecords(p.Piece, r.SMI)...)
		if r.DeviceBytes > 0 {
			s = append(s, record.Record{Part: p.Piece, What: "framework tensors", Value: float64(r.DeviceBytes) / (1 << 20), Unit: "MiB"})
		}
		for _, b := range []struct {
			what string
			s    *float64
		}{{"training step", r.TrainStep}, {"training step, host busy", r.TrainStepHost}, {"inference", r.Inference}, {"inference, host busy", r.InferenceHost}, {"building the batch on the host", r.Batch}} {
			if b.s != nil {
				s = append(s, record.Record{Part: p.Piece, What: b.what, Value: *b.s, Unit: "s"})
			}
		}
	case p.Piece == "parity" && len(p.Result) > 0 && string(p.Result) != "null":
		var r Parity
		if err := json.Unmarshal(p.Result, &r); err != nil {
			return nil, err
		}
		pass := 0.0
		if r.Pass {
			pass = 1
		}
		s = append(s, record.Record{Part: p.Piece, What: "max relative difference", Value: r.MaxRelDiff, Labels: map[string]string{"backends": strings.Join(r.Backends, " and ")}},
			record.Record{Part: p.Piece, What: "tolerance", Value: r.RTol},
			record.Record{Part: p.Piece, What: "pass", Value: pass})
	case p.Piece == "pyg" && p.RC == 0:
		var r PyG
		if err := json.Unmarshal(p.Result, &r); err != nil {
			return nil, err
		}
		for _, mode := range []struct{ key, name string }{{"onthefly", "pyg on the fly"}, {"precomputed", "pyg precomputed"}} {
			m, ok := r[mode.key]
			if !ok || len(m.Summary) == 0 {
				return nil, fmt.Errorf("no summary of %s", mode.key)
			}
			s = append(s, record.Record{Part: mode.name, What: "train epoch", Value: m.Summary[0].Train, Unit: "s"},
				record.Record{Part: mode.name, What: "test pass", Value: m.Summary[0].Test, Unit: "s"})
			s = append(s, smiRecords(mode.name, m.SMI)...)
			if m.PeakMem != nil {
				s = append(s, record.Record{Part: mode.name, What: "framework tensors", Value: *m.PeakMem, Unit: "MiB"})
			}
		}
	}
	return s, nil
}

// smiRecords are what nvidia-smi's samples came to, where there were any.
func smiRecords(part string, smi SMI) record.Set {
	var s record.Set
	if smi.MemMax != nil {
		s = append(s, record.Record{Part: part, What: "GPU memory", Value: *smi.MemMax, Unit: "MiB"})
	}
	if smi.UtilMean != nil {
		s = append(s, record.Record{Part: part, What: "GPU utilisation", Value: *smi.UtilMean, Unit: "%"})
	}
	return s
}

// xlaRecords are the programs of the XLA summary in the folder of the speed piece piece, if it
// has one, each in the part "PIECE MODULE": its operations (the thunks but the CUDA graphs that
// hold them; labelled with the program's name), the kernels XLA generated, the cuBLAS matrix
// products, copies and CUDA graphs, its arguments and their bytes, the bytes its instructions
// touch, its three most frequent kernels ("kernel 1" to "kernel 3", labelled with the kernel)
// and the seconds the piece's benchmark of it took.
func xlaRecords(dir, piece string, speed *Speed) (record.Set, error) {
	path := filepath.Join(dir, Folder(piece), XLASummaryFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var sum XLASummary
	if err := json.Unmarshal(data, &sum); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var s record.Set
	for _, p := range sum.Programs {
		part := piece + " " + p.Module
		name, seconds := "Program "+p.Module, (*float64)(nil)
		switch {
		case strings.HasPrefix(p.Module, "Trainer_"):
			name, seconds = "The training step", speed.TrainStep
		case strings.Contains(p.Module, "benchInference"):
			name, seconds = "The inference pass", speed.Inference
		}
		ops := 0
		for kind, n := range p.Thunks {
			if kind != "kCommandBuffer" {
				ops += n
			}
		}
		add := func(what string, v float64, unit string) {
			s = append(s, record.Record{Part: part, What: what, Value: v, Unit: unit})
		}
		s = append(s, record.Record{Part: part, What: "operations", Value: float64(ops), Labels: map[string]string{"program": name}})
		add("generated kernels", float64(p.Thunks["kCustomKernel"]+p.Thunks["kKernel"]), "")
		add("cuBLAS matrix products", float64(p.Thunks["kCublasLtMatmul"]+p.Thunks["kGemm"]), "")
		add("copies", float64(p.Thunks["kCopy"]), "")
		add("CUDA graphs", float64(p.Thunks["kCommandBuffer"]), "")
		add("arguments", float64(p.Parameters), "")
		add("argument bytes", float64(p.ParameterBytes), "B")
		add("bytes touched", float64(p.BytesTouched), "B")
		for i, k := range topKernels(p.Kernels, 3) {
			s = append(s, record.Record{Part: part, What: fmt.Sprintf("kernel %d", i+1), Value: float64(p.Kernels[k]), Labels: map[string]string{"kernel": k}})
		}
		if seconds != nil {
			add("benchmarked", *seconds, "s")
		}
	}
	return s, nil
}

// topKernels are the n most frequent kinds of kernel, the most frequent first.
func topKernels(kernels map[string]int, n int) []string {
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
	return kinds[:min(n, len(kinds))]
}
