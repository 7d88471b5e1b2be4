package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/sgformer/sgformer/sgformer/ablation"
	"github.com/sgformer/sgformer/sgformer/training"
)

// The results of README.md and docs/results.md, rendered from the run directories committed under results/.

// metricName is how the README writes a metric.
func metricName(m string) string {
	if name, ok := map[string]string{"mae": "MAE", "rmse": "RMSE", "rocauc": "ROC-AUC", "ap": "AP"}[m]; ok {
		return name
	}
	return m
}

// runLine describes a run's summary: the test metric at the best validation epoch.
func runLine(s *training.Summary) string {
	return fmt.Sprintf("test %s **%.4f** at the best validation epoch %d of %d (validation %s %.4f), %s parameters, %s of training and evaluation",
		metricName(s.Metric), s.TestAtBest, s.BestEpoch, s.Epochs, metricName(s.Metric), s.BestValid, thousands(s.Parameters), duration(s.Seconds))
}

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
		return fmt.Sprintf("`%s`: %s.\n", run, runLine(s)), nil
	}
}

// epochsSection renders a run's per-epoch records and its summary.
func epochsSection(run string) func(root string) (string, error) {
	return func(root string) (string, error) {
		recs, err := training.ReadRecords(filepath.Join(root, run, training.MetricsFile))
		if err != nil {
			return "", err
		}
		s, err := training.ReadSummary(filepath.Join(root, run))
		if err != nil {
			return "", err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "| epoch | train loss | val %s | test %s | seconds |\n|---:|---:|---:|---:|---:|\n", metricName(s.Metric), metricName(s.Metric))
		for _, r := range recs {
			fmt.Fprintf(&b, "| %d | %.3f | %.3f | %.3f | %.0f |\n", r.Epoch, r.TrainLoss, r.Valid, r.Test, r.Seconds)
		}
		fmt.Fprintf(&b, "\n`%s`: %s.\n", run, runLine(s))
		return b.String(), nil
	}
}

// compareSection renders a `sgformer compare` output's compare.json.
func compareSection(dir string) func(root string) (string, error) {
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
		var b strings.Builder
		fmt.Fprintf(&b, "| model | parameters | best epoch | val %s | test %s | seconds |\n|---|---:|---:|---:|---:|---:|\n", metricName(rows[0].Metric), metricName(rows[0].Metric))
		for _, r := range rows {
			fmt.Fprintf(&b, "| %s | %d | %d/%d | %.4f | %.4f | %.0f |\n", r.Model, r.Parameters, r.BestEpoch, r.Epochs, r.BestValid, r.TestAtBest, r.Seconds)
		}
		return b.String(), nil
	}
}

// seedsSection renders the runs dir/seed-* of one configuration, and the mean ± population
// std of the test metric at the best validation epoch next to the paper's.
func seedsSection(dir, paper string) func(root string) (string, error) {
	return func(root string) (string, error) {
		runs, err := filepath.Glob(filepath.Join(root, dir, "seed-*"))
		if err != nil || len(runs) == 0 {
			return "", fmt.Errorf("no runs %s/seed-*", dir)
		}
		var b strings.Builder
		var tests []float64
		metric, partial := "", false
		for i, run := range runs {
			s, err := training.ReadSummary(run)
			if err != nil {
				return "", err
			}
			if i == 0 {
				metric = metricName(s.Metric)
				fmt.Fprintf(&b, "| seed | epochs | best epoch | val %s | test %s | parameters | seconds |\n|---:|---:|---:|---:|---:|---:|---:|\n", metric, metric)
			}
			planned, err := plannedEpochs(run)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "| %d | %d of %d | %d | %.4f | %.4f | %s | %.0f |\n", s.Seed, s.Epochs, planned, s.BestEpoch, s.BestValid, s.TestAtBest, thousands(s.Parameters), s.Seconds)
			tests = append(tests, s.TestAtBest)
			if s.Epochs < planned {
				partial = true
			}
		}
		st := ablation.NewStat(tests)
		mean, std := st.Mean, st.Std
		state := ""
		if partial {
			state = " — the runs are not finished; these are the best epochs so far"
		}
		fmt.Fprintf(&b, "\nTest %s at the best validation epoch, mean ± std over %d seeds: **%.3f ± %.3f** (the paper: %s)%s.\n", metric, len(tests), mean, std, paper, state)
		return b.String(), nil
	}
}

// plannedEpochs returns the number of epochs a run is configured for.
func plannedEpochs(run string) (int, error) {
	raw, err := os.ReadFile(filepath.Join(run, training.ConfigFile))
	if err != nil {
		return 0, err
	}
	var config struct {
		Epochs int `json:"epochs"`
	}
	if err := json.Unmarshal(raw, &config); err != nil {
		return 0, fmt.Errorf("%s: %w", filepath.Join(run, training.ConfigFile), err)
	}
	return config.Epochs, nil
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
