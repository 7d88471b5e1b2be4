package brec_test

import (
	"os"
	"path/filepath"
	"slices"
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

// The table: a row per test under its name (TestName; a test it does not know as it is), a
// column per BREC category with its pairs, "d of t" for a test run on part of a category, "–"
// where it ran on none, and BREC's published rows after the tests'.
func TestTable(t *testing.T) {
	var records []brec.Record
	for i := range 4 {
		records = append(records, brec.Record{Pair: i, Category: "Basic", Test: "2-fwl", Distinguished: true})
	}
	records = append(records,
		brec.Record{Pair: 4, Category: "CFI", Test: "2-fwl"},
		brec.Record{Pair: 0, Category: "Basic", Test: "my-model", Distinguished: true},
		brec.Record{Pair: 1, Category: "Basic", Test: "my-model"},
		brec.Record{Pair: 0, Category: "Basic", Test: "sswlplus"})
	published, err := brec.PublishedRows()
	if err != nil {
		t.Fatal(err)
	}
	header, rows := brec.Table(brec.Summarize(records), published[:1])
	want := [][]string{
		{"test", "Basic (4)", "Regular (0)", "Extension (0)", "CFI (1)", "4-Vertex_Condition (0)", "Distance_Regular (0)", "total (5)"},
		{"2-FWL (≡ 3-WL)", "4", "–", "–", "0", "–", "–", "4"},
		{"my-model", "1 of 2", "–", "–", "–", "–", "–", "1 of 2"},
		{"GNN-SSWL+", "0 of 1", "–", "–", "–", "–", "–", "0 of 1"},
		{"BREC's 3-WL", "60", "50", "100", "60", "in Regular", "in Regular", "270"},
	}
	if got := append([][]string{header}, rows...); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("table\n%q\nwant\n%q", got, want)
	}
}

// BREC's published 3-WL row is what 2-FWL distinguishes in the committed results
// (results/expressivity/brec-oracles.jsonl), its Regular column the sum of the three regular
// categories; every row's total is the sum of its categories.
func TestPublishedRows(t *testing.T) {
	published, err := brec.PublishedRows()
	if err != nil {
		t.Fatal(err)
	}
	records, err := brec.Read("../../results/expressivity/brec-oracles.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]int{}
	for _, s := range brec.Summarize(records) {
		if s.Test != "2-fwl" {
			continue
		}
		for _, c := range s.Counts {
			category := c.Category
			if category == "4-Vertex_Condition" || category == "Distance_Regular" {
				category = "Regular"
			}
			ours[category] += c.Distinguished
		}
	}
	for _, p := range published {
		sum := 0
		for c, n := range p.Counts {
			if c != "total" {
				sum += n
			}
		}
		if sum != p.Counts["total"] {
			t.Errorf("%s: categories sum to %d, total %d", p.Model, sum, p.Counts["total"])
		}
		if p.Model != "3-WL" {
			continue
		}
		for c, n := range p.Counts {
			if ours[c] != n {
				t.Errorf("3-WL, %s: published %d, 2-FWL here %d", c, n, ours[c])
			}
		}
	}
}
