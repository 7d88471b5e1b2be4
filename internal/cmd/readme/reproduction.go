package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sgformer/sgformer/sgformer/ablation"
	"github.com/sgformer/sgformer/sgformer/training"
)

// paperCell is one cell of a table of the paper: a model on a dataset at a sampling ratio, the
// paper's mean ± std.
type paperCell struct {
	model, folder string // the row's name in the paper, and its runs' folder prefix
	dataset       string
	ratio         float64
	value         paperValue // as the paper writes it
	mean, std     float64
	changes       map[string]any // to the recipe, for the row (variant.changes)
	bench         string         // the row's name in BenchmarkRecipeStep (variant.benchName)
}

// molesolSampling and molbaceSampling are the cells of the paper's Tables "molesol-sampling"
// and "molbace-sampling".
var (
	molesolSampling = molesolSamplingTable.cells()
	molbaceSampling = molbaceSamplingTable.cells()
)

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
		rc, err := newReportContext(root)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString("| model | ratio | paper | ours | seeds | epochs | hyperparameters | status | CPU hours (3 seeds) |\n|---|---:|---|---|---|---|---|---|---:|\n")
		for _, c := range cells {
			runs, err := cellRuns(filepath.Join(root, dir, c.dir()), seeds)
			if err != nil {
				return "", err
			}
			paper := fmt.Sprintf("%.3f ± %.3f", c.mean, c.std)
			ratio := fmt.Sprintf("%g %%", 100*c.ratio)
			if len(runs) == 0 {
				cfg, _, err := cellConfig(c)
				if err != nil {
					return "", err
				}
				o := rc.bench.plannedOutcome(c, cfg.Epochs)
				fmt.Fprintf(&b, "| %s | %s | %s | — | — | — | — | %s | %s |\n", c.model, ratio, paper, o.status, o.hours)
				continue
			}
			o := runsOutcome(c, runs, seeds, 1, 3)
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.model, ratio, paper, o.ours, o.seeds, o.epochs,
				hyperparameters(runs[0].config), o.status, o.hours)
		}
		fmt.Fprintf(&b, "\nOurs: test RMSE at the best validation epoch, mean ± std (population, NumPy's default) over the seeds so far; runs in `%s/`. "+
			"CPU hours: the median epoch's seconds (after the first five, which compile XLA's programs) × epochs × 3 seeds, "+
			"with two runs sharing the machine's two cores; ≈: estimated from the benchmark (section [Estimates](#estimates)).\n", dir)
		return b.String(), nil
	}
}

// dir is the folder of the cell's runs in its table's folder.
func (c paperCell) dir() string { return fmt.Sprintf("%s_ratio-%g", c.folder, c.ratio) }

// cellRuns reads the runs seed-0 … seed-(seeds−1) in dir that have finished an epoch.
func cellRuns(dir string, seeds int) ([]seedRun, error) {
	var runs []seedRun
	for s := range seeds {
		run := filepath.Join(dir, fmt.Sprintf("seed-%d", s))
		if _, err := os.Stat(filepath.Join(run, training.SummaryFile)); err != nil {
			continue // not started, or stopped before its first epoch ended
		}
		r, err := readSeedRun(run)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// pairedSection compares two sets of runs of the same cells side by side, for the cells that
// have runs in both: names[0]'s in the folder dirs[0] (or the folder moved names for the cell)
// and names[1]'s in dirs[1], folders relative to the project root; where says where they are.
func pairedSection(names, dirs [2]string, moved map[string]string, cells []paperCell, seeds int, metric string, scale float64, where string) func(root string) (string, error) {
	return func(root string) (string, error) {
		var b strings.Builder
		fmt.Fprintf(&b, "| model | ratio | paper | %s | %s |\n|---|---:|---|---|---|\n", names[0], names[1])
		rows := 0
		for _, c := range cells {
			digits := 3 // as the paper writes the cell, where it is known
			if c.value.mean != "" {
				digits = decimals(c.value.mean)
			}
			var cols []string
			for i, dir := range []string{filepath.Join(dirs[0], c.dir()), filepath.Join(dirs[1], c.dir())} {
				if m, ok := moved[c.dir()]; ok && i == 0 {
					dir = m
				}
				runs, err := cellRuns(filepath.Join(root, dir), seeds)
				if err != nil {
					return "", err
				}
				if len(runs) == 0 {
					break
				}
				var tests []float64
				var desc []string
				for _, r := range runs {
					tests = append(tests, scale*r.summary.TestAtBest)
					desc = append(desc, fmt.Sprintf("%d: %.*f, %d ep", r.summary.Seed, digits, scale*r.summary.TestAtBest, r.summary.Epochs))
				}
				st := ablation.NewStat(tests)
				cols = append(cols, fmt.Sprintf("%.*f ± %.*f (seed %s)", digits, st.Mean, digits, st.Std, strings.Join(desc, "; ")))
			}
			if len(cols) < 2 {
				continue
			}
			rows++
			fmt.Fprintf(&b, "| %s | %g %% | %.*f ± %.*f | %s | %s |\n", c.model, 100*c.ratio, digits, c.mean, digits, c.std, cols[0], cols[1])
		}
		if rows == 0 {
			b.WriteString("| — | — | — | no cell has runs of both yet | |\n")
		}
		fmt.Fprintf(&b, "\nTest %s at the best validation epoch, mean ± std over the seeds so far, and per seed its test %s "+
			"and epochs trained; %s\n", metric, metric, where)
		for cell, dir := range moved {
			fmt.Fprintf(&b, "%s of %s: the runs of `%s` (docs/results.md, on the pure-Go backend).\n", names[0], cell, dir)
		}
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
	init, _ := c["init"].(string) // runs from before model.ParamInit started from GoMLX's
	return s + ", " + cmp.Or(init, "gomlx") + " start"
}
