package model_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/model"
)

// concatenate joins tensors along their first axis: the global tensor a program partitioned
// over devices sees.
func concatenate(t *testing.T, parts []*tensors.Tensor) *tensors.Tensor {
	t.Helper()
	dims := parts[0].Shape().Clone().Dimensions
	dims[0] = 0
	for _, p := range parts {
		dims[0] += p.Shape().Dimensions[0]
	}
	switch parts[0].DType() {
	case dtypes.Int32:
		var flat []int32
		for _, p := range parts {
			flat = append(flat, tensors.MustCopyFlatData[int32](p)...)
		}
		return tensors.FromFlatDataAndDimensions(flat, dims...)
	case dtypes.Float32:
		var flat []float32
		for _, p := range parts {
			flat = append(flat, tensors.MustCopyFlatData[float32](p)...)
		}
		return tensors.FromFlatDataAndDimensions(flat, dims...)
	}
	t.Fatalf("dtype %s", parts[0].DType())
	return nil
}

// lossAndGrads runs the model in training mode on inputs and labels, and returns its MSE loss
// and the gradient of every trainable variable (in float64).
func lossAndGrads(t *testing.T, be backends.Backend, ctx *context.Context, inputs, labels []*tensors.Tensor) (float64, [][]float64) {
	t.Helper()
	fn := model.New(spec, config(t, ctx))
	var vars []*context.Variable
	for v := range ctx.IterVariables() {
		if v.Trainable {
			vars = append(vars, v)
		}
	}
	exec, err := context.NewExec(be, ctx.Reuse(), func(ctx *context.Context, nodes []*Node) []*Node {
		g := nodes[0].Graph()
		ctx.SetTraining(g, true)
		n := len(nodes) - 2
		loss := model.MSELoss(nodes[n:], fn(ctx, nil, nodes[:n]))
		out := []*Node{ConvertDType(loss, dtypes.Float64)}
		var params []*Node
		for _, v := range vars {
			params = append(params, v.ValueGraph(g))
		}
		for _, grad := range Gradient(loss, params...) {
			out = append(out, ConvertDType(grad, dtypes.Float64))
		}
		return out
	})
	if err != nil {
		t.Fatal(err)
	}
	var args []any
	for _, x := range append(slices.Clone(inputs), labels...) {
		args = append(args, x)
	}
	out, err := exec.Exec(args...)
	if err != nil {
		t.Fatal(err)
	}
	var grads [][]float64
	for _, g := range out[1:] {
		grads = append(grads, tensors.MustCopyFlatData[float64](g))
	}
	return tensors.ToScalar[float64](out[0]), grads
}

// The blocks of Shards, concatenated, are one batch on which every model computes what it
// computes on the same graphs batched together: the same loss over the real targets, the same
// BatchNorm statistics over the real nodes (training mode), hence the same gradients, whatever
// the split — into blocks of different sizes, padded to one shape, one of them empty. In
// float64, so that only the order of the sums differs.
func TestShardsAreOneBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	var gs []*graph.Graph
	for _, n := range []int{5, 3, 6, 4, 7} {
		gs = append(gs, molecule(rng, n))
	}
	be := testBackend(t)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			ctx := context.New()
			setParams(ctx, v.model, 2, "float64")
			ctx.SetParams(v.params)
			c := config(t, ctx)
			exs := examplesOf(t, gs, c)
			opt := optionsFor(c, 1.15)
			whole, err := batch.Build(exs, nil, opt, nil)
			if err != nil {
				t.Fatal(err)
			}
			inputs, labels, err := model.Tensors(whole, spec, c)
			if err != nil {
				t.Fatal(err)
			}
			predict(t, be, ctx, whole) // creates the variables
			wantLoss, want := lossAndGrads(t, be, ctx, inputs, labels)

			var blocks []*batch.Batch
			for _, part := range [][]batch.Example{exs[:1], exs[1:4], nil, exs[4:]} {
				b, err := batch.Empty(whole)
				if part != nil {
					b, err = batch.Build(part, nil, opt, nil)
				}
				if err != nil {
					t.Fatal(err)
				}
				blocks = append(blocks, b)
			}
			var shapes []batch.Shape
			for _, b := range blocks {
				shapes = append(shapes, batch.ShapeOf(b))
			}
			for _, b := range blocks {
				if err := batch.Pad(b, batch.Union(shapes...)); err != nil {
					t.Fatal(err)
				}
			}
			shardIn, shardLabels, err := model.Shards(blocks, spec, c)
			if err != nil {
				t.Fatal(err)
			}
			join := func(per [][]*tensors.Tensor) []*tensors.Tensor {
				var out []*tensors.Tensor
				for i := range per[0] {
					var parts []*tensors.Tensor
					for d := range per {
						parts = append(parts, per[d][i])
					}
					out = append(out, concatenate(t, parts))
				}
				return out
			}
			gotLoss, got := lossAndGrads(t, be, ctx, join(shardIn), join(shardLabels))
			if math.Abs(gotLoss-wantLoss) > 1e-12*math.Abs(wantLoss) {
				t.Fatalf("loss %v, want %v", gotLoss, wantLoss)
			}
			for i := range want {
				for j := range want[i] {
					if d := math.Abs(got[i][j] - want[i][j]); d > 1e-9*max(1, math.Abs(want[i][j])) || math.IsNaN(got[i][j]) {
						t.Fatalf("gradient %d[%d]: %v, want %v", i, j, got[i][j], want[i][j])
					}
				}
			}
		})
	}
	ctx := context.New()
	setParams(ctx, model.Subgraphormer, 2, "float32")
	c := config(t, ctx)
	var blocks []*batch.Batch
	for _, n := range []int{1, 2} { // 25 and 34 product nodes: two shapes
		b, err := batch.Build(examplesOf(t, gs[:n], c), nil, optionsFor(c, 1.15), nil)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, b)
	}
	if _, _, err := model.Shards(blocks, spec, c); err == nil {
		t.Error("blocks of two shapes: no error")
	}
}
