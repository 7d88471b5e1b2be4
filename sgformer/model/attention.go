package model

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/initializers"
	"github.com/gomlx/gomlx/pkg/ml/layers"
	"github.com/gomlx/gomlx/pkg/ml/layers/activations"
)

// connectivity is one attention aggregation of the product graph — internal (A_G) or external
// (A_{G^S}) — in one of the two executions: the edge lists of the sparse layout (edgeList) or
// the per-graph adjacency of the dense layout (grid). attention is written once against it;
// both give the same outputs and gradients, with the same variables.
type connectivity interface {
	// bondScores returns, for bond embeddings mapped through score, one score per message
	// [·, H] and the score of each node's self loop [N, H]: the mean over its incoming
	// messages (the authors' fill value). Both are nil without bond features.
	bondScores(ctx *context.Context, spec Spec, c Config, score func(*Node) *Node, heads, perHead int) (bond, loop *Node)
	// logits combines per-node scores of senders and receivers [N, H] with the bond scores
	// (or nil) into one score per message.
	logits(src, dst, bond *Node) *Node
	// aggregate returns Σ_j α_ij v_j + α_ii v_i [N, H, C] for values v [N, H, C], α being the
	// softmax over each node's incoming messages and its self loop.
	aggregate(logits, loop, v *Node) *Node
}

// attention is one graph-attention aggregation (Veličković et al. 2018; PyG's GATConv with its
// defaults, as the authors use it): heads·perHead outputs, concatenated, with self loops whose
// edge features are the mean of the node's incoming ones, LeakyReLU(0.2) logits, no attention
// dropout, and the bond features entering only the logits:
//
//	α_ij = softmax_j LeakyReLU(a_srcᵀ W x_j + a_dstᵀ W x_i + a_edgeᵀ W_e e_ij),  out_i = Σ_j α_ij W x_j + b.
func attention(ctx *context.Context, spec Spec, c Config, x *Node, conn connectivity, heads, perHead int) *Node {
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
	bond, loopBond := conn.bondScores(ctx, spec, c, score("att_edge"), heads, perHead)
	if loopBond != nil {
		loop = Add(loop, loopBond)
	}
	leaky := func(v *Node) *Node { return activations.LeakyReluWithAlpha(v, 0.2) }
	out := conn.aggregate(leaky(conn.logits(aSrc, aDst, bond)), leaky(loop), wx)
	bias := ctx.WithInitializer(initializers.Zero).VariableWithShape("bias", shapes.Make(dt, heads*perHead)).ValueGraph(g)
	return Add(Reshape(out, n, heads*perHead), InsertAxes(bias, 0))
}

// bondScoresOf embeds the bond table [K, F] and maps it through the attention's edge
// projection and score, a_edgeᵀ W_e e, then gathers the score of each bond: rows [..., 1]
// index the table, the result is [..., H]. Working on the K distinct bonds rather than on
// every product edge is the same computation, hundreds of thousands of times smaller.
func bondScoresOf(ctx *context.Context, table, rows *Node, spec Spec, c Config, score func(*Node) *Node, heads, perHead int) *Node {
	emb := bondEmbedding(ctx, table, spec, c.Hidden, c)
	if emb == nil {
		return nil
	}
	k := emb.Shape().Dimensions[0]
	return Gather(score(Reshape(layers.Dense(ctx.In("lin_edge"), emb, false, heads*perHead), k, heads, perHead)), rows)
}

// edgeList is a connectivity of the sparse layout: messages dst ← src ([E, 1] indices) with
// their bonds ([E, 1] rows of the bond table [K, F]), among n nodes.
type edgeList struct {
	src, dst, bonds, table *Node
	n                      int
}

func (e edgeList) bondScores(ctx *context.Context, spec Spec, c Config, score func(*Node) *Node, heads, perHead int) (bond, loop *Node) {
	bond = bondScoresOf(ctx, e.table, e.bonds, spec, c, score, heads, perHead) // [E, H]
	if bond == nil {
		return nil, nil
	}
	g, dt := bond.Graph(), bond.DType()
	sum := ScatterSum(Zeros(g, shapes.Make(dt, e.n, heads)), e.dst, bond, false, false)
	count := ScatterSum(Zeros(g, shapes.Make(dt, e.n, 1)), e.dst, OnesLike(SliceAxis(bond, 1, AxisElem(0))), false, false)
	return bond, Div(sum, MaxScalar(count, 1))
}

func (e edgeList) logits(src, dst, bond *Node) *Node {
	l := Add(Gather(src, e.src), Gather(dst, e.dst))
	if bond != nil {
		l = Add(l, bond)
	}
	return l
}

// aggregate is a segment softmax over each node's incoming edges and its self loop, with the
// maximum subtracted for stability (without gradient: the softmax does not depend on it).
func (e edgeList) aggregate(logits, loop, v *Node) *Node {
	lowest := AddScalar(ZerosLike(loop), -1e30)
	m := StopGradient(Max(ScatterMax(lowest, e.dst, logits, false, false), loop))
	expEdges := Exp(Sub(logits, Gather(m, e.dst)))
	expLoop := Exp(Sub(loop, m))
	denom := Add(ScatterSum(ZerosLike(loop), e.dst, expEdges, false, false), expLoop)
	alpha, alphaLoop := Div(expEdges, Gather(denom, e.dst)), Div(expLoop, denom)
	values := Gather(v, e.src)
	messages := Mul(values, like(InsertAxes(alpha, -1), values)) // [E, H, C]
	return ScatterSum(Mul(v, like(InsertAxes(alphaLoop, -1), v)), e.dst, messages, false, false)
}

