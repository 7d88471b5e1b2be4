package training

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sgformer/sgformer/internal/atomicfile"
)

// metricsLog writes a run's results as its epochs end: a record each in MetricsFile, and the
// SummaryFile rewritten.
type metricsLog struct{ out string }

// start empties MetricsFile for a new run.
func (m metricsLog) start() error {
	if err := os.Remove(filepath.Join(m.out, MetricsFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// resume keeps the records of the epochs up to the checkpoint's, epochs (keepRecords).
func (m metricsLog) resume(epochs int) error {
	return keepRecords(filepath.Join(m.out, MetricsFile), epochs)
}

func (m metricsLog) record(rec Record) error {
	return appendRecord(filepath.Join(m.out, MetricsFile), rec)
}

func (m metricsLog) summary(sum *Summary) error {
	return writeJSONAtomic(filepath.Join(m.out, SummaryFile), sum)
}

// Record is one line of MetricsFile.
type Record struct {
	Epoch     int     `json:"epoch"`
	TrainLoss float64 `json:"train_loss"`
	Valid     float64 `json:"val"`
	Test      float64 `json:"test"`
	LR        float64 `json:"lr"`
	Seconds   float64 `json:"seconds"`
	BestEpoch int     `json:"best_epoch"`
	// Where the epoch's time went: its training steps, of which waiting for their batches to be
	// built on the host (each is built while the step before runs; the rest of Seconds is the
	// validation and test passes).
	TrainSeconds float64 `json:"train_seconds"`
	BatchSeconds float64 `json:"batch_seconds"`
	// Programs is how many programs the epoch built (XLA compiles each): one per batch shape
	// the process had not met, of the training steps and of evaluation (a resumed run builds
	// its programs again). CompileSeconds is their time: the training steps on new shapes
	// (building, compiling and running the step) and compiling evaluation's.
	Programs       int     `json:"programs"`
	CompileSeconds float64 `json:"compile_seconds"`
}

// Summary is the result of a run (SummaryFile): the test metric at the epoch of the best
// validation metric.
type Summary struct {
	Dataset    string  `json:"dataset"`
	Model      string  `json:"model"`
	Metric     string  `json:"metric"`
	Epochs     int     `json:"epochs"`
	BestEpoch  int     `json:"best_epoch"`
	BestValid  float64 `json:"best_val"`
	TestAtBest float64 `json:"test_at_best_val"`
	TrainSize  int     `json:"train_graphs"`
	Seconds    float64 `json:"seconds"`
	Parameters int     `json:"parameters"`
	// Programs and CompileSeconds sum the records' (Record.Programs).
	Programs       int     `json:"programs"`
	CompileSeconds float64 `json:"compile_seconds"`
	// DeviceBytes is the device memory of the run's largest XLA program (training step or
	// evaluation, backend.ProgramMemory.Bytes: arguments, outputs and temporaries), per device
	// when the run trains on several; 0 on the pure-Go backend, and in runs resumed from before
	// it was recorded until they compile again.
	DeviceBytes int64 `json:"device_bytes,omitempty"`
	// The hyperparameters an ablation varies.
	SamplingRatio float64 `json:"sampling_ratio"`
	PEK           int     `json:"pe_k"`
	Seed          int     `json:"seed"`
}

// ReadSummary reads the SummaryFile of the run directory run. Errors name the file.
func ReadSummary(run string) (*Summary, error) {
	path := filepath.Join(run, SummaryFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sum Summary
	if err := json.Unmarshal(raw, &sum); err != nil {
		return nil, fmt.Errorf("training: %s: %w", path, err)
	}
	return &sum, nil
}

// ReadRecords reads a run's MetricsFile (JSON lines, one Record per epoch). Errors name the
// file and line.
func ReadRecords(path string) ([]Record, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var recs []Record
	for i, line := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec Record
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// keepRecords drops from the metrics file the records of epochs after the checkpoint's, written
// by a run stopped before its checkpoint was (they are redone), and a last line cut short by a
// kill, rewriting the file atomically.
func keepRecords(path string, epochs int) error {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	lines := bytes.Split(bytes.TrimRight(raw, "\n"), []byte("\n"))
	var kept []byte
	for i, line := range lines {
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			if i == len(lines)-1 {
				break // the line being written when the run was stopped
			}
			return fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		if r.Epoch <= epochs {
			kept = append(append(kept, line...), '\n')
		}
	}
	if bytes.Equal(kept, raw) {
		return nil
	}
	return atomicfile.Write(path, kept)
}

func appendRecord(path string, rec Record) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
