package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sgformer/sgformer/internal/gpuresult"
)

// pluginsSection renders scripts/bench-plugins.sh's output: for each XLA CPU plugin, whether
// the parity test passed with it, and the median over the rounds of its ZINC training step and
// inference pass (each round's figure the median of its executions) and of its square product's
// rate, with the rounds' range.
func pluginsSection(file string) func(root string) (string, error) {
	return func(root string) (string, error) {
		header, parts, err := readParts(filepath.Join(root, file))
		if err != nil {
			return "", err
		}
		type plugin struct {
			name, parity       string
			train, infer, peak []float64
		}
		var plugins []*plugin
		byName := map[string]*plugin{}
		for _, p := range parts {
			if p.name == "parity" {
				for _, r := range p.records {
					pkg, _ := r["package"].(string)
					version, _ := r["version"].(string)
					parity, _ := r["parity"].(string)
					if pkg == "" || version == "" || (parity != "pass" && parity != "fail") {
						return "", fmt.Errorf("%s: parity record %v: want package, version and parity pass or fail", file, r)
					}
					pl := &plugin{name: pkg + " " + version, parity: parity}
					plugins = append(plugins, pl)
					byName[pl.name] = pl
				}
				continue
			}
			pl := byName[p.name]
			if pl == nil {
				return "", fmt.Errorf("%s: part %q names no plugin of the parity records", file, p.name)
			}
			for _, r := range p.bench {
				switch r.name {
				case "ZINCTrainStep/sparse":
					pl.train = append(pl.train, r.step())
				case "ZINCInference/sparse":
					pl.infer = append(pl.infer, r.step())
				case "MatMul/2048":
					pl.peak = append(pl.peak, r.metrics["GFLOP/s"])
				}
			}
		}
		if len(plugins) == 0 {
			return "", fmt.Errorf("%s: no parity records", file)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "`%s` (%s):\n\n", file, strings.Join(header, "; "))
		b.WriteString("| XLA CPU plugin (PyPI) | TestXLAParity | ZINC training step | ZINC inference pass | square product, n = 2048 |\n|---|---|---:|---:|---:|\n")
		for i, pl := range plugins {
			if len(pl.train) == 0 || len(pl.train) != len(pl.infer) || len(pl.train) != len(pl.peak) {
				return "", fmt.Errorf("%s: %s: want as many training steps, inference passes and square products, at least one", file, pl.name)
			}
			name := "`" + strings.Replace(pl.name, " ", "` ", 1)
			if i == 0 {
				name += " (what `sgformer install-xla` installs)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s s | %s s | %s GFLOP/s |\n", name, pl.parity,
				medianRange(pl.train, "%.2f"), medianRange(pl.infer, "%.2f"), medianRange(pl.peak, "%.0f"))
		}
		fmt.Fprintf(&b, "\nEach figure the median of %d rounds that alternated the plugins (in brackets the rounds' range); a round's ZINC figure is the median of 8 steady executions (128 molecules, the ZINC recipe). "+
			"TestXLAParity: every model's predictions on the plugin against the pure-Go backend's, and in float64 its gradients.\n", len(plugins[0].train))
		return b.String(), nil
	}
}

// medianRange formats the median of xs and, for more than one, their range in brackets, each
// with format f.
func medianRange(xs []float64, f string) string {
	if len(xs) == 1 {
		return fmt.Sprintf(f, xs[0])
	}
	return fmt.Sprintf(f+" ("+f+"–"+f+")", gpuresult.Median(xs), slices.Min(xs), slices.Max(xs))
}
