// Package brec runs the BREC expressiveness benchmark (Wang and Zhang, "An Empirical Study of
// Realized GNN Expressiveness", ICML 2024): each pair of 1-WL-indistinguishable graphs of a pair
// file (data.ReadPairs) tested on its own, resumably, one JSON line per pair and test.
//
// The tests are the exact oracles of package wl, 1-WL and 2-FWL (as strong as 3-WL), the bounds
// the models are measured against, and the models themselves under BREC's protocol (Model):
// trained on each pair, then judged by the statistic T2 of their outputs.
package brec

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/gomlx/gomlx/backends"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/wl"
)

// Record is one line of a results file: a pair under a test.
type Record struct {
	Pair          int    `json:"pair"`
	Category      string `json:"category"`
	Test          string `json:"test"`
	Nodes         int    `json:"nodes"`
	Distinguished bool   `json:"distinguished"`
	Rounds        int    `json:"rounds,omitempty"`  // refinement rounds
	Colours       int    `json:"colours,omitempty"` // distinct colours at the last round
	// A model's (ModelPair): whether the reliability check passed, T2 of the pair and of the
	// check, the epochs trained and the last one's loss.
	Reliable      bool    `json:"reliable,omitempty"`
	T2            float64 `json:"t2,omitempty"`
	T2Reliability float64 `json:"t2_reliability,omitempty"`
	Epochs        int     `json:"epochs,omitempty"`
	Loss          float64 `json:"loss,omitempty"`
	Seconds       float64 `json:"seconds"`
	// CPUSeconds is the CPU time of the process (user and system, all its threads) the pair
	// took: unlike Seconds, it leaves out the time the process waited for a core another
	// process held, or was stopped. Records from before 2026-11-29 have none.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
}

// Oracles are the exact tests by name.
var Oracles = map[string]func(a, b *graph.Graph) wl.Result{
	"1-wl":  wl.OneWL,
	"sswl":  wl.SSWL,
	"2-fwl": wl.TwoFWL,
}

// Options of Run. Progress, when set, receives a line at most every ProgressInterval: pairs
// done, rate, ETA. Model, when set, makes the test a model's, trained on each pair on Backend
// (Model.Pair) and named test in the records; otherwise test names one of the Oracles.
type Options struct {
	Progress         io.Writer
	ProgressInterval time.Duration
	Model            *ModelOptions
	Backend          backends.Backend
}

// Run tests every pair under test, appending a Record per pair to the JSON-lines file path
// (created if missing) and skipping the pairs the file already has for test, so that a run
// stopped at any point resumes where it was, losing at most the pair under way. A last line
// cut short by a kill is dropped. It returns test's records of the file, in pair order.
func Run(pairs []data.Pair, test string, path string, opt Options) ([]Record, error) {
	var pairTest func(data.Pair) (Record, error)
	work := func(data.Pair) float64 { return 1 } // a pair's share of the run's time (remaining)
	if opt.Model != nil {
		var m *Model // built at the first pair to test
		pairTest = func(p data.Pair) (Record, error) {
			if m == nil {
				var err error
				if m, err = NewModel(opt.Backend, *opt.Model); err != nil {
					return Record{}, err
				}
				work = func(p data.Pair) float64 { return math.Pow(float64(p.A.N()), float64(m.tupleK)) }
			}
			return m.Pair(p, test)
		}
	} else {
		oracle, ok := Oracles[test]
		if !ok {
			return nil, fmt.Errorf("brec: unknown test %q (want 1-wl or 2-fwl)", test)
		}
		pairTest = func(p data.Pair) (Record, error) {
			t0 := time.Now()
			res := oracle(p.A, p.B)
			return Record{Pair: p.Index, Category: p.Category, Test: test, Nodes: p.A.N(), Distinguished: res.Distinguished,
				Rounds: res.Rounds, Colours: res.Colours, Seconds: time.Since(t0).Seconds()}, nil
		}
	}
	records, err := Read(path)
	if err != nil {
		return nil, err
	}
	done := map[int]bool{}
	for _, r := range records {
		if r.Test == test {
			done[r.Pair] = true
		}
	}
	var todo []data.Pair
	for _, p := range pairs {
		if !done[p.Index] {
			todo = append(todo, p)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	began, logged := time.Now(), time.Now()
	for i, p := range todo {
		cpu0 := cpuSeconds()
		rec, err := pairTest(p)
		if err != nil {
			return nil, err
		}
		rec.CPUSeconds = cpuSeconds() - cpu0
		line, err := json.Marshal(rec)
		if err != nil {
			return nil, err
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			return nil, fmt.Errorf("brec: %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			return nil, fmt.Errorf("brec: %s: %w", path, err)
		}
		records = append(records, rec)
		if opt.Progress != nil && (time.Since(logged) >= opt.ProgressInterval || i == len(todo)-1) {
			logged = time.Now()
			rate := float64(i+1) / time.Since(began).Seconds()
			eta := remaining(todo, i, work, time.Since(began))
			fmt.Fprintf(opt.Progress, "brec %s: %d/%d pairs, %.3g pairs/s, eta %v\n", test, len(pairs)-len(todo)+i+1, len(pairs), rate, eta)
		}
	}
	var out []Record
	for _, r := range records {
		if r.Test == test {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Record) int { return a.Pair - b.Pair })
	return out, nil
}

// remaining is how long the pairs of todo after its i-th will take at the pace of those up to
// it, each pair's time in proportion to its work: a model's, its product graph's nodes (n^K),
// so that BREC's 198-node CFI pairs at the end are not timed by its 10-node ones at the start;
// an oracle's, one a pair.
func remaining(todo []data.Pair, i int, work func(data.Pair) float64, elapsed time.Duration) time.Duration {
	var done, left float64
	for j, p := range todo {
		if j <= i {
			done += work(p)
		} else {
			left += work(p)
		}
	}
	return time.Duration(left / done * float64(elapsed)).Round(time.Second)
}

// Read reads the records of a results file (none if it does not exist). A last line without
// its newline, the trace of a kill during a write, is cut from the file; any other line that is
// not a record is an error naming it.
func Read(path string) ([]Record, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndexByte(raw, '\n'); i+1 < len(raw) {
		if err := os.Truncate(path, int64(i+1)); err != nil {
			return nil, err
		}
		raw = raw[:i+1]
	}
	var records []Record
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for line := 1; sc.Scan(); line++ {
		var r Record
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("brec: %s:%d: %w", path, line, err)
		}
		records = append(records, r)
	}
	return records, nil
}

// Count is how many pairs of a category a test distinguished, of how many, in how long.
type Count struct {
	Category      string  `json:"category"`
	Pairs         int     `json:"pairs"`
	Distinguished int     `json:"distinguished"`
	Seconds       float64 `json:"seconds"`
}

// Counts sums records per category, in the order the categories first appear, then the total.
func Counts(records []Record) []Count {
	var out []Count
	at := map[string]int{}
	total := Count{Category: "total"}
	for _, r := range records {
		i, ok := at[r.Category]
		if !ok {
			i = len(out)
			at[r.Category] = i
			out = append(out, Count{Category: r.Category})
		}
		for _, c := range []*Count{&out[i], &total} {
			c.Pairs++
			c.Seconds += r.Seconds
			if r.Distinguished {
				c.Distinguished++
			}
		}
	}
	return append(out, total)
}

// cpuSeconds is the CPU time the process has used so far, user and system, in seconds (0 where
// the system does not say).
func cpuSeconds() float64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}
