package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/brec"
)

func brecCmd(args []string, io stdio) error {
	fs := newFlagSet("brec")
	pairs := fs.String("pairs", "", "pair file in BREC's format (a header, then pair, category, graph6_a, graph6_b, tab-separated; ../shared/data/brec/pairs.tsv)")
	test := fs.String("test", "2-fwl", "test: 1-wl (colour refinement) or 2-fwl (the folklore 2-WL, as strong as 3-WL), exact oracles")
	out := fs.String("out", "", "JSON-lines results file: one record per pair and test, appended; pairs it has for --test are skipped (resume)")
	describe(fs, "usage: sgformer brec --pairs FILE [--test 1-wl|2-fwl] --out RESULTS.jsonl\n\n"+
		"Runs the BREC expressiveness benchmark (Wang and Zhang, ICML 2024) pair by pair under an exact oracle,\n"+
		"1-WL or 2-FWL, appending a record per pair to --out (a killed run resumes, losing at most one pair),\n"+
		"and prints the pairs distinguished per category as JSON.\n")
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *pairs == "" || *out == "" {
		return usagef("--pairs FILE and --out RESULTS.jsonl are required")
	}
	if _, ok := brec.Oracles[*test]; !ok {
		return usagef("--test %q: want %s", *test, strings.Join(slices.Sorted(maps.Keys(brec.Oracles)), " or "))
	}
	ps, err := data.ReadPairsFile(*pairs)
	if err != nil {
		return err
	}
	records, err := brec.Run(ps, *test, *out, brec.Options{Progress: io.err, ProgressInterval: 10 * time.Second})
	if err != nil {
		return err
	}
	fmt.Fprintf(io.err, "brec %s: %d pairs in %s\n", *test, len(records), *out)
	return writeJSON(io.out, map[string]any{"test": *test, "pairs": *pairs, "counts": brec.Counts(records)})
}
