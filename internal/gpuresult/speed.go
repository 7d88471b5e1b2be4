package gpuresult

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
)

// ReadSpeed reads what a speed:EXEC piece left in its folder dir: the epochs of
// run/metrics.jsonl, the device memory of run/summary.json, nvidia-smi's samples (smi.json) and
// the benchmarks that finished (bench.txt, absent when none ran). The piece writes its result.json from it, once after the
// training run and again after the benchmarks; the readme renders a piece that was stopped
// before its first result.json from the same files.
func ReadSpeed(dir, execution, backend string) (Speed, error) {
	r := Speed{Execution: execution, Backend: backend}
	smi, err := os.ReadFile(filepath.Join(dir, "smi.json"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return r, err
	}
	if err == nil {
		if err := json.Unmarshal(smi, &r.SMI); err != nil {
			return r, fmt.Errorf("%s: %w", filepath.Join(dir, "smi.json"), err)
		}
	}
	summary, err := os.ReadFile(filepath.Join(dir, "run", "summary.json"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return r, err
	}
	if err == nil {
		var s struct {
			DeviceBytes int64 `json:"device_bytes"`
		}
		if err := json.Unmarshal(summary, &s); err != nil {
			return r, fmt.Errorf("%s: %w", filepath.Join(dir, "run", "summary.json"), err)
		}
		r.DeviceBytes = s.DeviceBytes
	}
	if r.Epochs, err = ReadEpochs(filepath.Join(dir, "run")); err != nil {
		return r, err
	}
	if len(r.Epochs) == 0 {
		return r, fmt.Errorf("%s: no epoch", filepath.Join(dir, "run", "metrics.jsonl"))
	}
	var train, batch, test []float64
	for _, e := range r.Epochs[1:] {
		if e.Programs == 0 {
			train, batch, test = append(train, e.TrainSeconds), append(batch, e.BatchSeconds), append(test, (e.Seconds-e.TrainSeconds)/2)
		}
	}
	r.Steady = len(train)
	if r.Steady == 0 {
		last := r.Epochs[len(r.Epochs)-1]
		train, batch, test = []float64{last.TrainSeconds}, []float64{last.BatchSeconds}, []float64{(last.Seconds - last.TrainSeconds) / 2}
	}
	r.TrainEpoch, r.Batching, r.TestPass = Median(train), Median(batch), Median(test)
	bench, err := os.ReadFile(filepath.Join(dir, "bench.txt"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return r, err
	}
	b := ParseBenchmarks(bench)
	r.TrainStep, r.Inference, r.Batch = b["TrainStep"], b["Inference"], b["Batch"]
	return r, nil
}

// Median is the median of xs (not empty; the mean of the middle two for an even count); xs is
// sorted in place.
func Median(xs []float64) float64 {
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// ReadEpochs reads the epochs' times from the metrics.jsonl of the run folder run; errors name
// the file and line.
func ReadEpochs(run string) ([]Epoch, error) {
	path := filepath.Join(run, "metrics.jsonl")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var es []Epoch
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e Epoch
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		es = append(es, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return es, nil
}

// benchLine is a line of `go test -bench` output of BenchmarkZINC*/EXEC.
var benchLine = regexp.MustCompile(`(?m)^BenchmarkZINC(\w+)/\w+(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op`)

// ParseBenchmarks reads the seconds per operation of each BenchmarkZINC* (by the name after
// BenchmarkZINC) in a benchmark output.
func ParseBenchmarks(out []byte) map[string]*float64 {
	b := map[string]*float64{}
	for _, m := range benchLine.FindAllSubmatch(out, -1) {
		if ns, err := strconv.ParseFloat(string(m[2]), 64); err == nil {
			s := ns / 1e9
			b[string(m[1])] = &s
		}
	}
	return b
}
