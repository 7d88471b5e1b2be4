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

// modelRow is a model's row of the models' table in one category (or "total"): the pairs it
// tested and distinguished, those SSWL distinguishes, those it distinguishes beyond SSWL and
// beyond 2-FWL, the reliability checks failed, and the seconds per pair; CPUSeconds over
// CPUPairs, the records that have it.
type modelRow struct {
	Test, Category                                                string
	Pairs, Distinguished, SSWL, BeyondSSWL, BeyondFWL, Unreliable int
	Seconds, CPUSeconds                                           float64
	CPUPairs                                                      int
}

// CPUPerPair is the CPU seconds per pair of the records that have them.
func (m modelRow) CPUPerPair() float64 { return m.CPUSeconds / float64(m.CPUPairs) }

// brecModels is what templates/brec-models.md.tmpl renders: BREC's results table (brec.Table),
// the models' rows, and per model the pairs it tells apart beyond 2-FWL.
type brecModels struct {
	Header []string
	Table  [][]string
	Rows   []modelRow
	Beyond []struct{ Test, Pairs string }
}

// brecModelsSection is two tables of results/expressivity/brec-models.jsonl, written by sgformer
// brec --test model: BREC's results table (brec.Table) of the oracles, the models and BREC's
// published rows; then per model and category tested, the pairs it distinguishes, those beyond
// SSWL and beyond 2-FWL (which bound K = 2 models: none, unless a number fooled the test), the
// reliability checks failed, the seconds per pair and the CPU seconds per pair (of the records
// that have them), beside SSWL's count of the same pairs.
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
	sswl, fwl := map[int]bool{}, map[int]bool{}
	for _, r := range oracles {
		switch r.Test {
		case "sswl":
			sswl[r.Pair] = r.Distinguished
		case "2-fwl":
			fwl[r.Pair] = r.Distinguished
		}
	}
	summaries := brec.Summarize(records)
	var data brecModels
	data.Header, data.Table = brec.Table(append(brec.Summarize(oracles), summaries...), published)
	for _, s := range summaries {
		name := brec.TestName(s.Test)
		rows := map[string]*modelRow{}
		var beyond []string
		for _, r := range records {
			if r.Test != s.Test {
				continue
			}
			if r.Distinguished && !fwl[r.Pair] {
				beyond = append(beyond, fmt.Sprintf("%d (%s, %d nodes)", r.Pair, r.Category, r.Nodes))
			}
			for _, c := range []string{r.Category, "total"} {
				if rows[c] == nil {
					rows[c] = &modelRow{}
				}
				rows[c].add(r, sswl[r.Pair], fwl[r.Pair])
			}
		}
		for _, c := range s.Counts {
			row := rows[c.Category]
			row.Test, row.Category, row.Pairs, row.Distinguished, row.Seconds = name, c.Category, c.Pairs, c.Distinguished, c.Seconds/float64(c.Pairs)
			data.Rows = append(data.Rows, *row)
		}
		if beyond != nil {
			data.Beyond = append(data.Beyond, struct{ Test, Pairs string }{name, strings.Join(beyond, ", ")})
		}
	}
	return renderTemplate("brec-models", file, nil, data)
}

// add counts record r, of a pair SSWL distinguishes or not and 2-FWL distinguishes or not.
func (m *modelRow) add(r brec.Record, sswl, fwl bool) {
	count := func(yes bool) int {
		if yes {
			return 1
		}
		return 0
	}
	m.SSWL += count(sswl)
	m.BeyondSSWL += count(r.Distinguished && !sswl)
	m.BeyondFWL += count(r.Distinguished && !fwl)
	m.Unreliable += count(!r.Reliable)
	if r.CPUSeconds > 0 {
		m.CPUSeconds += r.CPUSeconds
		m.CPUPairs++
	}
}
