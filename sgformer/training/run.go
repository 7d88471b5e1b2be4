package training

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train"
	"github.com/gomlx/gomlx/pkg/ml/train/losses"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/task"
)

// ErrRunExists is the error (errors.Is) of a new run whose directory holds a run already.
var ErrRunExists = errors.New("training: the directory already holds a run")

// ErrEpochsDone is the error (errors.Is) of a resume asked for fewer epochs (ParamEpochs) than
// the run has done.
var ErrEpochsDone = errors.New("training: fewer epochs asked than the run has done")

// Train trains the model described by ctx's hyperparameters on task, evaluating the validation
// and test splits after every epoch, and writes the run directory opt.Out: ConfigFile,
// MetricsFile, SummaryFile and the checkpoints CheckpointDir and that of the best epoch, each
// replaced atomically. With opt.Resume it continues the run there exactly: same weights,
// optimizer state, learning-rate schedule and random streams.
//
// Train is the epoch loop; each part of a run is a type with one job: the learning-rate
// schedule (schedule), the epoch's training steps on GoMLX's train.Trainer (epochSteps) and
// what watches them after each step (stopper, progress, partialSaves), evaluation and the best epoch (evaluator, best), the checkpoints
// (checkpointer) and the metrics file (metricsLog).
func Train(ctx *context.Context, task *task.Task, opt Options) (*Summary, error) {
	unlock, err := lockRun(opt.Out)
	if err != nil {
		return nil, err
	}
	defer unlock()
	r, partial, err := newRun(ctx, task, opt)
	if err != nil {
		return nil, err
	}
	defer r.steps.data.stop()
	st, epochs := r.st, r.cfg.Epochs
	for epoch := st.Epoch + 1; epoch <= epochs; epoch++ {
		st.setLR(ctx, r.schedule.before(epoch, st.LR))
		if err := r.steps.start(epoch, partial); err != nil {
			return nil, r.ckpt.corrupt("%v", err)
		}
		partial = nil
		r.progress.epochStarted()
		if err := r.steps.run(); err != nil {
			if !r.stop.stopped() {
				return nil, fmt.Errorf("training: epoch %d: %w", epoch, err)
			}
			return r.interrupted(epoch)
		}
		trainSeconds := time.Since(r.steps.trainBegan).Seconds()
		valid, test, err := r.eval.epoch(epoch)
		if err != nil {
			return nil, err
		}
		rec := Record{Epoch: epoch, TrainLoss: r.steps.trainLoss(), Valid: valid, Test: test, LR: st.LR,
			TrainSeconds: trainSeconds, BatchSeconds: r.steps.data.waited.Seconds()}
		rec.Programs, rec.CompileSeconds = r.compiled()
		st.Programs += rec.Programs
		st.CompileSeconds += rec.CompileSeconds
		st.DeviceBytes = max(st.DeviceBytes, r.deviceBytes())
		if math.IsNaN(rec.TrainLoss) || math.IsNaN(valid) || math.IsNaN(test) || math.IsInf(rec.TrainLoss, 0) {
			return nil, fmt.Errorf("training: epoch %d: training loss %v, validation %v, test %v: the run diverged (lower the learning rate?)", epoch, rec.TrainLoss, valid, test)
		}
		improved := st.best.update(r.cfg.Metric, epoch, valid, test)
		rec.BestEpoch = st.BestEpoch
		st.setLR(ctx, r.schedule.after(epoch, valid, st.LR))
		st.Epoch = epoch
		st.Seconds += time.Since(r.steps.began).Seconds()
		rec.Seconds = time.Since(r.steps.began).Seconds()
		if err := r.save(rec, improved); err != nil {
			return nil, err
		}
		if opt.OnEpoch != nil {
			opt.OnEpoch(rec)
		}
		r.progress.epochDone(rec, st)
		if epoch < epochs && r.stop.pastDeadline(time.Since(r.steps.began)) {
			r.progress.endBar()
			r.progress.logf("stopped after epoch %d of %d: another would end after the deadline; resume to continue\n", epoch, epochs)
			break
		}
	}
	return r.summary(), nil
}

// run is a training run and its parts.
type run struct {
	ctx      *context.Context
	task     *task.Task
	cfg      Config
	out      string
	st       *state
	schedule schedule
	steps    *epochSteps
	eval     *evaluator
	stop     stopper
	progress *progress
	ckpt     checkpointer
	metrics  metricsLog
	programs int // backend.Programs seen so far, of the process
}

