package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sgformer/sgformer/internal/atomicfile"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/training"
)

// compareCmd trains several models with the same data and hyperparameters, each into
// OUT/<model>, and prints a comparison table (Markdown) and writes OUT/compare.json.
func compareCmd(args []string, io stdio) error {
	fs := newFlagSet("compare")
	var d dataFlags
	d.register(fs)
	out := fs.String("out", "", "directory for the runs, one per model")
	models := fs.String("models", strings.Join([]string{model.Subgraphormer, model.SSWLPlus, model.GIN}, ","), "comma-separated models")
	backendName := fs.String("backend", "", `GoMLX backend: "go", "xla:cpu", "xla:cuda" (default $GOMLX_BACKEND, else xla:cpu if installed, else go)`)
	var h hyperFlags
	h.register(fs, recipeContext(args, io.err), model.ParamModel) // --models names them
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *out == "" {
		return usagef("--out DIR is required")
	}
	var rows []*training.Summary
	for _, name := range strings.Split(*models, ",") {
		ctx := recipeContext(args, nil)
		if err := h.apply(ctx); err != nil {
			return err
		}
		ctx.SetParam(model.ParamModel, name)
		fmt.Fprintf(io.err, "== %s\n", name)
		run := filepath.Join(*out, strings.ReplaceAll(name, "+", "plus"))
		sum, err := runTraining(ctx, &d, training.Options{Out: run}, *backendName, "", io)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rows = append(rows, sum)
	}
	var table strings.Builder
	fmt.Fprintf(&table, "| model | parameters | best epoch | val %s | test %s | seconds |\n|---|---:|---:|---:|---:|---:|\n", rows[0].Metric, rows[0].Metric)
	for _, r := range rows {
		fmt.Fprintf(&table, "| %s | %d | %d/%d | %.4f | %.4f | %.0f |\n", r.Model, r.Parameters, r.BestEpoch, r.Epochs, r.BestValid, r.TestAtBest, r.Seconds)
	}
	fmt.Fprint(io.out, table.String())
	if err := atomicfile.Write(filepath.Join(*out, "compare.md"), []byte(table.String())); err != nil {
		return err
	}
	return writeJSONFile(filepath.Join(*out, "compare.json"), rows)
}
