// Package report is the reproduction report: the paper's tables (paper.csv) cell by cell
// against the runs under results/ (scripts/repro.sh's), with a status per cell (reproduced,
// differs, partial, or why it has not run) and, for a cell not run, an estimate of what its
// seeds would take from scripts/bench-recipes.sh's benchmark (BenchFile); and what the
// documents show of the runs beside it: a configuration's seeds (Seeds), two sets of runs side
// by side (Paired), a sampling table's series (Series), the recipes with their parameter counts
// (Recipes). internal/cmd/readme renders what it computes into docs/reproduction.md, the README
// and the pages that cite the runs (docs/gpu.md, docs/devices.md, docs/results.md).
package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/training"
)

const (
	// BenchFile is what scripts/bench-recipes.sh measured, relative to the project root: a
	// training step and an inference batch of each recipe.
	BenchFile = "results/benchmarks/recipes.jsonl"
	// seedCount is the seeds a cell takes, as scripts/repro.sh runs them.
	seedCount = 3
	// gpuHours is the CPU time above which a cell's seeds are left to a GPU: two days of the
	// machine's two cores.
	gpuHours = 48.0
)

// cellParams returns the hyperparameters of a cell: its dataset's recipe at its ratio
// (recipe.At), changed for its row (Variant.changes).
func cellParams(c Cell) (map[string]any, error) {
	params, _ := recipe.At(c.Dataset, c.Ratio)
	if params == nil {
		return nil, fmt.Errorf("no recipe for %s", c.Dataset)
	}
	for k, v := range c.changes {
		if k == training.ParamSamplingRatio && c.Ratio < 1 {
			continue
		}
		params[k] = v
	}
	return params, nil
}

// cellConfig returns the configuration of a cell's runs, and every parameter's value.
func cellConfig(c Cell) (training.Config, map[string]any, error) {
	params, err := cellParams(c)
	if err != nil {
		return training.Config{}, nil, err
	}
	cfg, ctx, err := ConfigOf(params)
	if err != nil {
		return cfg, nil, fmt.Errorf("%s at %g: %w", c.Dataset, c.Ratio, err)
	}
	full := map[string]any{}
	for _, p := range training.AllParams() {
		full[p.Name], _ = ctx.GetParam(p.Name)
	}
	return cfg, full, nil
}

// configDiff adds to diffs the hyperparameters in which a run's configuration (its config.json)
// differs from want, the cell's (cellConfig), as "name value (recipe: value)"; the seed and the
// epochs are the run's own. A parameter a run does not record (it predates it) has its default.
func configDiff(diffs []string, run, want map[string]any) []string {
	for _, p := range training.AllParams() {
		if p.Name == training.ParamSeed || p.Name == training.ParamEpochs {
			continue
		}
		got, ok := run[p.Name]
		if !ok {
			got = p.Default
		}
		if !sameValue(got, want[p.Name]) {
			diffs = addNew(diffs, fmt.Sprintf("%s %v (recipe: %v)", p.Name, got, want[p.Name]))
		}
	}
	return diffs
}

// sameValue compares a value read from JSON with a parameter's, numbers as numbers.
func sameValue(a, b any) bool {
	num := func(v any) (float64, bool) {
		switch x := v.(type) {
		case int:
			return float64(x), true
		case float64:
			return x, true
		}
		return 0, false
	}
	x, okx := num(a)
	y, oky := num(b)
	if okx && oky {
		return x == y
	}
	return a == b
}

// addNew appends x to list unless list holds it.
func addNew(list []string, x string) []string {
	if slices.Contains(list, x) {
		return list
	}
	return append(list, x)
}

// decimals is the number of decimals the paper writes a value with.
func decimals(s string) int {
	_, frac, _ := strings.Cut(s, ".")
	return len(frac)
}

// metricScale is the factor from our metric to the paper's: its ROC-AUC is in percent.
func metricScale(cfg training.Config) float64 {
	if cfg.Metric.Name == "rocauc" {
		return 100
	}
	return 1
}

// Outcome is what a cell's row says of ours: the test metric at the best validation epoch (mean
// ± std over the seeds), the seeds and their epochs, the status, and the CPU hours of its seeds as
// the row writes them; and, for the tally, the status's kind (one of statusKinds) and the hours
// as a number (0 where there is no estimate).
type Outcome struct {
	Ours, Seeds, Epochs, Status, Hours string
	kind                               string
	hours                              float64
}

