package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The profile's table gives each category's share of its column's samples, and the census each
// program's instructions and its fusions by kind; a category the template does not know is an
// error rather than a row left out.
func TestProfileSection(t *testing.T) {
	const file = "p.jsonl"
	profile := `== TrainStep
BenchmarkZINCTrainStep/sparse-2 10 2000000000 ns/op 2000 host_ms/op
{"executions":8,"hz":500,"samples":{"plugin":12000,"generated":4000,"kernel":0}}
== Inference
BenchmarkZINCInference/sparse-2 10 500000000 ns/op
{"executions":8,"hz":500,"samples":{"plugin":1000,"generated":1000}}
== products
BenchmarkProducts/96x32/x·W-2 20 4043369 ns/op 122.6 GFLOP/s
BenchmarkProducts/96x32/V·Wᵀ-2 20 4043369 ns/op 93.9 GFLOP/s
BenchmarkProducts/96x32/xᵀ·V-2 20 4043369 ns/op 72.3 GFLOP/s
BenchmarkProducts/96x96/x·W-2 20 4043369 ns/op 122.8 GFLOP/s
BenchmarkProducts/96x96/V·Wᵀ-2 20 4043369 ns/op 124.8 GFLOP/s
BenchmarkProducts/96x96/xᵀ·V-2 20 4043369 ns/op 64.5 GFLOP/s
BenchmarkMatMul/512-2 5 1 ns/op 150 GFLOP/s
BenchmarkMatMul/2048-2 5 1 ns/op 190 GFLOP/s
== census training step
{"module":"Trainer_0","ops":{"add":5,"fusion":3,"fusion:library":1,"fusion:loop":2,"scatter":2},"instructions":10}
== census inference pass
{"module":"benchInference","ops":{"fusion":1,"fusion:loop":1},"instructions":1}
`
	root := t.TempDir()
	write := func(s string) {
		writeRecords(t, filepath.Join(root, file), s)
	}
	write(profile)
	got, err := templateSection("xla-cpu-profile", file)(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| the plugin's own code: the matrix products (YNNPACK's and Eigen's kernels, their packing of operands), XLA's runtime | 75 % | 50 % |",
		"| one execution (`ns/op`) | 2.00 s | 0.50 s |",
		"| training step | 10 | 3 (2 / 1) | 0 | 0 | 2 | 0 | 0 |",
		"| inference pass | 1 | 1 (1 / 0) |",
		"| xᵀ·V (backward, for W: the node axis contracted) | 72 | 64 |",
		"| the backend's peak: n × n by n × n, n = 512 and 2048, the faster | 190 | |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "Linux kernel") {
		t.Errorf("a category without samples has a row:\n%s", got)
	}
	write(strings.Replace(profile, `"kernel":0`, `"elsewhere":5`, 1))
	if _, err := templateSection("xla-cpu-profile", file)(root); err == nil || !strings.Contains(err.Error(), "TrainStep: samples of a category the table does not know") {
		t.Errorf("error %v, want one naming the unknown category", err)
	}
}