// newRun prepares the run of Train: a new one, or the one in opt.Out resumed (then also the
// epoch its checkpoint was saved within, if any); its files; its trainer; and its parts.
func newRun(ctx *context.Context, task *task.Task, opt Options) (*run, *partialEpoch, error) {
	r := &run{ctx: ctx, task: task, out: opt.Out, st: &state{}, ckpt: checkpointer{ctx: ctx, out: opt.Out},
		metrics: metricsLog{out: opt.Out}, stop: stopper{stop: opt.Stop, deadline: opt.Deadline}, programs: len(backend.Programs(0))}
	st := r.st
	var partial *partialEpoch
	if opt.Resume {
		var err error
		if partial, err = r.ckpt.resume(st); err != nil {
			return nil, nil, err
		}
		if kind := backend.Kind(opt.Backend); st.Backend != "" && st.Backend != kind {
			return nil, nil, fmt.Errorf("training: %s was trained on backend %s: resuming it on %s would not continue it exactly "+
				"(each backend draws its own random numbers for dropout and rounds in its own order); resume it with --backend %s, "+
				"or start a new run with another --out", opt.Out, st.Backend, kind, st.Backend)
		}
		if err := r.metrics.resume(st.Epoch); err != nil {
			return nil, nil, err
		}
	} else if _, err := os.Stat(filepath.Join(opt.Out, CheckpointDir)); err == nil {
		return nil, nil, fmt.Errorf("%w: %s; resume it with --resume or choose another --out", ErrRunExists, opt.Out)
	}
	cfg, err := ReadConfig(ctx)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Epochs < st.Epoch {
		return nil, nil, fmt.Errorf("%w: %s has done %d epochs, and %d were asked; give --epochs %d or more", ErrEpochsDone, opt.Out, st.Epoch, cfg.Epochs, st.Epoch)
	}
	r.cfg = cfg
	devices, err := ResolveDevices(cfg, opt.Backend)
	if err != nil {
		return nil, nil, err
	}
	if !opt.Resume {
		if err := r.startDir(opt); err != nil {
			return nil, nil, err
		}
	}
	// The configuration as the run goes on: a resumed run may have more epochs. The learning
	// rate recorded is the initial one.
	params := Hyperparameters(ctx)
	params[ParamLearningRate] = st.BaseLR
	if err := writeJSONAtomic(filepath.Join(opt.Out, ConfigFile), params); err != nil {
		return nil, nil, err
	}
	batches, err := newBatching(cfg, task.Spec).withProfile(task.Select(task.Train))
	if err != nil {
		return nil, nil, err
	}
	lossFn, err := lossByName(cfg.Loss)
	if err != nil {
		return nil, nil, err
	}
	if len(task.Train) == 0 || len(task.Valid) == 0 || len(task.Test) == 0 {
		return nil, nil, fmt.Errorf("training: %s has an empty split (%d/%d/%d)", task.Name, len(task.Train), len(task.Valid), len(task.Test))
	}
	trainer, err := r.newTrainer(opt, lossFn)
	if err != nil {
		return nil, nil, err
	}
	data := &epochData{task: task, batches: batches, seed: cfg.Seed, devices: devices, backend: opt.Backend}
	r.progress = newProgress(opt, task.Name, data, cfg.Metric, st.Epoch, cfg.Epochs)
	if devices > 1 {
		if data.sharding, err = newSharding(devices); err != nil {
			return nil, nil, err
		}
		r.progress.logf("training on %d devices of backend %s, each batch of %d graphs split among them\n", devices, backend.Kind(opt.Backend), cfg.BatchSize)
	}
	r.steps = newEpochSteps(trainer, data)
	r.progress.attach(r.steps)
	r.stop.attach(r.steps)
	if opt.CheckpointInterval > 0 {
		saves := &partialSaves{interval: opt.CheckpointInterval, data: data, save: r.savePartial}
		saves.attach(r.steps)
	}
	r.eval = &evaluator{ctx: ctx, backend: opt.Backend, cfg: cfg, task: task, batches: batches}
	r.schedule = newSchedule(cfg, st)
	return r, partial, nil
}

// startDir starts a new run in opt.Out: its state, an empty metrics file and its runFile.
func (r *run) startDir(opt Options) error {
	if r.cfg.LearningRate == 0 {
		return fmt.Errorf("training: %s = 0, want a positive rate", ParamLearningRate)
	}
	r.st.LR, r.st.BaseLR = r.cfg.LearningRate, r.cfg.LearningRate
	r.st.Backend = backend.Kind(opt.Backend)
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return err
	}
	if err := r.metrics.start(); err != nil {
		return err
	}
	src := r.task.Source
	if src.Dataset == "" {
		src.Dataset = r.task.Name
	}
	src.Spec = r.task.Spec
	return writeJSONAtomic(filepath.Join(opt.Out, runFile), src)
}

