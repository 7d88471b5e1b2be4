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

// bondEmbedding is ReLU(embedding of the bond features), as the authors recompute it for each
// layer and aggregation; nil when the data has no edge features.
func bondEmbedding(ctx *context.Context, bonds *Node, spec Spec, dim int, c Config) *Node {
	if len(spec.EdgeVocab) == 0 {
		return nil
	}
	return activations.Relu(featureEmbedding(ctx.In("bond"), bonds, spec.EdgeVocab, dim, c))
}

// maskedBatchNorm is batch normalisation over the rows of x [N, D] whose mask [N] is 1: padding
// rows neither enter the statistics nor affect anything, and come out as 0. In training it normalises with
// the batch statistics and updates running averages (momentum 0.1, unbiased variance, as
// PyTorch's BatchNorm1d); in inference it uses the running averages.
func maskedBatchNorm(ctx *context.Context, x, mask *Node) *Node {
	ctx = ctx.In("batch_norm")
	g := x.Graph()
	d := x.Shape().Dimensions[1]
	dt := x.DType()
	const eps, momentum = 1e-5, 0.1
	gamma := ctx.WithInitializer(initializers.One).VariableWithShape("gamma", shapes.Make(dt, d)).ValueGraph(g)
	beta := ctx.WithInitializer(initializers.Zero).VariableWithShape("beta", shapes.Make(dt, d)).ValueGraph(g)
	runMean := ctx.WithInitializer(initializers.Zero).VariableWithShape("running_mean", shapes.Make(dt, d)).SetTrainable(false)
	runVar := ctx.WithInitializer(initializers.One).VariableWithShape("running_var", shapes.Make(dt, d)).SetTrainable(false)

	var mean, variance *Node
	if ctx.IsTraining(g) {
		m := InsertAxes(mask, -1)
		count := MaxScalar(ReduceAllSum(mask), 1)
		// The mean is accumulated in float64: for a feature constant over the batch (GIN on
		// a regular graph) it is then exactly that constant, x − mean is exactly 0, and so is
		// the gradient through the variance, Σ dy·(x − mean)·(var + ε)^(−3/2). Accumulated in
		// float32, rounding leaves x − mean ≈ 10⁻⁵·x, which that factor (≈ 3·10⁷ per layer)
		// blows up to an overflow a few layers down.
		m64 := ConvertDType(m, dtypes.Float64)
		mean = ConvertDType(Div(ReduceSum(Mul(ConvertDType(x, dtypes.Float64), m64), 0), MaxScalar(ReduceAllSum(m64), 1)), dt)
		centred := Sub(x, InsertAxes(mean, 0))
		variance = Div(ReduceSum(Mul(Square(centred), m), 0), count)
		unbiased := Mul(variance, Div(count, MaxScalar(SubScalar(count, 1), 1)))
		runMean.SetValueGraph(StopGradient(Add(MulScalar(runMean.ValueGraph(g), 1-momentum), MulScalar(mean, momentum))))
		runVar.SetValueGraph(StopGradient(Add(MulScalar(runVar.ValueGraph(g), 1-momentum), MulScalar(unbiased, momentum))))
	} else {
		mean, variance = runMean.ValueGraph(g), runVar.ValueGraph(g)
	}
	scale := Div(gamma, Sqrt(AddScalar(variance, eps))) // 1/Sqrt: Rsqrt has no gradient in GoMLX
	y := Add(Mul(Sub(x, InsertAxes(mean, 0)), InsertAxes(scale, 0)), InsertAxes(beta, 0))
	// Padding rows are set to 0: normalised with statistics they are not part of, they would
	// grow by up to 1/√ε per layer and overflow.
	return Mul(y, InsertAxes(mask, -1))
}

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

// segmentSoftmax computes, for logits [E, H] of messages into destinations dst [E, 1] among n
// nodes, together with one self-loop logit per node [N, H], the softmax over each node's
// incoming messages and its self loop. It returns the weights of the messages [E, H] and of
// the self loops [N, H]. The maximum is subtracted for stability (without gradient: the
// softmax does not depend on it).
func segmentSoftmax(logits, dst, self *Node) (edges, loops *Node) {
	n := self.Shape().Dimensions[0]
	g := logits.Graph()
	lowest := AddScalar(ZerosLike(self), -1e30)
	m := StopGradient(Max(ScatterMax(lowest, dst, logits, false, false), self))
	expEdges := Exp(Sub(logits, Gather(m, dst)))
	expLoops := Exp(Sub(self, m))
	denom := Add(ScatterSum(Zeros(g, shapes.Make(logits.DType(), n, logits.Shape().Dimensions[1])), dst, expEdges, false, false), expLoops)
	return Div(expEdges, Gather(denom, dst)), Div(expLoops, denom)
}

