package training

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train"
	"github.com/gomlx/gomlx/pkg/ml/train/losses"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"
	"github.com/schollz/progressbar/v3"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
)

// Files of a run directory.
const (
	ConfigFile     = "config.json"   // the hyperparameters the run started with, by name
	MetricsFile    = "metrics.jsonl" // one Record per epoch
	SummaryFile    = "summary.json"  // the Summary, rewritten after every epoch
	CheckpointDir  = "checkpoint"    // the latest epoch, to resume from
	BestDir        = "best"          // the epoch with the best validation metric
	stateFile      = "state.json"
	checkpointVars = "variables"
)

// Options are the settings of a run that are not hyperparameters.
type Options struct {
	// Out is the run directory.
	Out     string
	Backend backends.Backend
	// Resume continues the run in Out from its last checkpoint; the hyperparameters are the
	// checkpoint's, except Epochs.
	Resume bool
	// Epochs, when positive, overrides the number of epochs (e.g. to extend a resumed run).
	Epochs int
	// Devices, when not empty, overrides ParamDevices (e.g. to resume a run on another number
	// of devices: a checkpoint does not depend on it).
	Devices string
	// Progress receives a progress bar (rate and ETA over the whole run), for a terminal; Log
	// one line per epoch, with the ETA of the run, and without Progress a line at most every
	// StepLogInterval (0: a minute) within an epoch (graphs done, rate, the epoch's ETA). Either
	// may be nil.
	Progress, Log   io.Writer
	StepLogInterval time.Duration
	// OnEpoch, if not nil, is called with each epoch's record once it is written (e.g. to
	// redraw a live training curve).
	OnEpoch func(Record)
	// Deadline, if not zero, ends training early, at a checkpoint: after an epoch, when another
	// as long would end after it (a job's time limit). Resume continues the run.
	Deadline time.Time
	// Stop, when closed (e.g. on Ctrl-C), ends training at the next training step, where the
	// latest checkpoint is saved (within the epoch), and Train returns ErrInterrupted with the
	// summary of the epochs done. Resume continues the run from that step.
	Stop <-chan struct{}
	// CheckpointInterval, when positive, also saves the latest checkpoint within an epoch, at
	// the first step after each such interval, so that a run killed in a long epoch (hours on a
	// CPU) loses at most that much. Resume continues from it exactly.
	CheckpointInterval time.Duration
}

// ErrRunExists is the error (errors.Is) of a new run whose directory holds a run already.
var ErrRunExists = errors.New("training: the directory already holds a run")

// ErrInterrupted reports training ended by Options.Stop.
var ErrInterrupted = errors.New("training: interrupted")