// setStatus sets the outcome's kind and its status: the kind, and detail after a colon where
// there is one.
func (o *Outcome) setStatus(kind, detail string) {
	o.kind, o.Status = kind, kind
	if detail != "" {
		o.Status += ": " + detail
	}
}

// A Row is a cell of a paper's table as the report writes it, and its runs.
type Row struct {
	Model, Dataset, Sampling, Paper string
	Outcome
	runs []seedRun // none where the cell has not run
}

// HasRuns says whether the cell has run (its outcome is of its runs, not planned).
func (r Row) HasRuns() bool { return len(r.runs) > 0 }

// Hyperparameters summarises the configuration of the row's first run, "" where there is none.
func (r Row) Hyperparameters() string {
	if len(r.runs) == 0 {
		return ""
	}
	return hyperparameters(r.runs[0].config)
}

// medianEpoch is the upper median of the runs' epochs (seedRun.epochSecs).
func medianEpoch(runs []seedRun) float64 {
	var secs []float64
	for _, r := range runs {
		secs = append(secs, r.epochSecs)
	}
	return upperMedian(secs)
}

// runsOutcome is the outcome of a cell's runs (at least one), the test metric times scale with
// digits decimals: partial until each of the seeds has its epochs, then reproduced where the
// mean ± std intervals overlap, else differs by so many of the paper's std; the CPU hours of
// the seeds from the runs' median epoch.
func runsOutcome(c Cell, runs []seedRun, scale float64, digits int) Outcome {
	var tests []float64
	var seeds, epochs []string
	done := 0
	for _, r := range runs {
		tests = append(tests, scale*r.summary.TestAtBest)
		seeds = append(seeds, fmt.Sprint(r.summary.Seed))
		epochs = append(epochs, fmt.Sprint(r.summary.Epochs))
		if r.summary.Epochs >= r.want {
			done++
		}
	}
	ours, mean, std := meanStd(tests, digits)
	if len(runs) == 1 {
		ours = fmt.Sprintf("%.*f", digits, mean)
	}
	o := Outcome{Ours: ours, Seeds: strings.Join(seeds, ", "), Epochs: fmt.Sprintf("%s of %d", strings.Join(epochs, ", "), runs[0].want),
		hours: seedHours(medianEpoch(runs), runs[0].want)}
	o.Hours = fmt.Sprintf("%.1f", o.hours)
	switch {
	case done < seedCount:
		o.setStatus("partial", fmt.Sprintf("%d of %d seeds finished", done, seedCount))
	case mean-std <= c.Mean+c.Std && c.Mean-c.Std <= mean+std:
		o.setStatus("reproduced", "")
	default:
		o.setStatus("differs", fmt.Sprintf("%+.1f paper std", (mean-c.Mean)/c.Std))
	}
	return o
}

// A Report is the reproduction report of the project at a root: its runs under results/ and
// the benchmark (BenchFile) its estimates come from.
type Report struct {
	root  string
	bench *recipeBench
}

// New reads the report of the project at root.
func New(root string) (*Report, error) {
	b, err := readRecipeBench(filepath.Join(root, BenchFile))
	if err != nil {
		return nil, err
	}
	return &Report{root: root, bench: b}, nil
}

// Row returns the row of a cell with its runs under RunFolder: the runs' outcome, with the
// hyperparameters in which they differ from the cell's recipe, else the plan.
func (rp *Report) Row(c Cell) (Row, error) {
	row := Row{Model: c.Model, Dataset: c.Dataset, Sampling: ratioName(c.Ratio), Paper: c.Value.String()}
	cfg, want, err := cellConfig(c)
	if err != nil {
		return row, err
	}
	row.runs, err = runsOf(rp.root, c)
	if err != nil || len(row.runs) == 0 {
		row.Outcome = rp.bench.plannedOutcome(c, cfg.Epochs)
		return row, err
	}
	var diffs []string
	for _, r := range row.runs {
		diffs = configDiff(diffs, r.config, want)
	}
	row.Outcome = runsOutcome(c, row.runs, metricScale(cfg), decimals(c.Value.Mean))
	if len(diffs) > 0 {
		row.Status += "; not the recipe: " + strings.Join(diffs, ", ")
	}
	return row, nil
}

// A TableReport is a table of the paper as the report gives it: its cells' rows, the folders of
// their runs (Folders, those with runs; Empty, those without), the datasets whose cells the
// paper gives no recipe for, and what the runs beside the table that are not its cells are
// (Other.render).
type TableReport struct {
	Rows                               []Row
	Folders, Empty, Unpublished, Notes []string
}

