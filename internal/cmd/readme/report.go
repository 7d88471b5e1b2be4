package main

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

// The sections of docs/reproduction.md, one per table of the paper: each cell the paper's value,
// ours where runs of its recipe exist under results/, and a status; where none exist, what the
// runs would take, estimated from results/benchmarks/recipes.jsonl.

const (
	// recipeBenchFile is what scripts/bench-recipes.sh measured: a training step and an
	// inference batch of each recipe.
	recipeBenchFile = "results/benchmarks/recipes.jsonl"
	// reportSeeds is the seeds a cell takes, as scripts/repro.sh runs them.
	reportSeeds = 3
	// gpuHours is the CPU time above which a cell's seeds are left to a GPU: two days of the
	// machine's two cores.
	gpuHours = 48.0
)

// runFolder is where the runs of dataset's cells go under results/: scripts/repro.sh's tables
// for ogbg-molesol and ogbg-molbace, else the dataset's name.
func runFolder(dataset string) string {
	switch dataset {
	case molesol:
		return "results/reproduction/molesol-sampling"
	case molbace:
		return "results/reproduction/molbace-sampling"
	}
	return "results/reproduction/" + dataset
}

// cellParams returns the hyperparameters of a cell: its dataset's recipe at its ratio
// (recipe.At), changed for its row (variant.changes).
func cellParams(c paperCell) (map[string]any, error) {
	params, _ := recipe.At(c.dataset, c.ratio)
	if params == nil {
		return nil, fmt.Errorf("no recipe for %s", c.dataset)
	}
	for k, v := range c.changes {
		if k == training.ParamSamplingRatio && c.ratio < 1 {
			continue
		}
		params[k] = v
	}
	return params, nil
}

