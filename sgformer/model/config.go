// Package model holds Subgraphormer (Sec. 4 of the paper) and the baselines GNN-SSWL+ and GIN
// as GoMLX models: functions of a context (hyperparameters and variables, scoped by name), the
// data's dimensions, and a batch of product graphs.
//
// Hyperparameters live in the context (GoMLX's convention) under the names below, with the
// paper's ZINC recipe as defaults; Defaults sets them. The data's own dimensions (embedding
// vocabularies, number of targets) come in a Spec.
package model

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// Hyperparameter names in the context.
const (
	ParamModel       = "model"       // Subgraphormer, SSWLPlus or GIN
	ParamLayers      = "layers"      // number of blocks
	ParamHidden      = "hidden"      // node representation width
	ParamHeads       = "heads"       // attention heads per aggregation
	ParamPEK         = "pe_k"        // product-graph PE columns
	ParamMaxDistance = "max_dis"     // node marks clamp
	ParamDropout     = "dropout"     // dropout rate after each block
	ParamResidual    = "residual"    // residual connections around blocks
	ParamPooling     = "pooling"     // SubgraphMean, Mean or Sum
	ParamPointMLP    = "point_mlp"   // an MLP (with BatchNorm) instead of a Linear map in the point update
	ParamExecution   = "execution"   // Sparse or Dense
	ParamDType       = "model_dtype" // "float32" or "float64"
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

// Executions of the product-graph operators.
const (
	Sparse = "sparse"
	Dense  = "dense"
)

// Defaults sets the hyperparameters of the paper's ZINC recipe (REFERENCE.md) in ctx.
func Defaults(ctx *context.Context) {
	ctx.SetParams(map[string]any{
		ParamModel:       Subgraphormer,
		ParamLayers:      6,
		ParamHidden:      96,
		ParamHeads:       4,
		ParamPEK:         8,
		ParamMaxDistance: 5,
		ParamDropout:     0.0,
		ParamResidual:    false,
		ParamPooling:     SubgraphMean,
		ParamPointMLP:    false,
		ParamExecution:   Sparse,
		ParamDType:       "float32",
	})
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
	Model                 string
	Layers, Hidden, Heads int
	PEK, MaxDistance      int
	Dropout               float64
	Residual, PointMLP    bool
	Pooling, Execution    string
	DType                 dtypes.DType
}

// ReadConfig reads and validates the hyperparameters in ctx.
func ReadConfig(ctx *context.Context) (Config, error) {
	c := Config{
		Model:       context.GetParamOr(ctx, ParamModel, Subgraphormer),
		Layers:      context.GetParamOr(ctx, ParamLayers, 6),
		Hidden:      context.GetParamOr(ctx, ParamHidden, 96),
		Heads:       context.GetParamOr(ctx, ParamHeads, 4),
		PEK:         context.GetParamOr(ctx, ParamPEK, 8),
		MaxDistance: context.GetParamOr(ctx, ParamMaxDistance, 5),
		Dropout:     context.GetParamOr(ctx, ParamDropout, 0.0),
		Residual:    context.GetParamOr(ctx, ParamResidual, false),
		PointMLP:    context.GetParamOr(ctx, ParamPointMLP, false),
		Pooling:     context.GetParamOr(ctx, ParamPooling, SubgraphMean),
		Execution:   context.GetParamOr(ctx, ParamExecution, Sparse),
	}
	switch dt := context.GetParamOr(ctx, ParamDType, "float32"); dt {
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
	case c.Heads < 1:
		return c, fmt.Errorf("model: %s = %d, want at least 1", ParamHeads, c.Heads)
	case c.Model == Subgraphormer && c.Hidden%(3*c.Heads) != 0:
		return c, fmt.Errorf("model: %s = %d must be a multiple of 3·%s = %d (three aggregations of %d heads)", ParamHidden, c.Hidden, ParamHeads, 3*c.Heads, c.Heads)
	case c.PEK < 0 || (c.Model == Subgraphormer && c.PEK >= c.Hidden):
		return c, fmt.Errorf("model: %s = %d, want 0 ≤ k < %s = %d", ParamPEK, c.PEK, ParamHidden, c.Hidden)
	case c.MaxDistance < 0:
		return c, fmt.Errorf("model: %s = %d, want ≥ 0", ParamMaxDistance, c.MaxDistance)
	case c.Dropout < 0 || c.Dropout >= 1:
		return c, fmt.Errorf("model: %s = %v, want [0, 1)", ParamDropout, c.Dropout)
	case c.Pooling != SubgraphMean && c.Pooling != Mean && c.Pooling != Sum:
		return c, fmt.Errorf("model: unknown pooling %q (want %s, %s or %s)", c.Pooling, SubgraphMean, Mean, Sum)
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
