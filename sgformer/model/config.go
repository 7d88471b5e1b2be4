// Package model holds Subgraphormer (Sec. 4 of the paper) and the baselines GNN-SSWL+ and GIN
// as GoMLX models: functions of a context (hyperparameters and variables, scoped by name), the
// data's dimensions, and a batch of product graphs.
//
// Hyperparameters live in the context (GoMLX's convention) under the names of Params, whose
// defaults are those of the authors' config/config.yaml; Defaults sets them, and the paper's
// per-dataset configurations are package recipe's. The data's own dimensions
// (embedding vocabularies, number of targets) come in a Spec.
package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/product"
)

// Hyperparameter names in the context.
const (
	ParamModel        = "model"         // Subgraphormer, SSWLPlus or GIN
	ParamLayers       = "layers"        // number of blocks
	ParamHidden       = "hidden"        // node representation width
	ParamHeads        = "heads"         // attention heads per aggregation
	ParamPEK          = "pe_k"          // product-graph PE columns
	ParamPEMode       = "pe_mode"       // how the PE is computed: preprocess.Exact, AuthorsCode or Concat
	ParamTupleK       = "tuple_k"       // order K of the product's tuples (Sec. 4.4, Appendix B)
	ParamAggregations = "aggregations"  // the connectivities a block aggregates over, comma-separated
	ParamMaxDistance  = "max_dis"       // node marks clamp
	ParamDropout      = "dropout"       // dropout rate after each block
	ParamResidual     = "residual"      // residual connections around blocks
	ParamPooling      = "pooling"       // SubgraphMean, Mean, Sum or AuthorsMean
	ParamLayerEncoder = "layer_encoder" // Linear or MLP: the maps of the point update and after the concatenation
	ParamEdgeFeatures = "edge_features" // bond features in the attention logits (the authors' use_edge_attr)
	ParamExecution    = "execution"     // Sparse or Dense
	ParamDType        = "model_dtype"   // "float32" or "float64"
	ParamInit         = "init"          // GoMLXInit or PyTorchInit: how a new model's weights start
	ParamBondEncoder  = "bond_encoder"  // OGBBonds or AuthorsBonds: how several bond feature columns are embedded
)

// Model names.
const (
	Subgraphormer = "subgraphormer"
	SSWLPlus      = "sswl+"
	GIN           = "gin"
)

// Pooling variants: Eq. (7) summed per subgraph and averaged over subgraphs (sum / n, the
// authors' choice for ZINC), the mean over all product nodes (sum / kept nodes), or the sum.
// AuthorsMean is the mean pooling as the authors' code computes it under sampling (with k of
// n subgraphs kept: the sum of the graph's first k² product nodes over k·n; Mean at ratio 1),
// for comparing with their sampled numbers; it is not the paper's Eq. (7).
const (
	SubgraphMean = "subgraph_mean"
	Mean         = "mean"
	Sum          = "sum"
	AuthorsMean  = "authors_mean"
)

// Layer encoders (the authors' model.layer_encoder.linear): a single Linear map, or their MLP,
// Linear → BatchNorm → ReLU → Linear with a hidden width equal to the input width.
const (
	Linear = "linear"
	MLP    = "mlp"
)

// Bond encoders: how bond features of several columns (OGB's type, stereo, conjugation) are
// embedded. OGBBonds is OGB's BondEncoder, the sum of one table per column. AuthorsBonds is what
// the authors' code computes for them (models/layers.py, Bond.forward, the branch for features
// that are not a single column, meant for Alchemy): the first column's table applied to every
// column, averaged. With a single column (ZINC) the two agree. Their trained models need
// AuthorsBonds to compute their function (package pytorch).
const (
	OGBBonds     = "ogb"
	AuthorsBonds = "authors"
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
	{ParamPEMode, string(preprocess.Exact), "PE computation: exact (the k smallest eigenpairs of G^□K), reference (the authors' procedure, K = 2) or concat (the first k eigenvectors of G at each tuple entry, K·k columns)"},
	{ParamTupleK, 2, "order K of the product's tuples: 2 is the paper's Subgraphormer on n² nodes (s, v); K ≥ 3 runs on n^K tuples (Appendix B)"},
	{ParamAggregations, "", "connectivities each block aggregates over, comma-separated (empty: the paper's, internal,external,point for K = 2 — the authors' aggs uL, vL, vv — and adjacency_0..K−1,point_0..K−1 for K ≥ 3; also global_internal, global_external)"},
	{ParamMaxDistance, 5, "node marks d(s,v) are clamped to this distance"},
	{ParamDropout, 0.0, "dropout rate after each block"},
	{ParamResidual, false, "residual connections around blocks"},
	{ParamPooling, SubgraphMean, "pooling: subgraph_mean (Eq. 7, sum/n), mean (sum/n²), sum, or authors_mean (the authors' code under sampling: the first k² of k·n kept nodes)"},
	{ParamLayerEncoder, Linear, "maps of the point update and after the concatenation: linear or mlp"},
	{ParamEdgeFeatures, true, "bond features enter the attention logits (the authors' use_edge_attr)"},
	{ParamExecution, Sparse, "product-graph operators: sparse (edge lists) or dense (per-graph tensors)"},
	{ParamDType, "float32", "model dtype: float32 or float64"},
	{ParamBondEncoder, OGBBonds, "how several bond feature columns are embedded: ogb (OGB's BondEncoder, a table per column, summed) or authors (the authors' code: the first column's table for every column, averaged)"},
	{ParamInit, GoMLXInit, "how new weights start: gomlx (GoMLX's initialisers, drawn by the backend) or pytorch (the authors' PyTorch modules', drawn on the host: the same on every backend)"},
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
	// EdgeMin, if not empty, gives the first valid category of each edge feature column (ZINC
	// reserves bond type 0 for "no bond": its bonds are 1–3).
	EdgeMin []int `json:",omitempty"`
	Tasks   int
}

