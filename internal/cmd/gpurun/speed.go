package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sgformer/sgformer/internal/gpuresult"
)

// speed trains a few epochs of the ZINC-12k recipe with one execution (sparse or dense) under
// nvidia-smi, then runs the per-batch benchmarks of sgformer/training: one 128-molecule batch
// of the recipe's model, a training step, an inference pass, and the host's share of a step
// (building the batch).
func speed(ctx context.Context, j *job, p piece) error {
	if err := j.gpuEnv(ctx); err != nil {
		return err
	}
	epochsArg, benchTime := "3", "20x"
	args := []string{"train", "--dataset", "zinc12k", "--data-dir", dataDir, "--cache-dir", cacheDir}
	if j.cfg.dry {
		epochsArg, benchTime = "2", "1x"
		args = append(args, "--train-subset", "128")
	}
	args = append(append(args, j.small()...), "--epochs", epochsArg, "--execution", p.exec, "--backend", j.backend(), "--out", j.path("run"))
	smi := startSMI(ctx, j, "smi.csv")
	err := j.run(ctx, files{stdout: os.DevNull, stderr: "train.log"}, sgformer, args...)
	if err := errors.Join(err, j.writeJSON("smi.json", smi.stop())); err != nil {
		return err
	}
	if err := dropVariables(j.path("run")); err != nil {
		return err
	}
	// The epochs' times are recorded before the benchmarks, which the call's budget may stop.
	if err := j.writeSpeed(p); err != nil {
		return err
	}
	bench := j.command(ctx, binDir+"/training.test", "-test.run", "^$",
		"-test.bench", "^BenchmarkZINC(TrainStep|Inference|Batch)/"+p.exec+"$", "-test.benchtime", benchTime)
	// XLA's dump of the benchmarks' programs (HLO before and after its optimisations for the
	// GPU: the fusions and kernels a step runs), to say what bounds the step. Its flags also
	// change the compile cache's key, so the programs are compiled, and dumped, here.
	flags := strings.TrimSpace(j.getenv("XLA_FLAGS") + " --xla_dump_to=" + j.path("xla-dump") + " --xla_dump_hlo_as_text")
	bench.Env = j.environ("GOMLX_BACKEND="+j.backend(), "SGFORMER_DATA="+gpuDir+"/data", "XLA_FLAGS="+flags)
	var out bytes.Buffer
	bench.Stdout = io.MultiWriter(&out, j.out)
	berr := bench.Run()
	if err := os.WriteFile(j.path("bench.txt"), out.Bytes(), 0o644); err != nil {
		return err
	}
	if err := j.writeSpeed(p); err != nil {
		return err
	}
	if berr != nil {
		return fmt.Errorf("training.test: %w", berr)
	}
	return nil
}

// writeSpeed writes the speed piece's result.json from what its folder holds so far.
func (j *job) writeSpeed(p piece) error {
	r, err := gpuresult.ReadSpeed(j.dir, p.exec, j.backend())
	if err != nil {
		return err
	}
	return j.writeJSON("result.json", r)
}

// pygModes are subgraphormer_pyg.py's product-graph modes: rebuilt every time a molecule
// enters a batch (as the authors' code) and built once.
var pygModes = []string{"onthefly", "precomputed"}

// pyg runs bench/pyg/subgraphormer_pyg.py in both modes under nvidia-smi.
func pyg(ctx context.Context, j *job, p piece) error {
	args := []string{"bench/pyg/subgraphormer_pyg.py", "--data", dataDir, "--epochs", "3"}
	if j.cfg.dry {
		args = []string{"bench/pyg/subgraphormer_pyg.py", "--data", dataDir, "--epochs", "1",
			"--train-subset", "128", "--eval-subset", "128", "--layers", "2", "--hidden", "24"}
		if j.command(ctx, j.cfg.python, "-c", "import torch_geometric").Run() != nil {
			args = append(args, "--gat", "torch")
		}
	}
	r := gpuresult.PyG{}
	for _, mode := range pygModes {
		smi := startSMI(ctx, j, "smi-"+mode+".csv")
		cmd := j.command(ctx, j.cfg.python, append(args, "--product", mode)...)
		cmd.Env = j.environ("PYTHONUNBUFFERED=1")
		var out bytes.Buffer
		cmd.Stdout = io.MultiWriter(&out, j.out)
		err := cmd.Run()
		m := gpuresult.PyGMode{SMI: smi.stop()}
		if werr := os.WriteFile(j.path(mode+".jsonl"), out.Bytes(), 0o644); werr != nil {
			return werr
		}
		if err := j.writeJSON("smi-"+mode+".json", m.SMI); err != nil {
			return err
		}
		if err != nil {
			return fmt.Errorf("subgraphormer_pyg.py --product %s: %w", mode, err)
		}
		if err := readPyG(out.Bytes(), &m); err != nil {
			return fmt.Errorf("subgraphormer_pyg.py --product %s: %w", mode, err)
		}
		r[mode] = m
	}
	return j.writeJSON("result.json", r)
}

// readPyG reads subgraphormer_pyg.py's JSON lines: its summary lines and the largest peak
// memory of its epochs.
func readPyG(out []byte, m *gpuresult.PyGMode) error {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if !bytes.HasPrefix(sc.Bytes(), []byte("{")) {
			continue
		}
		var l struct {
			gpuresult.PyGSummary
			PeakMem *float64 `json:"peak_mem_mib"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if l.Summary {
			m.Summary = append(m.Summary, l.PyGSummary)
		}
		if l.PeakMem != nil && (m.PeakMem == nil || *l.PeakMem > *m.PeakMem) {
			m.PeakMem = l.PeakMem
		}
	}
	return sc.Err()
}
