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
// the benchmarks that finished (bench.txt, absent when none ran). The piece writes its
// result.json from it, once after the training run and again after the benchmarks; Records
// converts a piece that was stopped before its first result.json from the same files.
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
	seconds := func(name string) *float64 {
		if x, ok := b[name]; ok {
			return &x.Seconds
		}
		return nil
	}
	r.TrainStep, r.Inference, r.Batch = seconds("TrainStep"), seconds("Inference"), seconds("Batch")
	r.TrainStepHost, r.InferenceHost = b["TrainStep"].Host, b["Inference"].Host
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
var benchLine = regexp.MustCompile(`(?m)^BenchmarkZINC(\w+)/\w+(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op(.*)$`)

// hostMetric is the benchmarks' host_ms/op metric on a benchLine.
var hostMetric = regexp.MustCompile(`\s([0-9.]+) host_ms/op`)

// Bench is a benchmark's seconds per operation, and of them the seconds the host was busy
// until the operation returned (its host_ms/op metric; nil where it reports none).
type Bench struct {
	Seconds float64
	Host    *float64
}

// ParseBenchmarks reads each BenchmarkZINC* (by the name after BenchmarkZINC) in a benchmark
// output.
func ParseBenchmarks(out []byte) map[string]Bench {
	b := map[string]Bench{}
	for _, m := range benchLine.FindAllSubmatch(out, -1) {
		ns, err := strconv.ParseFloat(string(m[2]), 64)
		if err != nil {
			continue
		}
		r := Bench{Seconds: ns / 1e9}
		if h := hostMetric.FindSubmatch(m[3]); h != nil {
			if ms, err := strconv.ParseFloat(string(h[1]), 64); err == nil {
				s := ms / 1e3
				r.Host = &s
			}
		}
		b[string(m[1])] = r
	}
	return b
}
