// Package training trains and evaluates the models of package model on a task (package task):
// its hyperparameters in the context (package recipe holds the paper's values), the epoch loop
// on GoMLX's train.Trainer, ReduceLROnPlateau, model selection on the validation metric,
// per-epoch JSON lines, and atomic, exactly resumable checkpoints.
//
// Train composes a run of parts with one job each (Train's doc names them). The steps run on
// GoMLX's train.Trainer, in a loop of the package's own (epochSteps says why not GoMLX's
// train.Loop), and what watches them (stop, progress, checkpoints within an epoch) are hooks
// called after each step; the epochs are Train's own loop.
package training

import (
	"fmt"
	"strconv"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/losses"

	"github.com/sgformer/sgformer/sgformer/metrics"
	"github.com/sgformer/sgformer/sgformer/model"
)

// Training hyperparameter names in the context, next to the model's.
const (
	ParamLearningRate    = "learning_rate" // GoMLX's optimizers.ParamLearningRate
	ParamBatchSize       = "batch_size"
	ParamEpochs          = "epochs"
	ParamLoss            = "loss"     // "l1", "mse", "rmse" or "bce"
	ParamSchedule        = "schedule" // "plateau", "constant" or "cosine" (after ParamWarmupEpochs of linear warm-up)
	ParamWarmupEpochs    = "warmup_epochs"
	ParamOptimizer       = "optimizer" // Adam, AdamW or ASAM
	ParamWeightDecay     = "weight_decay"
	ParamAdamEpsilon     = "adam_epsilon" // GoMLX's optimizers.ParamAdamEpsilon
	ParamMomentum        = "momentum"     // SGD's, under ASAM
	ParamASAMRho         = "asam_rho"
	ParamASAMEta         = "asam_eta"
	ParamPlateauFactor   = "plateau_factor"
	ParamPlateauPatience = "plateau_patience"
	ParamMinLearningRate = "min_learning_rate"
	ParamSamplingRatio   = "sampling_ratio" // fraction of subgraphs kept per graph and epoch (Sec. 4.3)
	ParamEvalSamples     = "eval_samples"   // draws averaged at evaluation when sampling
	ParamSeed            = "seed"
	ParamBucket          = "bucket"         // growth factor between padded batch sizes
	ParamSignFlip        = "pe_sign_flip"   // random PE sign flips in training
	ParamMetric          = "metric"         // "mae", "rmse", "rocauc" or "ap"
	ParamDevices         = "devices"        // devices each training step and evaluation runs on: a number, or "all" (devices.go)
	ParamBNRecalibrate   = "bn_recalibrate" // BatchNorm's running averages recalibrated before each evaluation (batchnorm.go)
)

// Schedules (ParamSchedule).
const (
	Plateau  = "plateau"  // ReduceLROnPlateau on the validation metric
	Constant = "constant" // no schedule
	Cosine   = "cosine"   // linear warm-up, then a half cosine
)

// Optimizers (ParamOptimizer) of the paper's recipes (its paragraph "Optimizers and
// Schedulers"; ASAM as the authors' utils/training.py applies it).
const (
	Adam  = "adam"  // Adam (ZINC, ogbg-molesol, ogbg-molbace)
	AdamW = "adamw" // Adam with decoupled weight decay (Peptides)
	ASAM  = "asam"  // adaptive sharpness-aware minimisation over SGD with momentum (ogbg-molhiv)
)

