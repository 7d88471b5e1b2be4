package main

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/internal/gpuresult"
)

// backendsSection renders scripts/bench-backends.sh's output: per backend (go, xla:cpu, PyTorch
// Geometric), the ZINC training step and inference pass on 128 molecules, their rate of
// arithmetic against the backend's matrix-product peak, the process's peak RSS, and each
// ogbg-molesol epoch's seconds (PyTorch's: the authors' code, with 1 and 2 threads) with the
// programs it compiled, and the steady epoch: the median of those that compiled none.
func backendsSection(file string) func(root string) (string, error) {
	return func(root string) (string, error) {
		header, parts, err := readParts(filepath.Join(root, file))
		if err != nil {
			return "", err
		}
		type row struct {
			train, infer, peak, rssKB float64
			molesol                   []string
			steady                    string
		}
		rows := map[string]*row{"go": {}, "xla:cpu": {}, "xla:cpu-system": {}, "pyg": {}}
		var trainFLOPs, inferFLOPs float64
		epochSeconds := func(p *part) ([]string, error) {
			var secs []string
			for _, s := range strings.Fields(p.epochs) {
				var x float64
				if _, err := fmt.Sscan(s, &x); err != nil {
					return nil, fmt.Errorf("%s: %s: epoch seconds %q", file, p.name, p.epochs)
				}
				secs = append(secs, fmt.Sprintf("%.1f", x))
			}
			if len(secs) == 0 {
				return nil, fmt.Errorf("%s: %s: no epoch seconds", file, p.name)
			}
			return secs, nil
		}
		var authors []string // the authors' code on molesol, per thread count
		for _, p := range parts {
			f := strings.Fields(p.name) // "zinc xla:cpu", "matmul go", "flops zinc", "molesol authors-2"
			if len(f) != 2 {
				continue
			}
			if strings.HasPrefix(p.failed, "skipped: ") {
				authors = append(authors, f[1]+": "+p.failed)
				continue
			}
			if p.failed != "" {
				return "", fmt.Errorf("%s: %s: %s", file, p.name, p.failed)
			}
			r := rows[f[1]]
			switch {
			case f[0] == "flops":
				for _, m := range p.records { // the largest program of each: the step, the pass
					name, _ := m["module"].(string)
					flops, _ := m["dot_flops"].(float64)
					if strings.HasPrefix(name, "Trainer") {
						trainFLOPs = max(trainFLOPs, flops)
					} else if strings.Contains(name, "benchInference") {
						inferFLOPs = max(inferFLOPs, flops)
					}
				}
			case f[0] == "matmul" && r != nil:
				for _, b := range p.bench {
					r.peak = max(r.peak, b.metrics["GFLOP/s"])
				}
			case p.name == "zinc pyg":
				tr, ok1 := p.summary["train_seconds_median"].(float64)
				te, ok2 := p.summary["test_seconds_median"].(float64)
				if !ok1 || !ok2 {
					return "", fmt.Errorf("%s: %s: no summary", file, p.name)
				}
				// 384 molecules in batches of 128: three steps, three inference passes.
				r.train, r.infer, r.rssKB = tr/3, te/3, p.rssKB
			case f[0] == "zinc" && r != nil:
				for _, b := range p.bench {
					if strings.HasPrefix(b.name, "ZINCTrainStep") {
						r.train = b.step()
					} else if strings.HasPrefix(b.name, "ZINCInference") {
						r.infer = b.step()
					}
				}
				r.rssKB = p.rssKB
			case f[0] == "molesol" && strings.HasPrefix(f[1], "authors-"):
				secs, err := epochSeconds(p)
				if err != nil {
					return "", err
				}
				authors = append(authors, fmt.Sprintf("%s thread(s): %s", strings.TrimPrefix(f[1], "authors-"), strings.Join(secs, ", ")))
			case f[0] == "molesol" && r != nil:
				if r.molesol, err = epochSeconds(p); err != nil {
					return "", err
				}
				if r.steady, err = steadyEpoch(r.molesol, p.programs); err != nil {
					return "", fmt.Errorf("%s: %s: %w", file, p.name, err)
				}
			}
		}
		if trainFLOPs == 0 || inferFLOPs == 0 {
			return "", fmt.Errorf("%s: no FLOP counts of the ZINC step and pass (part \"flops zinc\")", file)
		}
		rate := func(flops, seconds float64) string { return fmt.Sprintf("%.1f", flops/seconds/1e9) }
		var b strings.Builder
		fmt.Fprintf(&b, "`%s` (%s):\n\n", file, strings.Join(header, "; "))
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
}

// steadyEpoch annotates each epoch's seconds with the programs it compiled, from programs (the
// counts, space-separated; empty when not recorded), and returns the median seconds of the
// epochs that compiled none ("" when not recorded or none did).
func steadyEpoch(secs []string, programs string) (string, error) {
	counts := strings.Fields(programs)
	if len(counts) == 0 {
		return "", nil
	}
	if len(counts) != len(secs) {
		return "", fmt.Errorf("%d epoch seconds but %d program counts", len(secs), len(counts))
	}
	var steady []float64
	for i, c := range counts {
		n, err := strconv.Atoi(c)
		if err != nil {
			return "", fmt.Errorf("epoch programs %q", programs)
		}
		if n > 0 {
			secs[i] += fmt.Sprintf(" (%d)", n)
			continue
		}
		x, err := strconv.ParseFloat(secs[i], 64)
		if err != nil {
			return "", err
		}
		steady = append(steady, x)
	}
	if len(steady) == 0 {
		return "", nil
	}
	return fmt.Sprintf("%.1f", gpuresult.Median(steady)), nil
}
