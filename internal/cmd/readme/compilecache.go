package main

import (
	"fmt"
	"strings"

	"github.com/sgformer/sgformer/internal/record"
)

// compileCacheSection renders scripts/bench-compile-cache.sh's records: the same short training
// run with XLA's compile cache empty (cold) and filled by the first run (warm).
func compileCacheSection(file string, recs record.Set) (string, error) {
	same, ok := recs.Value("warm", "same_metrics", "")
	if parts := recs.Parts(); len(parts) != 2 || parts[0] != "cold" || parts[1] != "warm" || !ok {
		return "", fmt.Errorf("%s: want a cold and a warm run, the warm one compared with the cold one", file)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` (%s):\n\n", file, provenance(recs))
	b.WriteString("| cache | wall, s | compiling, s | programs | cache after, files / MB | peak RSS, GiB |\n|---|---:|---:|---:|---:|---:|\n")
	for _, run := range recs.Parts() {
		v := func(what string) float64 { x, _ := recs.Value(run, what, ""); return x }
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.0f | %.0f / %.1f | %.2f |\n", run, v("wall_s"), v("compile_seconds"), v("programs"),
			v("cache_files"), v("cache_bytes")/1e6, v("peak_rss_kb")/(1<<20))
	}
	verdict := "the same bits"
	if same != 1 {
		verdict = "NOT the same: a defect"
	}
	fmt.Fprintf(&b, "\nThe two runs' losses and metrics, epoch by epoch: %s. \"Compiling\" is the run's `compile_seconds`: its first steps on new batch shapes, which build the graph and compile it or load it.\n", verdict)
	return b.String(), nil
}
