package model

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/layers"
	"github.com/gomlx/gomlx/pkg/ml/layers/activations"
)

// sswlPlus is GNN-SSWL+ (Zhang et al. 2023) on the same product graph, without attention or
// PE (REFERENCE.md): each layer is
//
//	x ← ReLU(BN(Σ_agg MLP_agg((1 + ε_agg) x + Σ_{nbrs} ReLU(x_nbr + bond)))),  agg ∈ {A_G, A_{G^S}, A_point},
//
// and a final layer aggregates globally over each subgraph (A^Global_G).
func sswlPlus(ctx *context.Context, spec Spec, c Config, in Inputs) *Node {
	mask := ConvertDType(in.NodeMask, c.DType)
	x := featureEmbedding(ctx.In("input").In("atom"), in.NodeFeatures, spec.NodeVocab, c.Hidden, c)
	x = Add(x, layers.Embedding(ctx.In("input").In("marking"), in.Marks, c.DType, c.MaxDistance+2, c.Hidden))
	for l := range c.Layers {
		lc := ctx.In(fmt.Sprintf("layer_%d", l))
		internal := ginAggregate(lc.In("internal"), spec, c, x, in.IntSrc, in.IntDst, in.IntBond, in.BondTable, mask)
		external := ginAggregate(lc.In("external"), spec, c, x, in.ExtSrc, in.ExtDst, in.ExtBond, in.BondTable, mask)
		pointMsg := Mul(Gather(x, in.PointSrc), InsertAxes(ConvertDType(in.PointMask, c.DType), -1))
		point := mlp(lc.In("point"), Add(Add(x, Mul(epsilon(lc.In("point"), x), x)), pointMsg), mask, c.Hidden, c.Hidden)
		z := activations.Relu(maskedBatchNorm(lc, Add(Add(internal, external), point), mask))
		x = dropout(lc, z, c)
	}
	// The global layer: every node receives the sum over its subgraph.
	gc := ctx.In("global")
	n := x.Shape().Dimensions[0]
	subgraphSum := ScatterSum(Zeros(x.Graph(), shapes.Make(c.DType, n, c.Hidden)), in.NodeSubgraph, Mul(x, InsertAxes(mask, -1)), true, false)
	h := Add(Add(x, Mul(epsilon(gc, x), x)), Gather(subgraphSum, in.NodeSubgraph))
	return activations.Relu(maskedBatchNorm(gc, mlp(gc, h, mask, c.Hidden, c.Hidden), mask))
}

// ginAggregate is one GINE aggregation: MLP((1 + ε) x_i + Σ_{j → i} ReLU(x_j + bond_ji)), with
// bonds [E, 1] rows of the bond table [K, F].
func ginAggregate(ctx *context.Context, spec Spec, c Config, x, src, dst, bonds, table, mask *Node) *Node {
	msg := Gather(x, src)
	if b := bondEmbedding(ctx, table, spec, c.Hidden, c); b != nil {
		msg = Add(msg, Gather(b, bonds))
	}
	sum := ScatterSum(ZerosLike(x), dst, activations.Relu(msg), false, false)
	return mlp(ctx, Add(Add(x, Mul(epsilon(ctx, x), x)), sum), mask, c.Hidden, c.Hidden)
}

// gin is GIN (with bond features, GINE) on the original graph: batches built with
// batch.Options.Original, whose internal edges are the edges of G.
func gin(ctx *context.Context, spec Spec, c Config, in Inputs) *Node {
	mask := ConvertDType(in.NodeMask, c.DType)
	x := featureEmbedding(ctx.In("input").In("atom"), in.NodeFeatures, spec.NodeVocab, c.Hidden, c)
	for l := range c.Layers {
		lc := ctx.In(fmt.Sprintf("layer_%d", l))
		z := activations.Relu(maskedBatchNorm(lc, ginAggregate(lc, spec, c, x, in.IntSrc, in.IntDst, in.IntBond, in.BondTable, mask), mask))
		x = dropout(lc, z, c)
	}
	return x
}