// attention is one graph-attention aggregation (Veličković et al. 2018; PyG's GATConv with its
// defaults, as the authors use it): heads·perHead outputs, concatenated, with self loops whose
// edge features are the mean of the node's incoming ones, LeakyReLU(0.2) logits, no attention
// dropout, and the bond features entering only the logits:
//
//	α_ij = softmax_j LeakyReLU(a_srcᵀ W x_j + a_dstᵀ W x_i + a_edgeᵀ W_e e_ij),  out_i = Σ_j α_ij W x_j + b.
//
// src and dst are [E, 1] indices of messages dst ← src; bonds [E, D_e] or nil.
func attention(ctx *context.Context, x, src, dst, bonds *Node, heads, perHead int) *Node {
	g := x.Graph()
	n := x.Shape().Dimensions[0]
	dt := x.DType()
	wx := Reshape(layers.Dense(ctx.In("lin"), x, false, heads*perHead), n, heads, perHead) // [N, H, C]
	score := func(name string, v *Node) *Node {                                            // aᵀ v per head: [*, H]
		a := ctx.VariableWithShape(name, shapes.Make(dt, 1, heads, perHead)).ValueGraph(g)
		return ReduceSum(Mul(v, BroadcastToDims(a, v.Shape().Dimensions...)), -1)
	}
	aSrc, aDst := score("att_src", wx), score("att_dst", wx) // [N, H]
	logits := Add(Gather(aSrc, src), Gather(aDst, dst))      // [E, H]
	loops := Add(aSrc, aDst)
	if bonds != nil {
		e := src.Shape().Dimensions[0]
		we := Reshape(layers.Dense(ctx.In("lin_edge"), bonds, false, heads*perHead), e, heads, perHead)
		aEdge := score("att_edge", we)
		logits = Add(logits, aEdge)
		// A self loop's edge feature is the mean of the incoming ones; its score, linear in
		// that feature, is the mean of their scores.
		sum := ScatterSum(Zeros(g, shapes.Make(dt, n, heads)), dst, aEdge, false, false)
		count := ScatterSum(Zeros(g, shapes.Make(dt, n, 1)), dst, Ones(g, shapes.Make(dt, e, 1)), false, false)
		loops = Add(loops, Div(sum, MaxScalar(count, 1)))
	}
	alpha, alphaLoop := segmentSoftmax(activations.LeakyReluWithAlpha(logits, 0.2), dst, activations.LeakyReluWithAlpha(loops, 0.2))
	messages := Mul(Gather(wx, src), InsertAxes(alpha, -1)) // [E, H, C]
	out := ScatterSum(Mul(wx, InsertAxes(alphaLoop, -1)), dst, messages, false, false)
	bias := ctx.WithInitializer(initializers.Zero).VariableWithShape("bias", shapes.Make(dt, heads*perHead)).ValueGraph(g)
	return Add(Reshape(out, n, heads*perHead), InsertAxes(bias, 0))
}

// pool reduces node representations [N, D] to one row per graph slot [B+1, D] (Eq. 7 and its
// mean variant): the sum over the graph's product nodes, divided by n (SubgraphMean: sum per
// subgraph, averaged over the n subgraphs), by the number of product nodes (Mean), or not
// divided (Sum).
func pool(x *Node, in Inputs, c Config) *Node {
	g := x.Graph()
	slots := in.GraphN.Shape().Dimensions[0]
	sum := ScatterSum(Zeros(g, shapes.Make(x.DType(), slots, x.Shape().Dimensions[1])), in.NodeGraph, x, true, false)
	switch c.Pooling {
	case SubgraphMean:
		return Div(sum, InsertAxes(ConvertDType(in.GraphN, x.DType()), -1))
	case Mean:
		return Div(sum, InsertAxes(ConvertDType(in.GraphNodes, x.DType()), -1))
	}
	return sum
}

// head is the final MLP: hidden → 2·hidden → ReLU → tasks, without normalisation.
func head(ctx *context.Context, x *Node, c Config, tasks int) *Node {
	h := activations.Relu(layers.Dense(ctx.In("head_0"), x, true, 2*c.Hidden))
	return layers.Dense(ctx.In("head_1"), h, true, tasks)
}
