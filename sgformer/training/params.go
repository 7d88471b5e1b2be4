// Package training trains and evaluates the models of package model: the paper's recipes as
// context hyperparameters, the epoch loop on GoMLX's train.Trainer, ReduceLROnPlateau, model
// selection on the validation metric, per-epoch JSON lines, and atomic, exactly resumable
// checkpoints.
package training

import (
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/model"
)

// Training hyperparameter names in the context, next to the model's.
const (
	ParamLearningRate    = "learning_rate" // GoMLX's optimizers.ParamLearningRate
	ParamBatchSize       = "batch_size"
	ParamEpochs          = "epochs"
	ParamLoss            = "loss"     // "l1", "mse" or "bce"
	ParamSchedule        = "schedule" // "plateau", "constant" or "cosine" (after ParamWarmupEpochs of linear warm-up)
	ParamWarmupEpochs    = "warmup_epochs"
	ParamOptimizer       = "optimizer" // Adam, AdamW or ASAM
	ParamWeightDecay     = "weight_decay"
	ParamMomentum        = "momentum" // SGD's, under ASAM
	ParamASAMRho         = "asam_rho"
	ParamASAMEta         = "asam_eta"
	ParamPlateauFactor   = "plateau_factor"
	ParamPlateauPatience = "plateau_patience"
	ParamMinLearningRate = "min_learning_rate"
	ParamSamplingRatio   = "sampling_ratio" // fraction of subgraphs kept per graph and epoch (Sec. 4.3)
	ParamEvalSamples     = "eval_samples"   // draws averaged at evaluation when sampling
	ParamSeed            = "seed"
	ParamBucket          = "bucket"       // growth factor between padded batch sizes
	ParamSignFlip        = "pe_sign_flip" // random PE sign flips in training
	ParamMetric          = "metric"       // "mae", "rmse", "rocauc" or "ap"
)

// Defaults sets the model's defaults and the paper's ZINC training recipe (REFERENCE.md):
// Adam, L1 loss, ReduceLROnPlateau (factor 0.5, patience 20), batch 128, 400 epochs, lr 5e-4.
func Defaults(ctx *context.Context) {
	model.Defaults(ctx)
	ctx.SetParams(map[string]any{
		ParamLearningRate:    5e-4,
		ParamBatchSize:       128,
		ParamEpochs:          400,
		ParamLoss:            "l1",
		ParamSchedule:        "plateau",
		ParamWarmupEpochs:    0,
		ParamOptimizer:       Adam,
		ParamWeightDecay:     0.01,
		ParamMomentum:        0.9,
		ParamASAMRho:         0.5,
		ParamASAMEta:         0.01,
		ParamPlateauFactor:   0.5,
		ParamPlateauPatience: 20,
		ParamMinLearningRate: 1e-5,
		ParamSamplingRatio:   1.0,
		ParamEvalSamples:     5,
		ParamSeed:            0,
		ParamBucket:          1.15,
		ParamSignFlip:        true,
		ParamMetric:          "mae",
	})
}

// Recipe returns the hyperparameters that differ from Defaults for a dataset (REFERENCE.md's
// table of the authors' recipes): none for ZINC (Defaults is its recipe); the OGB molecule
// recipes (3 or 2 layers of width 60, batch 32, 100 epochs, residual blocks, mean pooling;
// Adam at a constant rate, or ASAM for ogbg-molhiv); Peptides (AdamW, 10 warm-up epochs then
// cosine); and for the synthetic counting task a model small enough to train in a few minutes
// on two cores.
func Recipe(dataset string) map[string]any {
	ogb := func(loss, metric string, layers int, lr, dropout float64) map[string]any {
		return map[string]any{
			model.ParamLayers: layers, model.ParamHidden: 60, model.ParamDropout: dropout, model.ParamResidual: true,
			model.ParamPooling: model.Mean, ParamBatchSize: 32, ParamEpochs: 100, ParamLearningRate: lr,
			ParamLoss: loss, ParamMetric: metric, ParamSchedule: "constant",
		}
	}
	switch dataset {
	case "ogbg-molesol":
		return ogb("mse", "rmse", 3, 1e-3, 0.5)
	case "ogbg-molbace":
		return ogb("bce", "rocauc", 3, 1e-3, 0.3)
	case "ogbg-molhiv":
		r := ogb("bce", "rocauc", 2, 0.1, 0.3)
		r[ParamOptimizer] = ASAM
		return r
	case "peptides-func":
		return map[string]any{
			model.ParamLayers: 5, model.ParamPooling: model.Mean, ParamBatchSize: 128, ParamEpochs: 200,
			ParamLearningRate: 3e-3, ParamLoss: "bce", ParamMetric: "ap", ParamOptimizer: AdamW,
			ParamSchedule: "cosine", ParamWarmupEpochs: 10, ParamMinLearningRate: 0.0, ParamSamplingRatio: 0.3,
		}
	case "synthetic", "synthetic-triangles", "synthetic-4cycles":
		return map[string]any{
			model.ParamLayers: 2, model.ParamHidden: 24, model.ParamHeads: 2, model.ParamPEK: 4,
			ParamBatchSize: 32, ParamEpochs: 40, ParamLearningRate: 2e-3, ParamPlateauPatience: 5,
		}
	}
	return nil
}
