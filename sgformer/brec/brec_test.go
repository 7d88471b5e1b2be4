package brec_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/brec"
	"github.com/sgformer/sgformer/sgformer/internal/testgraphs"
)

var pairs = []data.Pair{
	{Index: 0, Category: "small", A: testgraphs.Cycle(6), B: testgraphs.TwoTriangles()},
	{Index: 1, Category: "strongly regular", A: testgraphs.Rook4(), B: testgraphs.Shrikhande()},
	{Index: 2, Category: "small", A: testgraphs.Path(5), B: testgraphs.Star(5)},
}

// A run records every pair once per test, resumes where a file stops (a last line cut by a
// kill dropped), and counts per category; a line that is not a record is an error naming it.
func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "brec.jsonl")
	var log strings.Builder
	recs, err := brec.Run(pairs[:2], "2-fwl", path, brec.Options{Progress: &log})
	if err != nil || len(recs) != 2 || !recs[0].Distinguished || recs[1].Distinguished || !strings.Contains(log.String(), "brec 2-fwl: 2/2 pairs") {
		t.Fatalf("first run: %+v, %v; log %q", recs, err, log.String())
	}
	// Killed while writing a third record: the cut line is dropped, pair 2 tested, 0 and 1 not again.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"pair":2,"categ`)
	f.Close()
	if recs, err = brec.Run(pairs, "2-fwl", path, brec.Options{}); err != nil || len(recs) != 3 || !recs[2].Distinguished {
		t.Fatalf("resumed: %+v, %v", recs, err)
	}
	if recs, err = brec.Run(pairs, "1-wl", path, brec.Options{}); err != nil || len(recs) != 3 || recs[0].Distinguished || recs[1].Distinguished || !recs[2].Distinguished {
		t.Fatalf("1-wl: %+v, %v", recs, err)
	}
	all, err := brec.Read(path)
	if err != nil || len(all) != 6 {
		t.Fatalf("the file holds %d records (%v), want 6", len(all), err)
	}
	before, _ := os.ReadFile(path)
	if _, err := brec.Run(pairs, "2-fwl", path, brec.Options{}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("a finished run tested pairs again")
	}
	counts := brec.Counts(all[:3])
	want := []brec.Count{{Category: "small", Pairs: 2, Distinguished: 2}, {Category: "strongly regular", Pairs: 1}, {Category: "total", Pairs: 3, Distinguished: 2}}
	for i := range counts {
		counts[i].Seconds = 0
	}
	if len(counts) != 3 || counts[0] != want[0] || counts[1] != want[1] || counts[2] != want[2] {
		t.Errorf("counts %+v, want %+v", counts, want)
	}
	os.WriteFile(path, append(before, "not a record\n"...), 0o644)
	if _, err := brec.Run(pairs, "2-fwl", path, brec.Options{}); err == nil || !strings.Contains(err.Error(), "brec.jsonl:7:") {
		t.Errorf("a malformed line: %v", err)
	}
	if _, err := brec.Run(pairs, "4-wl", path, brec.Options{}); err == nil || !strings.Contains(err.Error(), `unknown test "4-wl"`) {
		t.Errorf("an unknown test: %v", err)
	}
}
