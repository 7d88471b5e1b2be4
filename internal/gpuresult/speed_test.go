package gpuresult

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deref shows a *float64 ("nil" for nil).
func deref(v *float64) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprint(*v)
}

func TestParseBenchmarks(t *testing.T) {
	out := `goos: linux
BenchmarkZINCTrainStep/sparse-16         	      20	  52000000 ns/op	         3.500 host_ms/op	     80666 product_nodes
BenchmarkZINCInference/sparse            	      20	  21500000 ns/op
BenchmarkZINCBatch/sparse-16             	      20	   1000000.5 ns/op
PASS
`
	b := ParseBenchmarks([]byte(out))
	for name, want := range map[string]string{"TrainStep": "0.052", "Inference": "0.0215", "Batch": "0.0010000005"} {
		if got := fmt.Sprint(b[name].Seconds); got != want {
			t.Errorf("%s = %s s, want %s", name, got, want)
		}
	}
	if got := deref(b["TrainStep"].Host); got != "0.0035" {
		t.Errorf("TrainStep's host share = %s s, want 0.0035", got)
	}
	if b["Inference"].Host != nil {
		t.Errorf("Inference's host share = %s s, reported none", deref(b["Inference"].Host))
	}
	if len(ParseBenchmarks([]byte("FAIL\n"))) != 0 {
		t.Error("benchmarks found in a failed run")
	}
}

// A speed piece's folder gives its result at each stage: after training (no benchmarks yet),
// after benchmarks stopped partway (those that finished), and it is refused without epochs.
func TestReadSpeed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("run/metrics.jsonl", "")
	if _, err := ReadSpeed(dir, "sparse", "xla:cuda"); err == nil || !strings.Contains(err.Error(), "metrics.jsonl: no epoch") {
		t.Errorf("no epochs: %v", err)
	}
	write("run/metrics.jsonl", `{"epoch":1,"seconds":53.0,"train_seconds":41.0,"batch_seconds":0.01,"programs":7}`+"\n")
	r, err := ReadSpeed(dir, "sparse", "xla:cuda")
	if err != nil || r.Steady != 0 || r.TrainEpoch != 41 {
		t.Errorf("one epoch: steady %d, train %g, %v", r.Steady, r.TrainEpoch, err)
	}
	// Epoch 3 compiled a program: the steady figures are those of epochs 2 and 4.
	write("run/metrics.jsonl", `{"epoch":1,"seconds":53.0,"train_seconds":41.0,"batch_seconds":0.01,"programs":7}`+"\n"+
		`{"epoch":2,"seconds":3.0,"train_seconds":2.8,"batch_seconds":0.02}`+"\n"+
		`{"epoch":3,"seconds":13.6,"train_seconds":13.4,"batch_seconds":0.02,"programs":1}`+"\n"+
		`{"epoch":4,"seconds":3.2,"train_seconds":3.0,"batch_seconds":0.04}`+"\n")
	write("smi.json", `{"gpu_util_mean":20,"gpu_util_max":53,"gpu_mem_max_mib":3245}`)
	r, err = ReadSpeed(dir, "sparse", "xla:cuda")
	if err != nil {
		t.Fatal(err)
	}
	if r.Execution != "sparse" || r.Backend != "xla:cuda" || len(r.Epochs) != 4 || r.Steady != 2 || r.TrainEpoch != 2.9 || fmt.Sprintf("%.2f", r.Batching) != "0.03" ||
		fmt.Sprintf("%.2f", r.TestPass) != "0.10" || deref(r.SMI.MemMax) != "3245" || r.TrainStep != nil {
		t.Errorf("after training: %+v", r)
	}
	write("run/summary.json", `{"epochs": 4, "device_bytes": 1048576}`)
	if r, err = ReadSpeed(dir, "sparse", "xla:cuda"); err != nil || r.DeviceBytes != 1<<20 {
		t.Errorf("device bytes %d, %v", r.DeviceBytes, err)
	}
	write("bench.txt", "BenchmarkZINCTrainStep/sparse-16 \t 20\t  26813601 ns/op\t 80666 product_nodes\nBenchmarkZINCBatch/sparse-16 \t")
	if r, err = ReadSpeed(dir, "sparse", "xla:cuda"); err != nil {
		t.Fatal(err)
	}
	if deref(r.TrainStep) != "0.026813601" || r.Inference != nil || r.Batch != nil {
		t.Errorf("benchmarks stopped partway: %s %s %s", deref(r.TrainStep), deref(r.Inference), deref(r.Batch))
	}
	write("run/metrics.jsonl", "{\"epoch\":1,\n")
	if _, err := ReadSpeed(dir, "sparse", "xla:cuda"); err == nil || !strings.Contains(err.Error(), "metrics.jsonl:1") {
		t.Errorf("a damaged metrics.jsonl: %v", err)
	}
}
