package main

import (
	"fmt"
	"strings"

	"github.com/sgformer/sgformer/data"
)

// builtin are the datasets the tool generates itself (data.Synthetic, 300 graphs unless
// --synthetic-graphs says otherwise); data.Sources are those it reads. Together they are every
// dataset --dataset accepts.
var builtin = []struct{ name, task, about string }{
	{"synthetic", data.Triangles, "triangle counting on random graphs, built in"},
	{"synthetic-4cycles", data.FourCycles, "4-cycle counting, built in"},
}

// datasetNames lists every dataset --dataset accepts: the built-in ones, then sourceNames.
func datasetNames() []string {
	var names []string
	for _, b := range builtin {
		names = append(names, b.name)
	}
	return append(names, sourceNames()...)
}

// sourceNames lists the datasets data.Load reads and download fetches.
func sourceNames() []string {
	var names []string
	for _, s := range data.Sources {
		names = append(names, s.Name)
	}
	return names
}

// datasetUsage is the usage of --dataset.
func datasetUsage() string {
	names := datasetNames()
	for i, b := range builtin {
		names[i] = fmt.Sprintf("%s (%s)", b.name, b.about)
	}
	return "dataset: " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// unknownDataset is the usage error for a --dataset that is none of names.
func unknownDataset(name string, names []string, note string) error {
	return usagef("unknown dataset %q (available: %s%s)", name, strings.Join(names, ", "), note)
}
