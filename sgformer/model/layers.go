package model

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/initializers"
	"github.com/gomlx/gomlx/pkg/ml/layers"
	"github.com/gomlx/gomlx/pkg/ml/layers/activations"
)

// featureEmbedding embeds integer features [N, F] as the sum of one embedding table per column
// (OGB's AtomEncoder / BondEncoder; a single table for ZINC's atom or bond type).
func featureEmbedding(ctx *context.Context, x *Node, vocab []int, dim int, c Config) *Node {
	var sum *Node
	for j, size := range vocab {
		col := x
		if len(vocab) > 1 {
			col = SliceAxis(x, 1, AxisElem(j))
		}
		e := layers.Embedding(ctx.In(fmt.Sprintf("feature_%d", j)), col, c.DType, size, dim)
		e = Reshape(e, x.Shape().Dimensions[0], dim)
		if sum == nil {
			sum = e
		} else {
			sum = Add(sum, e)
		}
	}
	return sum
}

// usesBonds reports whether the model reads bond features: the data has them and the model is
// configured to use them.
func usesBonds(spec Spec, c Config) bool { return len(spec.EdgeVocab) > 0 && c.EdgeFeatures }

// bondEmbedding is ReLU(embedding of the bond features), as the authors recompute it for each
// layer and aggregation, of the rows of the batch's bond table [K, F]: [K, dim]. The embedding
// is the configured bond encoder's (OGBBonds or AuthorsBonds).
func bondEmbedding(ctx *context.Context, table *Node, spec Spec, dim int, c Config) *Node {
	ctx = ctx.In("bond")
	if c.BondEncoder == OGBBonds || len(spec.EdgeVocab) == 1 {
		return activations.Relu(featureEmbedding(ctx, table, spec.EdgeVocab, dim, c))
	}
	// The first column's table (of its rows: a larger value takes the last row, where the
	// authors' code stops with an index error) for every column, averaged.
	k, cols := table.Shape().Dimensions[0], len(spec.EdgeVocab)
	idx := MinScalar(Reshape(table, k*cols, 1), float64(spec.EdgeVocab[0]-1))
	e := layers.Embedding(ctx.In("feature_0"), idx, c.DType, spec.EdgeVocab[0], dim)
	return activations.Relu(DivScalar(ReduceSum(Reshape(e, k, cols, dim), 1), float64(cols)))
}

// RunningAverage reports whether a variable named name is one of BatchNorm's running averages
// (maskedBatchNorm's), which training mode updates without a gradient and inference reads.
func RunningAverage(name string) bool { return name == runningMean || name == runningVar }

// The names of BatchNorm's running averages, PyTorch's.
const runningMean, runningVar = "running_mean", "running_var"

// BatchNormMomentum is the weight of a training batch's statistics in BatchNorm's running
// averages, PyTorch's default: running = (1 − momentum)·running + momentum·batch.
const BatchNormMomentum = 0.1

// maskedBatchNorm is batch normalisation over the rows of x [N, D] whose mask [N] is 1: padding
// rows neither enter the statistics nor affect anything, and come out as 0. In training it normalises with
// the batch statistics and updates running averages (momentum 0.1, unbiased variance, as
// PyTorch's BatchNorm1d); in inference it uses the running averages.
func maskedBatchNorm(ctx *context.Context, x, mask *Node) *Node {
	ctx = ctx.In("batch_norm")
	g := x.Graph()
	d := x.Shape().Dimensions[1]
	dt := x.DType()
	const eps, momentum = 1e-5, BatchNormMomentum
	gamma := ctx.WithInitializer(initializers.One).VariableWithShape("gamma", shapes.Make(dt, d)).ValueGraph(g)
	beta := ctx.WithInitializer(initializers.Zero).VariableWithShape("beta", shapes.Make(dt, d)).ValueGraph(g)
	runMean := ctx.WithInitializer(initializers.Zero).VariableWithShape(runningMean, shapes.Make(dt, d)).SetTrainable(false)
	runVar := ctx.WithInitializer(initializers.One).VariableWithShape(runningVar, shapes.Make(dt, d)).SetTrainable(false)

	var mean, variance *Node
	if ctx.IsTraining(g) {
		m := like(InsertAxes(mask, -1), x)
		count := MaxScalar(ReduceAllSum(mask), 1)
		// The mean is accumulated in float64: for a feature constant over the batch (GIN on
		// a regular graph) it is then exactly that constant, x − mean is exactly 0, and so is
		// the gradient through the variance, Σ dy·(x − mean)·(var + ε)^(−3/2). Accumulated in
		// float32, rounding leaves x − mean ≈ 10⁻⁵·x, which that factor (≈ 3·10⁷ per layer)
		// blows up to an overflow a few layers down.
		m64 := ConvertDType(m, dtypes.Float64)
		mean = ConvertDType(Div(ReduceSum(Mul(ConvertDType(x, dtypes.Float64), m64), 0), MaxScalar(ReduceAllSum(m64), 1)), dt)
		centred := Sub(x, like(InsertAxes(mean, 0), x))
		variance = Div(ReduceSum(Mul(Square(centred), m), 0), count)
		unbiased := Mul(variance, Div(count, MaxScalar(SubScalar(count, 1), 1)))
		runMean.SetValueGraph(StopGradient(Add(MulScalar(runMean.ValueGraph(g), 1-momentum), MulScalar(mean, momentum))))
		runVar.SetValueGraph(StopGradient(Add(MulScalar(runVar.ValueGraph(g), 1-momentum), MulScalar(unbiased, momentum))))
	} else {
		mean, variance = runMean.ValueGraph(g), runVar.ValueGraph(g)
	}
	scale := Div(gamma, Sqrt(AddScalar(variance, eps))) // 1/Sqrt: Rsqrt has no gradient in GoMLX
	y := Add(Mul(Sub(x, like(InsertAxes(mean, 0), x)), like(InsertAxes(scale, 0), x)), like(InsertAxes(beta, 0), x))
	// Padding rows are set to 0: normalised with statistics they are not part of, they would
	// grow by up to 1/√ε per layer and overflow.
	return Mul(y, like(InsertAxes(mask, -1), x))
}

