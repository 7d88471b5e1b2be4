package training

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/task"
)

// RunFile is the run directory's record of its data (a task.Source), written when training
// starts, so that resuming, evaluating and predicting find the same data.
const RunFile = "run.json"

// ReadSource reads the RunFile of the run directory run.
func ReadSource(run string) (task.Source, error) {
	var src task.Source
	path := filepath.Join(run, RunFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return src, fmt.Errorf("training: %s is not a run directory: %w", run, err)
	}
	if err := json.Unmarshal(raw, &src); err != nil {
		return src, fmt.Errorf("training: %s: %w", path, err)
	}
	return src, nil
}

// ReadHyperparameters sets in ctx the hyperparameters of the run directory run, from its
// ConfigFile, as values of each parameter's type. Runs from before a parameter existed get its
// default.
func ReadHyperparameters(ctx *context.Context, run string) error {
	path := filepath.Join(run, ConfigFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("training: %s is not a run directory: %w", run, err)
	}
	var values map[string]any
	if err := json.Unmarshal(raw, &values); err != nil {
		return fmt.Errorf("training: %s: %w", path, err)
	}
	for _, p := range AllParams() {
		v, ok := values[p.Name]
		if !ok {
			continue
		}
		if _, isInt := p.Default.(int); isInt {
			if f, ok := v.(float64); ok && f == float64(int(f)) {
				v = int(f)
			}
		}
		ctx.SetParam(p.Name, v)
	}
	return nil
}

// OpenRun reads the run directory run for evaluation or prediction: a context with its
// hyperparameters and the weights of its best epoch (Load), its data source and its summary.
// ParamDevices is one device, whatever the run trained on: the devices are the evaluating
// machine's (set ParamDevices before NewPredictor to use several); the weights do not depend
// on them.
func OpenRun(run string) (*context.Context, task.Source, *Summary, error) {
	src, err := ReadSource(run)
	if err != nil {
		return nil, src, nil, err
	}
	ctx := context.New()
	Defaults(ctx)
	sum, err := Load(ctx, run)
	if err != nil {
		return nil, src, nil, err
	}
	ctx.SetParam(ParamDevices, "1")
	return ctx, src, sum, nil
}