// trainingParams are the training hyperparameters. Their defaults are those of the authors'
// config/config.yaml where it has one (Adam at 5e-4 without weight decay, batch 128, 400
// epochs, ReduceLROnPlateau with patience 40, L1 loss), with PyTorch's defaults for the rest.
var trainingParams = []model.Param{
	param(ParamLearningRate, 5e-4, "initial learning rate"),
	param(ParamBatchSize, 128, "graphs per batch"),
	param(ParamEpochs, 400, "training epochs"),
	param(ParamLoss, "l1", "loss: l1, mse, rmse (per batch) or bce (with logits)"),
	param(ParamMetric, "mae", "model-selection and reported metric: mae, rmse, rocauc or ap"),
	param(ParamOptimizer, Adam, "optimizer: adam, adamw or asam (over SGD with momentum)"),
	param(ParamWeightDecay, 0.0, "adamw's decoupled weight decay (the authors' runs use 0 throughout)"),
	param(ParamAdamEpsilon, 1e-7, "adam's and adamw's ε (GoMLX's default; PyTorch's, in the paper's recipes, is 1e-8)"),
	param(ParamMomentum, 0.9, "SGD momentum under asam"),
	param(ParamASAMRho, 0.5, "ASAM's neighbourhood size ρ"),
	param(ParamASAMEta, 0.01, "ASAM's η in the weight scaling |w| + η"),
	param(ParamSchedule, Plateau, "learning-rate schedule: plateau, constant or cosine"),
	param(ParamWarmupEpochs, 0, "linear warm-up epochs before the cosine schedule"),
	param(ParamPlateauFactor, 0.5, "ReduceLROnPlateau's factor"),
	param(ParamPlateauPatience, 40, "ReduceLROnPlateau's patience in epochs"),
	param(ParamMinLearningRate, 0.0, "lower bound of the plateau schedule and end of the cosine one"),
	param(ParamSamplingRatio, 1.0, "fraction of subgraphs kept per graph and epoch (Sec. 4.3); 1 is the full bag"),
	param(ParamEvalSamples, 5, "sampling draws averaged at evaluation when sampling_ratio < 1"),
	param(ParamSeed, 0, "random seed (weights, shuffling, sampling, sign flips, dropout)"),
	param(ParamBucket, 1.15, "growth factor between the padded sizes of batches"),
	param(ParamSignFlip, true, "flip the sign of each PE column at random in training"),
	param(ParamDevices, "1", `devices each training step and evaluation runs on, the batch split among them (data parallel): a number, or "all" of the backend's`),
	param(ParamBNRecalibrate, false, "before each epoch's evaluation, set BatchNorm's running averages to the mean statistics of 100 training batches at the epoch's weights (precise BatchNorm; the authors' runs do not)"),
}

func param(name string, def any, usage string) model.Param {
	return model.Param{Name: name, Default: def, Usage: usage}
}

// AllParams returns the model's and the training hyperparameters, the ones a run records, with
// their defaults and meaning (`sgformer train -h` lists them).
func AllParams() []model.Param {
	return append(append([]model.Param(nil), model.Params...), trainingParams...)
}

// Defaults sets every model and training hyperparameter to its default in ctx.
func Defaults(ctx *context.Context) { model.SetDefaults(ctx, AllParams()) }

// Config is a run's hyperparameters, read and validated once from a context.
type Config struct {
	Model                 model.Config
	LearningRate          float64
	BatchSize, Epochs     int
	Loss                  string
	Metric                metrics.Metric
	Optimizer             string
	WeightDecay, Momentum float64
	AdamEpsilon           float64
	ASAMRho, ASAMEta      float64
	Schedule              string
	WarmupEpochs          int
	PlateauFactor         float64
	PlateauPatience       int
	MinLearningRate       float64
	SamplingRatio         float64
	EvalSamples, Seed     int
	Bucket                float64
	SignFlip              bool
	BNRecalibrate         bool
	// Devices is ParamDevices as given; Train resolves it against the backend (ResolveDevices).
	Devices string
}

