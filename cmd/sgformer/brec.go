package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/brec"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/training"
)

// brecContext holds a model's hyperparameters for BREC: the defaults, no PE, and the
// protocol's training (brec.DefaultModelOptions: epochs, learning rate, weight decay, seed),
// with Adam's weight decay decoupled (AdamW), the way ModelPair's optimizer applies it.
func brecContext() *context.Context {
	ctx := context.New()
	training.Defaults(ctx)
	d := brec.DefaultModelOptions(nil)
	ctx.SetParams(map[string]any{model.ParamPEK: 0, training.ParamEpochs: d.Epochs, training.ParamLearningRate: d.LearningRate,
		training.ParamOptimizer: training.AdamW, training.ParamWeightDecay: d.WeightDecay, training.ParamSeed: d.Seed})
	return ctx
}

func brecCmd(args []string, io stdio) error {
	fs := newFlagSet("brec")
	pairs := fs.String("pairs", "", "pair file in BREC's format (a header, then pair, category, graph6_a, graph6_b, tab-separated; ../shared/data/brec/pairs.tsv)")
	test := fs.String("test", "2-fwl", "test: 1-wl (colour refinement), sswl (the strongest subgraph WL, the bound of Subgraphormer with K = 2) or 2-fwl (the folklore 2-WL, as strong as 3-WL), exact oracles; or model, the model the hyperparameter flags configure, under BREC's protocol")
	only := fs.String("categories", "", "test only the pairs of these categories, comma-separated (Basic, Regular, Extension, CFI, 4-Vertex_Condition, Distance_Regular); default all")
	span := fs.String("range", "", "test only the pairs whose index lies in LO-HI (inclusive), e.g. 110-159, BREC's strongly regular pairs; default all")
	name := fs.String("name", "", "--test model: the test's name in the records (default: the --model)")
	out := fs.String("out", "", "JSON-lines results file: one record per pair and test, appended; pairs it has for the test are skipped (resume)")
	backendName := fs.String("backend", "", `--test model: GoMLX backend, "go", "xla:cpu", "xla:cuda" (default $GOMLX_BACKEND, else xla:cpu if installed, else go)`)
	ctx := brecContext()
	var h hyperFlags
	h.register(fs, ctx, training.ParamSamplingRatio, training.ParamBatchSize, training.ParamDevices)
	describe(fs, "usage: sgformer brec --pairs FILE [--test 1-wl|sswl|2-fwl|model [hyperparameters]] --out RESULTS.jsonl\n\n"+
		"Runs the BREC expressiveness benchmark (Wang and Zhang, ICML 2024) pair by pair, appending a record per pair\n"+
		"to --out (a killed run resumes, losing at most one pair), and prints the pairs distinguished per category as\n"+
		"JSON. The tests are the exact oracles 1-WL, SSWL and 2-FWL, or a model under BREC's protocol: started afresh on each\n"+
		"pair, trained --epochs (default 20) with Adam (--lr, default 1e-5, weight_decay 1e-4) on 32 renumberings of each\n"+
		"graph to tell them apart, then judged by Hotelling's T² of its outputs (> 72.34), with the reliability check.\n")
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *pairs == "" || *out == "" {
		return usagef("--pairs FILE and --out RESULTS.jsonl are required")
	}
	opt := brec.Options{Progress: io.err, ProgressInterval: 10 * time.Second}
	switch _, oracle := brec.Oracles[*test]; {
	case *test == "model":
		if err := h.apply(ctx); err != nil {
			return err
		}
		cfg, err := runConfig(ctx)
		if err != nil {
			return err
		}
		if *name == "" {
			*name = cfg.Model.Model
		}
		*test = *name
		if opt.Backend, err = newBackend(*backendName, io); err != nil {
			return err
		}
		params := map[string]any{}
		ctx.EnumerateParams(func(scope, key string, value any) {
			if scope == context.RootScope {
				params[key] = value
			}
		})
		opt.Model = &brec.ModelOptions{Params: params, Epochs: cfg.Epochs, LossThreshold: brec.DefaultModelOptions(nil).LossThreshold,
			LearningRate: cfg.LearningRate, WeightDecay: cfg.WeightDecay, Seed: cfg.Seed}
	case !oracle:
		return usagef("--test %q: want %s or model", *test, strings.Join(slices.Sorted(maps.Keys(brec.Oracles)), ", "))
	}
	ps, err := data.ReadPairsFile(*pairs)
	if err != nil {
		return err
	}
	if *only != "" {
		want := strings.Split(*only, ",")
		ps = slices.DeleteFunc(ps, func(p data.Pair) bool { return !slices.Contains(want, p.Category) })
		if len(ps) == 0 {
			return usagef("--categories %q: no pair of %s is of those categories", *only, *pairs)
		}
	}
	if *span != "" {
		var lo, hi int
		if n, err := fmt.Sscanf(*span, "%d-%d", &lo, &hi); err != nil || n != 2 || lo > hi || *span != fmt.Sprintf("%d-%d", lo, hi) {
			return usagef("--range %q: want LO-HI, two pair indices, LO ≤ HI", *span)
		}
		ps = slices.DeleteFunc(ps, func(p data.Pair) bool { return p.Index < lo || p.Index > hi })
		if len(ps) == 0 {
			return usagef("--range %s: no pair of %s lies in it", *span, *pairs)
		}
	}
	records, err := brec.Run(ps, *test, *out, opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(io.err, "brec %s: %d pairs in %s\n", *test, len(records), *out)
	return writeJSON(io.out, map[string]any{"test": *test, "pairs": *pairs, "counts": brec.Counts(records)})
}
