package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/sgformer/brec"
)

// brecOracles are the exact tests of results/expressivity/brec-oracles.jsonl, weakest first.
var brecOracles = []string{"1-wl", "sswl", "2-fwl"}

// oracleRow is a category's row of the oracles' table: each oracle's count, in the order of
// brecOracles, and BREC's published 3-WL count ("in Regular" where BREC counts it there).
type oracleRow struct {
	Category string
	Pairs    int
	Counts   []brec.Count
	ThreeWL  string
}

// brecSection is the table of results/expressivity/brec-oracles.jsonl, written by sgformer brec
// --test 1-wl, sswl and 2-fwl on ../shared/data/brec/pairs.tsv, by
// templates/brec-oracles.md.tmpl: per category, the pairs each exact test distinguishes beside
// BREC's published 3-WL row (brec.PublishedRows), and each test's seconds.
func brecSection(root string) (string, error) {
	const file = "results/expressivity/brec-oracles.jsonl"
	records, err := brec.Read(filepath.Join(root, file))
	if err != nil {
		return "", err
	}
	published, err := brec.PublishedRows()
	if err != nil {
		return "", err
	}
	at := slices.IndexFunc(published, func(p brec.Published) bool { return p.Model == "3-WL" })
	if at < 0 {
		return "", fmt.Errorf("brec.PublishedRows has no 3-WL row")
	}
	var rows []oracleRow
	for i, test := range brecOracles {
		counts := brec.Counts(slices.DeleteFunc(slices.Clone(records), func(r brec.Record) bool { return r.Test != test }))
		if i == 0 {
			for _, c := range counts {
				row := oracleRow{Category: c.Category, Pairs: c.Pairs, ThreeWL: "in Regular"}
				if n, ok := published[at].Counts[c.Category]; ok {
					row.ThreeWL = strconv.Itoa(n)
				}
				rows = append(rows, row)
			}
		}
		if len(counts) != len(rows) {
			return "", fmt.Errorf("%s: %d categories under %s, %d under %s", file, len(counts), test, len(rows), brecOracles[0])
		}
		for j, c := range counts {
			if c.Category != rows[j].Category || c.Pairs != rows[j].Pairs {
				return "", fmt.Errorf("%s: %s has %s (%d pairs) where %s has %s (%d)", file, test, c.Category, c.Pairs, brecOracles[0], rows[j].Category, rows[j].Pairs)
			}
			rows[j].Counts = append(rows[j].Counts, c)
		}
	}
	return renderTemplate("brec-oracles", file, nil, rows)
}

// brecModels is what templates/brec-models.md.tmpl renders: BREC's results table (brec.Table),
// the models' rows (brec.Compare, each test by its table name), and per model the pairs it
// tells apart beyond 2-FWL.
type brecModels struct {
	Header []string
	Table  [][]string
	Rows   []brec.Comparison
	Beyond []struct{ Test, Pairs string }
}

// brecModelsSection is two tables of results/expressivity/brec-models.jsonl, written by sgformer
// brec --test model: BREC's results table (brec.Table) of the oracles, the models and BREC's
// published rows; then per model and category tested, its counts beside the oracles'
// (brec.Compare).
func brecModelsSection(root string) (string, error) {
	const oraclesFile, file = "results/expressivity/brec-oracles.jsonl", "results/expressivity/brec-models.jsonl"
	oracles, err := brec.Read(filepath.Join(root, oraclesFile))
	if err != nil {
		return "", err
	}
	records, err := brec.Read(filepath.Join(root, file))
	if err != nil {
		return "", err
	}
	published, err := brec.PublishedRows()
	if err != nil {
		return "", err
	}
	var data brecModels
	data.Header, data.Table = brec.Table(append(brec.Summarize(oracles), brec.Summarize(records)...), published)
	data.Rows = brec.Compare(records, oracles)
	for i, c := range data.Rows {
		data.Rows[i].Test = brec.TestName(c.Test)
		if c.Category != "total" || len(c.BeyondFWLPairs) == 0 {
			continue
		}
		var pairs []string
		for _, r := range c.BeyondFWLPairs {
			pairs = append(pairs, fmt.Sprintf("%d (%s, %d nodes)", r.Pair, r.Category, r.Nodes))
		}
		data.Beyond = append(data.Beyond, struct{ Test, Pairs string }{brec.TestName(c.Test), strings.Join(pairs, ", ")})
	}
	return renderTemplate("brec-models", file, nil, data)
}
