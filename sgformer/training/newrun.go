package training

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/task"
)

// NewRun writes the run directory out for the model in ctx, its hyperparameters and weights
// (e.g. imported from another implementation), as a run before its first epoch: run.json (src,
// whose Spec must be the data's), ConfigFile, SummaryFile (no epoch), and the weights as both
// its checkpoint and its best epoch. Eval and prediction (OpenRun) read it; Train with
// Options.Resume trains it further, fine-tuning it, from a fresh optimizer state. A directory
// holding a run already is refused (ErrRunExists), and one another process writes (ErrLocked).
func NewRun(ctx *context.Context, src task.Source, out string) error {
	unlock, err := lockRun(out)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(out, CheckpointDir)); err == nil {
		return fmt.Errorf("%w: %s; choose another directory", ErrRunExists, out)
	}
	cfg, err := ReadConfig(ctx)
	if err != nil {
		return err
	}
	params, _ := model.ParameterCounts(ctx, cfg.Model)
	if err := writeJSONAtomic(filepath.Join(out, runFile), src); err != nil {
		return err
	}
	if err := writeJSONAtomic(filepath.Join(out, ConfigFile), Hyperparameters(ctx)); err != nil {
		return err
	}
	st := &state{LR: cfg.LearningRate, BaseLR: cfg.LearningRate}
	for _, dir := range []string{bestDir, CheckpointDir} {
		if err := save(ctx, filepath.Join(out, dir), st, allVariables); err != nil {
			return err
		}
	}
	return writeJSONAtomic(filepath.Join(out, SummaryFile), &Summary{Dataset: src.Dataset, Model: cfg.Model.Model,
		Metric: cfg.Metric.Name, Parameters: params, SamplingRatio: cfg.SamplingRatio, PEK: cfg.Model.PEK, Seed: cfg.Seed})
}
