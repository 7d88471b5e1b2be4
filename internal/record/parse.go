package record

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)
	timeLine  = regexp.MustCompile(`^peak RSS (\d+) kB, wall ([0-9.]+) s(?:, CPU ([0-9.]+)%)?$`)
	listLine  = regexp.MustCompile(`^\s*([^:{}]+?):((?:\s+[-+0-9.eE]+)+)\s*$`)
)

// Parse reads a benchmark script's output into records. The output starts with the header lines
// of scripts/lib/record.sh's record_header ("# command: …", "# commit: …", "# date: …",
// "# machine: …", "# load: …", and optionally "# setup: …"), then parts, each opened by a line
// "== PART". In a part, these lines are measurements:
//
//	BenchmarkNAME-N  ITERATIONS  VALUE UNIT  VALUE UNIT …   (go test -bench: a record per unit)
//	peak RSS KB kB, wall S s, CPU P%                       (the scripts' GNU time format)
//	exit status N                                          (the part failed)
//	skipped: WHY                                           (the part did not run)
//	{"key": value, …}                                      (a command's JSON summary: a record per
//	                                                        number, nested keys joined by a dot,
//	                                                        labelled with the line's text fields)
//	NAME: NUMBER NUMBER …                                  (a record per number, in order)
//
// and every other line (logs, warnings) is left out. A header line missing, or no measurement,
// is an error.
func Parse(r io.Reader) (Set, error) {
	var (
		ctx    Context
		part   string
		s      Set
		header = map[string]*string{"command": &ctx.Command, "commit": &ctx.Commit, "date": &ctx.Date, "machine": &ctx.Machine, "load": &ctx.Load, "setup": &ctx.Setup}
	)
	add := func(what string, value float64, unit, note string) {
		s = append(s, Record{Part: part, What: what, Value: value, Unit: unit, Note: note, Context: ctx})
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \r")
		if h, ok := strings.CutPrefix(line, "# "); ok && len(s) == 0 && part == "" {
			key, value, _ := strings.Cut(h, ": ")
			if p := header[key]; p != nil {
				*p = value
				continue
			}
		}
		if p, ok := strings.CutPrefix(line, "== "); ok {
			part = p
			continue
		}
		switch m := benchLine.FindStringSubmatch(line); {
		case m != nil:
			f := strings.Fields(m[2])
			if len(f)%2 != 0 {
				return nil, fmt.Errorf("line %d: %q: a value without a unit", n, line)
			}
			for i := 0; i < len(f); i += 2 {
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					return nil, fmt.Errorf("line %d: %q: %w", n, line, err)
				}
				add(m[1], v, f[i+1], "")
			}
		case timeLine.MatchString(line):
			t := timeLine.FindStringSubmatch(line)
			kb, _ := strconv.ParseFloat(t[1], 64)
			wall, _ := strconv.ParseFloat(t[2], 64)
			add("peak RSS", kb, "kB", "")
			add("wall", wall, "s", "")
			if t[3] != "" {
				cpu, _ := strconv.ParseFloat(t[3], 64)
				add("CPU", cpu, "%", "")
			}
		case strings.HasPrefix(line, "exit status "):
			code, err := strconv.Atoi(strings.TrimPrefix(line, "exit status "))
			if err != nil {
				return nil, fmt.Errorf("line %d: %q: %w", n, line, err)
			}
			add("exit status", float64(code), "", "")
		case strings.HasPrefix(line, "skipped: "):
			add("skipped", 1, "", strings.TrimPrefix(line, "skipped: "))
		case strings.HasPrefix(line, "{"):
			var v map[string]any
			d := json.NewDecoder(strings.NewReader(line))
			d.UseNumber()
			if err := d.Decode(&v); err != nil {
				return nil, fmt.Errorf("line %d: %q: %w", n, line, err)
			}
			recs, err := flatten(v)
			if err != nil {
				return nil, fmt.Errorf("line %d: %q: %w", n, line, err)
			}
			for _, r := range recs {
				r.Part, r.Context = part, ctx
				s = append(s, r)
			}
		case listLine.MatchString(line):
			l := listLine.FindStringSubmatch(line)
			for _, f := range strings.Fields(l[2]) {
				v, err := strconv.ParseFloat(f, 64)
				if err != nil {
					return nil, fmt.Errorf("line %d: %q: %w", n, line, err)
				}
				add(l[1], v, "", "")
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(s) == 0 {
		return nil, errors.New("no measurements")
	}
	if err := s[0].Check(); err != nil {
		return nil, fmt.Errorf("the header: %w", err)
	}
	return s, nil
}

// flatten returns a JSON object's numbers (booleans 1 or 0) as records, in the order of their
// keys, nested objects' keys joined by dots and an array's elements in order under its key, each
// labelled with the object's text fields.
func flatten(v map[string]any) ([]Record, error) {
	var recs []Record
	labels := map[string]string{}
	var field func(key string, x any) error
	field = func(key string, x any) error {
		switch x := x.(type) {
		case json.Number:
			f, err := x.Float64()
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			recs = append(recs, Record{What: key, Value: f})
		case bool:
			recs = append(recs, Record{What: key, Value: map[bool]float64{true: 1}[x]})
		case string:
			labels[key] = x
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if err := field(key+"."+k, x[k]); err != nil {
					return err
				}
			}
		case []any:
			for _, e := range x {
				if err := field(key, e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(v)) {
		if err := field(k, v[k]); err != nil {
			return nil, err
		}
	}
	if len(recs) == 0 {
		return nil, errors.New("no numbers (text fields label the numbers of their line)")
	}
	for i := range recs {
		if len(labels) > 0 {
			recs[i].Labels = labels
		}
	}
	return recs, nil
}