// newTrainer returns GoMLX's trainer of the run's model, loss and optimizer, starting from the
// learning rate where the schedule is, with the weights resumed or started as configured.
func (r *run) newTrainer(opt Options, lossFn losses.LossFn) (*train.Trainer, error) {
	ctx, cfg := r.ctx, r.cfg
	ctx.SetParam(ParamLearningRate, r.st.LR)
	if !opt.Resume {
		ctx.SetParam(context.ParamInitialSeed, int64(cfg.Seed)+1) // GoMLX takes seed 0 as "random"
	}
	optimizer, modelFn, lossFn := newOptimizer(cfg, model.New(r.task.Spec, cfg.Model), lossFn)
	trainer := train.NewTrainer(opt.Backend, ctx, modelFn, lossFn, optimizer, nil, nil)
	switch {
	case opt.Resume:
		trainer.SetContext(ctx.Reuse())
	case cfg.Model.Init != model.GoMLXInit:
		// The weights exist before the first step, to be started as configured; the optimizer's
		// state is created by the first step.
		if err := startModel(ctx, opt.Backend, r.task.Spec, cfg); err != nil {
			return nil, err
		}
		trainer.SetContext(ctx.Checked(false))
	}
	return trainer, nil
}

// deviceBytes returns the largest device memory of the XLA programs compiled or loaded since
// the last call (since the run began, the first time).
func (r *run) deviceBytes() int64 {
	var most int64
	for _, p := range backend.Programs(r.programs) {
		most = max(most, p.Bytes())
		r.programs++
	}
	return most
}

// compiled returns the programs the epoch built, training's and evaluation's, and their seconds.
func (r *run) compiled() (int, float64) {
	n, secs := r.steps.data.compiled.take()
	m, evalSecs := r.eval.compiled()
	return n + m, secs + evalSecs
}

// save writes what an epoch ended with: its record, then the best checkpoint if it is the best
// epoch, then the latest checkpoint, then the summary. A run stopped between any two (a kill, a
// full disk) resumes from the latest checkpoint, drops the records after it and redoes the
// epoch, which writes the same record and best checkpoint again.
func (r *run) save(rec Record, improved bool) error {
	if err := r.metrics.record(rec); err != nil {
		return err
	}
	if improved {
		if err := r.ckpt.saveBest(r.st); err != nil {
			return err
		}
	}
	if err := r.ckpt.saveLatest(r.st); err != nil {
		return err
	}
	return r.metrics.summary(r.summary())
}

// savePartial saves the latest checkpoint where the epoch under way got.
func (r *run) savePartial() error {
	p, err := r.steps.partial()
	if err != nil {
		return err
	}
	return r.ckpt.savePartial(r.st, p)
}

// interrupted ends the run stopped (Options.Stop) during epoch: it saves the latest checkpoint
// where the epoch got, and returns ErrInterrupted.
func (r *run) interrupted(epoch int) (*Summary, error) {
	r.progress.endBar()
	if err := r.savePartial(); err != nil {
		return nil, fmt.Errorf("training: interrupted during epoch %d, and saving where it got failed (the previous checkpoint is kept): %w", epoch, err)
	}
	d := r.steps.data
	r.progress.logf("interrupted during epoch %d after %d of its %d graphs, saved there; resume to continue\n", epoch, d.pos, len(d.order))
	return r.summary(), fmt.Errorf("%w during epoch %d of %s (saved after %d of its %d graphs)", ErrInterrupted, epoch, r.out, d.pos, len(d.order))
}

// summary returns the run's Summary as it stands.
func (r *run) summary() *Summary { return summarize(r.ctx, r.task, r.cfg, r.st) }

// summarize returns the Summary of a run of the model in ctx, configured by cfg, on task, where
// st stands.
func summarize(ctx *context.Context, task *task.Task, cfg Config, st *state) *Summary {
	params, _ := model.ParameterCounts(ctx, cfg.Model)
	return &Summary{Dataset: task.Name, Model: cfg.Model.Model, Metric: cfg.Metric.Name, Epochs: st.Epoch, BestEpoch: st.BestEpoch,
		BestValid: st.BestValid, TestAtBest: st.TestAtBest, TrainSize: len(task.Train), Seconds: st.Seconds, Parameters: params,
		Programs: st.Programs, CompileSeconds: st.CompileSeconds, DeviceBytes: st.DeviceBytes, SamplingRatio: cfg.SamplingRatio, PEK: cfg.Model.PEK, Seed: cfg.Seed}
}
