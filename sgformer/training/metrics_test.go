package training

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The metrics log: records appended; on resume, those after the checkpoint's epoch and a last
// line cut short dropped; a new run starts it empty.
func TestMetricsLog(t *testing.T) {
	m := metricsLog{out: t.TempDir()}
	path := filepath.Join(m.out, MetricsFile)
	epochs := func() []int {
		recs, err := ReadRecords(path)
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, r := range recs {
			out = append(out, r.Epoch)
		}
		return out
	}
	for e := 1; e <= 3; e++ {
		if err := m.record(Record{Epoch: e}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"epoch":4,"train_lo`); err != nil { // killed while writing
		t.Fatal(err)
	}
	f.Close()
	if err := m.resume(2); err != nil {
		t.Fatal(err)
	}
	if got := epochs(); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("resumed at epoch 2: records of epochs %v, want [1 2]", got)
	}
	if err := m.record(Record{Epoch: 3}); err != nil {
		t.Fatal(err)
	}
	if got := epochs(); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("epochs %v, want [1 2 3]", got)
	}
	if err := m.summary(&Summary{Epochs: 3}); err != nil {
		t.Fatal(err)
	}
	if sum, err := ReadSummary(m.out); err != nil || sum.Epochs != 3 {
		t.Errorf("summary %+v, %v: want 3 epochs", sum, err)
	}
	if err := m.start(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a new run kept the metrics file: %v", err)
	}
	if err := m.start(); err != nil {
		t.Errorf("starting without a metrics file: %v", err)
	}
}
