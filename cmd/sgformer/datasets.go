package main

import (
	"fmt"
	"strings"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/training"
)

// sourceNames lists the datasets data.Load reads and download fetches.
func sourceNames() []string {
	var names []string
	for _, s := range data.Sources {
		names = append(names, s.Name)
	}
	return names
}

// datasetUsage is the usage of --dataset: every dataset training.LoadTask reads.
func datasetUsage() string {
	names := training.Datasets()
	about := map[string]string{training.Synthetic: "triangle counting on random graphs, built in", training.SyntheticFourCycles: "4-cycle counting, built in"}
	for i, name := range names {
		if a, ok := about[name]; ok {
			names[i] = fmt.Sprintf("%s (%s)", name, a)
		}
	}
	return "dataset: " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// unknownDataset is the usage error for a --dataset that is none of names.
func unknownDataset(name string, names []string, note string) error {
	return usagef("unknown dataset %q (available: %s%s)", name, strings.Join(names, ", "), note)
}
