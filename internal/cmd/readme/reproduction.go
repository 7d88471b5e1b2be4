package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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

// dir is the folder of the cell's runs in its table's folder.
func (c paperCell) dir() string { return fmt.Sprintf("%s_ratio-%g", c.folder, c.ratio) }

// molesolSampling and molbaceSampling are the cells of the paper's Tables "molesol-sampling"
// and "molbace-sampling".
var (
	molesolSampling = molesolSamplingTable.cells()
	molbaceSampling = molbaceSamplingTable.cells()
)

// seedRun is what a run folder written by sgformer train says: its summary (the test metric at
// the best validation epoch so far, the epochs trained), its configuration (nil where
// config.json is not JSON, an early run's format) and the epochs it configures, and the (upper)
// median seconds of its epochs after the first five (which compile XLA's programs for new batch
// shapes; 0 without metrics.jsonl).
type seedRun struct {
	summary   *training.Summary
	config    map[string]any
	want      int
	epochSecs float64
}

// readRun reads a run folder written by sgformer train.
func readRun(dir string) (seedRun, error) {
	var r seedRun
	var err error
	if r.summary, err = training.ReadSummary(dir); err != nil {
		return r, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, training.ConfigFile))
	if err != nil {
		return r, err
	}
	if json.Unmarshal(raw, &r.config) == nil {
		epochs, _ := r.config[training.ParamEpochs].(float64)
		r.want = int(epochs)
	}
	recs, err := training.ReadRecords(filepath.Join(dir, training.MetricsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return r, err
	}
	var secs []float64
	for _, rec := range recs[min(5, max(len(recs)-1, 0)):] {
		secs = append(secs, rec.Seconds)
	}
	r.epochSecs = upperMedian(secs)
	return r, nil
}

// cellRuns reads the runs seed-0 … seed-(reportSeeds−1) in dir that have finished an epoch.
func cellRuns(dir string) ([]seedRun, error) {
	var runs []seedRun
	for s := range reportSeeds {
		run := filepath.Join(dir, fmt.Sprintf("seed-%d", s))
		if _, err := os.Stat(filepath.Join(run, training.SummaryFile)); err != nil {
			continue // not started, or stopped before its first epoch ended
		}
		r, err := readRun(run)
		if err != nil {
			return nil, err
		}
		if r.config == nil || r.epochSecs == 0 {
			return nil, fmt.Errorf("%s: want its configuration as JSON and its epochs' records", run)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// upperMedian is the middle of xs sorted, the upper middle of an even count (0 for none): one
// epoch measured, not the mean of the middle two that the templates' median takes, as the
// report's epoch seconds and hours have been computed from the start (changing it would change
// the documents' estimates).
func upperMedian(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

// meanStd writes the mean ± population std (NumPy's default, the authors') of xs with digits
// decimals; and the mean.
func meanStd(xs []float64, digits int) (string, float64, float64) {
	st := ablation.NewStat(xs)
	return fmt.Sprintf("%.*f ± %.*f", digits, st.Mean, digits, st.Std), st.Mean, st.Std
}

// samplingSection renders scripts/repro.sh's runs of cells (a sampling table): the cells as the
// paper's tables have them (reportContext.row), with the ratio as a percent and the first
// run's hyperparameters.
func samplingSection(name string, cells []paperCell) func(root string) (string, error) {
	return func(root string) (string, error) {
		rc, err := newReportContext(root)
		if err != nil {
			return "", err
		}
		var rows []reportRow
		for _, c := range cells {
			row, err := rc.row(c)
			if err != nil {
				return "", err
			}
			row.Sampling = percent(c.ratio)
			rows = append(rows, row)
		}
		return renderTemplate(name, "", nil, map[string]any{"Rows": rows, "Folder": runFolder(cells[0].dataset)})
	}
}

// pairedSection renders templates/NAME.md.tmpl, which names two sets of runs of cells and says
// where they are, over their runs side by side, for the cells that have runs in both: those in
// dirs[0] (or in the folder moved gives for the cell's dir) and in dirs[1], folders relative to
// the project root; the test metric as the cells' table writes it.
func pairedSection(name string, cells []paperCell, dirs [2]string, moved map[string]string) func(root string) (string, error) {
	return func(root string) (string, error) {
		cfg, _, err := cellConfig(cells[0])
		if err != nil {
			return "", err
		}
		scale, metric := metricScale(cfg), metricName(cfg.Metric.Name)
		if scale == 100 {
			metric += " (%)"
		}
		type row struct{ Model, Ratio, Paper, A, B string }
		var rows []row
		for _, c := range cells {
			first := filepath.Join(dirs[0], c.dir())
			if m, ok := moved[c.dir()]; ok {
				first = m
			}
			a, err := seedsColumn(filepath.Join(root, first), scale, decimals(c.value.mean))
			if err != nil {
				return "", err
			}
			if a == "" {
				continue // not read further: none to pair
			}
			b, err := seedsColumn(filepath.Join(root, dirs[1], c.dir()), scale, decimals(c.value.mean))
			if err != nil {
				return "", err
			}
			if b != "" {
				rows = append(rows, row{c.model, percent(c.ratio), c.value.String(), a, b})
			}
		}
		return renderTemplate(name, "", nil, map[string]any{"Rows": rows, "Metric": metric, "Dirs": dirs, "Moved": moved})
	}
}

// seedsColumn writes the runs of a cell in dir: their test metric times scale with digits
// decimals, mean ± std and per seed with its epochs; "" where there are none.
func seedsColumn(dir string, scale float64, digits int) (string, error) {
	runs, err := cellRuns(dir)
	if err != nil || len(runs) == 0 {
		return "", err
	}
	var tests []float64
	var desc []string
	for _, r := range runs {
		tests = append(tests, scale*r.summary.TestAtBest)
		desc = append(desc, fmt.Sprintf("%d: %.*f, %d ep", r.summary.Seed, digits, scale*r.summary.TestAtBest, r.summary.Epochs))
	}
	ms, _, _ := meanStd(tests, digits)
	return fmt.Sprintf("%s (seed %s)", ms, strings.Join(desc, "; ")), nil
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
