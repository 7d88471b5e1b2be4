// Package model holds Subgraphormer (Sec. 4 of the paper) and the baselines GNN-SSWL+ and GIN
// as GoMLX models: functions of a context (hyperparameters and variables, scoped by name), the
// data's dimensions, and a batch of product graphs.
//
// Hyperparameters live in the context (GoMLX's convention) under the names of Params, whose
// defaults are those of the authors' config/config.yaml; Defaults sets them, and the paper's
// per-dataset configurations are package training's recipes. The data's own dimensions
// (embedding vocabularies, number of targets) come in a Spec.
package model

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/preprocess"
)

// Hyperparameter names in the context.
const (
	ParamModel        = "model"         // Subgraphormer, SSWLPlus or GIN
	ParamLayers       = "layers"        // number of blocks
	ParamHidden       = "hidden"        // node representation width
	ParamHeads        = "heads"         // attention heads per aggregation
	ParamPEK          = "pe_k"          // product-graph PE columns
	ParamPEMode       = "pe_mode"       // how the PE is computed: preprocess.Exact or preprocess.AuthorsCode
	ParamMaxDistance  = "max_dis"       // node marks clamp
	ParamDropout      = "dropout"       // dropout rate after each block
	ParamResidual     = "residual"      // residual connections around blocks
	ParamPooling      = "pooling"       // SubgraphMean, Mean or Sum
	ParamLayerEncoder = "layer_encoder" // Linear or MLP: the maps of the point update and after the concatenation
	ParamEdgeFeatures = "edge_features" // bond features in the attention logits (the authors' use_edge_attr)
	ParamExecution    = "execution"     // Sparse or Dense
	ParamDType        = "model_dtype"   // "float32" or "float64"
)

// Model names.
const (
	Subgraphormer = "subgraphormer"
	SSWLPlus      = "sswl+"
	GIN           = "gin"
)

// Pooling variants: Eq. (7) summed per subgraph and averaged over subgraphs (sum / n, the
// authors' choice for ZINC), the mean over all product nodes (sum / kept nodes), or the sum.
const (
	SubgraphMean = "subgraph_mean"
	Mean         = "mean"
	Sum          = "sum"
)

// Layer encoders (the authors' model.layer_encoder.linear): a single Linear map, or their MLP,
// Linear → BatchNorm → ReLU → Linear with a hidden width equal to the input width.
const (
	Linear = "linear"
	MLP    = "mlp"
)

// Executions of the product-graph operators.
const (
	Sparse = "sparse"
	Dense  = "dense"
)

// A Param is one hyperparameter: its name in the context, its default, and what it means.
// The default's type is the parameter's type.
type Param struct {
	Name    string
	Default any
	Usage   string
}

// Params are the model's hyperparameters. Their defaults are the authors' config/config.yaml
// (6 layers of width 96, 4 heads, k = 8, Linear layer encoders, sum pooling per subgraph),
// except pe_mode, whose default is the exact PE (the authors' procedure is "reference").
var Params = []Param{
	{ParamModel, Subgraphormer, "model: subgraphormer, sswl+ or gin"},
	{ParamLayers, 6, "number of blocks"},
	{ParamHidden, 96, "node representation width"},
	{ParamHeads, 4, "attention heads per aggregation"},
	{ParamPEK, 8, "product-graph PE columns k (0: no PE)"},
	{ParamPEMode, string(preprocess.Exact), "PE computation: exact (the k smallest eigenpairs of G□G) or reference (the authors' procedure)"},
	{ParamMaxDistance, 5, "node marks d(s,v) are clamped to this distance"},
	{ParamDropout, 0.0, "dropout rate after each block"},
	{ParamResidual, false, "residual connections around blocks"},
	{ParamPooling, SubgraphMean, "pooling: subgraph_mean (Eq. 7, sum/n), mean (sum/n²) or sum"},
	{ParamLayerEncoder, Linear, "maps of the point update and after the concatenation: linear or mlp"},
	{ParamEdgeFeatures, true, "bond features enter the attention logits (the authors' use_edge_attr)"},
	{ParamExecution, Sparse, "product-graph operators: sparse (edge lists) or dense (per-graph tensors)"},
	{ParamDType, "float32", "model dtype: float32 or float64"},
}

// Defaults sets every parameter of Params to its default in ctx.
func Defaults(ctx *context.Context) { SetDefaults(ctx, Params) }

// SetDefaults sets the given parameters to their defaults in ctx.
func SetDefaults(ctx *context.Context, params []Param) {
	for _, p := range params {
		ctx.SetParam(p.Name, p.Default)
	}
}

// Get returns the value of the parameter name in ctx, or its default from params when ctx
// does not set it: the one place a default is read from. It panics if name is not in params,
// a programming error.
func Get[T any](ctx *context.Context, params []Param, name string) T {
	for _, p := range params {
		if p.Name == name {
			return context.GetParamOr(ctx, name, p.Default.(T))
		}
	}
	panic(fmt.Sprintf("model: no hyperparameter %q", name))
}

