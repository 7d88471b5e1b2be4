package model

import (
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/initializers"
	"github.com/gomlx/gomlx/pkg/ml/layers"
	"github.com/gomlx/gomlx/pkg/ml/layers/activations"
)

// attention is one graph-attention aggregation (Veličković et al. 2018; PyG's GATConv with its
// defaults, as the authors use it): heads·perHead outputs, concatenated, with self loops whose
// edge features are the mean of the node's incoming ones, LeakyReLU(0.2) logits, no attention
// dropout, and the bond features entering only the logits:
//
//	α_ij = softmax_j LeakyReLU(a_srcᵀ W x_j + a_dstᵀ W x_i + a_edgeᵀ W_e e_ij),  out_i = Σ_j α_ij W x_j + b.
func attention(ctx *context.Context, spec Spec, c Config, x *Node, table *Node, conn connectivity, heads, perHead int) *Node {
	g := x.Graph()
	n := x.Shape().Dimensions[0]
	dt := x.DType()
	wx := Reshape(layers.Dense(ctx.In("lin"), x, false, heads*perHead), n, heads, perHead) // [N, H, C]
	score := func(name string) func(*Node) *Node {                                         // aᵀ v per head: [..., H, C] → [..., H]
		a := ctx.VariableWithShape(name, shapes.Make(dt, heads, perHead)).ValueGraph(g)
		return func(v *Node) *Node {
			dims := v.Shape().Dimensions
			shape := make([]int, len(dims))
			for i := range shape {
				shape[i] = 1
			}
			shape[len(dims)-2], shape[len(dims)-1] = heads, perHead
			return ReduceSum(Mul(v, BroadcastToDims(Reshape(a, shape...), dims...)), -1)
		}
	}
	aSrc, aDst := score("att_src")(wx), score("att_dst")(wx) // [N, H]
	loop := Add(aSrc, aDst)
	logits := Add(conn.gather(aSrc, false), conn.gather(aDst, true))
	if conn.carriesBonds() && usesBonds(spec, c) {
		// Bond scores a_edgeᵀ W_e e of the K distinct bonds of the table, gathered per message:
		// the same computation as per product edge, hundreds of thousands of times smaller.
		edgeScore := score("att_edge")
		emb := bondEmbedding(ctx, table, spec, c.Hidden, c)
		k := emb.Shape().Dimensions[0]
		bond := conn.bonds(edgeScore(Reshape(layers.Dense(ctx.In("lin_edge"), emb, false, heads*perHead), k, heads, perHead)))
		logits = Add(logits, bond)
		// The self loop's bond score is the mean over the node's incoming messages.
		ones := OnesLike(SliceAxis(bond, bond.Rank()-1, AxisElem(0)))
		loop = Add(loop, Div(conn.sum(bond), MaxScalar(conn.sum(ones), 1)))
	}
	leaky := func(v *Node) *Node { return activations.LeakyReluWithAlpha(v, 0.2) }
	out := conn.attend(leaky(logits), leaky(loop), wx)
	bias := ctx.WithInitializer(initializers.Zero).VariableWithShape("bias", shapes.Make(dt, heads*perHead)).ValueGraph(g)
	return Add(Reshape(out, n, heads*perHead), InsertAxes(bias, 0))
}