// grid is a connectivity of the dense layout: the product nodes of graph b on a padded
// m × m grid (node b·m² + s·m + v), each graph's adjacency A [B, m, m] and its bonds [B, m, m]
// (rows of the bond table [K, F]). Internal attention aggregates along v with A[v, w]; external along s with
// A[s, t], which is internal attention on the grid transposed to (v, s). Messages are the
// [B, r, i, j] pairs "node (r, i) receives from (r, j)" with r the fixed coordinate; the mask
// A[i, j]·valid(r, j) keeps exactly the edges of the sparse layout, sampling included.
type grid struct {
	adj, bonds, table, valid *Node // [B, m, m], [B, m, m], [K, F], [B, m, m] (node mask, by (s, v))
	b, m                     int
	external                 bool
}

func newGrid(in Inputs, dt dtypes.DType, external bool) grid {
	d := in.Adjacency.Shape().Dimensions
	valid := Reshape(ConvertDType(in.NodeMask, dt), d[0], d[1], d[2])
	return grid{adj: ConvertDType(in.Adjacency, dt), bonds: in.BondGrid, table: in.BondTable, valid: valid, b: d[0], m: d[1], external: external}
}

// toGrid reshapes per-node values [N, ...] to [B, r, i, ...] (r = s internally, v externally).
func (gr grid) toGrid(x *Node) *Node {
	dims := append([]int{gr.b, gr.m, gr.m}, x.Shape().Dimensions[1:]...)
	x = Reshape(x, dims...)
	if gr.external {
		x = swap12(x)
	}
	return x
}

// fromGrid is the inverse of toGrid.
func (gr grid) fromGrid(x *Node) *Node {
	if gr.external {
		x = swap12(x)
	}
	return Reshape(x, append([]int{gr.b * gr.m * gr.m}, x.Shape().Dimensions[3:]...)...)
}

// swap12 exchanges axes 1 and 2.
func swap12(x *Node) *Node {
	perm := make([]int, x.Rank())
	for i := range perm {
		perm[i] = i
	}
	perm[1], perm[2] = 2, 1
	return TransposeAllAxes(x, perm...)
}

// mask returns the messages that exist, [B, r, i, j]: A[i, j]·valid(r, j).
func (gr grid) mask() *Node {
	valid := gr.valid
	if gr.external {
		valid = swap12(valid)
	}
	return Mul(InsertAxes(gr.adj, 1), InsertAxes(valid, 2))
}

func (gr grid) bondScores(ctx *context.Context, spec Spec, c Config, score func(*Node) *Node, heads, perHead int) (bond, loop *Node) {
	flat := bondScoresOf(ctx, gr.table, Reshape(gr.bonds, gr.b*gr.m*gr.m, 1), spec, c, score, heads, perHead)
	if flat == nil {
		return nil, nil
	}
	bond = Reshape(flat, gr.b, gr.m, gr.m, heads) // score of bond (i, j) of graph b
	mask := InsertAxes(gr.mask(), -1)             // [B, r, i, j, 1]
	sum := ReduceSum(Mul(InsertAxes(bond, 1), mask), 3)
	count := MaxScalar(ReduceSum(mask, 3), 1)
	return bond, gr.fromGrid(Div(sum, count))
}

func (gr grid) logits(src, dst, bond *Node) *Node {
	l := Add(InsertAxes(gr.toGrid(src), 2), InsertAxes(gr.toGrid(dst), 3)) // [B, r, i, j, H]
	if bond != nil {
		l = Add(l, InsertAxes(bond, 1))
	}
	return l
}

// aggregate is a masked softmax over j and the self loop. The shift that keeps exp in range
// is the maximum over all j of the grid, masked or not: any shift gives the same softmax, and
// the logits of padding columns are finite and of the same scale (padding rows are zeroed),
// so this saves the n³-sized select a masked maximum would need.
func (gr grid) aggregate(logits, loop, v *Node) *Node {
	present := gr.mask()                       // [B, r, i, j]
	loopG, vG := gr.toGrid(loop), gr.toGrid(v) // [B, r, i, H], [B, r, j, H, C]
	m := StopGradient(Max(ReduceMax(logits, 3), loopG))
	shifted := Exp(Sub(logits, like(InsertAxes(m, 3), logits)))
	expEdges := Mul(shifted, like(InsertAxes(present, -1), shifted)) // [B, r, i, j, H]
	expLoop := Exp(Sub(loopG, m))
	denom := Add(ReduceSum(expEdges, 3), expLoop) // [B, r, i, H]
	// Σ_j e[b, r, i, j, h]·v[b, r, j, h, c]: batch (b, r, h), contract j → [B, r, H, i, C].
	sum := DotGeneral(expEdges, []int{3}, []int{0, 1, 4}, vG, []int{2}, []int{0, 1, 3})
	sum = TransposeAllAxes(sum, 0, 1, 3, 2, 4) // [B, r, i, H, C]
	out := Div(Add(sum, Mul(vG, InsertAxes(expLoop, -1))), InsertAxes(denom, -1))
	return gr.fromGrid(out)
}
