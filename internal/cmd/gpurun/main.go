// Command gpurun runs the GPU plan (issue 12) as pieces on the lent device machine, and
// unpacks here what a call brought back. The device has no Go toolchain: scripts/gpu-build.sh
// builds this program (static, gzipped into build/gpu/ beside the sgformer binaries and the
// ZINC text export), and scripts/gpu-run.sh unpacks and runs it from the repository root
// (here it runs it with `go run`). One device call runs several pieces in order, each bounded
// by what is left of the call's budget:
//
//	check            machine, glibc and ldd of the binary, nvidia-smi, scripts/gpu-env.sh, a
//	                 1-epoch ZINC run (128 training molecules) on xla:cuda
//	parity           the same weights on the same graphs, pure Go vs xla:cuda (see below)
//	speed:EXEC       EXEC = sparse|dense: 3 epochs of the ZINC-12k recipe (batch 128, 6 × 96,
//	                 k = 8) with nvidia-smi sampling utilisation and memory every 0.5 s (the
//	                 steady epoch's training, batch-waiting and evaluation times from
//	                 metrics.jsonl: gpuresult.Speed), then the per-batch benchmarks
//	                 (training step, inference, host batching) with XLA's dump of their
//	                 programs (xla-dump/)
//	pyg              bench/pyg/subgraphormer_pyg.py on the same data: on-the-fly and
//	                 precomputed product graphs, 3 epochs each
//	zinc:S[,S...]    continue the 400-epoch ZINC-12k runs of seeds S… (results/zinc12k-gpu/
//	                 runs/seed-S), all at the same time on the one GPU, with nvidia-smi
//	                 sampling, for what is left of the call (at most $ZINC_BUDGET_S seconds),
//	                 stopping at a checkpoint
//
// and, here, on what a call brought back:
//
//	collect DIR [DEST]  unpack DIR/*.tar.gz into DEST (default results/zinc12k-gpu): a piece's
//	                    folder and a seed's run replaced, DIR/pieces.jsonl appended to
//	                    DEST/pieces.jsonl, a speed piece's xla-dump/ summarised into its
//	                    xla-summary.json (internal/gpuresult.XLASummary) and moved to
//	                    build/gpu-dumps/PIECE, and DEST/records.jsonl written afresh
//	                    (gpuresult.Records); `go run ./internal/cmd/readme` renders
//	                    docs/gpu.md from them
//
// Usage, with `run` calls carrying ["build/gpu"] (docs/gpu.md):
//
//	run  scripts/gpu-run.sh check parity speed:sparse
//	run  scripts/gpu-run.sh speed:sparse speed:dense pyg      (one call: timings compared)
//	run  scripts/gpu-run.sh zinc:0,1,2
//
// then `scripts/gpu-run.sh collect FILES_AT` and commit results/zinc12k-gpu after every call:
// the seeds' runs travel to the next call as tracked files.
//
// What comes back. The device returns at most 8 files from $OUT, at most two folders down, so
// every piece works in $SGFORMER_GPU_WORK (default build/gpu-work) and leaves one tarball,
// $OUT/PIECE.tar.gz (":" and "," read "-"; zinc:S…: one more per seed, runs-seed-S.tar.gz),
// and a line in $OUT/pieces.jsonl (internal/gpuresult.Piece: piece, the call's start, date,
// GPU, build, exit status, seconds, error and the piece's result.json). A call whose pieces
// would leave more than 8 files is refused before anything runs. A piece that fails is
// recorded and the next one still runs; the exit status is that of the first failure.
// Training runs' variables are left out of the tarballs, except the seeds' (their checkpoint
// and best model, 6.7 MB each).
//
// Time. The device kills a command at 600 s; the pieces of one call share $GPU_CALL_BUDGET_S
// (default 540), each stopped with what is left (a piece with under 60 s left is skipped and
// recorded so): at its deadline its commands get SIGTERM, and SIGKILL 20 s later; its exit
// status is then 124. zinc gives sgformer `--time-limit` (it stops at an epoch boundary with
// its checkpoint) and SIGTERM as the safety net (sgformer then saves the epoch in progress at
// its step, and --resume continues from there exactly). A SIGTERM or SIGINT to this program
// ends the piece in progress the same way, still packed and recorded, and skips the rest.
//
// Parity: a model trained 1 epoch on 64 molecules with the pure-Go backend, then
// `sgformer eval` (validation and test MAE over 1000 + 1000 graphs) and `sgformer predict`
// (test molecules 11000–11003) with --backend go and --backend xla:cuda on its best
// checkpoint. Pass: relative difference of each MAE and of each prediction (against
// 1 + |prediction|) at most $PARITY_RTOL (default 1e-3). The tolerance allows for XLA:GPU
// running float32 matrix products on TF32 tensor cores at its default precision (10-bit
// mantissa); the two backends also sum in different orders, which alone gives about 1e-6.
//
// SGFORMER_GPU_DRYRUN=1 runs every piece here on the CPU: the pure-Go backend instead of
// xla:cuda, a 2-layer × 24 model on fewer molecules, no scripts/gpu-env.sh, no nvidia-smi,
// torch's own GAT when torch_geometric is absent ($SGFORMER_PYTHON, default python3: the
// Python with torch, also the one scripts/gpu-env.sh searches). $SGFORMER_GPU_RESULTS
// (default results/zinc12k-gpu) is where zinc finds the seeds' runs.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// dumpsDir is where collect moves the pieces' XLA dumps, out of the tracked results.
const dumpsDir = "build/gpu-dumps"

