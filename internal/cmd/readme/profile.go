package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sgformer/sgformer/internal/record"
)

// category is a kind of code CPU samples fall in, and the words the table gives it.
type category struct{ key, label string }

// profileCategories are scripts/profile-xla-cpu.sh's categories of CPU samples, in the order
// and with the words the table gives them.
var profileCategories = []category{
	{"plugin", "the plugin's own code: the matrix products (YNNPACK's and Eigen's kernels, their packing of operands), XLA's runtime"},
	{"generated", "kernels XLA generated for the program (fusions: elementwise work, reductions, gathers, scatters)"},
	{"kernel", "the Linux kernel (page faults, scheduling)"},
	{"libc", "libc (malloc, memset)"},
	{"go", "Go"},
	{"other", "other"},
}

// profileSection renders scripts/profile-xla-cpu.sh's records: for the ZINC training step and
// inference pass on xla:cpu, the share of CPU samples in each kind of code over steady
// executions, the step's matrix products one by one beside the backend's peak, and the census of
// the instructions of the programs XLA compiled for the step and the pass.
func profileSection(file string, recs record.Set) (string, error) {
	type column struct {
		seconds, executions, hz float64
		samples                 map[string]float64
		total                   float64 // of samples
	}
	columns := map[string]*column{}
	for _, part := range []string{"TrainStep", "Inference"} {
		ns, ok1 := recs.Value(part, "BenchmarkZINC"+part+"/sparse", "ns/op")
		executions, ok2 := recs.Value(part, "executions", "")
		hz, ok3 := recs.Value(part, "hz", "")
		if !ok1 || !ok2 || !ok3 {
			return "", fmt.Errorf("%s: %s: want its benchmark line and its JSON line", file, part)
		}
		c := &column{seconds: ns / 1e9, executions: executions, hz: hz, samples: map[string]float64{}}
		for _, r := range recs.Where(func(r record.Record) bool { return r.Part == part && strings.HasPrefix(r.What, "samples.") }) {
			k := strings.TrimPrefix(r.What, "samples.")
			if !slices.ContainsFunc(profileCategories, func(c category) bool { return c.key == k }) {
				return "", fmt.Errorf("%s: %s: unknown category %q", file, part, k)
			}
			c.samples[k] = r.Value
			c.total += r.Value
		}
		if c.total == 0 || c.executions == 0 || c.hz == 0 {
			return "", fmt.Errorf("%s: %s: no samples", file, part)
		}
		columns[part] = c
	}
	products := map[string]map[string]float64{} // product → its output width → GFLOP/s
	var peak float64
	for _, r := range recs.Where(func(r record.Record) bool { return r.Part == "products" && r.Unit == "GFLOP/s" }) {
		switch f := strings.Split(r.What, "/"); { // "BenchmarkProducts/96x32/x·W", "BenchmarkMatMul/2048"
		case len(f) == 3 && f[0] == "BenchmarkProducts":
			if products[f[2]] == nil {
				products[f[2]] = map[string]float64{}
			}
			products[f[2]][f[1]] = r.Value
		case f[0] == "BenchmarkMatMul":
			peak = max(peak, r.Value)
		}
	}
	var census []record.Set // the ops of the step's program and of the pass's
	for _, module := range modules(recs, "census") {
		if strings.HasPrefix(module, "Trainer") || strings.Contains(module, "benchInference") {
			census = append(census, recs.Where(func(r record.Record) bool { return r.Part == "census" && r.Labels["module"] == module }))
		}
	}
	train, infer := columns["TrainStep"], columns["Inference"]
	if len(census) != 2 || len(products) != 3 || peak == 0 {
		return "", fmt.Errorf("%s: want the parts TrainStep, Inference, products (three, and the peak) and a census of the two programs", file)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` (%s):\n\n", file, provenance(recs))
	b.WriteString("| where the CPU was, share of samples | ZINC training step | ZINC inference pass |\n|---|---:|---:|\n")
	for _, cat := range profileCategories {
		if train.samples[cat.key] == 0 && infer.samples[cat.key] == 0 {
			continue
		}
		fmt.Fprintf(&b, "| %s | %.0f %% | %.0f %% |\n", cat.label, 100*train.samples[cat.key]/train.total, 100*infer.samples[cat.key]/infer.total)
	}
	fmt.Fprintf(&b, "| one execution (`ns/op`) | %.2f s | %.2f s |\n", train.seconds, infer.seconds)
	b.WriteString("\n| a product of the step, 80,666 nodes × 96 features | GFLOP/s, W 96 × 32 | GFLOP/s, W 96 × 96 |\n|---|---:|---:|\n")
	for _, p := range []struct{ key, label string }{
		{"x·W", "x·W (forward)"}, {"V·Wᵀ", "V·Wᵀ (backward, for x)"}, {"xᵀ·V", "xᵀ·V (backward, for W: the node axis contracted)"},
	} {
		r, ok := products[p.key]
		if !ok {
			return "", fmt.Errorf("%s: no product %s", file, p.key)
		}
		fmt.Fprintf(&b, "| %s | %.0f | %.0f |\n", p.label, r["96x32"], r["96x96"])
	}
	fmt.Fprintf(&b, "| the backend's peak: n × n by n × n, n = 512 and 2048, the faster | %.0f | |\n", peak)
	b.WriteString("\n| program XLA compiled | instructions | fusions (generated / library) | products (dot) | gathers | scatters | copies | reductions |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range census {
		n := func(k string) int { v, _ := m.Value("census", "ops."+k, ""); return int(v) }
		total := 0
		for _, r := range m {
			if op, ok := strings.CutPrefix(r.What, "ops."); ok && !strings.Contains(op, ":") {
				total += int(r.Value)
			}
		}
		name := "training step"
		if strings.Contains(m[0].Labels["module"], "benchInference") {
			name = "inference pass"
		}
		fmt.Fprintf(&b, "| %s | %d | %d (%d / %d) | %d | %d | %d | %d | %d |\n", name, total, n("fusion"),
			n("fusion")-n("fusion:library"), n("fusion:library"), n("dot"), n("gather"), n("scatter"), n("copy"), n("reduce"))
	}
	fmt.Fprintf(&b, "\nSamples: perf at %.0f Hz, the difference between a run of 2 timed executions and a longer one (%.0f training steps' worth, %.0f inference passes'; setup and compilation cancel, up to their own noise). "+
		"Census: every instruction of the optimised program, inside fusions too (internal/cmd/hloflops), parameters, constants and bitcasts left out; "+
		"library fusions are the parts XLA hands whole to YNNPACK (products with what is fused around them).\n", train.hz, train.executions, infer.executions)
	return b.String(), nil
}

// modules returns the programs XLA compiled that part's records count (their label "module"), in
// order.
func modules(recs record.Set, part string) []string {
	var names []string
	for _, r := range recs {
		if m := r.Labels["module"]; r.Part == part && m != "" && !slices.Contains(names, m) {
			names = append(names, m)
		}
	}
	return names
}
