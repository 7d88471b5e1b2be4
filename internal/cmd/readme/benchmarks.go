package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sgformer/sgformer/internal/record"
)

// beforeAfterSection renders scripts/bench-before-after.sh's records: per binary, the training
// step and inference pass of each round and the peak RSS of the process.
func beforeAfterSection(file string, recs record.Set) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` (%s):\n\n", file, provenance(recs))
	b.WriteString("| code | training step, s (per round) | inference pass, s (per round) | peak RSS, GiB (per round) |\n|---|---|---|---|\n")
	for _, which := range []string{"before", "after"} {
		var train, infer, rss []string
		for _, p := range recs.Parts() { // "before round 1, load 1.44"
			if strings.Fields(p)[0] != which {
				continue
			}
			for _, v := range recs.Values(p, "BenchmarkZINCTrainStep/sparse", "ns/op") {
				train = append(train, fmt.Sprintf("%.1f", v/1e9))
			}
			for _, v := range recs.Values(p, "BenchmarkZINCInference/sparse", "ns/op") {
				infer = append(infer, fmt.Sprintf("%.1f", v/1e9))
			}
			for _, v := range recs.Values(p, "peak RSS", "kB") {
				rss = append(rss, fmt.Sprintf("%.1f", v/(1<<20)))
			}
		}
		if len(train) == 0 || len(infer) != len(train) {
			return "", fmt.Errorf("%s: %d training and %d inference results %s", file, len(train), len(infer), which)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", which, strings.Join(train, ", "), strings.Join(infer, ", "), strings.Join(rss, ", "))
	}
	return b.String(), nil
}

// provenance is the contexts of the commands that measured recs, as the documents cite them.
func provenance(recs record.Set) string {
	var cs []string
	for _, c := range recs.Contexts() {
		cs = append(cs, c.String())
	}
	return strings.Join(cs, "; ")
}

// tupleOrderSection renders scripts/bench-tuple-order.sh's records: time per graph and product
// nodes for K = 2 and K = 3.
func tupleOrderSection(file string, recs record.Set) (string, error) {
	const part = "TupleOrder"
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` (%s):\n\n| K | product nodes (2 molecules) | training step, s per graph | inference, s per graph |\n|---:|---:|---:|---:|\n", file, provenance(recs))
	for _, k := range []string{"2", "3"} {
		nodes, ok1 := recs.Value(part, "BenchmarkTupleOrder/K="+k+"/train", "nodes/batch")
		train, ok2 := recs.Value(part, "BenchmarkTupleOrder/K="+k+"/train", "s/graph")
		infer, ok3 := recs.Value(part, "BenchmarkTupleOrder/K="+k+"/inference", "s/graph")
		if !ok1 || !ok2 || !ok3 {
			return "", fmt.Errorf("%s: want K = %s's training step and inference pass", file, k)
		}
		fmt.Fprintf(&b, "| %s | %s | %.2f | %.2f |\n", k, thousands(int(nodes)), train, infer)
	}
	rss, ok := recs.Value(part, "peak RSS", "kB")
	if !ok {
		return "", fmt.Errorf("%s: no peak RSS", file)
	}
	fmt.Fprintf(&b, "\nPeak RSS of the whole benchmark (both K): %.1f GiB.\n", rss/(1<<20))
	return b.String(), nil
}

