package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// brecOracles are the exact tests of results/expressivity/brec-oracles.jsonl, weakest first.
var brecOracles = []string{"1-wl", "sswl", "2-fwl"}

// brecSection is the table of results/expressivity/brec-oracles.jsonl, written by sgformer brec
// --test 1-wl, sswl and 2-fwl on ../shared/data/brec/pairs.tsv: per category, the pairs each
// exact test distinguishes beside BREC's published 3-WL row (brec.PublishedRows), and each
// test's seconds.
func brecSection(root string) (string, error) {
	records, err := brec.Read(filepath.Join(root, "results", "expressivity", "brec-oracles.jsonl"))
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
	threeWL := published[at].Counts
	byTest := map[string][]brec.Record{}
	for _, r := range records {
		byTest[r.Test] = append(byTest[r.Test], r)
	}
	counts := make([][]brec.Count, len(brecOracles))
	for i, test := range brecOracles {
		if counts[i] = brec.Counts(byTest[test]); len(counts[i]) != len(counts[0]) {
			return "", fmt.Errorf("brec-oracles.jsonl: %d categories under %s, %d under %s", len(counts[i]), test, len(counts[0]), brecOracles[0])
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| category | pairs | 1-WL | SSWL | 2-FWL (≡ 3-WL) | BREC's 3-WL row | seconds: 1-WL | SSWL | 2-FWL |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for j, c := range counts[0] {
		name, bound := c.Category, "in Regular"
		if n, ok := threeWL[c.Category]; ok {
			bound = strconv.Itoa(n)
		}
		if name == "total" {
			name = "**total**"
		}
		fmt.Fprintf(&b, "| %s | %d", name, c.Pairs)
		for i, test := range brecOracles {
			if d := counts[i][j]; d.Category != c.Category || d.Pairs != c.Pairs {
				return "", fmt.Errorf("brec-oracles.jsonl: %s has %s (%d pairs) where %s has %s (%d)", test, d.Category, d.Pairs, brecOracles[0], c.Category, c.Pairs)
			}
			fmt.Fprintf(&b, " | %d", counts[i][j].Distinguished)
		}
		fmt.Fprintf(&b, " | %s", bound)
		for i := range brecOracles {
			fmt.Fprintf(&b, " | %.2f", counts[i][j].Seconds)
		}
		b.WriteString(" |\n")
	}
	return b.String(), nil
}

// brecModelsSection is two tables of results/expressivity/brec-models.jsonl, written by sgformer
// brec --test model: BREC's results table (brec.Table) of the oracles, the models and BREC's
// published rows; then per model and category tested, the pairs it distinguishes, those beyond
// SSWL and beyond 2-FWL (which bound K = 2 models: none, unless a number fooled the test), the
// reliability checks failed, the seconds per pair and the CPU seconds per pair (of the records
// that have them), beside SSWL's count of the same pairs.
func brecModelsSection(root string) (string, error) {
	dir := filepath.Join(root, "results", "expressivity")
	oracles, err := brec.Read(filepath.Join(dir, "brec-oracles.jsonl"))
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
	records, err := brec.Read(filepath.Join(dir, "brec-models.jsonl"))
	if err != nil {
		return "", err
	}
	published, err := brec.PublishedRows()
	if err != nil {
		return "", err
	}
	summaries := brec.Summarize(records)
	header, rows := brec.Table(append(brec.Summarize(oracles), summaries...), published)
	var b strings.Builder
	writeMarkdownTable(&b, header, rows)
	b.WriteString("\n| model | category | pairs | distinguished | SSWL | beyond SSWL | beyond 2-FWL | reliability failed | seconds per pair | CPU seconds per pair |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	beyond := map[string][]string{} // per model, the pairs it tells apart beyond 2-FWL
	for _, s := range summaries {
		rows := map[string]*[4]int{} // per category: SSWL distinguishes, beyond SSWL, beyond 2-FWL, unreliable
		type cpuTime struct {
			seconds float64
			pairs   int
		}
		cpu := map[string]*cpuTime{} // per category, of the records that have it
		for _, r := range records {
			if r.Test != s.Test {
				continue
			}
			if r.Distinguished && !fwl[r.Pair] {
				beyond[s.Test] = append(beyond[s.Test], fmt.Sprintf("%d (%s, %d nodes)", r.Pair, r.Category, r.Nodes))
			}
			for _, c := range []string{r.Category, "total"} {
				if rows[c] == nil {
					rows[c], cpu[c] = &[4]int{}, &cpuTime{}
				}
				if r.CPUSeconds > 0 {
					cpu[c].seconds += r.CPUSeconds
					cpu[c].pairs++
				}
				row := rows[c]
				for i, yes := range []bool{sswl[r.Pair], r.Distinguished && !sswl[r.Pair], r.Distinguished && !fwl[r.Pair], !r.Reliable} {
					if yes {
						row[i]++
					}
				}
			}
		}
		for _, c := range s.Counts {
			row := rows[c.Category]
			name := c.Category
			if name == "total" {
				name = "**total**"
			}
			cpuCell := "—"
			if t := cpu[c.Category]; t.pairs == c.Pairs {
				cpuCell = fmt.Sprintf("%.1f", t.seconds/float64(t.pairs))
			} else if t.pairs > 0 {
				cpuCell = fmt.Sprintf("%.1f (%d pairs)", t.seconds/float64(t.pairs), t.pairs)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d | %.1f | %s |\n", brec.TestName(s.Test), name, c.Pairs, c.Distinguished, row[0], row[1], row[2], row[3], c.Seconds/float64(c.Pairs), cpuCell)
		}
	}
	for _, s := range summaries {
		if pairs := beyond[s.Test]; pairs != nil {
			fmt.Fprintf(&b, "\n%s tells apart, beyond 2-FWL (≡ 3-WL), pairs %s.\n", brec.TestName(s.Test), strings.Join(pairs, ", "))
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
