package training

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/internal/atomicfile"
	"github.com/sgformer/sgformer/sgformer/task"
)

// Files of a run directory.
const (
	ConfigFile     = "config.json"   // the hyperparameters the run started with, by name
	MetricsFile    = "metrics.jsonl" // one Record per epoch
	SummaryFile    = "summary.json"  // the Summary, rewritten after every epoch
	CheckpointDir  = "checkpoint"    // the latest epoch, to resume from
	bestDir        = "best"          // the epoch with the best validation metric: its weights, without the optimizer's state
	stateFile      = "state.json"
	checkpointVars = "variables"
)

// runFile is the run directory's record of its data (a task.Source), written when training
// starts, so that resuming, evaluating and predicting find the same data.
const runFile = "run.json"

// ReadSource reads the data source of the run directory run, recorded in its run.json
// (runFile) when training starts.
func ReadSource(run string) (task.Source, error) {
	var src task.Source
	path := filepath.Join(run, runFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return src, fmt.Errorf("training: %s is not a run directory: %w", run, err)
	}
	if err := json.Unmarshal(raw, &src); err != nil {
		return src, fmt.Errorf("training: %s: %w", path, err)
	}
	return src, nil
}

// Hyperparameters returns the values in ctx of every hyperparameter of AllParams, by name: what
// a run's ConfigFile holds.
func Hyperparameters(ctx *context.Context) map[string]any {
	params := map[string]any{}
	for _, p := range AllParams() {
		v, found := ctx.GetParam(p.Name)
		if !found {
			v = p.Default
		}
		params[p.Name] = v
	}
	return params
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

// writeJSONAtomic writes v to path as indented JSON, atomically (atomicfile.Write).
func writeJSONAtomic(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(raw, '\n'))
}