// cpuBenchmarksSection renders scripts/bench-cpu.sh's records: the preprocessing and model
// tables of docs/benchmarks.md.
func cpuBenchmarksSection(file string, recs record.Set) (string, error) {
	// get returns part's value of what in unit, which must be there.
	get := func(part, what, unit string) (float64, error) {
		v, ok := recs.Value(part, what, unit)
		if !ok {
			return 0, fmt.Errorf("%s: part %q has no %s in %q", file, part, what, unit)
		}
		return v, nil
	}
	var errs []error
	must := func(part, what, unit string) float64 {
		v, err := get(part, what, unit)
		errs = append(errs, err)
		return v
	}
	gib := func(kb float64) string { return fmt.Sprintf("%.1f GiB", kb/(1<<20)) }
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` (%s):\n\n", file, provenance(recs))
	b.WriteString("| what | result |\n|---|---|\n")
	fmt.Fprintf(&b, "| the library (`BenchmarkZINC`): all 12,000 ZINC-12k graphs, product graph, node marks, PE k = 16 expanded to n² × 16 float32, in memory | **%.2f s** (%.0f µs per graph); the paper reports \"under 10 minutes\" for this step |\n",
		must("library preprocess", "BenchmarkZINC", "ns/op")/1e9, must("library preprocess", "BenchmarkZINC", "µs/graph"))
	fmt.Fprintf(&b, "| the same read back from the cache (`BenchmarkZINCCacheLoad`) | %.2f s, cache file %.1f MB |\n",
		must("library preprocess", "BenchmarkZINCCacheLoad", "ns/op")/1e9, must("library preprocess", "BenchmarkZINCCacheLoad", "MB"))
	for _, ex := range []string{"sparse", "dense"} {
		fmt.Fprintf(&b, "| the host's share of a training step (`BenchmarkZINCBatch/%s`): 128 preprocessed ZINC-12k molecules made into a batch and its input tensors, built ahead while the step before runs | %.1f ms |\n", ex, must("host batching", "BenchmarkZINCBatch/"+ex, "ns/op")/1e6)
	}
	for _, ds := range []struct{ name, k string }{{"zinc12k", "16"}, {"ogbg-molhiv", "8"}} {
		for _, pass := range []string{"cold", "warm"} {
			part := "cli preprocess " + ds.name + " " + pass
			what := fmt.Sprintf("`sgformer preprocess --dataset %s --pe-k %s`, %s", ds.name, ds.k, pass)
			if pass == "cold" {
				what += fmt.Sprintf(" (%s graphs, %s product nodes: read, compute, write the cache)", thousands(int(must(part, "graphs", ""))), thousands(int(must(part, "product_nodes", ""))))
			} else {
				what += " (the cache read and verified)"
			}
			fmt.Fprintf(&b, "| %s | %.2f s wall, %.0f%% CPU, peak RSS %s, cache %.1f MB |\n", what, must(part, "wall", "s"), must(part, "CPU", "%"), gib(must(part, "peak RSS", "kB")), must(part, "cache_bytes", "")/1e6)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	b.WriteString("\n| execution | product nodes in the batch | training step | peak RSS | inference pass | peak RSS |\n|---|---:|---:|---:|---:|---:|\n")
	// cell is a part's time, or how it failed, and its peak RSS.
	cell := func(bench string) (seconds float64, text string, err error) {
		part := "model " + bench
		rss, err := get(part, "peak RSS", "kB")
		if err != nil {
			return 0, "", err
		}
		ns, ok := recs.Value(part, "Benchmark"+bench, "ns/op")
		if !ok {
			if code, _ := recs.Value(part, "exit status", ""); code == 137 {
				return 0, fmt.Sprintf("out of memory (killed at %s) | —", gib(rss)), nil
			}
			return 0, "", fmt.Errorf("%s: part %q failed", file, part)
		}
		return ns / 1e9, fmt.Sprintf("**%.1f s** | %s", ns/1e9, gib(rss)), nil
	}
	var step, infer [2]float64
	for i, ex := range []string{"sparse", "dense"} {
		var tr, in string
		var err error
		if step[i], tr, err = cell("ZINCTrainStep/" + ex); err != nil {
			return "", err
		}
		if infer[i], in, err = cell("ZINCInference/" + ex); err != nil {
			return "", err
		}
		nodes := "—"
		for _, bench := range []string{"ZINCTrainStep/" + ex, "ZINCInference/" + ex} {
			if n, ok := recs.Value("model "+bench, "Benchmark"+bench, "product_nodes"); ok && n > 0 {
				nodes = thousands(int(n))
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", ex, nodes, tr, in)
	}
	fmt.Fprintf(&b, "\nSo a ZINC-12k training epoch (79 such steps) takes about %.0f minutes on this machine with the sparse execution, plus about %.1f minutes to evaluate validation and test (16 inference batches).", 79*step[0]/60, 16*infer[0]/60)
	if step[1] > 0 {
		fmt.Fprintf(&b, " The dense execution is %.1f× slower in training.", step[1]/step[0])
	} else if infer[1] > 0 {
		fmt.Fprintf(&b, " The dense execution's training step does not fit in this machine's memory; its inference pass is %.1f× slower than the sparse one.", infer[1]/infer[0])
	} else {
		b.WriteString(" The dense execution fits in this machine's memory neither for training nor for inference.")
	}
	b.WriteString("\n")
	return b.String(), nil
}
