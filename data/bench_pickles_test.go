package data

import (
	"os"
	"testing"
)

// Reading benchmarking-gnns' pickles, e.g. a full-size copy of the canonical download made by
// testdata/zinc-pyg/make.py's method: SGFORMER_ZINC_RAW=DIR go test -bench ZINCPickles ./data/
func BenchmarkZINCPickles(b *testing.B) {
	dir := os.Getenv("SGFORMER_ZINC_RAW")
	if dir == "" {
		b.Skip("SGFORMER_ZINC_RAW names no folder of ZINC pickles")
	}
	for b.Loop() {
		if _, err := zincPickles(dir); err != nil {
			b.Fatal(err)
		}
	}
}
