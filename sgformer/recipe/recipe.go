// Package recipe holds the authors' configurations of Subgraphormer + PE, one per dataset and
// published sampling ratio (All), as hyperparameters of the model and training packages: the
// defaults of the CLI, the notebooks and the reproduction.
package recipe

import (
	"maps"
	"slices"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/training"
)

// A Recipe is the configuration the authors trained Subgraphormer + PE with on one dataset at
// one subgraph sampling ratio: the paper's appendix tables "Best hyperparameters for
// Subgraphormer + PE in full bag settings" and "… in stochastic sampling settings" (layers,
// learning rate, width, epochs, batch size, dropout, k), its paragraph "Optimizers and
// Schedulers", and for what the paper does not state, the authors' yamls/*.yaml and code.
type Recipe struct {
	Dataset string
	// Ratio is the sampling ratio the recipe was published for; 1 is the full bag.
	Ratio float64
	// Source names the paper's table and the authors' yaml the values come from.
	Source string
	// Params are the hyperparameters, every one the recipe fixes (training.Defaults gives the
	// rest).
	Params map[string]any
}

// The sources of the recipes.
const (
	fullBag    = "paper: Best hyperparameters … full bag"
	stochastic = "paper: Best hyperparameters … stochastic sampling"
)

// Per-dataset bases of the recipes.
var (
	// authorsStart is how the authors' models start: PyTorch's initialisations and Adam's ε.
	authorsStart = map[string]any{model.ParamInit: model.PyTorchInit, training.ParamAdamEpsilon: 1e-8}

	zinc12k = with(authorsStart, map[string]any{
		model.ParamLayers: 6, model.ParamHidden: 96, training.ParamLearningRate: 5e-4, training.ParamEpochs: 400, training.ParamBatchSize: 128,
		model.ParamDropout: 0.0, model.ParamPEK: 8, model.ParamPEMode: string(preprocess.AuthorsCode),
		model.ParamLayerEncoder: model.MLP, model.ParamResidual: false, model.ParamPooling: model.SubgraphMean,
		training.ParamLoss: "l1", training.ParamMetric: "mae", training.ParamOptimizer: training.Adam, training.ParamSchedule: training.Plateau,
		training.ParamPlateauFactor: 0.5, training.ParamPlateauPatience: 20, training.ParamMinLearningRate: 0.0,
	})
	ogbMolecules = with(authorsStart, map[string]any{
		model.ParamHidden: 60, training.ParamEpochs: 100, training.ParamBatchSize: 32, model.ParamPEMode: string(preprocess.AuthorsCode),
		model.ParamLayerEncoder: model.Linear, model.ParamResidual: true, model.ParamPooling: model.Mean,
		training.ParamOptimizer: training.Adam, training.ParamSchedule: training.Constant,
	})
	peptides = with(authorsStart, map[string]any{
		model.ParamHidden: 96, training.ParamEpochs: 200, training.ParamBatchSize: 128, model.ParamDropout: 0.0, model.ParamPEK: 16,
		model.ParamPEMode: string(preprocess.AuthorsCode), model.ParamLayerEncoder: model.MLP, model.ParamResidual: false,
		model.ParamPooling: model.Mean, model.ParamEdgeFeatures: false, training.ParamSamplingRatio: 0.3, training.ParamEvalSamples: 3,
		training.ParamOptimizer: training.AdamW, training.ParamWeightDecay: 0.0, training.ParamSchedule: training.Cosine, training.ParamWarmupEpochs: 10, training.ParamMinLearningRate: 0.0,
	})
	molhiv = with(ogbMolecules, map[string]any{
		model.ParamLayers: 2, training.ParamLearningRate: 0.1, model.ParamDropout: 0.3, model.ParamPEK: 8, training.ParamLoss: "bce", training.ParamMetric: "rocauc",
		training.ParamOptimizer: training.ASAM, training.ParamMomentum: 0.9, training.ParamASAMRho: 0.5, training.ParamASAMEta: 0.01,
	})
	molesol = with(ogbMolecules, map[string]any{
		model.ParamLayers: 3, training.ParamLearningRate: 1e-3, model.ParamDropout: 0.5, model.ParamPEK: 2, training.ParamLoss: "rmse", training.ParamMetric: "rmse",
	})
	molbace = with(ogbMolecules, map[string]any{
		model.ParamLayers: 3, training.ParamLearningRate: 1e-3, model.ParamDropout: 0.3, model.ParamPEK: 16, training.ParamLoss: "bce", training.ParamMetric: "rocauc",
	})
)

