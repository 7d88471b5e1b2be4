package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// backendsSection renders scripts/bench-backends.sh's output: per backend (go, xla:cpu, PyTorch
// Geometric), the ZINC training step and inference pass on 128 molecules and the process's peak
// RSS, and each ogbg-molesol epoch's seconds.
func backendsSection(file string) func(root string) (string, error) {
	return func(root string) (string, error) {
		header, parts, err := readParts(filepath.Join(root, file))
		if err != nil {
			return "", err
		}
		type row struct{ train, infer, rss, molesol string }
		rows := map[string]*row{"go": {}, "xla:cpu": {}, "pyg": {}}
		get := func(name string) *row { // "zinc xla:cpu", "molesol go"
			f := strings.Fields(name)
			if len(f) != 2 {
				return nil
			}
			return rows[f[1]]
		}
		for _, p := range parts {
			r := get(p.name)
			if r == nil {
				continue
			}
			if p.failed != "" {
				return "", fmt.Errorf("%s: %s: %s", file, p.name, p.failed)
			}
			switch {
			case strings.HasPrefix(p.name, "zinc pyg"):
				tr, ok1 := p.summary["train_seconds_median"].(float64)
				te, ok2 := p.summary["test_seconds_median"].(float64)
				if !ok1 || !ok2 {
					return "", fmt.Errorf("%s: %s: no summary", file, p.name)
				}
				// 384 molecules in batches of 128: three steps, three inference passes.
				r.train, r.infer = fmt.Sprintf("%.2f", tr/3), fmt.Sprintf("%.2f", te/3)
				r.rss = fmt.Sprintf("%.1f", p.rssKB/(1<<20))
			case strings.HasPrefix(p.name, "zinc"):
				for _, b := range p.bench {
					if strings.HasPrefix(b.name, "ZINCTrainStep") {
						r.train = fmt.Sprintf("%.2f", b.seconds)
					} else if strings.HasPrefix(b.name, "ZINCInference") {
						r.infer = fmt.Sprintf("%.2f", b.seconds)
					}
				}
				r.rss = fmt.Sprintf("%.1f", p.rssKB/(1<<20))
			case strings.HasPrefix(p.name, "molesol"):
				if p.epochs == "" {
					return "", fmt.Errorf("%s: %s: no epoch seconds", file, p.name)
				}
				var secs []string
				for _, s := range strings.Fields(p.epochs) {
					var x float64
					if _, err := fmt.Sscan(s, &x); err != nil {
						return "", fmt.Errorf("%s: %s: epoch seconds %q", file, p.name, p.epochs)
					}
					secs = append(secs, fmt.Sprintf("%.1f", x))
				}
				r.molesol = strings.Join(secs, ", ")
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "`%s` (%s):\n\n", file, strings.Join(header, "; "))
		b.WriteString("| backend | ZINC training step, s | ZINC inference, s | peak RSS (ZINC), GiB | ogbg-molesol epochs 1-5, s |\n|---|---:|---:|---:|---|\n")
		for _, name := range []string{"go", "xla:cpu", "pyg"} {
			r := rows[name]
			if r.train == "" || r.infer == "" {
				return "", fmt.Errorf("%s: no ZINC results for %s", file, name)
			}
			label, molesol := "`"+name+"`", r.molesol
			if name == "pyg" {
				label, molesol = "PyTorch Geometric", "no peer yet"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", label, r.train, r.infer, r.rss, molesol)
		}
		return b.String(), nil
	}
}
