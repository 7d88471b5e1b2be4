package training

import (
	"fmt"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/metrics"
	"github.com/sgformer/sgformer/sgformer/task"
)

// evaluator measures the model after an epoch on the validation and test splits. Its Predictor
// is built at the first evaluation, once the training step has created every variable, and pads
// batches by the training batches' profile, so that evaluation meets the same few shapes. With
// ParamBNRecalibrate, BatchNorm's running averages are recalibrated first (recalibrator), and
// the checkpoints keep them so.
type evaluator struct {
	ctx          *context.Context
	backend      backends.Backend
	cfg          Config // the run's, read once (Train)
	task         *task.Task
	batches      batching // the run's, whose profile evaluation pads to
	predictor    *Predictor
	recalibrator *recalibrator
}

// epoch returns the validation and test metrics of the model as epoch ended.
func (e *evaluator) epoch(epoch int) (valid, test float64, err error) {
	if e.cfg.BNRecalibrate {
		if e.recalibrator == nil {
			if e.recalibrator, err = newRecalibrator(e.ctx, e.backend, e.task, e.cfg, e.batches); err != nil {
				return 0, 0, err
			}
		}
		if err := e.recalibrator.run(); err != nil {
			return 0, 0, fmt.Errorf("training: epoch %d: recalibrating BatchNorm: %w", epoch, err)
		}
	}
	if valid, err = e.evaluate(e.task.Valid); err != nil {
		return 0, 0, fmt.Errorf("training: epoch %d: validation: %w", epoch, err)
	}
	if test, err = e.evaluate(e.task.Test); err != nil {
		return 0, 0, fmt.Errorf("training: epoch %d: test: %w", epoch, err)
	}
	return valid, test, nil
}

func (e *evaluator) evaluate(split []int) (float64, error) {
	if e.predictor == nil {
		p, err := newPredictor(e.ctx, e.backend, e.task.Spec, e.cfg)
		if err != nil {
			return 0, err
		}
		p.batches.options.Profile = e.batches.options.Profile
		e.predictor = p
	}
	return e.predictor.Evaluate(e.task, split, e.cfg.Metric)
}

// compiled returns the programs evaluation built since the last call, and their seconds.
func (e *evaluator) compiled() (int, float64) {
	if e.predictor == nil {
		return 0, 0
	}
	return e.predictor.compiled.take()
}

// best is the epoch with the best validation metric so far, and its test metric: the model a
// run reports (Summary) and keeps (bestDir). It is saved with each checkpoint (in state).
type best struct {
	BestEpoch  int     `json:"best_epoch"`
	BestValid  float64 `json:"best_val"`
	TestAtBest float64 `json:"test_at_best_val"`
}

// update records epoch if its validation metric valid is better than the best so far (or is
// the first), and reports whether it was.
func (b *best) update(metric metrics.Metric, epoch int, valid, test float64) bool {
	if b.BestEpoch != 0 && !metric.Better(valid, b.BestValid) {
		return false
	}
	b.BestEpoch, b.BestValid, b.TestAtBest = epoch, valid, test
	return true
}