// cellConfig returns the configuration of a cell's runs, and every parameter's value.
func cellConfig(c paperCell) (training.Config, map[string]any, error) {
	params, err := cellParams(c)
	if err != nil {
		return training.Config{}, nil, err
	}
	cfg, ctx, err := configOf(params)
	if err != nil {
		return cfg, nil, fmt.Errorf("%s at %g: %w", c.dataset, c.ratio, err)
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

// A reportRow is a cell of a paper's table as the report writes it, and its runs.
type reportRow struct {
	Model, Dataset, Sampling, Paper string
	Outcome
	runs []seedRun // none where the cell has not run
}

// HasRuns says whether the cell has run (its outcome is of its runs, not planned).
func (r reportRow) HasRuns() bool { return len(r.runs) > 0 }

// Hyperparameters summarises the configuration of the row's first run, "" where there is none.
func (r reportRow) Hyperparameters() string {
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
func runsOutcome(c paperCell, runs []seedRun, scale float64, digits int) Outcome {
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
	case done < reportSeeds:
		o.setStatus("partial", fmt.Sprintf("%d of %d seeds finished", done, reportSeeds))
	case mean-std <= c.mean+c.std && c.mean-c.std <= mean+std:
		o.setStatus("reproduced", "")
	default:
		o.setStatus("differs", fmt.Sprintf("%+.1f paper std", (mean-c.mean)/c.std))
	}
	return o
}

// reportContext is what the sections of a report share: the project root and the benchmark.
type reportContext struct {
	root  string
	bench *recipeBench
}

func newReportContext(root string) (*reportContext, error) {
	b, err := readRecipeBench(filepath.Join(root, recipeBenchFile))
	if err != nil {
		return nil, err
	}
	return &reportContext{root: root, bench: b}, nil
}

// row returns the row of a cell with its runs under runFolder: the runs' outcome, with the
// hyperparameters in which they differ from the cell's recipe, else the plan.
func (rc *reportContext) row(c paperCell) (reportRow, error) {
	row := reportRow{Model: c.model, Dataset: c.dataset, Sampling: ratioName(c.ratio), Paper: c.value.String()}
	cfg, want, err := cellConfig(c)
	if err != nil {
		return row, err
	}
	row.runs, err = cellRuns(filepath.Join(rc.root, runFolder(c.dataset), c.dir()))
	if err != nil || len(row.runs) == 0 {
		row.Outcome = rc.bench.plannedOutcome(c, cfg.Epochs)
		return row, err
	}
	var diffs []string
	for _, r := range row.runs {
		diffs = configDiff(diffs, r.config, want)
	}
	row.Outcome = runsOutcome(c, row.runs, metricScale(cfg), decimals(c.value.mean))
	if len(diffs) > 0 {
		row.Status += "; not the recipe: " + strings.Join(diffs, ", ")
	}
	return row, nil
}

// paperSection renders a table of the paper, cell by cell, and after it the runs of others
// that are not its cells (notes).
func paperSection(t paperTable, notes ...otherRun) func(root string) (string, error) {
	return func(root string) (string, error) {
		rc, err := newReportContext(root)
		if err != nil {
			return "", err
		}
		var rows []reportRow
		var folders, empty, unpublished, lines []string
		for _, c := range t.cells() {
			row, err := rc.row(c)
			if err != nil {
				return "", err
			}
			rows = append(rows, row)
			if len(row.runs) > 0 {
				folders = addNew(folders, runFolder(c.dataset))
			}
			if _, published := recipe.At(c.dataset, c.ratio); !published && c.folder != gin.folder {
				unpublished = addNew(unpublished, c.dataset)
			}
		}
		for _, c := range t.cells() {
			if f := runFolder(c.dataset); !slices.Contains(folders, f) {
				empty = addNew(empty, f)
			}
		}
		for _, n := range notes {
			line, err := n.render(root)
			if err != nil {
				return "", err
			}
			lines = append(lines, line)
		}
		return renderTemplate("_paper", "", nil, map[string]any{"Rows": rows, "Folders": folders, "Empty": empty, "Unpublished": unpublished, "Notes": lines})
	}
}

// ratioName writes a sampling ratio as the paper does.
func ratioName(r float64) string {
	if r == 1 {
		return "full bag"
	}
	return percent(r)
}

// percent writes a sampling ratio in percent.
func percent(r float64) string { return fmt.Sprintf("%g %%", 100*r) }

// An otherRun is a run under results/ of a table's dataset that is not one of its cells' (a toy,
// an earlier configuration): what it is, said beside the table, never counted in it.
type otherRun struct {
	dir  string    // relative to the root: a run, or a folder of runs seed-*
	cell paperCell // the cell whose recipe it is compared with
}

// render says what the run is: seeds, epochs, its test metric at the best validation epoch, its
// training subset, and how its configuration differs from the cell's recipe.
func (o otherRun) render(root string) (string, error) {
	dirs, err := filepath.Glob(filepath.Join(root, o.dir, "seed-*"))
	if err != nil {
		return "", err
	}
	if len(dirs) == 0 {
		dirs = []string{filepath.Join(root, o.dir)}
	}
	cfg, want, err := cellConfig(o.cell)
	if err != nil {
		return "", err
	}
	scale, digits := metricScale(cfg), decimals(o.cell.value.mean)
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
			desc += fmt.Sprintf(", on the first %s training graphs only", thousands(src.TrainSubset))
		}
		runs = append(runs, desc)
	}
	what := "the recipe of " + o.cell.model + " (" + ratioName(o.cell.ratio) + ")"
	if len(diffs) > 0 {
		what = "not the recipe of " + o.cell.model + " on `" + o.cell.dataset + "` (" + ratioName(o.cell.ratio) + "): " + strings.Join(diffs, ", ")
	}
	return fmt.Sprintf("[`%s`](../%s), not counted above: %s (test metric at the best validation epoch); %s.", o.dir, o.dir,
		strings.Join(runs, "; "), what), nil
}

// cellOf returns the cell of table t for the row v on dataset at ratio; it panics when there is
// none, a mistake in this program's tables.
func cellOf(t paperTable, dataset string, v variant, ratio float64) paperCell {
	for _, c := range t.cells() {
		if c.dataset == dataset && c.folder == v.folder && c.ratio == ratio {
			return c
		}
	}
	panic(fmt.Sprintf("%s has no cell %s on %s at %g", t.label, v.name, dataset, ratio))
}

// rowOf is v's row of t, a table with one row per variant (the run-time tables).
func rowOf(t paperTable, v variant) paperRow {
	for _, r := range t.rows {
		if r.cells[0].folder == v.folder {
			return r
		}
	}
	panic(fmt.Sprintf("%s has no row %s", t.label, v.name))
}

