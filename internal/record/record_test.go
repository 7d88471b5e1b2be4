package record

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var plain = Context{Command: "scripts/x.sh", Commit: "abc1234", Date: "2026-11-28T16:00Z", Machine: "2 cores", Load: "0.1 0.2 0.3"}

// TestRead refuses what is not a record, naming the file and the line.
func TestRead(t *testing.T) {
	good := `{"part":"p","what":"wall","value":2,"unit":"s","command":"scripts/x.sh","commit":"abc1234","date":"2026-11-28T16:00Z","machine":"2 cores","load":"0.1 0.2 0.3"}`
	for _, tc := range []struct{ name, text, want string }{
		{"unknown field", good + "\n" + strings.Replace(good, `"unit"`, `"units"`, 1), `r.jsonl:2: json: unknown field "units"`},
		{"no commit", strings.Replace(good, `"commit":"abc1234",`, "", 1), `r.jsonl:1: no "commit"`},
		{"not JSON", "peak RSS 1 kB", "r.jsonl:1: invalid character"},
		{"empty", "\n", "r.jsonl: no records"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.jsonl")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Read(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

// TestSet looks values up by part, quantity and unit, in the order measured.
func TestSet(t *testing.T) {
	r := func(part, what string, v float64, unit string) Record {
		return Record{Part: part, What: what, Value: v, Unit: unit, Context: plain}
	}
	later := plain
	later.Date = "2026-11-29T09:00Z"
	s := Set{r("a", "wall", 1, "s"), r("b", "wall", 2, "s"), r("a", "wall", 3, "s"), r("a", "peak RSS", 4, "kB")}
	s = append(s, Record{Part: "c", What: "wall", Value: 5, Unit: "s", Context: later})
	if got := s.Parts(); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("Parts %v", got)
	}
	if got := s.Values("a", "wall", "s"); !reflect.DeepEqual(got, []float64{1, 3}) {
		t.Errorf("Values %v", got)
	}
	if v, ok := s.Value("a", "wall", "ms"); ok {
		t.Errorf("Value in another unit: %v", v)
	}
	if v, ok := s.Value("a", "peak RSS", "kB"); !ok || v != 4 {
		t.Errorf("Value %v %v", v, ok)
	}
	if got := s.Contexts(); !reflect.DeepEqual(got, []Context{plain, later}) {
		t.Errorf("Contexts %v", got)
	}
	// The latest command's records of wall time: c's; of a's, both of the one command.
	wall := func(r Record) bool { return r.What == "wall" }
	if got := s.Latest(wall); len(got) != 1 || got[0].Value != 5 {
		t.Errorf("Latest wall %v", got)
	}
	if got := s.Latest(func(r Record) bool { return r.Part == "a" && r.What == "wall" }); len(got) != 2 || got[0].Value != 1 || got[1].Value != 3 {
		t.Errorf("Latest a's wall %v", got)
	}
	if got := s.Latest(func(Record) bool { return false }); got != nil {
		t.Errorf("Latest of none %v", got)
	}
	if got, want := plain.String(), "scripts/x.sh at abc1234; 2026-11-28T16:00Z, 2 cores, load before: 0.1 0.2 0.3"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
}
