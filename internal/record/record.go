// Package record is the one format of the project's measurements: JSON lines, one measurement
// a line, each line saying what was measured, its value and unit, and where: the command, the
// commit, the date, the machine and its load. The benchmark scripts write them
// (internal/cmd/record turns a script's output into records) and internal/cmd/readme renders
// the documents' tables from them.
//
// One line:
//
//	{"part":"model ZINCTrainStep/sparse","what":"BenchmarkZINCTrainStep/sparse","value":23828052290,"unit":"ns/op",
//	 "command":"scripts/bench-cpu.sh","commit":"26726a4","date":"2026-11-23T19:15Z","machine":"2 cores, AMD EPYC",
//	 "load":"1.24 1.68 1.73","setup":"go1.26.8"}
package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/sgformer/sgformer/internal/atomicfile"
)

// Record is one measurement.
type Record struct {
	// Part is the part of the command's work it belongs to ("model ZINCTrainStep/sparse",
	// "devices 2"); parts may repeat (rounds).
	Part string `json:"part,omitempty"`
	// What is the measured quantity within the part: a Go benchmark ("BenchmarkZINCBatch/sparse",
	// one record per unit it reports), "peak RSS", "wall", "CPU", "exit status", or the key of
	// the command's JSON summary ("product_nodes"). A part's records with the same What are in
	// the order measured (one per epoch, per round).
	What  string  `json:"what"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
	// Labels are what a JSON summary's text fields say of its numbers ("module": "Trainer_0",
	// "metric": "rmse"). "derived" marks a record computed later from its command's other
	// records (when and why), not printed by the command itself.
	Labels map[string]string `json:"labels,omitempty"`
	// Note is why a part was skipped.
	Note string `json:"note,omitempty"`
	Context
}

// Context is where and how a record was measured: the same for every record of one command.
type Context struct {
	Command string `json:"command"`         // the script and its arguments
	Commit  string `json:"commit"`          // the code measured ("26726a4", "26726a4 with uncommitted changes")
	Date    string `json:"date"`            // when the command started, UTC
	Machine string `json:"machine"`         // cores, CPU model, memory
	Load    string `json:"load"`            // the 1, 5 and 15 minute load averages before the command
	Setup   string `json:"setup,omitempty"` // what else decides the figures: versions, settings
}

// String is the context as the documents cite it.
func (c Context) String() string {
	s := fmt.Sprintf("%s at %s; %s, %s, load before: %s", c.Command, c.Commit, c.Date, c.Machine, c.Load)
	if c.Setup != "" {
		s += "; " + c.Setup
	}
	return s
}

// Check reports the first field a record lacks.
func (r Record) Check() error {
	for _, f := range []struct{ name, value string }{{"what", r.What}, {"command", r.Command}, {"commit", r.Commit}, {"date", r.Date}, {"machine", r.Machine}, {"load", r.Load}} {
		if f.value == "" {
			return fmt.Errorf("no %q", f.name)
		}
	}
	return nil
}

// Read reads the records of a file; an error names the file and the line.
func Read(path string) (Set, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Set
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r Record
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		d.DisallowUnknownFields()
		if err := d.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if err := r.Check(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		s = append(s, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("%s: no records", path)
	}
	return s, nil
}

// Write writes records to path atomically, one JSON line each.
func Write(path string, s Set) error {
	var b bytes.Buffer
	for _, r := range s {
		if err := r.Check(); err != nil {
			return fmt.Errorf("%s: record %+v: %w", path, r, err)
		}
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b.Write(append(line, '\n'))
	}
	return atomicfile.Write(path, b.Bytes())
}

// Set is the records of one or more commands, in the order measured.
type Set []Record

// Parts returns the names of the parts in the order they first appear.
func (s Set) Parts() []string {
	var parts []string
	seen := map[string]bool{}
	for _, r := range s {
		if !seen[r.Part] {
			seen[r.Part] = true
			parts = append(parts, r.Part)
		}
	}
	return parts
}

// Values returns the values of part's records of what in unit, in order.
func (s Set) Values(part, what, unit string) []float64 {
	var xs []float64
	for _, r := range s {
		if r.Part == part && r.What == what && r.Unit == unit {
			xs = append(xs, r.Value)
		}
	}
	return xs
}

// Value returns the first value of part's records of what in unit, and whether there is one.
func (s Set) Value(part, what, unit string) (float64, bool) {
	for _, r := range s {
		if r.Part == part && r.What == what && r.Unit == unit {
			return r.Value, true
		}
	}
	return 0, false
}

// Where returns the records for which keep is true, in order.
func (s Set) Where(keep func(Record) bool) Set {
	var w Set
	for _, r := range s {
		if keep(r) {
			w = append(w, r)
		}
	}
	return w
}

// Latest returns the records keep selects that the latest command among theirs measured, in
// order; none where keep selects none.
func (s Set) Latest(keep func(Record) bool) Set {
	of := s.Where(keep)
	if len(of) == 0 {
		return nil
	}
	last := of[len(of)-1].Context
	return of.Where(func(r Record) bool { return r.Context == last })
}

// Contexts returns the distinct contexts of the records, in order: the commands that measured them.
func (s Set) Contexts() []Context {
	var cs []Context
	for _, r := range s {
		if len(cs) == 0 || cs[len(cs)-1] != r.Context {
			cs = append(cs, r.Context)
		}
	}
	return cs
}
