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
)

// New returns the model selected by ctx's hyperparameters as a GoMLX train.ModelFn: it maps a
// batch's inputs (Tensors) to predictions [B+1, Tasks], one row per graph slot (the last row
// belongs to the padding and is masked out of every loss and metric). Invalid hyperparameters
// panic when the graph is built, GoMLX's convention; check them first with ReadConfig.
func New(spec Spec) train.ModelFn {
	return func(ctx *context.Context, _ any, nodes []*Node) []*Node {
		c, err := ReadConfig(ctx)
		if err != nil {
			panic(err)
		}
		in, err := inputsFrom(nodes)
		if err != nil {
			panic(err)
		}
		return []*Node{Forward(ctx, spec, c, in)}
	}
}

// Forward builds the model c on inputs in.
func Forward(ctx *context.Context, spec Spec, c Config, in Inputs) *Node {
	var x *Node
	switch c.Model {
	case Subgraphormer:
		x = subgraphormer(ctx, spec, c, in)
	case SSWLPlus:
		x = sswlPlus(ctx, spec, c, in)
	default:
		x = gin(ctx, spec, c, in)
	}
	return head(ctx.In("head"), pool(x, in, c), c, spec.Tasks)
}

// subgraphormer is the encoder of Sec. 4: node-marked atom embeddings with the product-graph
// PE concatenated, then a stack of Subgraph Attention Blocks.
func subgraphormer(ctx *context.Context, spec Spec, c Config, in Inputs) *Node {
	x := inputEmbedding(ctx.In("input"), spec, c, in)
	for l := range c.Layers {
		x = subgraphAttentionBlock(ctx.In(fmt.Sprintf("sab_%d", l)), spec, c, in, x)
	}
	return x
}

// inputEmbedding is atom embedding + node-marking embedding z_{d(s,v)} (width hidden − k),
// concatenated with the k PE columns (the authors' layout).
func inputEmbedding(ctx *context.Context, spec Spec, c Config, in Inputs) *Node {
	width := c.Hidden - c.PEK
	x := featureEmbedding(ctx.In("atom"), in.NodeFeatures, spec.NodeVocab, width, c)
	x = Add(x, layers.Embedding(ctx.In("marking"), in.Marks, c.DType, c.MaxDistance+2, width))
	if c.PEK > 0 {
		x = Concatenate([]*Node{x, ConvertDType(in.PE, c.DType)}, -1)
	}
	return x
}

// subgraphAttentionBlock is the SAB of Sec. 4.1:
//
//	MLP( α_{A_G} V ⊕ α_{A_{G^S}} V ⊕ point(X) ),  point(X) = MLP((1+ε) X + A_point X)  (Eq. 6),
//
// with each MLP the layer encoder (a Linear map or the authors' MLP), then BatchNorm, ReLU,
// dropout, and an optional residual.
func subgraphAttentionBlock(ctx *context.Context, spec Spec, c Config, in Inputs, x *Node) *Node {
	third := c.Hidden / 3
	perHead := third / c.Heads
	var intConn, extConn connectivity
	if c.Execution == Dense {
		intConn, extConn = newGrid(in, c.DType, false), newGrid(in, c.DType, true)
	} else {
		n := x.Shape().Dimensions[0]
		intConn = edgeList{in.IntSrc, in.IntDst, in.IntBond, in.BondTable, n}
		extConn = edgeList{in.ExtSrc, in.ExtDst, in.ExtBond, in.BondTable, n}
	}
	internal := attention(ctx.In("internal"), spec, c, x, intConn, c.Heads, perHead)
	external := attention(ctx.In("external"), spec, c, x, extConn, c.Heads, perHead)
	point := pointUpdate(ctx.In("point"), c, in, x, third)
	mask := ConvertDType(in.NodeMask, c.DType)
	z := layerEncoder(ctx.In("update"), c, Concatenate([]*Node{internal, external, point}, -1), mask, c.Hidden)
	z = dropout(ctx, activations.Relu(maskedBatchNorm(ctx, z, mask)), c)
	if c.Residual {
		z = Add(z, x)
	}
	return z
}

// pointUpdate is Eq. (6): (1 + ε) x(s,v) + x(v,v), then the layer encoder to out.
func pointUpdate(ctx *context.Context, c Config, in Inputs, x *Node, out int) *Node {
	h := Add(x, Mul(epsilon(ctx, x), x))
	h = Add(h, Mul(Gather(x, in.PointSrc), like(InsertAxes(ConvertDType(in.PointMask, c.DType), -1), x)))
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