// runTimeSection renders a run-time table of the paper (its rows GIN, GNN-SSWL+ and
// Subgraphormer + PE; columns training seconds, test seconds, metric): the parameter counts of
// the paper and ours (model.ParameterCounts: ours, and as the authors' code counts), their
// seconds on an A100 and the CPU seconds of ours from the benchmark, and the test metric.
func runTimeSection(t paperTable) func(root string) (string, error) {
	return func(root string) (string, error) {
		rc, err := newReportContext(root)
		if err != nil {
			return "", err
		}
		type row struct {
			reportRow
			Params, Count, PaperTrain, PaperTest, Train, Test string
		}
		var rows []row
		for _, r := range t.rows {
			c := r.cells[2] // the test metric's: the cell of the row's runs
			params, err := cellParams(c)
			if err != nil {
				return "", err
			}
			ours, theirs, err := parameterCounts(c.dataset, params)
			if err != nil {
				return "", fmt.Errorf("%s on %s: %w", c.model, c.dataset, err)
			}
			x := row{Params: r.params, Count: thousands(ours), PaperTrain: r.cells[0].value.String(), PaperTest: r.cells[1].value.String(),
				Train: "not measured", Test: "not measured"}
			if theirs > 0 { // the authors' count is of Subgraphormer's modules
				x.Count += fmt.Sprintf(" (%s)", thousands(theirs))
			}
			if e, ok := rc.bench.own(c); ok {
				x.Train, x.Test = fmt.Sprintf("%.0f", e.train), fmt.Sprintf("%.1f", e.test)
			}
			if x.reportRow, err = rc.row(c); err != nil {
				return "", err
			}
			rows = append(rows, x)
		}
		return renderTemplate("_run-time", recipeBenchFile, nil, map[string]any{"Rows": rows, "Dataset": t.rows[0].cells[0].dataset, "Bench": recipeBenchFile})
	}
}

// statusTables are the tables whose cells have a status, in the order of docs/reproduction.md.
var statusTables = []paperTable{zincTable, ogbTable, peAblationTable, peptidesTable, alchemyTable, zincSamplingTable,
	molbaceSamplingTable, molesolSamplingTable, concatTable}

// statusKinds are the statuses a cell can have, in the order of the summary.
var statusKinds = []string{"reproduced", "differs", "partial", "not run yet", "needs GPU", "needs data", "not measured"}

// A tally is the cells of statusTables counted by the kind of their status (statusKinds): per
// table, and of the distinct cells (a cell of several tables, such as ogbg-molesol's full bag,
// counted once, as All), with the rows of the distinct cells measured on all their seeds
// (reproduced or differing), the CPU hours of those not run yet, and the estimates of those
// with runs past their first five epochs (a run of five epochs or fewer is still compiling).
type tally struct {
	Kinds           []string
	Tables          []tableCount
	All             tableCount
	Nonzero         []string // All's counts that are not 0, as "8 reproduced"
	Measured        []reportRow
	Hours, GPUHours string
	Estimates       []estimateRow
}

// A tableCount is a table's label, its number of cells, and their counts by kind.
type tableCount struct {
	Label  string
	Cells  int
	Counts []int
}

// newTally counts the cells of statusTables.
func (rc *reportContext) newTally() (*tally, error) {
	t := &tally{Kinds: statusKinds, All: tableCount{Label: "all, each cell once", Counts: make([]int, len(statusKinds))}, GPUHours: roundHours(gpuHours)}
	seen := map[string]bool{}
	total := 0.0 // the CPU hours of the distinct cells not run yet
	for _, table := range statusTables {
		tc := tableCount{Label: table.label, Cells: len(table.cells()), Counts: make([]int, len(statusKinds))}
		for _, c := range table.cells() {
			row, err := rc.row(c)
			if err != nil {
				return nil, err
			}
			k := slices.Index(statusKinds, row.kind)
			if k < 0 {
				return nil, fmt.Errorf("%s: status %q of no kind", table.label, row.Status)
			}
			tc.Counts[k]++
			if id := c.dataset + "/" + c.dir(); !seen[id] {
				seen[id] = true
				t.All.Cells++
				t.All.Counts[k]++
				switch row.kind {
				case "reproduced", "differs":
					t.Measured = append(t.Measured, row)
				case "not run yet": // rounded as its row writes it, so that the total is the rows' sum
					total += hoursAsWritten(row.hours)
				}
				e, ok := rc.bench.estimate(c)
				if ok && len(row.runs) > 0 && !slices.ContainsFunc(row.runs, func(r seedRun) bool { return r.summary.Epochs <= 5 }) {
					t.Estimates = append(t.Estimates, estimateRow{row, medianEpoch(row.runs), e.epoch()})
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

// tallySection renders the section name (the README's results at a glance, the report's summary)
// from the tally of the cells.
func tallySection(name string) func(root string) (string, error) {
	return func(root string) (string, error) {
		rc, err := newReportContext(root)
		if err != nil {
			return "", err
		}
		t, err := rc.newTally()
		if err != nil {
			return "", err
		}
		return renderTemplate(name, recipeBenchFile, nil, t)
	}
}
