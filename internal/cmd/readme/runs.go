package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/internal/gpuresult"
	"github.com/sgformer/sgformer/internal/record"
)

// runPiece is one of scripts/bench-runs.sh's pieces: what it runs, on what, and the paper cell
// whose recipe it is (for the plan's estimate, which scripts/bench-recipes.sh measured on
// xla:cpu).
type runPiece struct {
	name, run, runner string
	epochs            int
	cell              func() paperCell // nil: no estimate (another runner than xla:cpu)
}

// runPieces are scripts/bench-runs.sh's pieces, in the table's order.
var runPieces = func() []runPiece {
	molesol := func() paperCell { return cellOf(ogbTable, molesol, subgraphormerPE, 1) }
	zinc := func() paperCell { return cellOf(zincTable, "zinc12k", subgraphormerPE, 1) }
	peptides := func() paperCell { return cellOf(peptidesTable, "peptides-func", subgraphormerPE, 0.3) }
	const m, z, p = "ogbg-molesol, 100 epochs", "ZINC-12k, 1 epoch", "Peptides-func, 1 epoch"
	return []runPiece{
		{"molesol-xla", m, "`xla:cpu`", 100, molesol},
		{"molesol-go", m, "`go`", 100, nil},
		{"molesol-authors", m, "the authors' code, 2 threads", 100, nil},
		{"zinc-xla", z, "`xla:cpu`", 1, zinc},
		{"zinc-go", z, "`go`", 1, nil},
		{"zinc-pyg", z, "PyTorch Geometric (test set only)", 1, nil},
		{"peptides-xla", p, "`xla:cpu`", 1, peptides},
		{"peptides-go", p, "`go`", 1, nil},
	}
}()

// runsSection renders scripts/bench-runs.sh's pieces (dir/PIECE.jsonl, records): each whole run's wall
// time, CPU hours, peak RSS, programs compiled, steady epoch and test metric, beside the CPU
// hours the reproduction plan estimates for the same run from one step
// (results/benchmarks/recipes.jsonl); a piece not run yet is said so.
func runsSection(dir string) func(root string) (string, error) {
	return func(root string) (string, error) {
		rc, err := newReportContext(root)
		if err != nil {
			return "", err
		}
		var b, headers strings.Builder
		b.WriteString("| run | runner | wall | CPU hours | peak RSS | programs compiled (seconds) | epoch, steady | test | the plan's estimate, CPU hours |\n|---|---|---:|---:|---:|---|---:|---|---:|\n")
		for _, pc := range runPieces {
			estimate := "—"
			if pc.cell != nil {
				if e, ok := rc.bench.estimate(pc.cell()); ok {
					estimate = strconv.FormatFloat(e.epoch()*float64(pc.epochs)/3600, 'f', 2, 64)
				}
			}
			file := filepath.Join(dir, pc.name+".jsonl")
			recs, err := record.Read(filepath.Join(root, file))
			if errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(&b, "| %s | %s | not run yet | | | | | | %s |\n", pc.run, pc.runner, estimate)
				continue
			}
			if err != nil {
				return "", err
			}
			if parts := recs.Parts(); len(parts) != 1 || parts[0] != pc.name {
				return "", fmt.Errorf("%s: want one part, %q", file, pc.name)
			}
			fmt.Fprintf(&headers, "- `%s`: %s\n", file, provenance(recs))
			wall, ok := recs.Value(pc.name, "wall", "s")
			if code, failed := recs.Value(pc.name, "exit status", ""); failed || !ok {
				why := "no time line"
				if failed {
					why = fmt.Sprintf("exit status %.0f", code)
				}
				fmt.Fprintf(&b, "| %s | %s | failed (%s) | | | | | | %s |\n", pc.run, pc.runner, why, estimate)
				continue
			}
			cpu, _ := recs.Value(pc.name, "CPU", "%")
			rss, _ := recs.Value(pc.name, "peak RSS", "kB")
			steady, err := runEpoch(recs, pc.name)
			if err != nil {
				return "", fmt.Errorf("%s: %w", file, err)
			}
			programs := "—"
			if n, ok := recs.Value(pc.name, "programs", ""); ok {
				s, _ := recs.Value(pc.name, "compile_seconds", "")
				programs = fmt.Sprintf("%.0f (%.0f s)", n, s)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %.2f | %.1f GiB | %s | %s | %s | %s |\n", pc.run, pc.runner, minutes(wall),
				wall*cpu/100/3600, rss/(1<<20), programs, steady, testMetric(recs, pc.name), estimate)
		}
		b.WriteString("\nWall and CPU from GNU time over the whole command (data loading, preprocessing, compilation, " +
			"every epoch's training and evaluation, checkpoints), each run from an empty compile cache. " +
			"Epoch, steady: the median of the epochs that compiled no program (of all epochs where the run does not count programs; " +
			"for one epoch, that epoch). PyTorch Geometric's epoch (bench/pyg/subgraphormer_pyg.py) trains on the 10,000 training molecules " +
			"and evaluates the 1,000 test ones, without validation. The plan's estimate: the epoch of the same recipe as " +
			"scripts/bench-recipes.sh measured it (one training step and one inference batch, in CPU seconds, scaled to an epoch; " +
			"[Estimates](reproduction.md#estimates)) times the run's epochs, without compilation.\n\n")
		b.WriteString(headers.String())
		return b.String(), nil
	}
}

// runEpoch is a whole run's typical epoch in seconds, formatted: its steady epoch (the median
// of its epochs that compiled no program, record_epochs), else the median of all its epochs (a
// run that does not count programs, or a one-epoch run); PyTorch Geometric's epoch, training and
// test.
func runEpoch(recs record.Set, part string) (string, error) {
	if steady, ok := recs.Value(part, "steady epoch seconds", ""); ok {
		return fmt.Sprintf("%.1f s", steady), nil
	}
	secs := recs.Values(part, "epoch seconds", "")
	if len(secs) == 0 { // PyTorch Geometric's summary
		train, ok := recs.Value(part, "train_seconds_median", "")
		if !ok {
			return "", errors.New("no epoch seconds")
		}
		test, _ := recs.Value(part, "test_seconds_median", "")
		secs = []float64{train + test}
	}
	return fmt.Sprintf("%.1f s", gpuresult.Median(secs)), nil
}

// testMetric is a whole run's test metric: at the best validation epoch (the CLI, the authors'
// code), or after its last epoch (PyTorch Geometric's MAE).
func testMetric(recs record.Set, part string) string {
	for _, r := range recs {
		if r.Part == part && r.What == "test_at_best_val" {
			return fmt.Sprintf("%s %.3f", strings.Fields(r.Labels["metric"] + " ?")[0], r.Value)
		}
	}
	if maes := recs.Values(part, "test_mae", ""); len(maes) > 0 {
		return fmt.Sprintf("mae %.3f", maes[len(maes)-1])
	}
	return "—"
}

// minutes formats seconds as minutes, or hours from 100 minutes on.
func minutes(s float64) string {
	if s >= 6000 {
		return fmt.Sprintf("%.1f h", s/3600)
	}
	return fmt.Sprintf("%.1f min", s/60)
}