// Spec holds the dimensions a model takes from its data.
type Spec struct {
	// NodeVocab and EdgeVocab give the number of categories of each integer node and edge
	// feature column; Tasks the number of targets per graph.
	NodeVocab, EdgeVocab []int
	Tasks                int
}

// Config is the model's hyperparameters read from a context.
type Config struct {
	Model                  string
	Layers, Hidden, Heads  int
	PEK, MaxDistance       int
	PEMode                 preprocess.Mode
	Dropout                float64
	Residual, EdgeFeatures bool
	Pooling, Execution     string
	LayerEncoder           string
	DType                  dtypes.DType
}

// ReadConfig reads and validates the hyperparameters in ctx.
func ReadConfig(ctx *context.Context) (Config, error) {
	c := Config{
		Model:        Get[string](ctx, Params, ParamModel),
		Layers:       Get[int](ctx, Params, ParamLayers),
		Hidden:       Get[int](ctx, Params, ParamHidden),
		Heads:        Get[int](ctx, Params, ParamHeads),
		PEK:          Get[int](ctx, Params, ParamPEK),
		PEMode:       preprocess.Mode(Get[string](ctx, Params, ParamPEMode)),
		MaxDistance:  Get[int](ctx, Params, ParamMaxDistance),
		Dropout:      Get[float64](ctx, Params, ParamDropout),
		Residual:     Get[bool](ctx, Params, ParamResidual),
		EdgeFeatures: Get[bool](ctx, Params, ParamEdgeFeatures),
		LayerEncoder: Get[string](ctx, Params, ParamLayerEncoder),
		Pooling:      Get[string](ctx, Params, ParamPooling),
		Execution:    Get[string](ctx, Params, ParamExecution),
	}
	switch dt := Get[string](ctx, Params, ParamDType); dt {
	case "float32":
		c.DType = dtypes.Float32
	case "float64":
		c.DType = dtypes.Float64
	default:
		return c, fmt.Errorf("model: %s = %q, want float32 or float64", ParamDType, dt)
	}
	switch {
	case c.Model != Subgraphormer && c.Model != SSWLPlus && c.Model != GIN:
		return c, fmt.Errorf("model: unknown model %q (want %s, %s or %s)", c.Model, Subgraphormer, SSWLPlus, GIN)
	case c.Layers < 1:
		return c, fmt.Errorf("model: %s = %d, want at least 1", ParamLayers, c.Layers)
	case c.Hidden < 1:
		return c, fmt.Errorf("model: %s = %d, want at least 1", ParamHidden, c.Hidden)
	case c.Heads < 1:
		return c, fmt.Errorf("model: %s = %d, want at least 1", ParamHeads, c.Heads)
	case c.Model == Subgraphormer && c.Hidden%(3*c.Heads) != 0:
		return c, fmt.Errorf("model: %s = %d must be a multiple of 3·%s = %d (three aggregations of %d heads)", ParamHidden, c.Hidden, ParamHeads, 3*c.Heads, c.Heads)
	case c.PEK < 0 || (c.Model == Subgraphormer && c.PEK >= c.Hidden):
		return c, fmt.Errorf("model: %s = %d, want 0 ≤ k < %s = %d", ParamPEK, c.PEK, ParamHidden, c.Hidden)
	case c.PEMode != preprocess.Exact && c.PEMode != preprocess.AuthorsCode:
		return c, fmt.Errorf("model: %s = %q, want %s or %s", ParamPEMode, c.PEMode, preprocess.Exact, preprocess.AuthorsCode)
	case c.MaxDistance < 0:
		return c, fmt.Errorf("model: %s = %d, want ≥ 0", ParamMaxDistance, c.MaxDistance)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return c, fmt.Errorf("model: %s = %v, want [0, 1)", ParamDropout, c.Dropout)
	case c.Pooling != SubgraphMean && c.Pooling != Mean && c.Pooling != Sum:
		return c, fmt.Errorf("model: unknown pooling %q (want %s, %s or %s)", c.Pooling, SubgraphMean, Mean, Sum)
	case c.LayerEncoder != Linear && c.LayerEncoder != MLP:
		return c, fmt.Errorf("model: %s = %q, want %s or %s", ParamLayerEncoder, c.LayerEncoder, Linear, MLP)
	case c.Execution != Sparse && c.Execution != Dense:
		return c, fmt.Errorf("model: unknown execution %q (want %s or %s)", c.Execution, Sparse, Dense)
	case c.Execution == Dense && c.Model != Subgraphormer:
		return c, fmt.Errorf("model: the dense execution is Subgraphormer's attention; %s runs sparse (its sum of ReLU messages would need an n³×hidden tensor)", c.Model)
	}
	if c.Model != Subgraphormer {
		c.PEK = 0 // the baselines use no PE
	}
	return c, nil
}
