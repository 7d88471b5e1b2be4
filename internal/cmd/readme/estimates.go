package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/record"
	"github.com/sgformer/sgformer/sgformer/recipe"
)

// What the runs of a cell would take, estimated from scripts/bench-recipes.sh's measurements
// (BenchmarkRecipeStep): a training step and an inference batch of each recipe, and what an
// epoch of them takes (cpu_s/epoch, test_cpu_s).

// recipeBench is scripts/bench-recipes.sh's records: per dataset (the part) its benchmark's
// lines, its process's peak RSS or exit status; the shared data's folders when it ran.
type recipeBench struct{ record.Set }

// readRecipeBench reads the records scripts/bench-recipes.sh writes; none where it has not run.
func readRecipeBench(path string) (*recipeBench, error) {
	recs, err := record.Read(path)
	if errors.Is(err, os.ErrNotExist) {
		return &recipeBench{}, nil // nothing measured: every estimate "not measured"
	}
	return &recipeBench{recs}, err
}

// estimate is a cell's epoch as measured by BenchmarkRecipeStep: seconds of its training
// steps, of its evaluation (validation and test), and of inference on the test set alone.
type estimate struct {
	train, eval, test float64
}

// epoch is the estimated seconds of a whole epoch.
func (e estimate) epoch() float64 { return e.train + e.eval }

// estimate returns the estimated epoch of a cell: the benchmark of its recipe (the rows on
// product graphs but GNN-SSWL+ where it is measured apart share the recipe's) or of its baseline
// at the dataset's first recipe; a baseline whose training step was not measured apart takes
// the recipe's.
func (b *recipeBench) estimate(c paperCell) (estimate, bool) {
	if _, ok := b.Value(c.dataset, benchLine(c)+"train", "cpu_s/epoch"); !ok {
		c.bench = "recipe"
	}
	return b.own(c)
}

// own is the estimated epoch of the cell's own model (its benchmark's lines, never the recipe's
// in a baseline's place), if the benchmark measured it.
func (b *recipeBench) own(c paperCell) (estimate, bool) {
	line := benchLine(c)
	train, ok1 := b.Value(c.dataset, line+"train", "cpu_s/epoch")
	eval, ok2 := b.Value(c.dataset, line+"inference", "cpu_s/epoch")
	test, ok3 := b.Value(c.dataset, line+"inference", "test_cpu_s")
	return estimate{train, eval, test}, ok1 && ok2 && ok3
}

// benchLine is the prefix of the names of a cell's lines in BenchmarkRecipeStep's output: its
// recipe's, or its baseline's at the dataset's first recipe.
func benchLine(c paperCell) string {
	ratio := c.ratio
	if c.bench != "recipe" {
		ratio = firstRatio(c.dataset)
	}
	return fmt.Sprintf("BenchmarkRecipeStep/%s/ratio=%g/%s/", c.dataset, ratio, c.bench)
}

// firstRatio is the sampling ratio of dataset's first recipe, the one its baselines take.
func firstRatio(dataset string) float64 {
	for _, r := range recipe.All {
		if r.Dataset == dataset {
			return r.Ratio
		}
	}
	return 1
}

// missingData says why dataset cannot be trained on here, "" when it can: no reader, or its
// folder was not in the shared data when the benchmark ran (the machine cannot download it).
func (b *recipeBench) missingData(dataset string) string {
	src, err := data.SourceOf(dataset)
	if err != nil {
		return "no reader for it yet, and this machine cannot download it"
	}
	if _, ok := b.Value("shared data", src.Folder, ""); len(b.Set) > 0 && !ok {
		return fmt.Sprintf("`%s` is not in the shared data, and this machine cannot download it", src.Folder)
	}
	return ""
}

