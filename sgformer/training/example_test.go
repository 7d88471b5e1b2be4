package training_test

import (
	"fmt"
	"os"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/task"
	"github.com/sgformer/sgformer/sgformer/training"
)

// Training a model with a dataset's recipe (the README's "library in ten lines", on the built-in
// triangle-counting task): the run directory gets config.json, metrics.jsonl, summary.json and
// resumable checkpoints.
func ExampleTrain() {
	be, err := backend.New("go") // or "" for the default: xla:cpu where installed
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.New() // GoMLX: hyperparameters and variables
	training.Defaults(ctx)
	ctx.SetParams(recipe.Default("synthetic"))
	ctx.SetParams(map[string]any{training.ParamEpochs: 2})
	cfg, err := model.ReadConfig(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	tk, err := task.Load(task.Source{Dataset: "synthetic", SyntheticGraphs: 40}, cfg, "", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(out)
	summary, err := training.Train(ctx, tk, training.Options{Out: out, Backend: be})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(summary.Dataset, summary.Model, summary.Metric, summary.Epochs)
	// Output: synthetic-triangles subgraphormer mae 2
}
