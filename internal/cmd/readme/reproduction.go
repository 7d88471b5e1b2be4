package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sgformer/sgformer/sgformer/training"
)

// paperCell is one cell of a table of the paper: a model at a sampling ratio, its mean ± std.
type paperCell struct {
	model, folder string // the row's name in the paper, and its runs' folder prefix
	ratio         float64
	mean, std     float64
	// runs, if set, is the folder of the cell's seed-N runs, relative to the project root,
	// when they were made before the table's runs (else DIR/FOLDER_ratio-R).
	runs string
}

// molesolSampling is the paper's Table "molesol-sampling" (App. "Extended Experimental
// Section"): test RMSE of ogbg-molesol, mean ± std.
var molesolSampling = []paperCell{
	{"GNN-SSWL+", "sswlplus", 1, 0.837, 0.019, ""}, {"GNN-SSWL+", "sswlplus", 0.5, 0.886, 0.026, ""},
	{"GNN-SSWL+", "sswlplus", 0.2, 1.180, 0.036, ""}, {"GNN-SSWL+", "sswlplus", 0.05, 1.299, 0.044, ""},
	{"Subgraphormer", "subgraphormer", 1, 0.832, 0.043, ""}, {"Subgraphormer", "subgraphormer", 0.5, 0.829, 0.013, ""},
	{"Subgraphormer", "subgraphormer", 0.2, 1.093, 0.009, ""}, {"Subgraphormer", "subgraphormer", 0.05, 1.266, 0.019, ""},
	{"Subgraphormer + PE", "subgraphormer-pe", 1, 0.826, 0.010, "results/ogbg-molesol-paper"},
	{"Subgraphormer + PE", "subgraphormer-pe", 0.5, 0.812, 0.001, ""},
	{"Subgraphormer + PE", "subgraphormer-pe", 0.2, 1.041, 0.030, ""}, {"Subgraphormer + PE", "subgraphormer-pe", 0.05, 1.270, 0.007, ""},
}

// seedRun is what one seed's run folder says: its summary (the test metric at the best
// validation epoch so far, the epochs trained), the epochs configured, the median seconds of its
// epochs after the first five (which compile XLA's programs for new batch shapes), and its
// configuration.
type seedRun struct {
	summary   *training.Summary
	want      int
	epochSecs float64
	config    map[string]any
}

// readSeedRun reads a run folder written by sgformer train.
func readSeedRun(dir string) (seedRun, error) {
	var r seedRun
	var err error
	if r.summary, err = training.ReadSummary(dir); err != nil {
		return r, err
	}
	if r.want, err = plannedEpochs(dir); err != nil {
		return r, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, training.ConfigFile))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(raw, &r.config); err != nil {
		return r, fmt.Errorf("%s: %w", dir, err)
	}
	recs, err := training.ReadRecords(filepath.Join(dir, training.MetricsFile))
	if err != nil {
		return r, err
	}
	if len(recs) == 0 {
		return r, fmt.Errorf("%s: no epochs", dir)
	}
	var secs []float64
	for _, rec := range recs[min(5, len(recs)-1):] {
		secs = append(secs, rec.Seconds)
	}
	slices.Sort(secs)
	r.epochSecs = secs[len(secs)/2]
	return r, nil
}

// samplingSection renders the runs of scripts/repro.sh's table under dir against the paper's
// cells: ours (mean ± std of the test metric at the best validation epoch), seeds, epochs, the
// hyperparameters, a status, and the plan (CPU hours per cell from measured epoch times).
func samplingSection(dir string, cells []paperCell, seeds int) func(root string) (string, error) {
	return func(root string) (string, error) {
		var b strings.Builder
		b.WriteString("| model | ratio | paper | ours | seeds | epochs | hyperparameters | status | CPU hours (3 seeds) |\n|---|---:|---|---|---|---|---|---|---:|\n")
		for _, c := range cells {
			cellDir := filepath.Join(dir, fmt.Sprintf("%s_ratio-%g", c.folder, c.ratio))
			if c.runs != "" {
				cellDir = c.runs
			}
			var runs []seedRun
			for s := range seeds {
				run := filepath.Join(root, cellDir, fmt.Sprintf("seed-%d", s))
				if _, err := os.Stat(filepath.Join(run, training.SummaryFile)); err != nil {
					continue // not started, or stopped before its first epoch ended
				}
				r, err := readSeedRun(run)
				if err != nil {
					return "", err
				}
				runs = append(runs, r)
			}
			paper := fmt.Sprintf("%.3f ± %.3f", c.mean, c.std)
			ratio := fmt.Sprintf("%g %%", 100*c.ratio)
			if len(runs) == 0 {
				fmt.Fprintf(&b, "| %s | %s | %s | — | — | — | — | not run yet | not measured yet |\n", c.model, ratio, paper)
				continue
			}
			var tests, secs []float64
			var seedNames, epochs []string
			done := 0
			for _, r := range runs {
				tests = append(tests, r.summary.TestAtBest)
				secs = append(secs, r.epochSecs)
				seedNames = append(seedNames, fmt.Sprint(r.summary.Seed))
				epochs = append(epochs, fmt.Sprint(r.summary.Epochs))
				if r.summary.Epochs >= r.want {
					done++
				}
			}
			mean, std := meanStd(tests)
			ours := fmt.Sprintf("%.3f ± %.3f", mean, std)
			if len(runs) == 1 {
				ours = fmt.Sprintf("%.3f", mean)
			}
			var status string
			switch {
			case done < seeds:
				status = fmt.Sprintf("partial: %d of %d seeds finished", done, seeds)
			case mean-std <= c.mean+c.std && c.mean-c.std <= mean+std:
				status = "reproduced"
			default:
				status = fmt.Sprintf("differs: %+.1f paper std", (mean-c.mean)/c.std)
			}
			slices.Sort(secs)
			hours := secs[len(secs)/2] * float64(runs[0].want) * float64(seeds) / 3600
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s of %d | %s | %s | %.1f |\n", c.model, ratio, paper, ours,
				strings.Join(seedNames, ", "), strings.Join(epochs, ", "), runs[0].want, hyperparameters(runs[0].config), status, hours)
		}
		for _, c := range cells {
			if c.runs != "" {
				fmt.Fprintf(&b, "\n%s at %g %%: the runs of `%s` (the README's Results), trained on the pure-Go backend before this table's runs.\n", c.model, 100*c.ratio, c.runs)
			}
		}
		fmt.Fprintf(&b, "\nOurs: test RMSE at the best validation epoch, mean ± std (population, NumPy's default) over the seeds so far; runs in `%s/`. "+
			"CPU hours: the median epoch's seconds (after the first five, which compile XLA's programs) × epochs × 3 seeds, "+
			"with two runs sharing the machine's two cores.\n", dir)
		return b.String(), nil
	}
}

// hyperparameters summarises a run's configuration as the paper's appendix tables give it.
func hyperparameters(c map[string]any) string {
	num := func(k string) string { return fmt.Sprint(c[k]) }
	s := fmt.Sprintf("%s, %s × %s, k = %s, lr %s, dropout %s, batch %s", num("model"), num("layers"), num("hidden"),
		num("pe_k"), num("learning_rate"), num("dropout"), num("batch_size"))
	if r, _ := c["sampling_ratio"].(float64); r < 1 {
		s += ", " + num("eval_samples") + " evaluation draws"
	}
	return s
}
