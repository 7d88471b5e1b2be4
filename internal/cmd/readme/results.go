package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/sgformer/sgformer/internal/report"
	"github.com/sgformer/sgformer/sgformer/ablation"
	"github.com/sgformer/sgformer/sgformer/training"
)

// The results of README.md and docs/results.md, rendered from the run directories committed
// under results/ (templates/_run.md.tmpl).

// duration writes seconds as hours and minutes.
func duration(seconds float64) string {
	m := int(math.Round(seconds / 60))
	if m < 60 {
		return fmt.Sprintf("%d min", m)
	}
	return fmt.Sprintf("%d h %02d min", m/60, m%60)
}

// summarySection renders one run's summary line.
func summarySection(run string) func(root string) (string, error) {
	return func(root string) (string, error) {
		s, err := training.ReadSummary(filepath.Join(root, run))
		if err != nil {
			return "", err
		}
		return renderTemplate("_run", run, nil, map[string]any{"Run": run, "Summary": s})
	}
}

// epochsSection renders a run's per-epoch records and its summary.
func epochsSection(name, run string) func(root string) (string, error) {
	return func(root string) (string, error) {
		recs, err := training.ReadRecords(filepath.Join(root, run, training.MetricsFile))
		if err != nil {
			return "", err
		}
		s, err := training.ReadSummary(filepath.Join(root, run))
		if err != nil {
			return "", err
		}
		return renderTemplate(name, run, nil, map[string]any{"Run": run, "Summary": s, "Records": recs})
	}
}

// compareSection renders a `sgformer compare` output's compare.json.
func compareSection(name, dir string) func(root string) (string, error) {
	return func(root string) (string, error) {
		raw, err := os.ReadFile(filepath.Join(root, dir, "compare.json"))
		if err != nil {
			return "", err
		}
		var rows []training.Summary
		if err := json.Unmarshal(raw, &rows); err != nil {
			return "", err
		}
		if len(rows) == 0 {
			return "", fmt.Errorf("%s/compare.json holds no run", dir)
		}
		return renderTemplate(name, dir, nil, rows)
	}
}

// seedsSection renders the runs dir/seed-* of one configuration, and the mean ± population
// std of the test metric at the best validation epoch next to the paper's cell (report.Seeds).
func seedsSection(dir string, paper report.Cell) func(root string) (string, error) {
	return func(root string) (string, error) {
		s, err := report.Seeds(root, dir, paper)
		if err != nil {
			return "", err
		}
		return renderTemplate("_seeds", dir, nil, s)
	}
}

// tableSection renders the runs under dir as `sgformer table` does (ablation.Markdown).
func tableSection(dir string) func(root string) (string, error) {
	return func(root string) (string, error) {
		rows, err := ablation.Collect(filepath.Join(root, dir))
		if err != nil {
			return "", err
		}
		return ablation.Markdown(rows, 4), nil
	}
}