// Config is the model's hyperparameters read from a context.
type Config struct {
	Model                  string
	Layers, Hidden, Heads  int
	PEK, MaxDistance       int
	PEMode                 preprocess.Mode
	TupleK                 int
	Aggregations           []product.Name // resolved: never empty
	Dropout                float64
	Residual, EdgeFeatures bool
	Pooling, Execution     string
	LayerEncoder           string
	DType                  dtypes.DType
	Init                   string // GoMLXInit or PyTorchInit
	BondEncoder            string // OGBBonds or AuthorsBonds
}

// PEColumns returns the number of PE columns of a product node: k, or K·k for the
// concatenation PE.
func (c Config) PEColumns() int { return c.Preprocess().Columns() }

// Preprocess returns how the model's data is preprocessed: its PE, tuple order and
// connectivities.
func (c Config) Preprocess() preprocess.Options {
	return preprocess.Options{PEK: c.PEK, PEMode: c.PEMode, TupleK: c.TupleK, Connectivities: c.connectivities()}
}

// OnProducts reports whether the model runs on product graphs (GIN runs on G itself).
func (c Config) OnProducts() bool { return variants[c.Model].onProducts() }

// connectivities returns the connectivities the model reads: its aggregations, or G's own
// edges (product.Internal of an original-graph batch) for a model that does not run on
// products.
func (c Config) connectivities() []product.Name {
	if !c.OnProducts() {
		return []product.Name{product.Internal}
	}
	return c.Aggregations
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
		TupleK:       Get[int](ctx, Params, ParamTupleK),
		MaxDistance:  Get[int](ctx, Params, ParamMaxDistance),
		Dropout:      Get[float64](ctx, Params, ParamDropout),
		Residual:     Get[bool](ctx, Params, ParamResidual),
		EdgeFeatures: Get[bool](ctx, Params, ParamEdgeFeatures),
		LayerEncoder: Get[string](ctx, Params, ParamLayerEncoder),
		Pooling:      Get[string](ctx, Params, ParamPooling),
		Execution:    Get[string](ctx, Params, ParamExecution),
		Init:         Get[string](ctx, Params, ParamInit),
		BondEncoder:  Get[string](ctx, Params, ParamBondEncoder),
	}
	switch dt := Get[string](ctx, Params, ParamDType); dt {
	case "float32":
		c.DType = dtypes.Float32
	case "float64":
		c.DType = dtypes.Float64
	default:
		return c, fmt.Errorf("model: %s = %q, want float32 or float64", ParamDType, dt)
	}
	v, known := variants[c.Model]
	switch {
	case !known:
		return c, fmt.Errorf("model: unknown model %q (want %s)", c.Model, strings.Join(slices.Sorted(maps.Keys(variants)), ", "))
	case c.Layers < 1:
		return c, fmt.Errorf("model: %s = %d, want at least 1", ParamLayers, c.Layers)
	case c.Hidden < 1:
		return c, fmt.Errorf("model: %s = %d, want at least 1", ParamHidden, c.Hidden)
	case c.Heads < 1:
		return c, fmt.Errorf("model: %s = %d, want at least 1", ParamHeads, c.Heads)
	case c.TupleK < 2:
		return c, fmt.Errorf("model: %s = %d, want at least 2", ParamTupleK, c.TupleK)
	}
	aggs, err := readAggregations(Get[string](ctx, Params, ParamAggregations), c.TupleK)
	if err != nil {
		return c, err
	}
	c.Aggregations = aggs
	if !v.usesPE() {
		c.PEK = 0 // the baselines use no PE
	}
	switch {
	case c.Model == Subgraphormer && c.Hidden%(len(c.Aggregations)*c.Heads) != 0:
		return c, fmt.Errorf("model: %s = %d must be a multiple of %d·%s = %d (%d aggregations of %d heads)", ParamHidden, c.Hidden, len(c.Aggregations), ParamHeads, len(c.Aggregations)*c.Heads, len(c.Aggregations), c.Heads)
	case c.PEK < 0 || (v.usesPE() && c.PEColumns() >= c.Hidden):
		return c, fmt.Errorf("model: %s = %d gives %d PE columns, want 0 ≤ columns < %s = %d", ParamPEK, c.PEK, c.PEColumns(), ParamHidden, c.Hidden)
	case !slices.Contains(preprocess.Modes, c.PEMode):
		return c, fmt.Errorf("model: %s = %q, want %s, %s or %s", ParamPEMode, c.PEMode, preprocess.Exact, preprocess.AuthorsCode, preprocess.Concat)
	case c.PEMode == preprocess.AuthorsCode && c.TupleK != 2 && c.PEK > 0:
		return c, fmt.Errorf("model: %s = %s is the authors' procedure for pairs; with %s = %d use %s or %s", ParamPEMode, c.PEMode, ParamTupleK, c.TupleK, preprocess.Exact, preprocess.Concat)
	case c.MaxDistance < 0:
		return c, fmt.Errorf("model: %s = %d, want ≥ 0", ParamMaxDistance, c.MaxDistance)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return c, fmt.Errorf("model: %s = %v, want [0, 1)", ParamDropout, c.Dropout)
	case !slices.Contains([]string{SubgraphMean, Mean, Sum, AuthorsMean}, c.Pooling):
		return c, fmt.Errorf("model: unknown pooling %q (want %s, %s, %s or %s)", c.Pooling, SubgraphMean, Mean, Sum, AuthorsMean)
	case c.Pooling == AuthorsMean && (c.TupleK != 2 || c.Execution != Sparse):
		return c, fmt.Errorf("model: %s = %s is the authors' pooling of pairs laid out as theirs (%s = 2, %s = %s); got %d, %s", ParamPooling, AuthorsMean, ParamTupleK, ParamExecution, Sparse, c.TupleK, c.Execution)
	case c.LayerEncoder != Linear && c.LayerEncoder != MLP:
		return c, fmt.Errorf("model: %s = %q, want %s or %s", ParamLayerEncoder, c.LayerEncoder, Linear, MLP)
	case c.Init != GoMLXInit && c.Init != PyTorchInit:
		return c, fmt.Errorf("model: %s = %q, want %s or %s", ParamInit, c.Init, GoMLXInit, PyTorchInit)
	case c.BondEncoder != OGBBonds && c.BondEncoder != AuthorsBonds:
		return c, fmt.Errorf("model: %s = %q, want %s or %s", ParamBondEncoder, c.BondEncoder, OGBBonds, AuthorsBonds)
	case c.Execution != Sparse && c.Execution != Dense:
		return c, fmt.Errorf("model: unknown execution %q (want %s or %s)", c.Execution, Sparse, Dense)
	case c.Execution == Dense && c.Model != Subgraphormer:
		return c, fmt.Errorf("model: the dense execution is Subgraphormer's attention; %s runs sparse (its sum of ReLU messages would need an n³×hidden tensor)", c.Model)
	case c.Execution == Dense && c.TupleK != 2:
		return c, fmt.Errorf("model: the dense execution lays pairs (s, v) on a grid; %s = %d runs sparse", ParamTupleK, c.TupleK)
	}
	if c.Execution == Dense {
		for _, name := range c.Aggregations {
			switch kind, _ := name.Kind(2); {
			case kind == product.Global:
				return c, fmt.Errorf("model: the dense execution attends over G's adjacency; aggregation %s runs sparse", name)
			case kind == product.Neighbours && name != product.Internal && name != product.External:
				// adjacency_i names the same connectivity, but the dense layout lays out only
				// internal and external on its grid.
				return c, fmt.Errorf("model: the dense execution takes the adjacencies of pairs as %s and %s; aggregation %s runs sparse", product.Internal, product.External, name)
			}
		}
	}
	return c, nil
}

// readAggregations reads the hyperparameter aggregations, the connectivities of K-tuples a
// block aggregates over, comma-separated: by default (empty) product.DefaultNames, and an
// error for a name that does not exist for K-tuples or one listed twice.
func readAggregations(list string, k int) ([]product.Name, error) {
	if list == "" {
		return product.DefaultNames(k), nil
	}
	var names []product.Name
	for _, s := range strings.Split(list, ",") {
		name, err := product.ParseName(strings.TrimSpace(s), k)
		if err != nil {
			return nil, fmt.Errorf("model: %s: %w", ParamAggregations, err)
		}
		if slices.Contains(names, name) {
			return nil, fmt.Errorf("model: %s lists %q twice", ParamAggregations, name)
		}
		names = append(names, name)
	}
	return names, nil
}
