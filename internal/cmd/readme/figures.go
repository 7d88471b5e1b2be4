package main

import (
	"fmt"
	"slices"

	"github.com/sgformer/sgformer/internal/report"
	"github.com/sgformer/sgformer/plots"
	"github.com/sgformer/sgformer/sgformer/ablation"
)

// figures are the figures of the documents that show results, drawn from results/ like the
// sections and checked like them: each file (relative to the project root, SVG) and its
// renderer.
var figures = map[string]func(root string) (*plots.Figure, error){
	"docs/figures/reproduction-molesol-sampling.svg": tableFigure(report.MolesolSamplingTable, report.Molesol, "ogbg-molesol: the paper and ours", "test RMSE"),
	"docs/figures/reproduction-molbace-sampling.svg": tableFigure(report.MolbaceSamplingTable, report.Molbace, "ogbg-molbace: the paper and ours", "test ROC-AUC (%)"),
}

// tableFigure draws a sampling table's cells of dataset against the sampling ratio: per row the
// paper's mean ± std, and ours (mean ± std over the seeds that finished all their epochs) where
// there are some.
func tableFigure(t report.Table, dataset, title, metric string) func(root string) (*plots.Figure, error) {
	return func(root string) (*plots.Figure, error) {
		var series []plots.Series
		for _, row := range []report.Variant{report.SSWLPlus, report.Subgraphormer, report.SubgraphormerPE} {
			paper := plots.Series{Name: row.Name + ", paper"}
			ours := plots.Series{Name: row.Name + ", ours"}
			for _, c := range t.Cells() {
				if c.Dataset != dataset || c.Folder != row.Folder {
					continue
				}
				x := 100 * c.Ratio
				paper.X, paper.Mean, paper.Std = append(paper.X, x), append(paper.Mean, c.Mean), append(paper.Std, c.Std)
				runs, err := report.Runs(root, c)
				if err != nil {
					return nil, err
				}
				var tests []float64
				for _, r := range runs {
					if r.Summary.Epochs >= r.Want {
						tests = append(tests, r.Summary.TestAtBest)
					}
				}
				if len(tests) == 0 {
					continue
				}
				st := ablation.NewStat(tests)
				ours.X, ours.Mean, ours.Std = append(ours.X, x), append(ours.Mean, st.Mean), append(ours.Std, st.Std)
			}
			if len(paper.X) > 0 {
				series = append(series, paper)
			}
			if len(ours.X) > 0 {
				series = append(series, ours)
			}
		}
		if !slices.ContainsFunc(series, func(s plots.Series) bool { return len(s.X) > 0 }) {
			return nil, fmt.Errorf("%s has no cells of %s", t.Label, dataset)
		}
		return plots.Ablation(title, "sampling ratio (%)", metric, series)
	}
}