// Table returns the report of a table of the paper, cell by cell, and of the runs of others
// that are not its cells.
func (rp *Report) Table(t Table, others ...Other) (*TableReport, error) {
	tr := &TableReport{}
	for _, c := range t.Cells() {
		row, err := rp.Row(c)
		if err != nil {
			return nil, err
		}
		tr.Rows = append(tr.Rows, row)
		if len(row.runs) > 0 {
			tr.Folders = addNew(tr.Folders, RunFolder(c.Dataset))
		}
		if _, published := recipe.At(c.Dataset, c.Ratio); !published && c.Folder != gin.folder {
			tr.Unpublished = addNew(tr.Unpublished, c.Dataset)
		}
	}
	for _, c := range t.Cells() {
		if f := RunFolder(c.Dataset); !slices.Contains(tr.Folders, f) {
			tr.Empty = addNew(tr.Empty, f)
		}
	}
	for _, o := range others {
		line, err := o.render(rp.root)
		if err != nil {
			return nil, err
		}
		tr.Notes = append(tr.Notes, line)
	}
	return tr, nil
}

// ratioName writes a sampling ratio as the paper does.
func ratioName(r float64) string {
	if r == 1 {
		return "full bag"
	}
	return Percent(r)
}

// Percent writes a sampling ratio in percent.
func Percent(r float64) string { return fmt.Sprintf("%g %%", 100*r) }

// An Other is a run under results/ of a table's dataset that is not one of its cells' (a toy,
// an earlier configuration): what it is, said beside the table, never counted in it.
type Other struct {
	Dir  string // relative to the root: a run, or a folder of runs seed-*
	Cell Cell   // the cell whose recipe it is compared with
}

// render says what the run is: seeds, epochs, its test metric at the best validation epoch, its
// training subset, and how its configuration differs from the cell's recipe.
func (o Other) render(root string) (string, error) {
	dirs, err := filepath.Glob(filepath.Join(root, o.Dir, "seed-*"))
	if err != nil {
		return "", err
	}
	if len(dirs) == 0 {
		dirs = []string{filepath.Join(root, o.Dir)}
	}
	cfg, want, err := cellConfig(o.Cell)
	if err != nil {
		return "", err
	}
	scale, digits := metricScale(cfg), decimals(o.Cell.Value.Mean)
	var runs, diffs []string
	for _, d := range dirs {
		r, err := readRun(d)
		if err != nil {
			return "", err
		}
		desc := fmt.Sprintf("seed %d: %.*f after %d", r.summary.Seed, digits, scale*r.summary.TestAtBest, r.summary.Epochs)
		if r.config == nil {
			diffs = addNew(diffs, "config.json not JSON (an early run's format)")
		} else {
			diffs = configDiff(diffs, r.config, want)
			desc += fmt.Sprintf(" of %d", r.want)
		}
		desc += " epochs"
		src, err := training.ReadSource(d)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if src.TrainSubset > 0 {
			desc += fmt.Sprintf(", on the first %s training graphs only", Thousands(src.TrainSubset))
		}
		runs = append(runs, desc)
	}
	what := "the recipe of " + o.Cell.Model + " (" + ratioName(o.Cell.Ratio) + ")"
	if len(diffs) > 0 {
		what = "not the recipe of " + o.Cell.Model + " on `" + o.Cell.Dataset + "` (" + ratioName(o.Cell.Ratio) + "): " + strings.Join(diffs, ", ")
	}
	return fmt.Sprintf("[`%s`](../%s), not counted above: %s (test metric at the best validation epoch); %s.", o.Dir, o.Dir,
		strings.Join(runs, "; "), what), nil
}

// A RunTimeRow is a row of a run-time table: the cell of its test metric (Row), the parameter
// counts of the paper and ours (ours, and in parentheses the authors' count where it differs),
// and the seconds of a training epoch and of inference on the test set, the paper's (A100) and
// ours (CPU seconds of the benchmark, "not measured" without).
type RunTimeRow struct {
	Row
	Params, Count, PaperTrain, PaperTest, Train, Test string
}

