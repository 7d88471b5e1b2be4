package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sgformer/sgformer/internal/gpuresult"
	"github.com/sgformer/sgformer/internal/record"
)

// pluginsSection renders scripts/bench-plugins.sh's records: for each XLA CPU plugin, whether
// the parity test passed with it, and the median over the rounds of its ZINC training step and
// inference pass (each round's figure the median of its executions) and of its square product's
// rate, with the rounds' range.
func pluginsSection(file string, recs record.Set) (string, error) {
	type plugin struct{ pkg, version, parity string }
	var plugins []plugin
	for _, r := range recs {
		if r.Part == "parity" && r.What == "parity" { // TestXLAParity passed (1) or failed (0)
			if r.Labels["package"] == "" || r.Labels["version"] == "" {
				return "", fmt.Errorf("%s: parity record %+v: want a package and a version", file, r)
			}
			plugins = append(plugins, plugin{r.Labels["package"], r.Labels["version"], map[bool]string{true: "pass", false: "fail"}[r.Value == 1]})
		}
	}
	if len(plugins) == 0 {
		return "", fmt.Errorf("%s: no parity records", file)
	}
	for _, p := range recs.Parts() {
		if p != "parity" && !slices.ContainsFunc(plugins, func(pl plugin) bool { return pl.pkg+" "+pl.version == p }) {
			return "", fmt.Errorf("%s: part %q names no plugin of the parity records", file, p)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` (%s):\n\n", file, provenance(recs))
	b.WriteString("| XLA CPU plugin (PyPI) | TestXLAParity | ZINC training step | ZINC inference pass | square product, n = 2048 |\n|---|---|---:|---:|---:|\n")
	var rounds int
	for i, pl := range plugins {
		name := pl.pkg + " " + pl.version
		// A round's figure is the median of its executions.
		train := recs.Values(name, "BenchmarkZINCTrainStep/sparse", "median_ms/op")
		infer := recs.Values(name, "BenchmarkZINCInference/sparse", "median_ms/op")
		peak := recs.Values(name, "BenchmarkMatMul/2048", "GFLOP/s")
		if len(train) == 0 || len(train) != len(infer) || len(train) != len(peak) {
			return "", fmt.Errorf("%s: %s: want as many training steps, inference passes and square products, at least one", file, name)
		}
		for j := range train {
			train[j] /= 1e3
			infer[j] /= 1e3
		}
		rounds = len(train)
		cited := "`" + pl.pkg + "` " + pl.version
		if i == 0 {
			cited += " (what `sgformer install-xla` installs)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s s | %s s | %s GFLOP/s |\n", cited, pl.parity,
			medianRange(train, "%.2f"), medianRange(infer, "%.2f"), medianRange(peak, "%.0f"))
	}
	fmt.Fprintf(&b, "\nEach figure the median of %d rounds that alternated the plugins (in brackets the rounds' range); a round's ZINC figure is the median of 8 steady executions (128 molecules, the ZINC recipe). "+
		"TestXLAParity: every model's predictions on the plugin against the pure-Go backend's, and in float64 its gradients.\n", rounds)
	return b.String(), nil
}

// medianRange formats the median of xs and, for more than one, their range in brackets, each
// with format f.
func medianRange(xs []float64, f string) string {
	if len(xs) == 1 {
		return fmt.Sprintf(f, xs[0])
	}
	return fmt.Sprintf(f+" ("+f+"–"+f+")", gpuresult.Median(xs), slices.Min(xs), slices.Max(xs))
}
