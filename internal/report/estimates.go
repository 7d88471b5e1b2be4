package report

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
func (b *recipeBench) estimate(c Cell) (estimate, bool) {
	if _, ok := b.Value(c.Dataset, benchLine(c)+"train", "cpu_s/epoch"); !ok {
		c.bench = "recipe"
	}
	return b.own(c)
}

// own is the estimated epoch of the cell's own model (its benchmark's lines, never the recipe's
// in a baseline's place), if the benchmark measured it.
func (b *recipeBench) own(c Cell) (estimate, bool) {
	line := benchLine(c)
	train, ok1 := b.Value(c.Dataset, line+"train", "cpu_s/epoch")
	eval, ok2 := b.Value(c.Dataset, line+"inference", "cpu_s/epoch")
	test, ok3 := b.Value(c.Dataset, line+"inference", "test_cpu_s")
	return estimate{train, eval, test}, ok1 && ok2 && ok3
}

// benchLine is the prefix of the names of a cell's lines in BenchmarkRecipeStep's output: its
// recipe's, or its baseline's at the dataset's first recipe.
func benchLine(c Cell) string {
	ratio := c.Ratio
	if c.bench != "recipe" {
		ratio = firstRatio(c.Dataset)
	}
	return fmt.Sprintf("BenchmarkRecipeStep/%s/ratio=%g/%s/", c.Dataset, ratio, c.bench)
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
func (b *recipeBench) plannedOutcome(c Cell, epochs int) Outcome {
	o := Outcome{Ours: "—", Seeds: "—", Epochs: "—", Hours: "—"}
	e, ok := b.estimate(c)
	if ok {
		o.hours = seedHours(e.epoch(), epochs)
		o.Hours = "≈ " + roundHours(o.hours)
	}
	exit, failed := b.Value(c.Dataset, "exit status", "")
	switch why := b.missingData(c.Dataset); {
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

// seedHours is the CPU hours of a cell's seeds (seedCount) of epochs epochs of secs seconds.
func seedHours(secs float64, epochs int) float64 { return secs * float64(epochs) * seedCount / 3600 }

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

// Estimates is the benchmark the estimates come from, for templates/estimates.md.tmpl: per
// recipe (and baseline) measured, its lines' prefix, the estimated epoch and the epochs of the
// recipe (Rows); the datasets whose process was timed, in order of name; and the estimates
// against the runs' epochs (Check, Tally.Estimates).
type Estimates struct {
	Rows     []EstimateLine
	Datasets []string
	Check    []EstimateRow
	Records  record.Set // the benchmark's, the records of the template's functions (renderTemplate)
}

// An EstimateLine is a recipe or a baseline that the benchmark measured.
type EstimateLine struct {
	Dataset, Sampling, Model, Line string
	Epoch                          float64
	Epochs                         int
	Hours                          string
}

// Estimates returns the benchmark the estimates come from; nil where it has not run.
func (rp *Report) Estimates() (*Estimates, error) {
	b := rp.bench
	if len(b.Set) == 0 {
		return nil, nil
	}
	es := &Estimates{Records: b.Set}
	for _, r := range recipe.All { // the recipe, then its baselines measured apart
		for _, v := range []Variant{SubgraphormerPE, gin, sswlPlus} {
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
				return nil, err
			}
			es.Rows = append(es.Rows, EstimateLine{r.Dataset, ratioName(r.Ratio), v.name, benchLine(c), e.epoch(), cfg.Epochs,
				roundHours(seedHours(e.epoch(), cfg.Epochs))})
		}
	}
	for _, ds := range slices.Sorted(slices.Values(b.Parts())) {
		if _, ok := b.Value(ds, "peak RSS", "kB"); ok {
			es.Datasets = append(es.Datasets, ds)
		}
	}
	t, err := rp.Tally()
	if err != nil {
		return nil, err
	}
	es.Check = t.Estimates
	return es, nil
}

// Epoch is the estimated seconds of an epoch of a cell (recipeBench.estimate: the benchmark's
// line for the cell's own row, else its recipe's), if the benchmark measured it.
func (rp *Report) Epoch(c Cell) (float64, bool) {
	e, ok := rp.bench.estimate(c)
	return e.epoch(), ok
}

// An EstimateRow is a cell's estimated epoch beside its runs' median epoch (after the first
// five, which compile), so that the estimates can be judged.
type EstimateRow struct {
	Row
	Measured, Estimated float64
}

// Ratio is the runs' epoch over the estimated one.
func (r EstimateRow) Ratio() float64 { return r.Measured / r.Estimated }