// ReadConfig reads and validates the hyperparameters in ctx. Its errors name the parameter.
func ReadConfig(ctx *context.Context) (Config, error) {
	mc, err := model.ReadConfig(ctx)
	if err != nil {
		return Config{}, err
	}
	f := func(name string) float64 { return model.Get[float64](ctx, trainingParams, name) }
	i := func(name string) int { return model.Get[int](ctx, trainingParams, name) }
	s := func(name string) string { return model.Get[string](ctx, trainingParams, name) }
	c := Config{
		Model: mc, LearningRate: f(ParamLearningRate), BatchSize: i(ParamBatchSize), Epochs: i(ParamEpochs),
		Loss: s(ParamLoss), Optimizer: s(ParamOptimizer), WeightDecay: f(ParamWeightDecay), AdamEpsilon: f(ParamAdamEpsilon), Momentum: f(ParamMomentum),
		ASAMRho: f(ParamASAMRho), ASAMEta: f(ParamASAMEta), Schedule: s(ParamSchedule), WarmupEpochs: i(ParamWarmupEpochs),
		PlateauFactor: f(ParamPlateauFactor), PlateauPatience: i(ParamPlateauPatience), MinLearningRate: f(ParamMinLearningRate),
		SamplingRatio: f(ParamSamplingRatio), EvalSamples: i(ParamEvalSamples), Seed: i(ParamSeed), Bucket: f(ParamBucket),
		SignFlip: model.Get[bool](ctx, trainingParams, ParamSignFlip), BNRecalibrate: model.Get[bool](ctx, trainingParams, ParamBNRecalibrate), Devices: s(ParamDevices),
	}
	if c.Metric, err = metrics.ByName(s(ParamMetric)); err != nil {
		return c, fmt.Errorf("training: %s: %w", ParamMetric, err)
	}
	if _, err := lossByName(c.Loss); err != nil {
		return c, err
	}
	bad := func(name string, value any, want string) (Config, error) {
		return c, fmt.Errorf("training: %s = %v, want %s", name, value, want)
	}
	switch {
	case !(c.LearningRate >= 0): // a schedule may bring the rate to 0; a run must start above (Train)
		return bad(ParamLearningRate, c.LearningRate, "a positive rate")
	case c.BatchSize < 1:
		return bad(ParamBatchSize, c.BatchSize, "at least 1")
	case c.Epochs < 1:
		return bad(ParamEpochs, c.Epochs, "at least 1")
	case c.Optimizer != Adam && c.Optimizer != AdamW && c.Optimizer != ASAM:
		return bad(ParamOptimizer, fmt.Sprintf("%q", c.Optimizer), Adam+", "+AdamW+" or "+ASAM)
	case !(c.WeightDecay >= 0) || (c.WeightDecay > 0 && c.Optimizer != AdamW):
		return bad(ParamWeightDecay, c.WeightDecay, "≥ 0, and 0 unless optimizer = "+AdamW)
	case !(c.AdamEpsilon > 0):
		return bad(ParamAdamEpsilon, c.AdamEpsilon, "> 0")
	case !(c.Momentum >= 0 && c.Momentum < 1):
		return bad(ParamMomentum, c.Momentum, "[0, 1)")
	case !(c.ASAMRho > 0):
		return bad(ParamASAMRho, c.ASAMRho, "> 0")
	case !(c.ASAMEta >= 0):
		return bad(ParamASAMEta, c.ASAMEta, "≥ 0")
	case c.Schedule != Plateau && c.Schedule != Constant && c.Schedule != Cosine:
		return bad(ParamSchedule, fmt.Sprintf("%q", c.Schedule), Plateau+", "+Constant+" or "+Cosine)
	case c.WarmupEpochs < 0 || (c.Schedule == Cosine && c.WarmupEpochs >= c.Epochs):
		return bad(ParamWarmupEpochs, c.WarmupEpochs, fmt.Sprintf("at least 0 and fewer than the %d epochs", c.Epochs))
	case !(c.PlateauFactor > 0 && c.PlateauFactor < 1):
		return bad(ParamPlateauFactor, c.PlateauFactor, "(0, 1)")
	case c.PlateauPatience < 0:
		return bad(ParamPlateauPatience, c.PlateauPatience, "≥ 0")
	case !(c.MinLearningRate >= 0):
		return bad(ParamMinLearningRate, c.MinLearningRate, "≥ 0")
	case !(c.SamplingRatio > 0 && c.SamplingRatio <= 1):
		return bad(ParamSamplingRatio, c.SamplingRatio, "(0, 1]")
	case c.EvalSamples < 1:
		return bad(ParamEvalSamples, c.EvalSamples, "at least 1")
	case !(c.Bucket >= 1):
		return bad(ParamBucket, c.Bucket, "≥ 1")
	}
	if _, err := parseDevices(c.Devices); err != nil {
		return c, err
	}
	// The weights' seed is ParamSeed: Train and BuildModel set GoMLX's initial seed to it + 1,
	// which would overwrite another one set in the context without a word.
	if v, ok := ctx.GetParam(context.ParamInitialSeed); ok && fmt.Sprint(v) != fmt.Sprint(c.Seed+1) {
		return c, fmt.Errorf("training: %s = %v in the context: the weights' seed is %s (%d, which sets it to %d); set %s instead", context.ParamInitialSeed, v, ParamSeed, c.Seed, c.Seed+1, ParamSeed)
	}
	return c, nil
}

// lossByName returns the loss function that ParamLoss names.
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

// allDevices is the ParamDevices value for every device of the backend.
const allDevices = "all"

// parseDevices reads a ParamDevices value: a positive number, or 0 for allDevices.
func parseDevices(s string) (int, error) {
	if s == allDevices {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("training: %s = %q, want a positive number of devices or %q", ParamDevices, s, allDevices)
	}
	return n, nil
}
