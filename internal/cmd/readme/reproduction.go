package main

import (
	"fmt"

	"github.com/sgformer/sgformer/internal/report"
)

// The sections of docs/reproduction.md (and the README's glance at it), one per table of the
// paper: internal/report computes each cell's value, ours, its status and the estimates; the
// templates lay them out.

// paperSection renders a table of the paper, cell by cell, and after it the runs of others
// that are not its cells.
func paperSection(t report.Table, others ...report.Other) func(root string) (string, error) {
	return func(root string) (string, error) {
		rp, err := report.New(root)
		if err != nil {
			return "", err
		}
		tr, err := rp.Table(t, others...)
		if err != nil {
			return "", err
		}
		return renderTemplate("_paper", "", nil, tr)
	}
}

// samplingSection renders scripts/repro.sh's runs of cells (a sampling table): the cells as the
// paper's tables have them (report.Row), with the ratio as a percent and the first run's
// hyperparameters.
func samplingSection(name string, cells []report.Cell) func(root string) (string, error) {
	return func(root string) (string, error) {
		rp, err := report.New(root)
		if err != nil {
			return "", err
		}
		var rows []report.Row
		for _, c := range cells {
			row, err := rp.Row(c)
			if err != nil {
				return "", err
			}
			row.Sampling = report.Percent(c.Ratio)
			rows = append(rows, row)
		}
		return renderTemplate(name, "", nil, map[string]any{"Rows": rows, "Folder": report.RunFolder(cells[0].Dataset)})
	}
}

// pairedSection renders templates/NAME.md.tmpl, which names two sets of runs of cells and says
// where they are, over their runs side by side (report.Paired).
func pairedSection(name string, cells []report.Cell, dirs [2]string, moved map[string]string) func(root string) (string, error) {
	return func(root string) (string, error) {
		rows, metric, err := report.Paired(root, cells, dirs, moved)
		if err != nil {
			return "", err
		}
		return renderTemplate(name, "", nil, map[string]any{"Rows": rows, "Metric": metric, "Dirs": dirs, "Moved": moved})
	}
}

// runTimeSection renders a run-time table of the paper: the parameter counts of the paper and
// ours, their seconds on an A100 and the CPU seconds of ours from the benchmark, and the test
// metric (report.RunTime).
func runTimeSection(t report.Table) func(root string) (string, error) {
	return func(root string) (string, error) {
		rp, err := report.New(root)
		if err != nil {
			return "", err
		}
		rows, dataset, err := rp.RunTime(t)
		if err != nil {
			return "", err
		}
		return renderTemplate("_run-time", report.BenchFile, nil, map[string]any{"Rows": rows, "Dataset": dataset, "Bench": report.BenchFile})
	}
}

// tallySection renders the section name (the README's results at a glance, the report's summary)
// from the tally of the cells (report.Tally).
func tallySection(name string) func(root string) (string, error) {
	return func(root string) (string, error) {
		rp, err := report.New(root)
		if err != nil {
			return "", err
		}
		t, err := rp.Tally()
		if err != nil {
			return "", err
		}
		return renderTemplate(name, report.BenchFile, nil, t)
	}
}

// estimatesSection renders the benchmark the estimates come from (report.Estimates) by
// templates/estimates.md.tmpl.
func estimatesSection(root string) (string, error) {
	rp, err := report.New(root)
	if err != nil {
		return "", err
	}
	es, err := rp.Estimates()
	switch {
	case err != nil:
		return "", err
	case es == nil:
		return fmt.Sprintf("`%s` has not been written yet (`scripts/bench-recipes.sh`).\n", report.BenchFile), nil
	}
	return renderTemplate("estimates", report.BenchFile, es.Records, es)
}

// recipesSection is the table of recipe.All (templates/recipes.md.tmpl), with each
// configuration's parameter count (report.Recipes).
func recipesSection(string) (string, error) {
	rows, err := report.Recipes()
	if err != nil {
		return "", err
	}
	return renderTemplate("recipes", "", nil, rows)
}
