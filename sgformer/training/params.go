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
	ParamSchedule        = "schedule" // "plateau" or "constant"
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

// Recipe returns the hyperparameters that differ from Defaults for a dataset: none for ZINC
// (Defaults is its recipe), and for the synthetic counting task a model small enough to train
// in a few minutes on two cores.
func Recipe(dataset string) map[string]any {
	switch dataset {
	case "synthetic", "synthetic-triangles", "synthetic-4cycles":
		return map[string]any{
			model.ParamLayers: 2, model.ParamHidden: 24, model.ParamHeads: 2, model.ParamPEK: 4,
			ParamBatchSize: 32, ParamEpochs: 40, ParamLearningRate: 2e-3, ParamPlateauPatience: 5,
		}
	}
	return nil
}
