package model

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/initializers"
	"github.com/gomlx/gomlx/pkg/ml/layers"
	"github.com/gomlx/gomlx/pkg/ml/layers/activations"
	"github.com/gomlx/gomlx/pkg/ml/train"

	"github.com/sgformer/sgformer/sgformer/product"
)

// New returns the model configured by c (ReadConfig of the context it runs in) for data of spec
// as a GoMLX train.ModelFn: it maps a batch's inputs (Tensors) to predictions [B+1, Tasks], one
// row per graph slot (the last row belongs to the padding and is masked out of every loss and
// metric). Inputs that do not fit c panic when the graph is built, GoMLX's convention.
func New(spec Spec, c Config) train.ModelFn {
	return func(ctx *context.Context, _ any, nodes []*Node) []*Node {
		in, err := inputsFrom(c, spec, nodes)
		if err != nil {
			panic(err)
		}
		return []*Node{Forward(ctx, spec, c, in)}
	}
}

// Forward builds the model c on inputs in.
func Forward(ctx *context.Context, spec Spec, c Config, in Inputs) *Node {
	x := variants[c.Model].encode(ctx, spec, c, in)
	return head(ctx.In("head"), pool(x, in, c), c, spec.Tasks)
}

// A variant is one of the models: how it encodes a batch into node representations
// [N, hidden], and what data it reads. Adding a model is adding one to variants.
type variant interface {
	encode(ctx *context.Context, spec Spec, c Config, in Inputs) *Node
	// onProducts reports whether it runs on product graphs (false: on G itself).
	onProducts() bool
	// usesPE reports whether it reads the product-graph PE.
	usesPE() bool
}

// variants are the models, by name.
var variants = map[string]variant{
	Subgraphormer: subgraphormerModel{},
	SSWLPlus:      sswlPlusModel{},
	GIN:           ginModel{},
}

type subgraphormerModel struct{}

func (subgraphormerModel) onProducts() bool { return true }
func (subgraphormerModel) usesPE() bool     { return true }

// encode is the encoder of Sec. 4: node-marked atom embeddings with the product-graph PE
// concatenated, then a stack of Subgraph Attention Blocks.
func (subgraphormerModel) encode(ctx *context.Context, spec Spec, c Config, in Inputs) *Node {
	x := inputEmbedding(ctx.In("input"), spec, c, in, c.Hidden-c.PEColumns())
	if c.PEK > 0 {
		x = Concatenate([]*Node{x, ConvertDType(in.PE, c.DType)}, -1)
	}
	for l := range c.Layers {
		x = subgraphAttentionBlock(ctx.In(fmt.Sprintf("sab_%d", l)), spec, c, in, x)
	}
	return x
}

// inputEmbedding is atom embedding + node-marking embedding z_{d(s,v)} of width width (the
// authors' layout: hidden − k, the PE columns are concatenated after it). A K-tuple is marked
// by the sum of the embeddings of its K − 1 marks (product.TupleMarking).
func inputEmbedding(ctx *context.Context, spec Spec, c Config, in Inputs, width int) *Node {
	x := featureEmbedding(ctx.In("atom"), in.NodeFeatures, spec.NodeVocab, width, c)
	marks := layers.Embedding(ctx.In("marking"), in.Marks, c.DType, c.MaxDistance+2, width)
	if marks.Rank() == 3 { // [N, K−1, width]
		marks = ReduceSum(marks, 1)
	}
	return Add(x, marks)
}

// subgraphAttentionBlock is the SAB of Sec. 4.1:
//
//	MLP( α_{A_G} V ⊕ α_{A_{G^S}} V ⊕ point(X) ),  point(X) = MLP((1+ε) X + A_point X)  (Eq. 6),
//
// over the configured aggregations (attention over neighbours and global connectivities, point
// updates over point-wise ones; for K-tuples the K adjacencies and K point updates of Appendix
// B), each hidden/|aggregations| wide, concatenated; each MLP is the layer encoder (a Linear map
// or the authors' MLP), then BatchNorm, ReLU, dropout, and an optional residual.
func subgraphAttentionBlock(ctx *context.Context, spec Spec, c Config, in Inputs, x *Node) *Node {
	width := c.Hidden / len(c.Aggregations)
	perHead := width / c.Heads
	n := x.Shape().Dimensions[0]
	outs := make([]*Node, len(c.Aggregations))
	for i, name := range c.Aggregations {
		conn := connect(c, in, name, n)
		if kindOf(c, name) == product.PointWise {
			outs[i] = pointUpdate(ctx.In(name.String()), c, in, conn, x, width)
		} else {
			outs[i] = attention(ctx.In(name.String()), spec, c, x, in.BondTable, conn, c.Heads, perHead)
		}
	}
	mask := ConvertDType(in.NodeMask, c.DType)
	z := layerEncoder(ctx.In("update"), c, Concatenate(outs, -1), mask, c.Hidden)
	z = dropout(ctx, activations.Relu(maskedBatchNorm(ctx, z, mask)), c)
	if c.Residual {
		z = Add(z, x)
	}
	return z
}

// pointUpdate is Eq. (6): (1 + ε) x(s,v) + x(v,v), then the layer encoder to out; the message
// x(v,v) comes from a point-wise connectivity (A_point, or A^i_point for K-tuples).
func pointUpdate(ctx *context.Context, c Config, in Inputs, conn connectivity, x *Node, out int) *Node {
	h := Add(x, Mul(epsilon(ctx, x), x))
	h = Add(h, conn.sum(conn.gather(x, false)))
	return layerEncoder(ctx, c, h, ConvertDType(in.NodeMask, c.DType), out)
}

// layerEncoder maps x [N, D] to [N, out] with the configured layer encoder: a Linear map, or
// the authors' MLP (Linear D → D, BatchNorm, ReLU, Linear D → out).
func layerEncoder(ctx *context.Context, c Config, x, mask *Node, out int) *Node {
	if c.LayerEncoder == MLP {
		return mlp(ctx, x, mask, x.Shape().Dimensions[1], out)
	}
	return layers.Dense(ctx, x, true, out)
}

// epsilon is GIN's learned ε, initialised to 0.
func epsilon(ctx *context.Context, x *Node) *Node {
	return ctx.WithInitializer(initializers.Zero).VariableWithShape("epsilon", shapes.Make(x.DType())).ValueGraph(x.Graph())
}
