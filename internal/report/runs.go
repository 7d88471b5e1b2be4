package report

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

	"github.com/sgformer/sgformer/plots"
	"github.com/sgformer/sgformer/sgformer/ablation"
	"github.com/sgformer/sgformer/sgformer/training"
)

// A seedRun is what a run folder written by sgformer train says: its summary (the test metric at
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

// RunFolder is where the runs of dataset's cells go under results/: scripts/repro.sh's tables
// for ogbg-molesol and ogbg-molbace, else the dataset's name.
func RunFolder(dataset string) string {
	switch dataset {
	case Molesol:
		return "results/reproduction/molesol-sampling"
	case Molbace:
		return "results/reproduction/molbace-sampling"
	}
	return "results/reproduction/" + dataset
}

// runsOf reads the runs of a cell in the project at root (RunFolder) that have finished an epoch.
func runsOf(root string, c Cell) ([]seedRun, error) {
	return cellRuns(filepath.Join(root, RunFolder(c.Dataset), c.dir()))
}

// cellRuns reads the runs seed-0 … seed-(seedCount−1) in dir that have finished an epoch.
func cellRuns(dir string) ([]seedRun, error) {
	var runs []seedRun
	for s := range seedCount {
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

// A PairedRow is a cell's runs of two sets side by side (Paired): the cell's model, its ratio
// in percent, the paper's value, and the runs of each set (seedsColumn).
type PairedRow struct{ Model, Ratio, Paper, A, B string }

// Paired returns the runs of two sets of cells side by side, for the cells that have runs in
// both: those in dirs[0] (or in the folder moved gives for the cell's folder) and in dirs[1],
// folders relative to root; and the test metric as the cells' table writes it.
func Paired(root string, cells []Cell, dirs [2]string, moved map[string]string) ([]PairedRow, string, error) {
	cfg, _, err := cellConfig(cells[0])
	if err != nil {
		return nil, "", err
	}
	scale, metric := metricScale(cfg), MetricName(cfg.Metric.Name)
	if scale == 100 {
		metric += " (%)"
	}
	var rows []PairedRow
	for _, c := range cells {
		first := filepath.Join(dirs[0], c.dir())
		if m, ok := moved[c.dir()]; ok {
			first = m
		}
		a, err := seedsColumn(filepath.Join(root, first), scale, decimals(c.Value.Mean))
		if err != nil {
			return nil, "", err
		}
		if a == "" {
			continue // not read further: none to pair
		}
		b, err := seedsColumn(filepath.Join(root, dirs[1], c.dir()), scale, decimals(c.Value.Mean))
		if err != nil {
			return nil, "", err
		}
		if b != "" {
			rows = append(rows, PairedRow{c.Model, Percent(c.Ratio), c.Value.String(), a, b})
		}
	}
	return rows, metric, nil
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

// MetricName is how the documents write a metric.
func MetricName(m string) string {
	if name, ok := map[string]string{"mae": "MAE", "rmse": "RMSE", "rocauc": "ROC-AUC", "ap": "AP"}[m]; ok {
		return name
	}
	return m
}

// A Seed is one of a configuration's runs: its summary, and the epochs it configures.
type Seed struct {
	*training.Summary
	Planned int
}

// SeedRuns are the runs of one configuration beside the paper's cell: each seed, the mean ±
// population std of their test metric at the best validation epoch, and whether a seed has
// epochs left.
type SeedRuns struct {
	Seeds   []Seed
	Ours    string
	Paper   Value
	Partial bool
}

// Seeds reads the runs dir/seed-* of one configuration (dir relative to root), beside the
// paper's cell.
func Seeds(root, dir string, paper Cell) (*SeedRuns, error) {
	dirs, err := filepath.Glob(filepath.Join(root, dir, "seed-*"))
	if err != nil || len(dirs) == 0 {
		return nil, fmt.Errorf("no runs %s/seed-*", dir)
	}
	s := &SeedRuns{Paper: paper.Value}
	var tests []float64
	for _, d := range dirs {
		r, err := readRun(d)
		if err != nil {
			return nil, err
		}
		if r.config == nil {
			return nil, fmt.Errorf("%s: config.json is not JSON", d)
		}
		s.Seeds = append(s.Seeds, Seed{r.summary, r.want})
		tests = append(tests, r.summary.TestAtBest)
		s.Partial = s.Partial || r.summary.Epochs < r.want
	}
	s.Ours, _, _ = meanStd(tests, 3)
	return s, nil
}

// Series are a sampling table's cells of dataset against the sampling ratio in percent, for a
// figure: per row the paper's mean ± std, and ours (mean ± std over the seeds that finished all
// their epochs) where there are some; an error where the table has no cell of dataset.
func Series(root string, t Table, dataset string) ([]plots.Series, error) {
	var series []plots.Series
	for _, row := range []Variant{sswlPlus, subgraphormer, SubgraphormerPE} {
		paper := plots.Series{Name: row.name + ", paper"}
		ours := plots.Series{Name: row.name + ", ours"}
		for _, c := range t.Cells() {
			if c.Dataset != dataset || c.Folder != row.folder {
				continue
			}
			x := 100 * c.Ratio
			paper.X, paper.Mean, paper.Std = append(paper.X, x), append(paper.Mean, c.Mean), append(paper.Std, c.Std)
			runs, err := runsOf(root, c)
			if err != nil {
				return nil, err
			}
			var tests []float64
			for _, r := range runs {
				if r.summary.Epochs >= r.want {
					tests = append(tests, r.summary.TestAtBest)
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
	return series, nil
}
