package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/sgformer/brec"
)

// rookShrikhandeSection is the table of results/expressivity/rook-shrikhande.json, written by
// SGFORMER_UPDATE_RESULTS=1 go test -run RookShrikhande ./sgformer/model/: per model and tuple
// order, the largest and smallest |f(rook) − f(Shrikhande)| / |f| over the random
// initialisations.
func rookShrikhandeSection(root string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(root, "results", "expressivity", "rook-shrikhande.json"))
	if err != nil {
		return "", err
	}
	var rows []struct {
		Model      string  `json:"model"`
		K          int     `json:"tuple_k"`
		Seed       int     `json:"seed"`
		Separation float64 `json:"separation"`
	}
	if err := json.Unmarshal(raw, &rows); err != nil {
		return "", err
	}
	type key struct {
		model string
		k     int
	}
	var order []key
	seen := map[key][]float64{}
	for _, r := range rows {
		k := key{r.Model, r.K}
		if _, ok := seen[k]; !ok {
			order = append(order, k)
		}
		seen[k] = append(seen[k], r.Separation)
	}
	var b strings.Builder
	b.WriteString("| model | K | initialisations | \\|f(rook) − f(Shrikhande)\\| / \\|f\\|: smallest | largest |\n|---|---:|---:|---:|---:|\n")
	for _, k := range order {
		d := seen[k]
		lo, hi := d[0], d[0]
		for _, x := range d {
			lo, hi = min(lo, x), max(hi, x)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %.2g | %.2g |\n", k.model, k.k, len(d), lo, hi)
	}
	return b.String(), nil
}

// brecSection is the table of results/expressivity/brec-oracles.jsonl, written by sgformer brec
// --test 1-wl and --test 2-fwl on ../shared/data/brec/pairs.tsv: per category, the pairs each
// exact test distinguishes beside BREC's published 3-WL row (brec.PublishedRows), and 2-FWL's
// seconds.
func brecSection(root string) (string, error) {
	records, err := brec.Read(filepath.Join(root, "results", "expressivity", "brec-oracles.jsonl"))
	if err != nil {
		return "", err
	}
	published, err := brec.PublishedRows()
	if err != nil {
		return "", err
	}
	threeWL := published[0].Counts
	byTest := map[string][]brec.Record{}
	for _, r := range records {
		byTest[r.Test] = append(byTest[r.Test], r)
	}
	one, two := brec.Counts(byTest["1-wl"]), brec.Counts(byTest["2-fwl"])
	if len(one) != len(two) {
		return "", fmt.Errorf("brec-oracles.jsonl: %d categories under 1-wl, %d under 2-fwl", len(one), len(two))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| category | pairs | 1-WL | 2-FWL (≡ 3-WL) | BREC's %s row | 2-FWL seconds |\n|---|---:|---:|---:|---:|---:|\n", published[0].Model)
	for i, c := range two {
		if one[i].Category != c.Category || one[i].Pairs != c.Pairs {
			return "", fmt.Errorf("brec-oracles.jsonl: 1-wl has %s (%d pairs) where 2-fwl has %s (%d)", one[i].Category, one[i].Pairs, c.Category, c.Pairs)
		}
		name, bound := c.Category, "in Regular"
		if n, ok := threeWL[c.Category]; ok {
			bound = strconv.Itoa(n)
		}
		if name == "total" {
			name = "**total**"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %.2f |\n", name, c.Pairs, one[i].Distinguished, c.Distinguished, bound, c.Seconds)
	}
	return b.String(), nil
}

// brecNames are the names the tables give BREC's tests.
var brecNames = map[string]string{
	"1-wl": "1-WL", "2-fwl": "2-FWL (≡ 3-WL)", "gin": "GIN", "sswlplus": "GNN-SSWL+",
	"subgraphormer": "Subgraphormer", "subgraphormer-pe": "Subgraphormer + PE", "subgraphormer-k3": "Subgraphormer, K = 3",
}

// brecModelsSection is two tables of results/expressivity/brec-models.jsonl, written by sgformer
// brec --test model: BREC's results table (brec.Table) of the oracles, the models and BREC's
// published rows; then per model and category tested, the pairs it distinguishes, those beyond
// 2-FWL (which bounds K = 2 models: none, unless a number fooled the test), the reliability
// checks failed and the seconds per pair, beside 2-FWL's count of the same pairs.
func brecModelsSection(root string) (string, error) {
	dir := filepath.Join(root, "results", "expressivity")
	oracles, err := brec.Read(filepath.Join(dir, "brec-oracles.jsonl"))
	if err != nil {
		return "", err
	}
	fwl := map[int]bool{}
	for _, r := range oracles {
		if r.Test == "2-fwl" {
			fwl[r.Pair] = r.Distinguished
		}
	}
	records, err := brec.Read(filepath.Join(dir, "brec-models.jsonl"))
	if err != nil {
		return "", err
	}
	var tests []string
	byTest := map[string][]brec.Record{}
	for _, r := range records {
		if byTest[r.Test] == nil {
			tests = append(tests, r.Test)
		}
		byTest[r.Test] = append(byTest[r.Test], r)
	}
	published, err := brec.PublishedRows()
	if err != nil {
		return "", err
	}
	header, rows := brec.Table(brec.Summarize(append(oracles, records...)), published, brecNames)
	var b strings.Builder
	writeMarkdownTable(&b, header, rows)
	b.WriteString("\n| model | category | pairs | distinguished | 2-FWL | beyond 2-FWL | reliability failed | seconds per pair |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, test := range tests {
		rows := map[string]*[3]int{} // per category: 2-FWL distinguishes, beyond 2-FWL, unreliable
		for _, r := range byTest[test] {
			for _, c := range []string{r.Category, "total"} {
				if rows[c] == nil {
					rows[c] = &[3]int{}
				}
				row := rows[c]
				if fwl[r.Pair] {
					row[0]++
				}
				if r.Distinguished && !fwl[r.Pair] {
					row[1]++
				}
				if !r.Reliable {
					row[2]++
				}
			}
		}
		for _, c := range brec.Counts(byTest[test]) {
			row := rows[c.Category]
			name := c.Category
			if name == "total" {
				name = "**total**"
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %.1f |\n", brecNames[test], name, c.Pairs, c.Distinguished, row[0], row[1], row[2], c.Seconds/float64(c.Pairs))
		}
	}
	return b.String(), nil
}

// writeMarkdownTable writes header and rows as a Markdown table, the first column left-aligned,
// the others right-aligned.
func writeMarkdownTable(b *strings.Builder, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|---|" + strings.Repeat("---:|", len(header)-1) + "\n")
	for _, row := range rows {
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
}
