package main

import (
	"github.com/sgformer/sgformer/internal/report"
	"github.com/sgformer/sgformer/plots"
)

// figures are the figures of the documents that show results, drawn from results/ like the
// sections and checked like them: each file (relative to the project root, SVG) and its
// renderer.
var figures = map[string]func(root string) (*plots.Figure, error){
	"docs/figures/reproduction-molesol-sampling.svg": tableFigure(report.MolesolSamplingTable, report.Molesol, "ogbg-molesol: the paper and ours", "test RMSE"),
	"docs/figures/reproduction-molbace-sampling.svg": tableFigure(report.MolbaceSamplingTable, report.Molbace, "ogbg-molbace: the paper and ours", "test ROC-AUC (%)"),
}

// tableFigure draws a sampling table's cells of dataset against the sampling ratio, the
// paper's and ours (report.Series).
func tableFigure(t report.Table, dataset, title, metric string) func(root string) (*plots.Figure, error) {
	return func(root string) (*plots.Figure, error) {
		series, err := report.Series(root, t, dataset)
		if err != nil {
			return nil, err
		}
		return plots.Ablation(title, "sampling ratio (%)", metric, series)
	}
}
