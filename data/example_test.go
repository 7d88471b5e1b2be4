package data_test

import (
	"fmt"

	"github.com/sgformer/sgformer/data"
)

// A table of molecules with a SMILES column and label columns, split by scaffold as OGB splits
// its molecule datasets.
func ExampleMoleculeCSV() {
	ds, err := data.MoleculeCSV("testdata/molecules/small.csv", data.CSVOptions{
		SMILESColumn: "smiles", LabelColumns: []string{"logS"}, Task: data.Regression, Split: data.SplitScaffold,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	g := ds.Graphs[1] // toluene
	fmt.Println(ds.Name, len(ds.Graphs), "molecules,", ds.LabelNames)
	fmt.Println("toluene:", g.N(), "atoms,", g.NumEdges(), "bonds, label", ds.Labels[1])
	fmt.Println("split:", len(ds.Split.Train), len(ds.Split.Valid), len(ds.Split.Test))
	// Output:
	// csv:testdata/molecules/small.csv 20 molecules, [logS]
	// toluene: 7 atoms, 7 bonds, label -2.21
	// split: 16 2 2
}
