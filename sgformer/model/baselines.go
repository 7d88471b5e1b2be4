package model

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/layers/activations"

	"github.com/sgformer/sgformer/sgformer/product"
)

type sswlPlusModel struct{}

func (sswlPlusModel) onProducts() bool { return true }
func (sswlPlusModel) usesPE() bool     { return false }

// encode is GNN-SSWL+ (Zhang et al. 2023) on the same product graph, without attention or
// PE (the paper's main baseline, as Zhang et al. 2023 define it): each layer is
//
//	x ← ReLU(BN(Σ_agg MLP_agg((1 + ε_agg) x + Σ_{nbrs} ReLU(x_nbr + bond)))),  agg ∈ {A_G, A_{G^S}, A_point},
//
// over the configured aggregations (point-wise ones send x_nbr as it is), and a final layer
// aggregates globally over each subgraph (A^Global_G).
func (sswlPlusModel) encode(ctx *context.Context, spec Spec, c Config, in Inputs) *Node {
	mask := ConvertDType(in.NodeMask, c.DType)
	x := inputEmbedding(ctx.In("input"), spec, c, in, c.Hidden)
	n := x.Shape().Dimensions[0]
	for l := range c.Layers {
		lc := ctx.In(fmt.Sprintf("layer_%d", l))
		var sum *Node
		for _, name := range c.Aggregations {
			h := ginAggregate(lc.In(name.String()), spec, c, x, in.BondTable, connect(c, in, name, n), kindOf(c, name) != product.PointWise, mask)
			if sum == nil {
				sum = h
			} else {
				sum = Add(sum, h)
			}
		}
		z := activations.Relu(maskedBatchNorm(lc, sum, mask))
		x = dropout(lc, z, c)
	}
	// The global layer: every node receives the sum over its subgraph.
	gc := ctx.In("global")
	subgraphSum := ScatterSum(Zeros(x.Graph(), shapes.Make(c.DType, n, c.Hidden)), in.NodeSubgraph, Mul(x, InsertAxes(mask, -1)), true, false)
	h := Add(Add(x, Mul(epsilon(gc, x), x)), Gather(subgraphSum, in.NodeSubgraph))
	return activations.Relu(maskedBatchNorm(gc, mlp(gc, h, mask, c.Hidden, c.Hidden), mask))
}

// ginAggregate is one GINE aggregation: MLP((1 + ε) x_i + Σ_{j → i} m_ij) with messages
// m_ij = ReLU(x_j + bond_ij) (ReLU(x_j) without bonds), or m_ij = x_j when relu is false
// (point updates).
func ginAggregate(ctx *context.Context, spec Spec, c Config, x, table *Node, conn connectivity, relu bool, mask *Node) *Node {
	msg := conn.gather(x, false)
	if conn.carriesBonds() && usesBonds(spec, c) {
		msg = Add(msg, conn.bonds(bondEmbedding(ctx, table, spec, c.Hidden, c)))
	}
	if relu {
		msg = activations.Relu(msg)
	}
	return mlp(ctx, Add(Add(x, Mul(epsilon(ctx, x), x)), conn.sum(msg)), mask, c.Hidden, c.Hidden)
}

type ginModel struct{}

func (ginModel) onProducts() bool { return false }
func (ginModel) usesPE() bool     { return false }

// encode is GIN (with bond features, GINE) on the original graph: batches of original graphs
// (batch.Options.Original), whose one connectivity, product.Internal, holds the edges of G.
func (ginModel) encode(ctx *context.Context, spec Spec, c Config, in Inputs) *Node {
	mask := ConvertDType(in.NodeMask, c.DType)
	x := featureEmbedding(ctx.In("input").In("atom"), in.NodeFeatures, spec.NodeVocab, c.Hidden, c)
	conn := connect(c, in, product.Internal, x.Shape().Dimensions[0])
	for l := range c.Layers {
		lc := ctx.In(fmt.Sprintf("layer_%d", l))
		z := activations.Relu(maskedBatchNorm(lc, ginAggregate(lc, spec, c, x, in.BondTable, conn, true, mask), mask))
		x = dropout(lc, z, c)
	}
	return x
}