// Train trains the model described by ctx's hyperparameters on task, evaluating the validation
// and test splits after every epoch, and writes the run directory opt.Out: ConfigFile,
// MetricsFile, SummaryFile and the checkpoints CheckpointDir and BestDir, each replaced
// atomically. With opt.Resume it continues the run there exactly: same weights, optimizer
// state, learning-rate schedule and random streams.
func Train(ctx *context.Context, task *Task, opt Options) (*Summary, error) {
	unlock, err := lockRun(opt.Out)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st := &state{}
	if opt.Resume {
		if err := load(ctx, filepath.Join(opt.Out, CheckpointDir), st); err != nil {
			return nil, resumeError(opt.Out, err)
		}
		if kind := backend.Kind(opt.Backend); st.Backend != "" && st.Backend != kind {
			return nil, fmt.Errorf("training: %s was trained on backend %s: resuming it on %s would not continue it exactly "+
				"(each backend draws its own random numbers for dropout and rounds in its own order); resume it with --backend %s, "+
				"or start a new run with another --out", opt.Out, st.Backend, kind, st.Backend)
		}
		if err := keepRecords(filepath.Join(opt.Out, MetricsFile), st.Epoch); err != nil {
			return nil, err
		}
	} else if _, err := os.Stat(filepath.Join(opt.Out, CheckpointDir)); err == nil {
		return nil, fmt.Errorf("%w: %s; resume it with --resume or choose another --out", ErrRunExists, opt.Out)
	}
	if opt.Epochs > 0 {
		ctx.SetParam(ParamEpochs, opt.Epochs)
	}
	if opt.Devices != "" {
		ctx.SetParam(ParamDevices, opt.Devices)
	}
	cfg, err := ReadConfig(ctx)
	if err != nil {
		return nil, err
	}
	devices, err := ResolveDevices(cfg, opt.Backend)
	if err != nil {
		return nil, err
	}
	if !opt.Resume {
		if cfg.LearningRate == 0 {
			return nil, fmt.Errorf("training: %s = 0, want a positive rate", ParamLearningRate)
		}
		st.LR, st.BaseLR = cfg.LearningRate, cfg.LearningRate
		st.Backend = backend.Kind(opt.Backend)
		if err := os.MkdirAll(opt.Out, 0o755); err != nil {
			return nil, err
		}
		if err := os.Remove(filepath.Join(opt.Out, MetricsFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		src := task.Source
		if src.Dataset == "" {
			src.Dataset = task.Name
		}
		src.Spec = task.Spec
		if err := writeJSONAtomic(filepath.Join(opt.Out, RunFile), src); err != nil {
			return nil, err
		}
	}
	// The configuration as the run goes on: a resumed run may have more epochs. The learning
	// rate recorded is the initial one.
	params := hyperparameters(ctx)
	params[ParamLearningRate] = st.BaseLR
	if err := writeJSONAtomic(filepath.Join(opt.Out, ConfigFile), params); err != nil {
		return nil, err
	}
	batches, err := newBatching(cfg, task.Spec).withProfile(task.examples(task.Train))
	if err != nil {
		return nil, err
	}
	lossFn, err := lossByName(cfg.Loss)
	if err != nil {
		return nil, err
	}
	if len(task.Train) == 0 || len(task.Valid) == 0 || len(task.Test) == 0 {
		return nil, fmt.Errorf("training: %s has an empty split (%d/%d/%d)", task.Name, len(task.Train), len(task.Valid), len(task.Test))
	}
	epochs, metric := cfg.Epochs, cfg.Metric

	// The learning rate the optimizer starts from: the initial one, or where the schedule was.
	ctx.SetParam(ParamLearningRate, st.LR)
	if !opt.Resume {
		ctx.SetParam(context.ParamInitialSeed, int64(cfg.Seed)+1) // GoMLX takes seed 0 as "random"
	}
	optimizer, modelFn, lossFn := newOptimizer(cfg, model.New(task.Spec, cfg.Model), lossFn)
	trainer := train.NewTrainer(opt.Backend, ctx, modelFn, lossFn, optimizer, nil, nil)
	switch {
	case opt.Resume:
		trainer.SetContext(ctx.Reuse())
	case cfg.Model.Init != model.GoMLXInit:
		// The weights exist before the first step, to be started as configured; the optimizer's
		// state is created by the first step.
		if err := startModel(ctx, opt.Backend, task.Spec, cfg); err != nil {
			return nil, err
		}
		trainer.SetContext(ctx.Checked(false))
	}
	data := &epochData{task: task, batches: batches, seed: cfg.Seed, devices: devices}
	defer data.stop()
	if devices > 1 {
		if data.sharding, err = newSharding(devices); err != nil {
			return nil, err
		}
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, "training on %d devices of backend %s, each batch of %d graphs split among them\n", devices, backend.Kind(opt.Backend), cfg.BatchSize)
		}
	}
	loop := train.NewLoop(trainer)
	var lossSum float64
	var lossCount int
	loop.OnStep("epoch loss", 0, func(_ *train.Loop, m []*tensors.Tensor) error {
		lossSum += float64(tensors.ToScalar[float32](m[0]))
		lossCount++
		if !data.newShapeAt.IsZero() { // the step built, compiled and ran a new program
			data.compiled.seconds += time.Since(data.newShapeAt).Seconds()
			data.newShapeAt = time.Time{}
		}
		return nil
	})
	// savePartial saves the latest checkpoint within the epoch under way, begun at start, whose
	// training steps began at trainStart.
	var start, trainStart time.Time
	savePartial := func() error {
		st.Partial = &partialEpoch{Epoch: data.epoch, Graphs: data.pos, Random: data.random, LossSum: lossSum, LossCount: lossCount,
			Seconds: time.Since(start).Seconds(), TrainSeconds: time.Since(trainStart).Seconds(), BatchSeconds: data.waited.Seconds()}
		defer func() { st.Partial = nil }()
		return save(ctx, filepath.Join(opt.Out, CheckpointDir), st)
	}
	if opt.CheckpointInterval > 0 {
		saved := time.Now()
		loop.OnStep("partial checkpoint", 3, func(*train.Loop, []*tensors.Tensor) error {
			if time.Since(saved) < opt.CheckpointInterval || data.pos == len(data.order) {
				return nil
			}
			saved = time.Now()
			return savePartial()
		})
	}
	if opt.Stop != nil {
		loop.OnStep("stop", 2, func(*train.Loop, []*tensors.Tensor) error {
			if stopped(opt.Stop) {
				return ErrInterrupted
			}
			return nil
		})
	}
	var bar *progressbar.ProgressBar
	if opt.Progress != nil && st.Epoch < epochs {
		bar = progressbar.NewOptions((epochs-st.Epoch)*data.steps(),
			progressbar.OptionSetWriter(opt.Progress), progressbar.OptionSetDescription("train "+task.Name),
			progressbar.OptionSetItsString("steps"), progressbar.OptionShowIts(), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(500*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(opt.Progress) }))
		// The clock starts now, not at the first render (after the first step), whose rate
		// would otherwise be one step over a few microseconds.
		bar.StartWithoutRender()
		loop.OnStep("progress", 1, func(*train.Loop, []*tensors.Tensor) error { return bar.Add(1) })
	}

	var logged, logged0 time.Time // the last step line, and when this process began the epoch
	var startPos int              // graphs of the epoch done before this process
	if opt.Progress == nil && opt.Log != nil {
		every := cmp.Or(opt.StepLogInterval, time.Minute)
		loop.OnStep("step log", 1, func(*train.Loop, []*tensors.Tensor) error {
			if now := time.Now(); now.Sub(logged) >= every && data.pos < len(data.order) {
				logged = now
				rate := float64(data.pos-startPos) / now.Sub(logged0).Seconds()
				eta := time.Duration(float64(len(data.order)-data.pos) / rate * float64(time.Second)).Round(time.Second)
				fmt.Fprintf(opt.Log, "epoch %d: %d/%d graphs  %.3g graphs/s  epoch eta %v\n", data.epoch, data.pos, len(data.order), rate, eta)
			}
			return nil
		})
	}

	var predictor *Predictor
	evaluate := func(split []int) (float64, error) {
		if predictor == nil {
			if predictor, err = NewPredictor(ctx, opt.Backend, task.Spec); err != nil {
				return 0, err
			}
			predictor.batches.options.Profile = batches.options.Profile
		}
		return predictor.Evaluate(task, split, metric)
	}

	partial := st.Partial
	st.Partial = nil
	if partial != nil && partial.Epoch != st.Epoch+1 {
		return nil, resumeError(opt.Out, fmt.Errorf("checkpoint %s is %w: epoch %d under way after epoch %d", filepath.Join(opt.Out, CheckpointDir), errCorrupt, partial.Epoch, st.Epoch))
	}
	first, began := st.Epoch+1, time.Now()
	for epoch := first; epoch <= epochs; epoch++ {
		start = time.Now()
		if cfg.Schedule == Cosine {
			st.setLR(ctx, scheduledLR(st.BaseLR, cfg.MinLearningRate, epoch, cfg.WarmupEpochs, epochs))
		}
		lossSum, lossCount = 0, 0
		trainSoFar := time.Duration(0)
		if partial == nil {
			data.start(epoch)
		} else { // resumed within this epoch
			if err := data.resume(partial); err != nil {
				return nil, resumeError(opt.Out, fmt.Errorf("checkpoint %s is %w: %v", filepath.Join(opt.Out, CheckpointDir), errCorrupt, err))
			}
			lossSum, lossCount = partial.LossSum, partial.LossCount
			start = start.Add(-seconds(partial.Seconds))
			trainSoFar, data.waited = seconds(partial.TrainSeconds), seconds(partial.BatchSeconds)
			partial = nil
		}
		trainStart = time.Now().Add(-trainSoFar)
		startPos, logged0, logged = data.pos, time.Now(), time.Now()
		if data.pos < len(data.order) {
			var err error
			if devices > 1 { // GoMLX's RunEpochs runs single-device datasets only
				_, err = loop.RunSteps(shardedData{data}, data.stepsLeft())
			} else {
				_, err = loop.RunEpochs(data, 1)
			}
			if err != nil {
				if !stopped(opt.Stop) {
					return nil, fmt.Errorf("training: epoch %d: %w", epoch, err)
				}
				if bar != nil {
					fmt.Fprintln(opt.Progress)
				}
				if err := savePartial(); err != nil {
					return nil, fmt.Errorf("training: interrupted during epoch %d, and saving where it got failed (the previous checkpoint is kept): %w", epoch, err)
				}
				if opt.Log != nil {
					fmt.Fprintf(opt.Log, "interrupted during epoch %d after %d of its %d graphs, saved there; resume to continue\n", epoch, data.pos, len(data.order))
				}
				return summarize(ctx, task, cfg, st), fmt.Errorf("%w during epoch %d of %s (saved after %d of its %d graphs)", ErrInterrupted, epoch, opt.Out, data.pos, len(data.order))
			}
		}
		trainSeconds := time.Since(trainStart).Seconds()
		valid, err := evaluate(task.Valid)
		if err != nil {
			return nil, fmt.Errorf("training: epoch %d: validation: %w", epoch, err)
		}
		test, err := evaluate(task.Test)
		if err != nil {
			return nil, fmt.Errorf("training: epoch %d: test: %w", epoch, err)
		}
		rec := Record{Epoch: epoch, TrainLoss: lossSum / float64(max(lossCount, 1)), Valid: valid, Test: test, LR: st.LR,
			TrainSeconds: trainSeconds, BatchSeconds: data.waited.Seconds()}
		rec.Programs, rec.CompileSeconds = data.compiled.take()
		n, secs := predictor.compiled.take()
		rec.Programs += n
		rec.CompileSeconds += secs
		st.Programs += rec.Programs
		st.CompileSeconds += rec.CompileSeconds
		if math.IsNaN(rec.TrainLoss) || math.IsNaN(valid) || math.IsNaN(test) || math.IsInf(rec.TrainLoss, 0) {
			return nil, fmt.Errorf("training: epoch %d: training loss %v, validation %v, test %v: the run diverged (lower the learning rate?)", epoch, rec.TrainLoss, valid, test)
		}
		improved := st.BestEpoch == 0 || metric.Better(valid, st.BestValid)
		if improved {
			st.BestEpoch, st.BestValid, st.TestAtBest = epoch, valid, test
		}
		rec.BestEpoch = st.BestEpoch
		if cfg.Schedule == Plateau {
			st.plateau(ctx, cfg, valid, epoch == 1)
		}
		st.Epoch = epoch
		st.Seconds += time.Since(start).Seconds()
		rec.Seconds = time.Since(start).Seconds()
		// The record, then the best checkpoint, then the latest: a run stopped between any two
		// (a kill, a full disk) resumes from the latest checkpoint, drops the records after it
		// and redoes the epoch, which writes the same record and best checkpoint again.
		if err := appendRecord(filepath.Join(opt.Out, MetricsFile), rec); err != nil {
			return nil, err
		}
		if improved {
			if err := save(ctx, filepath.Join(opt.Out, BestDir), st); err != nil {
				return nil, err
			}
		}
		if err := save(ctx, filepath.Join(opt.Out, CheckpointDir), st); err != nil {
			return nil, err
		}
		sum := summarize(ctx, task, cfg, st)
		if err := writeJSONAtomic(filepath.Join(opt.Out, SummaryFile), sum); err != nil {
			return nil, err
		}
		if opt.OnEpoch != nil {
			opt.OnEpoch(rec)
		}
		if opt.Log != nil {
			done := epoch - first + 1
			eta := time.Duration(float64(time.Since(began)) / float64(done) * float64(epochs-epoch)).Round(time.Second)
			fmt.Fprintf(opt.Log, "epoch %d/%d  train_loss %.4f  val %s %.4f  test %.4f  lr %.2g  %.1fs, %d new programs %.1fs  (best val %.4f at epoch %d, test %.4f)  eta %v\n",
				epoch, epochs, rec.TrainLoss, metric.Name, valid, test, rec.LR, rec.Seconds, rec.Programs, rec.CompileSeconds, st.BestValid, st.BestEpoch, st.TestAtBest, eta)
		}
		if !opt.Deadline.IsZero() && epoch < epochs && time.Now().Add(time.Since(start)).After(opt.Deadline) {
			if bar != nil {
				fmt.Fprintln(opt.Progress)
			}
			if opt.Log != nil {
				fmt.Fprintf(opt.Log, "stopped after epoch %d of %d: another would end after the deadline; resume to continue\n", epoch, epochs)
			}
			break
		}
	}
	return summarize(ctx, task, cfg, st), nil
}

