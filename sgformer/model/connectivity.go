package model

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"

	"github.com/sgformer/sgformer/sgformer/product"
)

// connectivity is the messages of one named connectivity in one execution: PyG's
// MessagePassing split the way the aggregations use it. Per-message values are gathered from
// senders, receivers and the bond table, combined, and summed into each receiver — or
// softmax-weighted and summed, with a fused path for the dense layout. Every aggregation
// (attention, GIN-style sums, point updates) is written once against it; the sparse edgeList
// and the dense grid give the same outputs and gradients with the same variables. Messages
// have some layout M (sparse: [E]; grid: [B, r, i, j], possibly broadcast in some axes).
type connectivity interface {
	// gather returns, for x [N, ...], each message's row of its sender (or of its receiver):
	// [M..., ...].
	gather(x *Node, receiver bool) *Node
	// carriesBonds reports whether each message carries a bond of G.
	carriesBonds() bool
	// bonds returns, for per-bond values [K, ...] (one row per row of the batch's bond table),
	// each message's bond's: [M..., ...].
	bonds(perBond *Node) *Node
	// sum adds each receiver's messages [M..., ...] into [N, ...] (0 where none).
	sum(messages *Node) *Node
	// attend returns Σ_j α_ij v_j + α_ii v_i [N, H, C] for values v [N, H, C], α being the
	// softmax of logits [M..., H] over each receiver's messages and its self loop [N, H].
	attend(logits, loop, v *Node) *Node
}

// connect returns the connectivity called name of the batch in the configured execution.
func connect(c Config, in Inputs, name product.Name, n int) connectivity {
	m := in.Connectivities[name]
	switch {
	case m.Mask != nil:
		return pointer{src: m.Src, mask: ConvertDType(m.Mask, c.DType)}
	case c.Execution == Dense && (name == product.Internal || name == product.External):
		return newGrid(in, c.DType, name == product.External)
	}
	return edgeList{src: m.Src, dst: m.Dst, bondRows: m.Bond, n: n}
}

// kindOf returns the kind of an aggregation c was validated with.
func kindOf(c Config, name product.Name) product.Kind {
	kind, _ := name.Kind(c.TupleK)
	return kind
}

// edgeList is a connectivity of the sparse layout: messages dst ← src ([E, 1] indices) with
// their bonds ([E, 1] rows of the bond table, or nil), among n nodes.
type edgeList struct {
	src, dst, bondRows *Node
	n                  int
}

func (e edgeList) gather(x *Node, receiver bool) *Node {
	if receiver {
		return Gather(x, e.dst)
	}
	return Gather(x, e.src)
}

func (e edgeList) carriesBonds() bool { return e.bondRows != nil }

func (e edgeList) bonds(perBond *Node) *Node { return Gather(perBond, e.bondRows) }

func (e edgeList) sum(messages *Node) *Node {
	dims := append([]int{e.n}, messages.Shape().Dimensions[1:]...)
	return ScatterSum(Zeros(messages.Graph(), shapes.Make(messages.DType(), dims...)), e.dst, messages, false, false)
}

// attend is a segment softmax over each node's incoming edges and its self loop, with the
// maximum subtracted for stability (without gradient: the softmax does not depend on it).
func (e edgeList) attend(logits, loop, v *Node) *Node {
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

// pointer is a point-wise connectivity, in either execution: node i receives at most one
// message, from src[i] where mask[i] is 1. Messages are laid out by receiver, [N].
type pointer struct {
	src, mask *Node // [N, 1], [N]
}

func (p pointer) gather(x *Node, receiver bool) *Node {
	if receiver {
		return x
	}
	return Gather(x, p.src)
}

func (p pointer) carriesBonds() bool { return false }

func (p pointer) bonds(perBond *Node) *Node { return nil }

func (p pointer) sum(messages *Node) *Node {
	mask := p.mask
	for mask.Rank() < messages.Rank() {
		mask = InsertAxes(mask, -1)
	}
	return Mul(messages, like(mask, messages))
}

// attend is the softmax over a node's one message (if any) and its self loop.
func (p pointer) attend(logits, loop, v *Node) *Node {
	m := StopGradient(Max(logits, loop))
	expEdge := Mul(Exp(Sub(logits, m)), like(InsertAxes(p.mask, -1), logits))
	expLoop := Exp(Sub(loop, m))
	denom := Add(expEdge, expLoop)
	alpha, alphaLoop := Div(expEdge, denom), Div(expLoop, denom)
	values := Gather(v, p.src)
	return Add(Mul(values, like(InsertAxes(alpha, -1), values)), Mul(v, like(InsertAxes(alphaLoop, -1), v)))
}

// grid is a neighbours connectivity of the dense layout (pairs only): the product nodes of
// graph b on a padded m × m grid (node b·m² + s·m + v), each graph's adjacency A [B, m, m]
// and its bonds [B, m, m] (rows of the bond table). Internal aggregation runs along v with
// A[v, w]; external along s with A[s, t], which is internal aggregation on the grid transposed
// to (v, s). Messages are the [B, r, i, j] pairs "node (r, i) receives from (r, j)" with r the
// fixed coordinate; the mask A[i, j]·valid(r, j) keeps exactly the edges of the sparse
// layout, sampling included.
type grid struct {
	adj, bondGrid, valid *Node // [B, m, m], [B, m, m], [B, m, m] (node mask, by (s, v))
	b, m                 int
	external             bool
}

func newGrid(in Inputs, dt dtypes.DType, external bool) grid {
	d := in.Adjacency.Shape().Dimensions
	valid := Reshape(ConvertDType(in.NodeMask, dt), d[0], d[1], d[2])
	return grid{adj: ConvertDType(in.Adjacency, dt), bondGrid: in.BondGrid, valid: valid, b: d[0], m: d[1], external: external}
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

// gather returns the sender's values as [B, r, 1, j, ...] and the receiver's as
// [B, r, i, 1, ...], to be broadcast against each other.
func (gr grid) gather(x *Node, receiver bool) *Node {
	if receiver {
		return InsertAxes(gr.toGrid(x), 3)
	}
	return InsertAxes(gr.toGrid(x), 2)
}

func (gr grid) carriesBonds() bool { return true }

// bonds returns the values of the bond of (i, j) in each graph, the same for every r:
// [B, 1, i, j, ...].
func (gr grid) bonds(perBond *Node) *Node {
	flat := Gather(perBond, Reshape(gr.bondGrid, gr.b*gr.m*gr.m, 1))
	return InsertAxes(Reshape(flat, append([]int{gr.b, gr.m, gr.m}, perBond.Shape().Dimensions[1:]...)...), 1)
}

func (gr grid) sum(messages *Node) *Node {
	mask := gr.mask() // [B, r, i, j]
	for mask.Rank() < messages.Rank() {
		mask = InsertAxes(mask, -1)
	}
	return gr.fromGrid(ReduceSum(Mul(messages, mask), 3))
}

// attend is a masked softmax over j and the self loop. The shift that keeps exp in range is
// the maximum over all j of the grid, masked or not: any shift gives the same softmax, and
// the logits of padding columns are finite and of the same scale (padding rows are zeroed),
// so this saves the n³-sized select a masked maximum would need.
func (gr grid) attend(logits, loop, v *Node) *Node {
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
