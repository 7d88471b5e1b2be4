package plots_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/sgformer/sgformer/plots"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/training"
)

// Training curves from a run's records, as read by training.ReadRecords from its
// metrics.jsonl, saved as SVG and PNG.
func ExampleCurves() {
	recs := []training.Record{
		{Epoch: 1, TrainLoss: 1.9, Valid: 1.50, Test: 1.55, LR: 1e-3, BestEpoch: 1},
		{Epoch: 2, TrainLoss: 1.1, Valid: 0.90, Test: 0.95, LR: 1e-3, BestEpoch: 2},
		{Epoch: 3, TrainLoss: 0.8, Valid: 0.95, Test: 0.97, LR: 5e-4, BestEpoch: 2},
	}
	fig, err := plots.Curves(recs, "mae")
	if err != nil {
		log.Fatal(err)
	}
	fig.Title = "Subgraphormer on ZINC-12k"
	dir, err := os.MkdirTemp("", "curves")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"curves.svg", "curves.png"} {
		if err := fig.Save(filepath.Join(dir, name)); err != nil {
			log.Fatal(err)
		}
	}
	for _, p := range fig.Panels {
		fmt.Println(p.Plot.Title.Text)
	}
	// Output:
	// Training loss
	// Validation and test MAE
	// Learning rate
}

// The paper's Sec. 4.2 figure for a four-cycle with a pendant node.
func ExampleEigenvectorFigure() {
	g, err := graph.New(5, []graph.Edge{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {3, 4}}, graph.Features{}, graph.Features{})
	if err != nil {
		log.Fatal(err)
	}
	fig, err := plots.EigenvectorFigure(g)
	if err != nil {
		log.Fatal(err)
	}
	svg, err := fig.SVG()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(svg) > 0)
	for _, p := range fig.Panels {
		fmt.Println(p.Plot.Title.Text)
	}
	// Output:
	// true
	// G: v₁, λ₁ = 0.83 (4 values)
	// G□G: v₁(s)·v₁(v), λ = 2λ₁ = 1.66 (9 values)
}
