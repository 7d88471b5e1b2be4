package task_test

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/task"
)

// The built-in triangle-counting task, preprocessed for Subgraphormer with a PE of k = 4
// columns: its graphs, the split and the data's dimensions.
func ExampleLoad() {
	ctx := context.New()
	model.Defaults(ctx)
	ctx.SetParam(model.ParamPEK, 4)
	cfg, err := model.ReadConfig(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	tk, err := task.Load(task.Source{Dataset: task.Synthetic, SyntheticGraphs: 40}, cfg, "", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tk.Name, len(tk.Examples), len(tk.Train), len(tk.Valid), len(tk.Test), tk.Spec.Tasks)
	// Output: synthetic-triangles 40 32 4 4 1
}