// like broadcasts x to the shape of y explicitly: GoMLX's pure-Go backend runs elementwise ops
// on equal shapes as plain loops, 1.5–2× faster than with implicit broadcasting (measured on the
// pure-Go backend of GoMLX v0.26.0).
func like(x, y *Node) *Node { return BroadcastToDims(x, y.Shape().Dimensions...) }

// mlp is Linear → masked BatchNorm → ReLU → Linear, the MLP of GIN-style updates, in the scope
// "mlp".
func mlp(ctx *context.Context, x, mask *Node, hidden, out int) *Node {
	ctx = ctx.In("mlp")
	h := layers.Dense(ctx.In("dense_0"), x, true, hidden)
	h = activations.Relu(maskedBatchNorm(ctx, h, mask))
	return layers.Dense(ctx.In("dense_1"), h, true, out)
}

// dropout applies the configured dropout in training.
func dropout(ctx *context.Context, x *Node, c Config) *Node {
	if c.Dropout == 0 {
		return x
	}
	return layers.Dropout(ctx, x, Scalar(x.Graph(), x.DType(), c.Dropout))
}

// pool reduces node representations [N, D] to one row per graph slot [B+1, D] (Eq. 7 and its
// mean variant): the sum over the graph's product nodes, divided by the number of subgraphs
// kept (SubgraphMean: sum per subgraph, averaged over subgraphs; n for the full bag), by the
// number of product nodes kept (Mean), or not divided (Sum). Under sampling only kept rows
// count, and all of them, except in AuthorsMean: the authors' mean pooling under sampling sums
// only the first k² rows of a graph's k·n (their utils/preprocess.py,
// get_edge_index_uG_efficient_pooling) and divides by k·n. A graph's product nodes are
// consecutive rows, subgraph by subgraph, as batch.Batch lays them out.
func pool(x *Node, in Inputs, c Config) *Node {
	g := x.Graph()
	slots := in.GraphN.Shape().Dimensions[0]
	if c.Pooling == AuthorsMean {
		nodes, n := ConvertDType(in.GraphNodes, x.DType()), ConvertDType(in.GraphN, x.DType())
		k := Div(nodes, n)                                                 // subgraphs kept
		first := Sub(CumSum(nodes, 0), nodes)                              // each slot's first row
		row := Iota(g, shapes.Make(x.DType(), x.Shape().Dimensions[0]), 0) // row in the batch
		inFirst := LessThan(Sub(row, Gather(first, in.NodeGraph)), Gather(Mul(k, k), in.NodeGraph))
		x = Mul(x, InsertAxes(ConvertDType(inFirst, x.DType()), -1))
	}
	sum := ScatterSum(Zeros(g, shapes.Make(x.DType(), slots, x.Shape().Dimensions[1])), in.NodeGraph, x, false, false)
	switch c.Pooling {
	case SubgraphMean: // sum / kept subgraphs, where kept subgraphs = product nodes / n
		return Div(Mul(sum, InsertAxes(ConvertDType(in.GraphN, x.DType()), -1)), InsertAxes(ConvertDType(in.GraphNodes, x.DType()), -1))
	case Mean, AuthorsMean:
		return Div(sum, InsertAxes(ConvertDType(in.GraphNodes, x.DType()), -1))
	}
	return sum
}

// head is the final MLP: hidden → 2·hidden → ReLU → tasks, without normalisation.
func head(ctx *context.Context, x *Node, c Config, tasks int) *Node {
	h := activations.Relu(layers.Dense(ctx.In("head_0"), x, true, 2*c.Hidden))
	return layers.Dense(ctx.In("head_1"), h, true, tasks)
}

// IsWeight reports whether v is one of the model's weights in the sense of ASAM (Kwon et al.
// 2021, as the authors apply it to the PyTorch parameters named "weight"): the matrices of
// linear maps (GoMLX's layers.Dense "weights", the attention's lin and lin_edge among them),
// embedding tables ("embeddings") and BatchNorm's scale ("gamma"). Biases, BatchNorm's offset
// ("beta"), the attention vectors (att_src, att_dst, att_edge) and GIN's ε are not.
func IsWeight(v *context.Variable) bool {
	switch v.Name() {
	case "weights", "embeddings", "gamma":
		return true
	}
	return false
}
