package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The backends' table gives each backend's step and pass with their rate of arithmetic, its
// peak where measured, and its epochs with the programs each compiled (xla:cpu-system's row only
// where its ZINC part was measured); a part that failed, or epochs and program counts that do
// not pair up, are errors.
func TestBackendsSection(t *testing.T) {
	const file = "b.jsonl"
	zinc := func(b string, train, infer int) string {
		return "== zinc " + b + "\nBenchmarkZINCTrainStep/sparse-2 5 1 ns/op " + strconv.Itoa(train) + " median_ms/op\nBenchmarkZINCInference/sparse-2 5 1 ns/op " + strconv.Itoa(infer) + " median_ms/op\npeak RSS 1048576 kB, wall 10 s, CPU 150%\n"
	}
	good := zinc("go", 20000, 8000) + zinc("xla:cpu", 2000, 500) + zinc("xla:cpu-system", 2500, 400) + `== zinc pyg
{"summary":true,"train_step_seconds_median":4,"test_batch_seconds_median":1}
peak RSS 2097152 kB, wall 60 s, CPU 170%
== matmul xla:cpu
BenchmarkMatMul/512-2 5 1 ns/op 150 GFLOP/s
BenchmarkMatMul/2048-2 5 1 ns/op 190 GFLOP/s
== flops training step
{"module":"Trainer_0","dot_flops":100000000000}
== flops inference pass
{"module":"benchInference","dot_flops":40000000000}
== molesol go
epoch seconds: 16.4 15.6 13.6
epoch programs: 14 0 2
steady epoch seconds: 15.6
== molesol xla:cpu
epoch seconds: 50.4 1.6
epoch programs: 14 0
steady epoch seconds: 1.6
== molesol xla:cpu-system
epoch seconds: 34.1 7.7
epoch programs: 14 2
== molesol authors-1
skipped: no checkout
== molesol authors-2
epoch seconds: 4.4 4.3
`
	root := t.TempDir()
	render := func(s string) (string, error) {
		writeRecords(t, filepath.Join(root, file), s)
		return templateSection("backends", file)(root)
	}
	got, err := render(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| `go` | 20.00 | 5.0 | 8.00 | 5.0 | — | 1.0 | 16.4 (14), 15.6, 13.6 (2) | 15.6 |",
		"| `xla:cpu` | 2.00 | 50.0 | 0.50 | 80.0 | 190 | 1.0 | 50.4 (14), 1.6 | 1.6 |",
		"| `xla:cpu`, glibc's default allocator (`SGFORMER_MALLOC=system`) | 2.50 | 40.0 | 0.40 | 100.0 | — | 1.0 | 34.1 (14), 7.7 (2) | — |",
		"| PyTorch Geometric | 4.00 | 25.0 | 1.00 | 40.0 | — | 2.0 | the authors' code, authors-1: skipped: no checkout; 2 thread(s): 4.4, 4.3 | — |",
		"(100.0 GFLOP: forward",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	// Results from before 2026-11-27 measured no xla:cpu-system: no row.
	got, err = render(strings.Replace(good, zinc("xla:cpu-system", 2500, 400), "", 1))
	if err != nil || strings.Contains(got, "glibc's default allocator") {
		t.Errorf("without xla:cpu-system's ZINC part: %v\n%s", err, got)
	}
	for name, bad := range map[string]string{
		"a part failed":        strings.Replace(good, "peak RSS 2097152 kB", "exit status 137\npeak RSS 2097152 kB", 1),
		"epochs without pairs": strings.Replace(good, "epoch programs: 14 0 2", "epoch programs: 14 0", 1),
		"no FLOP count":        strings.Replace(good, `"dot_flops":40000000000`, `"dots":1`, 1),
	} {
		if _, err := render(bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
