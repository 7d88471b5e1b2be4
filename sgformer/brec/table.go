package brec

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
)

// Categories are BREC's categories in its order (test_BREC.py's part_dict).
var Categories = []string{"Basic", "Regular", "Extension", "CFI", "4-Vertex_Condition", "Distance_Regular"}

// A Summary is a test's counts per category, in the order its records have them, and in total.
type Summary struct {
	Test   string
	Counts []Count
}

// Summarize groups records by test, in the order the tests first appear, and counts each.
func Summarize(records []Record) []Summary {
	var out []Summary
	byTest := map[string][]Record{}
	for _, r := range records {
		if byTest[r.Test] == nil {
			out = append(out, Summary{Test: r.Test})
		}
		byTest[r.Test] = append(byTest[r.Test], r)
	}
	for i := range out {
		out[i].Counts = Counts(byTest[out[i].Test])
	}
	return out
}

// Published is a row of BREC's published results table: pairs distinguished per category
// (its Regular counts the 4-vertex-condition and distance-regular pairs too) and in total.
type Published struct {
	Model  string
	Counts map[string]int
}

//go:embed published.csv
var publishedCSV string

// PublishedRows returns the rows of BREC's results table this project compares with (3-WL and
// SSWL_P, GNN-SSWL+ as BREC ran it), from published.csv, which cites the table.
func PublishedRows() ([]Published, error) {
	r := csv.NewReader(strings.NewReader(publishedCSV))
	r.Comment = '#'
	lines, err := r.ReadAll()
	if err != nil || len(lines) < 2 {
		return nil, fmt.Errorf("brec: published.csv: %d lines, %v", len(lines), err)
	}
	var out []Published
	for _, line := range lines[1:] {
		p := Published{Model: line[0], Counts: map[string]int{}}
		for j, c := range lines[0][1:] {
			if p.Counts[c], err = strconv.Atoi(line[j+1]); err != nil {
				return nil, fmt.Errorf("brec: published.csv: %s, %s: %w", p.Model, c, err)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// testNames are the names tables show for the tests of this project's records: the exact
// oracles (sgformer brec --test) and the models under the --name their runs were given.
var testNames = map[string]string{
	"1-wl": "1-WL", "sswl": "SSWL", "2-fwl": "2-FWL (≡ 3-WL)", "gin": "GIN", "sswlplus": "GNN-SSWL+",
	"subgraphormer": "Subgraphormer", "subgraphormer-pe": "Subgraphormer + PE", "subgraphormer-pe-no-flips": "Subgraphormer + PE, no sign flips",
	"subgraphormer-k3": "Subgraphormer, K = 3", "subgraphormer-6-blocks": "Subgraphormer, 6 blocks",
	"subgraphormer-8-blocks": "Subgraphormer, 8 blocks",
}

// TestName returns the name a table shows for the test of a record: "2-FWL (≡ 3-WL)" for
// "2-fwl", "GNN-SSWL+" for "sswlplus", and so on; a test it does not know, as it is.
func TestName(test string) string {
	if name, ok := testNames[test]; ok {
		return name
	}
	return test
}

// Table lays summaries and published rows out as BREC's results table: a row per test (named
// by TestName), a column per category (headed by its number of pairs, the most any summary
// has) and the total. A cell is the pairs distinguished, "d of t" where a test ran on t pairs
// of fewer than all, "–" where it ran on none. A published row's 4-vertex-condition and
// distance-regular cells read "in Regular", where BREC counts them.
func Table(summaries []Summary, published []Published) (header []string, rows [][]string) {
	pairs := map[string]int{}
	for _, s := range summaries {
		for _, c := range s.Counts {
			pairs[c.Category] = max(pairs[c.Category], c.Pairs)
		}
	}
	columns := append(append([]string{}, Categories...), "total")
	header = []string{"test"}
	for _, c := range columns {
		header = append(header, fmt.Sprintf("%s (%d)", c, pairs[c]))
	}
	for _, s := range summaries {
		row := []string{TestName(s.Test)}
		for _, col := range columns {
			cell := "–"
			for _, c := range s.Counts {
				switch {
				case c.Category != col:
				case c.Pairs < pairs[col]:
					cell = fmt.Sprintf("%d of %d", c.Distinguished, c.Pairs)
				default:
					cell = strconv.Itoa(c.Distinguished)
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	for _, p := range published {
		row := []string{"BREC's " + p.Model}
		for _, col := range columns {
			n, ok := p.Counts[col]
			switch {
			case ok:
				row = append(row, strconv.Itoa(n))
			case col == "4-Vertex_Condition" || col == "Distance_Regular":
				row = append(row, "in Regular")
			default:
				row = append(row, "–")
			}
		}
		rows = append(rows, row)
	}
	return header, rows
}
