package main

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/sgformer/sgformer/internal/gpuresult"
	"github.com/sgformer/sgformer/internal/record"
)

// backendsSection renders scripts/bench-backends.sh's records: per backend (go, xla:cpu, PyTorch
// Geometric), the ZINC training step and inference pass on 128 molecules, their rate of
// arithmetic against the backend's matrix-product peak, the process's peak RSS, and each
// ogbg-molesol epoch's seconds (PyTorch's: the authors' code, with 1 and 2 threads) with the
// programs it compiled, and the steady epoch: the median of those that compiled none.
func backendsSection(file string, recs record.Set) (string, error) {
	type row struct {
		train, infer, peak, rssKB float64
		molesol                   []string
		steady                    string
	}
	rows := map[string]*row{"go": {}, "xla:cpu": {}, "xla:cpu-system": {}, "pyg": {}}
	// step is a benchmark's typical execution, in seconds: the median one (median_ms/op, which
	// the ZINC benchmarks report since 2026-11-27) where it has one, else the mean (ns/op).
	step := func(part, bench string) float64 {
		if ms, ok := recs.Value(part, bench, "median_ms/op"); ok {
			return ms / 1e3
		}
		ns, _ := recs.Value(part, bench, "ns/op")
		return ns / 1e9
	}
	var trainFLOPs, inferFLOPs float64
	var authors []string // the authors' code on molesol, per thread count
	for _, p := range recs.Parts() {
		f := strings.Fields(p) // "zinc xla:cpu", "matmul go", "flops zinc", "molesol authors-2"
		if len(f) != 2 {
			continue
		}
		if skipped := recs.Where(func(r record.Record) bool { return r.Part == p && r.What == "skipped" }); len(skipped) > 0 {
			authors = append(authors, f[1]+": skipped: "+skipped[0].Note)
			continue
		}
		if code, failed := recs.Value(p, "exit status", ""); failed {
			return "", fmt.Errorf("%s: %s: exit status %.0f", file, p, code)
		}
		r := rows[f[1]]
		switch {
		case f[0] == "flops":
			for _, m := range recs.Where(func(r record.Record) bool { return r.Part == p && r.What == "dot_flops" }) {
				// the largest program of each: the step, the pass
				if name := m.Labels["module"]; strings.HasPrefix(name, "Trainer") {
					trainFLOPs = max(trainFLOPs, m.Value)
				} else if strings.Contains(name, "benchInference") {
					inferFLOPs = max(inferFLOPs, m.Value)
				}
			}
		case f[0] == "matmul" && r != nil:
			for _, rate := range recs.Where(func(r record.Record) bool { return r.Part == p && r.Unit == "GFLOP/s" }) {
				r.peak = max(r.peak, rate.Value)
			}
		case p == "zinc pyg":
			tr, ok1 := recs.Value(p, "train_seconds_median", "")
			te, ok2 := recs.Value(p, "test_seconds_median", "")
			if !ok1 || !ok2 {
				return "", fmt.Errorf("%s: %s: no summary", file, p)
			}
			// 384 molecules in batches of 128: three steps, three inference passes.
			r.rssKB, _ = recs.Value(p, "peak RSS", "kB")
			r.train, r.infer = tr/3, te/3
		case f[0] == "zinc" && r != nil:
			r.train, r.infer = step(p, "BenchmarkZINCTrainStep/sparse"), step(p, "BenchmarkZINCInference/sparse")
			r.rssKB, _ = recs.Value(p, "peak RSS", "kB")
		case f[0] == "molesol":
			secs := recs.Values(p, "epoch seconds", "")
			if len(secs) == 0 {
				return "", fmt.Errorf("%s: %s: no epoch seconds", file, p)
			}
			cells, steady, err := steadyEpoch(secs, recs.Values(p, "epoch programs", ""))
			if err != nil {
				return "", fmt.Errorf("%s: %s: %w", file, p, err)
			}
			if threads, ok := strings.CutPrefix(f[1], "authors-"); ok {
				authors = append(authors, fmt.Sprintf("%s thread(s): %s", threads, strings.Join(cells, ", ")))
			} else if r != nil {
				r.molesol, r.steady = cells, steady
			}
		}
	}
	if trainFLOPs == 0 || inferFLOPs == 0 {
		return "", fmt.Errorf("%s: no FLOP counts of the ZINC step and pass (part \"flops zinc\")", file)
	}
	rate := func(flops, seconds float64) string { return fmt.Sprintf("%.1f", flops/seconds/1e9) }
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` (%s):\n\n", file, provenance(recs))
	b.WriteString("| backend | ZINC training step, s | GFLOP/s | ZINC inference, s | GFLOP/s | matrix-product peak, GFLOP/s | peak RSS (ZINC), GiB | ogbg-molesol epochs 1-5, s (programs compiled) | ogbg-molesol steady epoch, s |\n|---|---:|---:|---:|---:|---:|---:|---|---:|\n")
	for _, name := range []string{"go", "xla:cpu", "xla:cpu-system", "pyg"} {
		r := rows[name]
		if name == "xla:cpu-system" && r.train == 0 && r.infer == 0 {
			continue // measured since 2026-11-27
		}
		if r.train == 0 || r.infer == 0 {
			return "", fmt.Errorf("%s: no ZINC results for %s", file, name)
		}
		label, peak, molesol, steady := "`"+name+"`", "—", strings.Join(r.molesol, ", "), cmp.Or(r.steady, "—")
		if r.peak > 0 {
			peak = fmt.Sprintf("%.0f", r.peak)
		}
		if name == "xla:cpu-system" {
			label = "`xla:cpu`, glibc's default allocator (`SGFORMER_MALLOC=system`)"
		}
		if name == "pyg" {
			label, molesol = "PyTorch Geometric", "the authors' code, "+strings.Join(authors, "; ")
			if len(authors) == 0 {
				molesol = "not measured"
			}
		}
		fmt.Fprintf(&b, "| %s | %.2f | %s | %.2f | %s | %s | %.1f | %s | %s |\n", label, r.train, rate(trainFLOPs, r.train),
			r.infer, rate(inferFLOPs, r.infer), peak, r.rssKB/(1<<20), molesol, steady)
	}
	fmt.Fprintf(&b, "\nGFLOP/s: the matrix products of the step (%.1f GFLOP: forward, backward and Adam) and of the inference pass (%.1f GFLOP), "+
		"counted in the programs XLA compiled for them, over each backend's time; the same arithmetic is credited to every row. "+
		"The gathers and scatters of message passing move memory and are not counted. "+
		"Steps and passes: the median execution (the mean in results from before 2026-11-27) after one that compiles and, since then, one that warms up. "+
		"Peak: the faster of the products of two n × n float32 matrices, n = 512 and 2048, on the same backend (`BenchmarkMatMul`). "+
		"ogbg-molesol: the paper's recipe from an empty compile cache, so that an epoch meeting new batch shapes compiles their programs (in brackets where it did); "+
		"the steady epoch is the median of the epochs that compiled none (— where the output does not say).\n", trainFLOPs/1e9, inferFLOPs/1e9)
	return b.String(), nil
}

// steadyEpoch formats each epoch's seconds, with the programs it compiled in brackets where
// programs (one count per epoch; none when not recorded) says it compiled some, and returns the
// median seconds of the epochs that compiled none ("" when not recorded or none did).
func steadyEpoch(secs, programs []float64) (cells []string, steady string, err error) {
	if len(programs) > 0 && len(programs) != len(secs) {
		return nil, "", fmt.Errorf("%d epoch seconds but %d program counts", len(secs), len(programs))
	}
	var quiet []float64
	for i, x := range secs {
		cells = append(cells, fmt.Sprintf("%.1f", x))
		switch {
		case len(programs) == 0:
		case programs[i] > 0:
			cells[i] += fmt.Sprintf(" (%.0f)", programs[i])
		default:
			quiet = append(quiet, x)
		}
	}
	if len(quiet) > 0 {
		steady = fmt.Sprintf("%.1f", gpuresult.Median(quiet))
	}
	return cells, steady, nil
}
