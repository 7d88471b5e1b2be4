package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sgformer/sgformer/internal/record"
)

// peptidesSection renders the Peptides-func measurements on the CPU, two folders of records:
// preprocessing (results/peptides-preprocess/preprocess.jsonl) and the training rate of the
// paper's recipe, under GNU time (results/peptides-func-cpu/train.jsonl; its raw log beside it).
func peptidesSection(root string) (string, error) {
	const preFile, trainFile = "results/peptides-preprocess/preprocess.jsonl", "results/peptides-func-cpu/train.jsonl"
	pre, err := record.Read(filepath.Join(root, preFile))
	if err != nil {
		return "", err
	}
	train, err := record.Read(filepath.Join(root, trainFile))
	if err != nil {
		return "", err
	}
	var missing []string
	get := func(s record.Set, file, part, what string) float64 {
		v, ok := s.Value(part, what, "")
		if !ok {
			missing = append(missing, fmt.Sprintf("%s: %s %s", file, part, what))
		}
		return v
	}
	p := func(part, what string) float64 { return get(pre, preFile, part, what) }
	done, total, rate := get(train, trainFile, "epoch 1", "graphs_done"), get(train, trainFile, "epoch 1", "graphs"), get(train, trainFile, "epoch 1", "graphs_per_second")
	rss, ok1 := train.Value("epoch 1", "peak RSS", "kB")
	wall, ok2 := train.Value("epoch 1", "wall", "s")
	if !ok1 || !ok2 {
		missing = append(missing, trainFile+": the peak RSS and wall time")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "- **Preprocessing** (`results/peptides-preprocess/`): `sgformer preprocess --dataset peptides-func --pe-k 16 --pe-mode reference` over all %s peptides (%s product nodes) takes %s of wall time (%.0f s of CPU), peak RSS %d MiB, and writes a %d MB cache; run again it reads and verifies the cache in %.1f s.\n",
		thousands(int(p("cold", "summary.graphs"))), thousands(int(p("cold", "summary.product_nodes"))), minSec(p("cold", "wall_seconds")), p("cold", "user_seconds")+p("cold", "system_seconds"),
		int64(p("cold", "max_rss_kb"))>>10, int64(p("cold", "summary.cache_bytes"))/1_000_000, p("warm", "wall_seconds"))
	fmt.Fprintf(&b, "- **Featurising** the %s SMILES alone takes %.1f s (%.1f µs per molecule; `go test -run '^$' -bench PeptidesFeaturize ./data/`).\n",
		thousands(int(p("featurisation", "molecules"))), p("featurisation", "ns_per_pass")/1e9, p("featurisation", "us_per_molecule"))
	fmt.Fprintf(&b, "- **Training** (`results/peptides-func-cpu/`): `sgformer train --dataset peptides-func --batch-size 4`, the paper's recipe but for the batch size, on all %s training peptides, product graphs built batch by batch: %s graphs in %s, **%.3g graphs/s**, so one epoch's training steps would take about **%.1f h** (%s graphs at the measured rate, evaluation not counted); peak RSS %.1f GiB. Interrupted with Ctrl-C after %s; the paper's 200 epochs are GPU work.\n",
		thousands(int(total)), thousands(int(done)), minSec(done/rate), rate, total/rate/3600, thousands(int(total)), rss/(1<<20), minSec(wall))
	if len(missing) > 0 {
		return "", fmt.Errorf("no %s", strings.Join(missing, "; "))
	}
	return b.String(), nil
}
