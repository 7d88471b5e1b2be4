package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/record"
	"github.com/sgformer/sgformer/sgformer/recipe"
)

// What the runs of a cell would take, estimated from scripts/bench-recipes.sh's measurements
// (BenchmarkRecipeStep): a training step and an inference batch of each recipe.

// recipeBench is scripts/bench-recipes.sh's records read: its contexts and load after, the
// shared data's folders when it ran, and the benchmark results by name
// ("DATASET/ratio=R/VARIANT/PHASE").
type recipeBench struct {
	header []string
	shared map[string]bool
	lines  map[string]benchResult
	rss    map[string]string // a dataset's process's peak RSS, wall time and CPU
	failed map[string]string // a dataset's process's exit status, where it failed
}

// benchResult is one result of a Go benchmark: its time per operation and its other metrics by
// unit.
type benchResult struct {
	seconds float64
	metrics map[string]float64
}

// Metric is the result's metric in unit, for the layouts.
func (r benchResult) Metric(unit string) float64 { return r.metrics[unit] }

// Seconds is the result's wall time per operation.
func (r benchResult) Seconds() float64 { return r.seconds }

// CPU is the result's CPU time per operation (stepSeconds).
func (r benchResult) CPU() float64 { return stepSeconds(r) }

// readRecipeBench reads the records scripts/bench-recipes.sh writes; none where it has not run.
func readRecipeBench(path string) (*recipeBench, error) {
	b := &recipeBench{shared: map[string]bool{}, lines: map[string]benchResult{}, rss: map[string]string{}, failed: map[string]string{}}
	recs, err := record.Read(path)
	if errors.Is(err, os.ErrNotExist) {
		return b, nil // nothing measured: every estimate "not measured"
	}
	if err != nil {
		return nil, err
	}
	for _, c := range recs.Contexts() {
		b.header = append(b.header, c.String())
	}
	if load := recs.Values("after", "load average", ""); len(load) == 3 {
		b.header = append(b.header, fmt.Sprintf("load after: %.2f %.2f %.2f", load[0], load[1], load[2]))
	}
	for _, r := range recs {
		switch name, ok := strings.CutPrefix(r.What, "BenchmarkRecipeStep/"); {
		case r.Part == "shared data" && r.Value == 1:
			b.shared[r.What] = true
		case ok:
			l, seen := b.lines[name]
			if !seen {
				l = benchResult{metrics: map[string]float64{}}
			}
			if r.Unit == "ns/op" {
				l.seconds = r.Value / 1e9
			}
			l.metrics[r.Unit] = r.Value
			b.lines[name] = l
		case r.What == "exit status":
			b.failed[r.Part] = fmt.Sprintf("exit status %.0f", r.Value)
		}
	}
	if len(b.shared) > 0 {
		b.header = append(b.header, "shared data: "+strings.Join(slices.Sorted(maps.Keys(b.shared)), " "))
	}
	for _, ds := range recs.Parts() {
		rss, ok1 := recs.Value(ds, "peak RSS", "kB")
		wall, ok2 := recs.Value(ds, "wall", "s")
		cpu, ok3 := recs.Value(ds, "CPU", "%")
		if ok1 && ok2 && ok3 {
			b.rss[ds] = fmt.Sprintf("peak RSS %.0f kB, wall %.2f s, CPU %.0f%%", rss, wall, cpu)
		}
	}
	return b, nil
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
// at the dataset's first recipe; a step measured on fewer graphs than the recipe's batch is
// scaled linearly.
func (b *recipeBench) estimate(c paperCell) (estimate, bool) {
	key := benchKey(c)
	tr, ok1 := b.lines[key+"train"]
	in, ok2 := b.lines[key+"inference"]
	if !ok1 && c.bench != "recipe" { // a baseline not measured apart: the recipe's
		c.bench = "recipe"
		return b.estimate(c)
	}
	if !ok1 || !ok2 {
		return estimate{}, false
	}
	scale := tr.metrics["recipe_batch"] / tr.metrics["graphs/batch"]
	return estimate{
		train: stepSeconds(tr) * scale * tr.metrics["steps/epoch"],
		eval:  stepSeconds(in) * scale * in.metrics["batches/epoch"],
		test:  stepSeconds(in) * scale * in.metrics["test_batches"],
	}, true
}

// benchKey is the prefix of the names of a cell's lines in BenchmarkRecipeStep's output: its
// recipe's, or its baseline's at the dataset's first recipe.
func benchKey(c paperCell) string {
	ratio := c.ratio
	if c.bench != "recipe" {
		ratio = firstRatio(c.dataset)
	}
	return fmt.Sprintf("%s/ratio=%g/%s/", c.dataset, ratio, c.bench)
}

// stepSeconds is the CPU time of a measured step (cpu_s/op, all threads), or its wall time
// where the benchmark did not measure it.
func stepSeconds(r benchResult) float64 {
	if cpu, ok := r.metrics["cpu_s/op"]; ok {
		return cpu
	}
	return r.seconds
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
	if len(b.shared) > 0 && !b.shared[src.Folder] {
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
	hours := 0.0
	if ok {
		hours = e.epoch() * float64(epochs) * reportSeeds / 3600
		o.Hours = fmt.Sprintf("≈ %s", roundHours(hours))
	}
	switch why := b.missingData(c.dataset); {
	case why != "":
		o.Status = "needs data: " + why
	case !ok && b.failed[c.dataset] != "":
		o.Status = fmt.Sprintf("needs GPU: its benchmark did not finish on this machine (%s)", b.failed[c.dataset])
	case !ok:
		o.Status = "not measured"
	case hours > gpuHours:
		o.Status = "needs GPU"
	default:
		o.Status = "not run yet"
	}
	return o
}

// roundHours writes hours with a decimal below 10.
func roundHours(h float64) string {
	if h < 10 {
		return fmt.Sprintf("%.1f", h)
	}
	return fmt.Sprintf("%.0f", h)
}

// estimatesSection renders the benchmark the estimates come from: its header, and per recipe
// (and baseline) the CPU and wall seconds of a step and an inference batch, the compilation
// left out, and the estimated epoch; then the estimates against the runs' epochs.
func estimatesSection(root string) (string, error) {
	rc, err := newReportContext(root)
	if err != nil {
		return "", err
	}
	b := rc.bench
	if len(b.header) == 0 {
		return fmt.Sprintf("`%s` has not been written yet (`scripts/bench-recipes.sh`).\n", recipeBenchFile), nil
	}
	type row struct {
		Dataset, Sampling, Model string
		Train, Infer             benchResult
		Epoch                    float64
		Epochs                   int
		Hours                    string
	}
	var rows []row
	for _, r := range recipe.All { // the recipe, then its baselines measured apart
		for _, v := range []variant{subgraphormerPE, gin, sswlPlus} {
			name := fmt.Sprintf("%s/ratio=%g/%s/", r.Dataset, r.Ratio, v.benchName())
			c := paperCell{dataset: r.Dataset, ratio: r.Ratio, model: v.name, folder: v.folder, changes: v.changes, bench: v.benchName()}
			if v.folder == gin.folder {
				c.ratio = 1
			}
			e, ok := b.estimate(c)
			if _, measured := b.lines[name+"train"]; !measured || !ok {
				continue
			}
			cfg, _, err := cellConfig(c)
			if err != nil {
				return "", err
			}
			rows = append(rows, row{r.Dataset, ratioName(r.Ratio), v.name, b.lines[name+"train"], b.lines[name+"inference"],
				e.epoch(), cfg.Epochs, roundHours(e.epoch() * float64(cfg.Epochs) * reportSeeds / 3600)})
		}
	}
	var processes []string
	for _, ds := range slices.Sorted(maps.Keys(b.rss)) {
		processes = append(processes, fmt.Sprintf("%s: %s", ds, b.rss[ds]))
	}
	for _, ds := range slices.Sorted(maps.Keys(b.failed)) {
		processes = append(processes, fmt.Sprintf("%s: **%s**", ds, b.failed[ds]))
	}
	t, err := rc.newTally()
	if err != nil {
		return "", err
	}
	return layout("estimates", map[string]any{"File": recipeBenchFile, "Header": b.header, "Rows": rows, "Processes": processes, "Check": t.Estimates})
}

// An estimateRow is a cell's estimated epoch beside its runs' median epoch (after the first
// five, which compile), so that the estimates can be judged.
type estimateRow struct {
	reportRow
	Measured, Estimated float64
}

// Ratio is the runs' epoch over the estimated one.
func (r estimateRow) Ratio() float64 { return r.Measured / r.Estimated }