const usage = "usage: gpu-run.sh PIECE... (check, parity, speed:sparse, speed:dense, pyg, zinc:S[,S...]) | collect DIR [DEST]"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run does what the command line asks and returns the exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "gpu-run:", err)
		return 1
	}
	cfg, err := configFrom(getenv)
	if err != nil {
		return fail(err)
	}
	if len(args) == 0 {
		return fail(errors.New(usage))
	}
	if args[0] == "collect" {
		if len(args) < 2 || len(args) > 3 {
			return fail(errors.New("usage: gpu-run.sh collect FILES_AT [DEST]"))
		}
		dest := cfg.results
		if len(args) == 3 {
			dest = args[2]
		}
		if err := collect(args[1], dest, dumpsDir, stdout); err != nil {
			return fail(err)
		}
		return 0
	}
	pieces, err := parsePieces(args)
	if err != nil {
		return fail(err)
	}
	r, err := newRunner(cfg, stdout)
	if err != nil {
		return fail(err)
	}
	return r.runAll(ctx, pieces)
}

// config is what the environment sets.
type config struct {
	out     string // $OUT: what comes back from the device
	work    string // $SGFORMER_GPU_WORK: the pieces' folders
	results string // $SGFORMER_GPU_RESULTS: the committed results, where the seeds' runs are
	dry     bool   // $SGFORMER_GPU_DRYRUN=1: every piece on the CPU
	python  string // $SGFORMER_PYTHON
	// budget is the call's ($GPU_CALL_BUDGET_S), zincBudget the most a zinc piece trains
	// ($ZINC_BUDGET_S), zincEpochs the seeds' runs' length ($ZINC_EPOCHS).
	budget, zincBudget time.Duration
	zincEpochs         int
	rtol               float64 // $PARITY_RTOL
}

// configFrom reads the settings; an unset variable takes its default, a malformed one is an
// error naming it.
func configFrom(getenv func(string) string) (config, error) {
	str := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	c := config{
		out:     str("OUT", "build/gpu-out"),
		work:    str("SGFORMER_GPU_WORK", "build/gpu-work"),
		results: str("SGFORMER_GPU_RESULTS", "results/zinc12k-gpu"),
		python:  str("SGFORMER_PYTHON", "python3"),
	}
	switch v := getenv("SGFORMER_GPU_DRYRUN"); v {
	case "", "0":
	case "1":
		c.dry = true
	default:
		return c, fmt.Errorf("SGFORMER_GPU_DRYRUN=%q: want 1 or 0", v)
	}
	for _, s := range []struct {
		name string
		def  int
		to   *time.Duration
	}{{"GPU_CALL_BUDGET_S", 540, &c.budget}, {"ZINC_BUDGET_S", 540, &c.zincBudget}} {
		n, err := positiveInt(s.name, str(s.name, strconv.Itoa(s.def)))
		if err != nil {
			return c, err
		}
		*s.to = time.Duration(n) * time.Second
	}
	n, err := positiveInt("ZINC_EPOCHS", str("ZINC_EPOCHS", "400"))
	if err != nil {
		return c, err
	}
	c.zincEpochs = n
	rtol := str("PARITY_RTOL", "1e-3")
	c.rtol, err = strconv.ParseFloat(rtol, 64)
	if err != nil || !(c.rtol > 0) {
		return c, fmt.Errorf("PARITY_RTOL=%q: want a positive number", rtol)
	}
	return c, nil
}

// positiveInt parses the value of the variable name.
func positiveInt(name, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive whole number", name, v)
	}
	return n, nil
}