// with returns base with the changes applied, a new map.
func with(base map[string]any, changes map[string]any) map[string]any {
	m := maps.Clone(base)
	maps.Copy(m, changes)
	return m
}

// sampled is a stochastic-sampling recipe: base at ratio p, predictions averaged over 5 draws
// (the authors' average_res_over).
func sampled(base map[string]any, p float64, changes map[string]any) map[string]any {
	return with(with(base, map[string]any{training.ParamSamplingRatio: p, training.ParamEvalSamples: 5}), changes)
}

// All are the authors' configurations, one per dataset and published sampling ratio (the
// single source of these values: the CLI's defaults, the README's table and the tests read
// them here), and the built-in synthetic task's, ours.
var All = []Recipe{
	{"zinc12k", 1, fullBag + "; yamls/zinc12k_deterministic.yaml", zinc12k},
	{"zinc12k", 0.5, stochastic + "; yamls/zinc12k_stochastic.yaml", sampled(zinc12k, 0.5, nil)},
	{"zinc12k", 0.2, stochastic + " (800 epochs: 400 did not converge); yamls/zinc12k_stochastic.yaml", sampled(zinc12k, 0.2, map[string]any{training.ParamEpochs: 800})},
	{"zinc12k", 0.05, stochastic + " (800 epochs: 400 did not converge); yamls/zinc12k_stochastic.yaml", sampled(zinc12k, 0.05, map[string]any{training.ParamEpochs: 800})},
	{"zinc-full", 1, fullBag + "; yamls/zincfull_deterministic.yaml", with(zinc12k, map[string]any{model.ParamPEK: 16})},
	{"ogbg-molhiv", 1, fullBag + "; yamls/molhiv_deterministic.yaml; ASAM without a schedule", molhiv},
	{"ogbg-molhiv", 0.5, stochastic + "; yamls/molhiv_stochastic.yaml", sampled(molhiv, 0.5, nil)},
	{"ogbg-molhiv", 0.2, stochastic + "; yamls/molhiv_stochastic.yaml", sampled(molhiv, 0.2, nil)},
	{"ogbg-molhiv", 0.05, stochastic + "; yamls/molhiv_stochastic.yaml", sampled(molhiv, 0.05, nil)},
	{"ogbg-molesol", 1, fullBag + "; yamls/molesol_deterministic.yaml; RMSE loss (utils/training.py)", molesol},
	{"ogbg-molesol", 0.5, stochastic + "; yamls/molesol_stochastic.yaml", sampled(molesol, 0.5, map[string]any{model.ParamLayers: 3, model.ParamPEK: 2})},
	{"ogbg-molesol", 0.2, stochastic + "; yamls/molesol_stochastic.yaml", sampled(molesol, 0.2, map[string]any{model.ParamLayers: 12, model.ParamPEK: 1})},
	{"ogbg-molesol", 0.05, stochastic + "; yamls/molesol_stochastic.yaml", sampled(molesol, 0.05, map[string]any{model.ParamLayers: 12, model.ParamPEK: 2})},
	{"ogbg-molbace", 1, fullBag + "; yamls/molbace_deterministic.yaml", molbace},
	{"ogbg-molbace", 0.5, stochastic + "; yamls/molbace_stochastic.yaml", sampled(molbace, 0.5, map[string]any{model.ParamPEK: 8})},
	{"ogbg-molbace", 0.2, stochastic + "; yamls/molbace_stochastic.yaml", sampled(molbace, 0.2, map[string]any{model.ParamPEK: 8})},
	{"ogbg-molbace", 0.05, stochastic + "; yamls/molbace_stochastic.yaml", sampled(molbace, 0.05, map[string]any{model.ParamPEK: 2})},
	{"alchemy12k", 1, fullBag + "; yamls/alchemy_deterministic.yaml; min lr 1e-7 (paper)", with(authorsStart, map[string]any{
		model.ParamLayers: 5, model.ParamHidden: 96, training.ParamLearningRate: 0.01, training.ParamEpochs: 400, training.ParamBatchSize: 128,
		model.ParamDropout: 0.0, model.ParamPEK: 16, model.ParamPEMode: string(preprocess.AuthorsCode),
		model.ParamLayerEncoder: model.Linear, model.ParamResidual: true, model.ParamPooling: model.Mean,
		training.ParamLoss: "l1", training.ParamMetric: "mae", training.ParamOptimizer: training.Adam, training.ParamSchedule: training.Plateau,
		training.ParamPlateauFactor: 0.5, training.ParamPlateauPatience: 20, training.ParamMinLearningRate: 1e-7,
	})},
	{"peptides-func", 0.3, stochastic + "; yamls/peptides_func_stochastic.yaml", with(peptides, map[string]any{
		model.ParamLayers: 5, training.ParamLearningRate: 3e-3, training.ParamLoss: "bce", training.ParamMetric: "ap",
	})},
	{"peptides-struct", 0.3, stochastic + "; yamls/peptides_struc_stochastic.yaml", with(peptides, map[string]any{
		model.ParamLayers: 4, training.ParamLearningRate: 5e-3, training.ParamLoss: "l1", training.ParamMetric: "mae",
	})},
	{"synthetic", 1, "ours: small enough to train in minutes on two cores", map[string]any{
		model.ParamLayers: 2, model.ParamHidden: 24, model.ParamHeads: 2, model.ParamPEK: 4, training.ParamBatchSize: 32, training.ParamEpochs: 40,
		training.ParamLearningRate: 2e-3, training.ParamPlateauPatience: 5, training.ParamMinLearningRate: 1e-5,
	}},
}