// RunTime returns the rows of a run-time table of the paper (its rows GIN, GNN-SSWL+ and
// Subgraphormer + PE; columns training seconds, test seconds, metric), and the dataset of its
// cells.
func (rp *Report) RunTime(t Table) ([]RunTimeRow, string, error) {
	var rows []RunTimeRow
	for _, r := range t.rows {
		c := r.Cells[2] // the test metric's: the cell of the row's runs
		params, err := cellParams(c)
		if err != nil {
			return nil, "", err
		}
		ours, theirs, err := parameterCounts(c.Dataset, params)
		if err != nil {
			return nil, "", fmt.Errorf("%s on %s: %w", c.Model, c.Dataset, err)
		}
		x := RunTimeRow{Params: r.params, Count: Thousands(ours), PaperTrain: r.Cells[0].Value.String(), PaperTest: r.Cells[1].Value.String(),
			Train: "not measured", Test: "not measured"}
		if theirs > 0 { // the authors' count is of Subgraphormer's modules
			x.Count += fmt.Sprintf(" (%s)", Thousands(theirs))
		}
		if e, ok := rp.bench.own(c); ok {
			x.Train, x.Test = fmt.Sprintf("%.0f", e.train), fmt.Sprintf("%.1f", e.test)
		}
		if x.Row, err = rp.Row(c); err != nil {
			return nil, "", err
		}
		rows = append(rows, x)
	}
	return rows, t.rows[0].Cells[0].Dataset, nil
}

// statusTables are the tables whose cells have a status, in the order of docs/reproduction.md.
var statusTables = []Table{ZINCTable, OGBTable, PEAblationTable, PeptidesTable, AlchemyTable, ZINCSamplingTable,
	MolbaceSamplingTable, MolesolSamplingTable, ConcatTable}

// statusKinds are the statuses a cell can have, in the order of the summary.
var statusKinds = []string{"reproduced", "differs", "partial", "not run yet", "needs GPU", "needs data", "not measured"}

// A Tally is the cells of statusTables counted by the kind of their status (statusKinds): per
// table, and of the distinct cells (a cell of several tables, such as ogbg-molesol's full bag,
// counted once, as All), with the rows of the distinct cells measured on all their seeds
// (reproduced or differing), the CPU hours of those not run yet, and the estimates of those
// with runs past their first five epochs (a run of five epochs or fewer is still compiling).
type Tally struct {
	Kinds           []string
	Tables          []TableCount
	All             TableCount
	Nonzero         []string // All's counts that are not 0, as "8 reproduced"
	Measured        []Row
	Hours, GPUHours string
	Estimates       []EstimateRow
}

// A TableCount is a table's label, its number of cells, and their counts by kind.
type TableCount struct {
	Label  string
	Cells  int
	Counts []int
}

// Tally counts the cells of the paper's tables that have a status.
func (rp *Report) Tally() (*Tally, error) {
	t := &Tally{Kinds: statusKinds, All: TableCount{Label: "all, each cell once", Counts: make([]int, len(statusKinds))}, GPUHours: roundHours(gpuHours)}
	seen := map[string]bool{}
	total := 0.0 // the CPU hours of the distinct cells not run yet
	for _, table := range statusTables {
		tc := TableCount{Label: table.Label, Cells: len(table.Cells()), Counts: make([]int, len(statusKinds))}
		for _, c := range table.Cells() {
			row, err := rp.Row(c)
			if err != nil {
				return nil, err
			}
			k := slices.Index(statusKinds, row.kind)
			if k < 0 {
				return nil, fmt.Errorf("%s: status %q of no kind", table.Label, row.Status)
			}
			tc.Counts[k]++
			if id := c.Dataset + "/" + c.dir(); !seen[id] {
				seen[id] = true
				t.All.Cells++
				t.All.Counts[k]++
				switch row.kind {
				case "reproduced", "differs":
					t.Measured = append(t.Measured, row)
				case "not run yet": // rounded as its row writes it, so that the total is the rows' sum
					total += hoursAsWritten(row.hours)
				}
				e, ok := rp.bench.estimate(c)
				if ok && len(row.runs) > 0 && !slices.ContainsFunc(row.runs, func(r seedRun) bool { return r.summary.Epochs <= 5 }) {
					t.Estimates = append(t.Estimates, EstimateRow{row, medianEpoch(row.runs), e.epoch()})
				}
			}
		}
		t.Tables = append(t.Tables, tc)
	}
	t.Hours = roundHours(total)
	for k, n := range t.All.Counts {
		if n > 0 {
			t.Nonzero = append(t.Nonzero, fmt.Sprintf("%d %s", n, statusKinds[k]))
		}
	}
	return t, nil
}
