package kernelext_test

import (
	"errors"
	"fmt"

	"github.com/sgformer/sgformer/kernelext"
	"github.com/sgformer/sgformer/sgformer/training"
)

// A results table over seeds. In a notebook, DisplayHTML shows it under the cell; elsewhere it
// reports that nothing was displayed.
func Example() {
	maes := map[string][]float64{"subgraphormer": {0.061, 0.063, 0.065}, "gin": {0.387, 0.391, 0.380}}
	var rows [][]string
	for _, model := range []string{"subgraphormer", "gin"} {
		rows = append(rows, []string{model, kernelext.MeanStd(maes[model], 3)})
	}
	table := kernelext.ResultsTable("ZINC-12k, test MAE over 3 seeds", []string{"model", "MAE"}, rows)
	fmt.Println(rows)
	err := kernelext.DisplayHTML(table)
	fmt.Println(errors.Is(err, kernelext.ErrNotInKernel))
	// Output:
	// [[subgraphormer 0.063 ± 0.002] [gin 0.386 ± 0.005]]
	// true
}

// A live view of training: its OnEpoch method and the Live itself go into training.Options,
// and one output of the cell is redrawn after each epoch and each progress-bar update.
func ExampleLiveTraining() {
	live := kernelext.LiveTraining("mae", 40)
	opt := training.Options{OnEpoch: live.OnEpoch, Progress: live}

	// training.Train(ctx, task, opt) calls, after each epoch:
	opt.OnEpoch(training.Record{Epoch: 1, TrainLoss: 3.98, Valid: 1.61, Test: 1.70, Seconds: 6.2, BestEpoch: 1})
	opt.OnEpoch(training.Record{Epoch: 2, TrainLoss: 1.65, Valid: 0.99, Test: 0.96, Seconds: 5.8, BestEpoch: 2})
	fmt.Println(live.Progress())
	// Output:
	// epoch 2/40 · 6 s/epoch · ETA 3m48s · best val mae 0.99 at epoch 2 (test 0.96)
}

// What the product-graph explorer reports for subgraph 1 of caffeine under the external
// connectivity: the nodes of the neighbouring roots' subgraphs that send messages into it.
func ExampleCountProduct() {
	m, err := kernelext.LoadMolecule("Cn1cnc2c1c(=O)n(C)c(=O)n2C") // caffeine, 14 heavy atoms
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := kernelext.ProductGraphs(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	counts, _, err := kernelext.CountProduct(p, kernelext.ProductView{Root: 1, Connectivity: "external"})
	fmt.Printf("%+v %v\n", counts, err)
	// Output:
	// {Nodes:14 Edges:420 EdgesIn:42 FromInside:0 FromOutside:42 Neighbours:42} <nil>
}