// plannedOutcome is the outcome of a cell without runs: needs data, needs GPU (above gpuHours,
// or when its benchmark failed: out of memory or time), or not run yet, with the CPU hours its
// seeds would take by the benchmark.
func (b *recipeBench) plannedOutcome(c paperCell, epochs int) Outcome {
	o := Outcome{Ours: "—", Seeds: "—", Epochs: "—", Hours: "—"}
	e, ok := b.estimate(c)
	if ok {
		o.hours = seedHours(e.epoch(), epochs)
		o.Hours = "≈ " + roundHours(o.hours)
	}
	exit, failed := b.Value(c.dataset, "exit status", "")
	switch why := b.missingData(c.dataset); {
	case why != "":
		o.setStatus("needs data", why)
	case !ok && failed:
		o.setStatus("needs GPU", fmt.Sprintf("its benchmark did not finish on this machine (exit status %.0f)", exit))
	case !ok:
		o.setStatus("not measured", "")
	case o.hours > gpuHours:
		o.setStatus("needs GPU", "")
	default:
		o.setStatus("not run yet", "")
	}
	return o
}

// seedHours is the CPU hours of a cell's seeds (reportSeeds) of epochs epochs of secs seconds.
func seedHours(secs float64, epochs int) float64 { return secs * float64(epochs) * reportSeeds / 3600 }

// roundHours writes hours with a decimal below 10.
func roundHours(h float64) string {
	if h < 10 {
		return fmt.Sprintf("%.1f", h)
	}
	return fmt.Sprintf("%.0f", h)
}

// hoursAsWritten is hours rounded as roundHours writes them.
func hoursAsWritten(h float64) float64 {
	if h < 10 {
		return math.Round(10*h) / 10
	}
	return math.Round(h)
}

// estimatesSection renders the benchmark the estimates come from by templates/estimates.md.tmpl:
// per recipe (and baseline) measured, its lines' prefix, the estimated epoch and the epochs of
// the recipe; then the estimates against the runs' epochs.
func estimatesSection(root string) (string, error) {
	rc, err := newReportContext(root)
	if err != nil {
		return "", err
	}
	b := rc.bench
	if len(b.Set) == 0 {
		return fmt.Sprintf("`%s` has not been written yet (`scripts/bench-recipes.sh`).\n", recipeBenchFile), nil
	}
	type row struct {
		Dataset, Sampling, Model, Line string
		Epoch                          float64
		Epochs                         int
		Hours                          string
	}
	var rows []row
	for _, r := range recipe.All { // the recipe, then its baselines measured apart
		for _, v := range []variant{subgraphormerPE, gin, sswlPlus} {
			if v.benchName() != "recipe" && r.Ratio != firstRatio(r.Dataset) {
				continue // baselines are measured at the dataset's first recipe
			}
			ratio := r.Ratio
			if v.folder == gin.folder {
				ratio = 1 // GIN's cells are on the whole graphs
			}
			c := v.cell(r.Dataset, ratio)
			e, ok := b.own(c)
			if !ok {
				continue
			}
			cfg, _, err := cellConfig(c)
			if err != nil {
				return "", err
			}
			rows = append(rows, row{r.Dataset, ratioName(r.Ratio), v.name, benchLine(c), e.epoch(), cfg.Epochs,
				roundHours(seedHours(e.epoch(), cfg.Epochs))})
		}
	}
	var datasets []string // those whose process was timed, in order of name
	for _, ds := range slices.Sorted(slices.Values(b.Parts())) {
		if _, ok := b.Value(ds, "peak RSS", "kB"); ok {
			datasets = append(datasets, ds)
		}
	}
	t, err := rc.newTally()
	if err != nil {
		return "", err
	}
	return renderTemplate("estimates", recipeBenchFile, b.Set, map[string]any{"Rows": rows, "Datasets": datasets, "Check": t.Estimates})
}

// An estimateRow is a cell's estimated epoch beside its runs' median epoch (after the first
// five, which compile), so that the estimates can be judged.
type estimateRow struct {
	reportRow
	Measured, Estimated float64
}

// Ratio is the runs' epoch over the estimated one.
func (r estimateRow) Ratio() float64 { return r.Measured / r.Estimated }