// csvRecipes are ours, for tables of molecules (data.MoleculeCSV): ogbg-molbace's full-bag
// recipe, the paper's for OGB molecules (3 × 60, k = 16, ...), with the loss and metric of the
// task — L1 and MAE for regression, BCE and ROC-AUC (OGB's evaluator) for classification. They
// are not the paper's, so not in All.
var csvRecipes = []Recipe{
	{CSVName(data.Regression), 1, "ours: ogbg-molbace's full bag, L1 loss and MAE", with(molbace, map[string]any{training.ParamLoss: "l1", training.ParamMetric: "mae"})},
	{CSVName(data.Classification), 1, "ours: ogbg-molbace's full bag", molbace},
}

// CSVName is the name of the recipe of a table of molecules with labels of the task:
// "csv-regression" or "csv-classification", which At and Default accept.
func CSVName(task data.Task) string { return "csv-" + string(task) }

// allRecipes are the paper's and ours for tables of molecules.
func allRecipes() []Recipe { return slices.Concat(All, csvRecipes) }

// At returns the hyperparameters of dataset's recipe at sampling ratio p: the published
// one (published is true), or else the dataset's first recipe (its full bag; Peptides' 30 %)
// with the sampling ratio set to p and, below 1, evaluation averaged over 5 draws. Datasets
// without a recipe get none (nil).
func At(dataset string, p float64) (params map[string]any, published bool) {
	dataset = recipeName(dataset)
	for _, r := range allRecipes() {
		if r.Dataset == dataset && r.Ratio == p {
			return maps.Clone(r.Params), true
		}
	}
	for _, r := range allRecipes() {
		if r.Dataset == dataset {
			changes := map[string]any{training.ParamSamplingRatio: p}
			if p < 1 {
				changes[training.ParamEvalSamples] = 5
			}
			return with(r.Params, changes), false
		}
	}
	return nil, false
}

// Default returns the hyperparameters of dataset's first recipe (its full bag; Peptides'
// 30 %), nil for a dataset without one.
func Default(dataset string) map[string]any {
	dataset = recipeName(dataset)
	for _, r := range allRecipes() {
		if r.Dataset == dataset {
			return maps.Clone(r.Params)
		}
	}
	return nil
}

// recipeName maps the aliases of the synthetic task to the name of its recipe.
func recipeName(dataset string) string {
	if dataset == "synthetic-triangles" || dataset == "synthetic-4cycles" {
		return "synthetic"
	}
	return dataset
}
