package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
