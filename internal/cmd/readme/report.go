package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/ablation"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
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
// (recipe.At), changed for its row (variant.changes), and whether the paper published
// that recipe.
func cellParams(c paperCell) (map[string]any, bool, error) {
	params, published := recipe.At(c.dataset, c.ratio)
	if params == nil {
		return nil, false, fmt.Errorf("no recipe for %s", c.dataset)
	}
	for k, v := range c.changes {
		if k == training.ParamSamplingRatio && c.ratio < 1 {
			continue
		}
		params[k] = v
	}
	return params, published, nil
}

// cellConfig returns the configuration of a cell's runs.
func cellConfig(c paperCell) (training.Config, map[string]any, error) {
	params, _, err := cellParams(c)
	if err != nil {
		return training.Config{}, nil, err
	}
	ctx := context.New()
	training.Defaults(ctx)
	ctx.SetParams(params)
	cfg, err := training.ReadConfig(ctx)
	if err != nil {
		return cfg, nil, fmt.Errorf("%s at %g: %w", c.dataset, c.ratio, err)
	}
	full := map[string]any{}
	for _, p := range training.AllParams() {
		full[p.Name], _ = ctx.GetParam(p.Name)
	}
	return cfg, full, nil
}

// configDiff lists the hyperparameters in which a run's configuration (its config.json) differs
// from want, the cell's (cellConfig), as "name value (recipe: value)"; the seed and the epochs
// are the run's own. A parameter a run does not record (it predates it) has its default.
func configDiff(run, want map[string]any) []string {
	var diffs []string
	for _, p := range training.AllParams() {
		if p.Name == training.ParamSeed || p.Name == training.ParamEpochs {
			continue
		}
		got, ok := run[p.Name]
		if !ok {
			got = p.Default
		}
		if !sameValue(got, want[p.Name]) {
			diffs = append(diffs, fmt.Sprintf("%s %v (recipe: %v)", p.Name, got, want[p.Name]))
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

// decimals is the number of decimals the paper writes a value with.
func decimals(s string) int {
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}

// metricScale is the factor from our metric to the paper's: its ROC-AUC is in percent.
func metricScale(cfg training.Config) float64 {
	if cfg.Metric.Name == "rocauc" {
		return 100
	}
	return 1
}

// outcome is what a cell's row says of ours.
type outcome struct {
	ours, seeds, epochs, status, hours string
}

// runsOutcome is the outcome of a cell's runs (at least one): ours, mean ± std of the test
// metric at the best validation epoch times scale with digits decimals; the seeds and epochs;
// the status; and the CPU hours of seeds seeds from the runs' median epoch.
func runsOutcome(c paperCell, runs []seedRun, seeds int, scale float64, digits int) outcome {
	var tests, secs []float64
	var seedNames, epochs []string
	done := 0
	for _, r := range runs {
		tests = append(tests, scale*r.summary.TestAtBest)
		secs = append(secs, r.epochSecs)
		seedNames = append(seedNames, fmt.Sprint(r.summary.Seed))
		epochs = append(epochs, fmt.Sprint(r.summary.Epochs))
		if r.summary.Epochs >= r.want {
			done++
		}
	}
	st := ablation.NewStat(tests)
	mean, std := st.Mean, st.Std
	ours := fmt.Sprintf("%.*f ± %.*f", digits, mean, digits, std)
	if len(runs) == 1 {
		ours = fmt.Sprintf("%.*f", digits, mean)
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
	return outcome{ours: ours, seeds: strings.Join(seedNames, ", "), epochs: fmt.Sprintf("%s of %d", strings.Join(epochs, ", "), runs[0].want),
		status: status, hours: fmt.Sprintf("%.1f", hours)}
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

// cell returns the outcome of a cell: its runs' under runFolder, else the plan; and its
// configuration's epochs.
func (rc *reportContext) cell(c paperCell) (outcome, []string, error) {
	cfg, want, err := cellConfig(c)
	if err != nil {
		return outcome{}, nil, err
	}
	runs, err := cellRuns(filepath.Join(rc.root, runFolder(c.dataset), c.dir()), reportSeeds)
	if err != nil {
		return outcome{}, nil, err
	}
	if len(runs) == 0 {
		return rc.bench.plannedOutcome(c, cfg.Epochs), nil, nil
	}
	var diffs []string
	for _, r := range runs {
		for _, d := range configDiff(r.config, want) {
			if !slices.Contains(diffs, d) {
				diffs = append(diffs, d)
			}
		}
	}
	o := runsOutcome(c, runs, reportSeeds, metricScale(cfg), decimals(c.value.mean))
	if len(diffs) > 0 {
		o.status += "; not the recipe: " + strings.Join(diffs, ", ")
	}
	return o, []string{runFolder(c.dataset)}, nil
}

// paperSection renders a table of the paper, cell by cell, and after it the runs of others
// that are not its cells (notes).
func paperSection(t paperTable, notes ...otherRun) func(root string) (string, error) {
	return func(root string) (string, error) {
		rc, err := newReportContext(root)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString("| model | dataset | sampling | paper | ours | seeds | epochs | status | CPU hours (3 seeds) |\n|---|---|---:|---|---|---|---|---|---:|\n")
		var folders, unpublished []string
		for _, c := range t.cells() {
			o, dirs, err := rc.cell(c)
			if err != nil {
				return "", err
			}
			for _, d := range dirs {
				if !slices.Contains(folders, d) {
					folders = append(folders, d)
				}
			}
			if _, published, _ := cellParams(c); !published && c.folder != gin.folder && !slices.Contains(unpublished, c.dataset) {
				unpublished = append(unpublished, c.dataset)
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s ± %s | %s | %s | %s | %s | %s |\n", c.model, c.dataset, ratioName(c.ratio),
				c.value.mean, c.value.std, o.ours, o.seeds, o.epochs, o.status, o.hours)
		}
		b.WriteString("\n")
		if len(folders) > 0 {
			var links []string
			for _, f := range folders {
				links = append(links, fmt.Sprintf("[`%s/`](../%s)", f, f))
			}
			fmt.Fprintf(&b, "Runs: %s. ", strings.Join(links, ", "))
		}
		var empty []string
		for _, c := range t.cells() {
			if f := runFolder(c.dataset); !slices.Contains(folders, f) && !slices.Contains(empty, f) {
				empty = append(empty, f)
			}
		}
		if len(empty) > 0 {
			fmt.Fprintf(&b, "No runs yet in `%s/`. ", strings.Join(empty, "/`, `"))
		}
		if len(unpublished) > 0 {
			fmt.Fprintf(&b, "The paper gives no recipe for %s at this sampling ratio: its cells take the dataset's full-bag recipe at the ratio (`recipe.At`). ", strings.Join(unpublished, ", "))
		}
		b.WriteString("\n")
		for _, n := range notes {
			line, err := n.render(root)
			if err != nil {
				return "", err
			}
			b.WriteString("\n" + line + "\n")
		}
		return b.String(), nil
	}
}

// ratioName writes a sampling ratio as the paper does.
func ratioName(r float64) string {
	if r == 1 {
		return "full bag"
	}
	return fmt.Sprintf("%g %%", 100*r)
}

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
		s, err := training.ReadSummary(d)
		if err != nil {
			return "", err
		}
		planned, err := plannedEpochs(d)
		var config map[string]any
		raw, rerr := os.ReadFile(filepath.Join(d, training.ConfigFile))
		if err == nil && rerr == nil && json.Unmarshal(raw, &config) == nil {
			for _, x := range configDiff(config, want) {
				if !slices.Contains(diffs, x) {
					diffs = append(diffs, x)
				}
			}
		} else {
			planned = 0
			if !slices.Contains(diffs, "config.json not JSON (an early run's format)") {
				diffs = append(diffs, "config.json not JSON (an early run's format)")
			}
		}
		desc := fmt.Sprintf("seed %d: %.*f after %d", s.Seed, digits, scale*s.TestAtBest, s.Epochs)
		if planned > 0 {
			desc += fmt.Sprintf(" of %d", planned)
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
	what := "the recipe of " + o.cell.model + " on `" + o.cell.dataset + "` (" + ratioName(o.cell.ratio) + ")"
	if len(diffs) > 0 {
		what = "not " + what + ": " + strings.Join(diffs, ", ")
	} else {
		what = "the recipe of " + o.cell.model + " (" + ratioName(o.cell.ratio) + ")"
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
		be, err := backend.New("go")
		if err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString("| model | parameters: paper / ours (authors' count) | training epoch, s: paper (A100) / ours (CPU s) | test set inference, s: paper / ours | test metric: paper / ours |\n|---|---|---|---|---|\n")
		for _, r := range t.rows {
			c := r.cells[2] // the test metric's: the cell of the row's runs
			dataset := c.dataset
			params, _, err := cellParams(c)
			if err != nil {
				return "", err
			}
			ctx, cfg, err := training.BuildModel(be, specs[dataset], params)
			if err != nil {
				return "", fmt.Errorf("%s on %s: %w", c.model, dataset, err)
			}
			ours, theirs := model.ParameterCounts(ctx, cfg)
			train, test := "not measured", "not measured"
			if e, ok := rc.bench.estimate(c); ok && rc.bench.lines[benchKey(c)+"train"].metrics != nil {
				train, test = fmt.Sprintf("%.0f", e.train), fmt.Sprintf("%.1f", e.test)
			}
			o, _, err := rc.cell(c)
			if err != nil {
				return "", err
			}
			paperTime := func(p paperValue) string { return p.mean + " ± " + p.std }
			count := thousands(ours)
			if theirs > 0 { // the authors' count is of Subgraphormer's modules
				count += fmt.Sprintf(" (%s)", thousands(theirs))
			}
			metric := o.ours
			if o.seeds != "—" {
				metric += " (" + o.status + ")"
			}
			fmt.Fprintf(&b, "| %s | %s / %s | %s / %s | %s / %s | %s / %s |\n", c.model, r.params, count,
				paperTime(r.cells[0].value), train, paperTime(r.cells[1].value), test, paperTime(c.value), metric)
		}
		fmt.Fprintf(&b, "\nOurs: the full-bag recipe of `%s` (`recipe.At`; GIN and GNN-SSWL+ without PE), "+
			"one epoch's training steps and the test set's inference batches, in CPU seconds of `%s` (section [Estimates](#estimates)); "+
			"the test metric as in the section of its table.\n", t.rows[0].cells[0].dataset, recipeBenchFile)
		return b.String(), nil
	}
}

// statusTables are the tables whose cells have a status, in the order of docs/reproduction.md.
var statusTables = []paperTable{zincTable, ogbTable, peAblationTable, peptidesTable, alchemyTable, zincSamplingTable,
	molbaceSamplingTable, molesolSamplingTable, concatTable}

// statusKinds are the statuses a cell can have, in the order of the summary.
var statusKinds = []string{"reproduced", "differs", "partial", "not run yet", "needs GPU", "needs data", "not measured"}

// classify returns the outcome of cell c of table t and the kind of its status (statusKinds):
// its status up to the first ':' or ';'.
func (rc *reportContext) classify(t paperTable, c paperCell) (outcome, string, error) {
	o, _, err := rc.cell(c)
	if err != nil {
		return outcome{}, "", err
	}
	kind, _, _ := strings.Cut(o.status, ":")
	kind, _, _ = strings.Cut(kind, ";")
	if !slices.Contains(statusKinds, kind) {
		return outcome{}, "", fmt.Errorf("%s: status %q of no kind", t.label, o.status)
	}
	return o, kind, nil
}

// id names a cell once however many tables hold it (ogbg-molesol's full bag, say).
func (c paperCell) id() string { return c.dataset + "/" + c.dir() }

// glanceSection is the README's results at a glance: the paper's cells counted once each by
// status, as docs/reproduction.md's summary counts them, and every cell measured to its seeds
// (reproduced or differing), the paper's value beside ours.
func glanceSection(root string) (string, error) {
	rc, err := newReportContext(root)
	if err != nil {
		return "", err
	}
	seen := map[string]bool{}
	counts := map[string]int{}
	var rows strings.Builder
	rows.WriteString("| dataset | model | sampling | paper | ours | status |\n|---|---|---|---|---|---|\n")
	for _, t := range statusTables {
		for _, c := range t.cells() {
			if seen[c.id()] {
				continue
			}
			seen[c.id()] = true
			o, kind, err := rc.classify(t, c)
			if err != nil {
				return "", err
			}
			counts[kind]++
			if kind == "reproduced" || kind == "differs" {
				fmt.Fprintf(&rows, "| `%s` | %s | %s | %s ± %s | %s | %s |\n", c.dataset, c.model, ratioName(c.ratio), c.value.mean, c.value.std, o.ours, o.status)
			}
		}
	}
	var parts []string
	for _, k := range statusKinds {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	return fmt.Sprintf("Of the %d cells of the paper's tables that this project implements, each counted once: %s "+
		"([the report](docs/reproduction.md)). The cells measured on all their seeds, the paper's test metric at the best "+
		"validation epoch beside ours (mean ± std over 3 seeds; \"differs\" by how many of the paper's standard deviations):\n\n%s",
		len(seen), strings.Join(parts, ", "), rows.String()), nil
}

// reportSummarySection counts the cells of each table by status, and the distinct cells of all
// (a cell of several tables, such as ogbg-molesol's full bag, counted once), with the CPU hours
// of those not run yet.
func reportSummarySection(root string) (string, error) {
	rc, err := newReportContext(root)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| table | cells | " + strings.Join(statusKinds, " | ") + " |\n|---|---:|" + strings.Repeat("---:|", len(statusKinds)) + "\n")
	all := map[string]string{}    // distinct cell → status kind
	hours := map[string]float64{} // distinct cell not run yet → its CPU hours
	for _, t := range statusTables {
		counts := map[string]int{}
		cells := t.cells()
		for _, c := range cells {
			o, kind, err := rc.classify(t, c)
			if err != nil {
				return "", err
			}
			counts[kind]++
			id := c.id()
			all[id] = kind
			if h, ok := strings.CutPrefix(o.hours, "≈ "); ok && kind == "not run yet" {
				hours[id], _ = strconv.ParseFloat(h, 64)
			}
		}
		fmt.Fprintf(&b, "| %s | %d |", t.label, len(cells))
		for _, k := range statusKinds {
			fmt.Fprintf(&b, " %d |", counts[k])
		}
		b.WriteString("\n")
	}
	counts := map[string]int{}
	for _, k := range all {
		counts[k]++
	}
	fmt.Fprintf(&b, "| all, each cell once | %d |", len(all))
	total := 0.0
	for _, k := range statusKinds {
		fmt.Fprintf(&b, " %d |", counts[k])
	}
	for _, id := range slices.Sorted(maps.Keys(hours)) { // in a fixed order: a float sum's rounding depends on it
		total += hours[id]
	}
	fmt.Fprintf(&b, "\n\nThe cells not run yet would take ≈ %s CPU hours for their three seeds (section [Estimates](#estimates)); "+
		"a cell above %s CPU hours needs a GPU.\n", roundHours(total), roundHours(gpuHours))
	return b.String(), nil
}