// seconds converts a number of seconds to a Duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// stopped reports whether stop is closed.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// plateau is ReduceLROnPlateau with PyTorch's defaults (relative threshold 1e-4, no cooldown):
// after more than patience epochs without improving the validation metric, the learning rate
// is multiplied by the factor, down to the minimum. It updates the optimizer's learning-rate
// variable and the context parameter, so that a checkpoint holds it.
func (st *state) plateau(ctx *context.Context, cfg Config, valid float64, first bool) {
	improved := first
	if !improved {
		if cfg.Metric.HigherIsBetter {
			improved = valid > st.PlateauBest*(1+1e-4)
		} else {
			improved = valid < st.PlateauBest*(1-1e-4)
		}
	}
	if improved {
		st.PlateauBest, st.BadEpochs = valid, 0
		return
	}
	st.BadEpochs++
	if st.BadEpochs <= cfg.PlateauPatience {
		return
	}
	st.BadEpochs = 0
	st.setLR(ctx, max(st.LR*cfg.PlateauFactor, cfg.MinLearningRate))
}

// setLR sets the learning rate: in the state, the context parameter (so that a checkpoint holds
// it) and the optimizer's variable.
func (st *state) setLR(ctx *context.Context, lr float64) {
	if lr == st.LR {
		return
	}
	st.LR = lr
	ctx.SetParam(ParamLearningRate, lr)
	if v := ctx.GetVariableByScopeAndName("/"+optimizers.Scope, optimizers.ParamLearningRate); v != nil {
		v.MustSetValue(tensors.FromAnyValue(shapes.CastAsDType(lr, v.DType())))
	}
}

func lossByName(name string) (losses.LossFn, error) {
	switch name {
	case "l1":
		return model.L1Loss, nil
	case "mse":
		return model.MSELoss, nil
	case "rmse":
		return model.RMSELoss, nil
	case "bce":
		return model.BCEWithLogitsLoss, nil
	}
	return nil, fmt.Errorf("training: %s = %q, want l1, mse, rmse or bce", ParamLoss, name)
}

// hyperparameters returns the values in ctx of every hyperparameter of AllParams, by name.
func hyperparameters(ctx *context.Context) map[string]any {
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
