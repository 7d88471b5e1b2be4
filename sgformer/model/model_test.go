package model_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/internal/xlatest"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/product"
)

var spec = model.Spec{NodeVocab: []int{5}, EdgeVocab: []int{4}, Tasks: 2}

func testBackend(t testing.TB) backends.Backend {
	t.Helper()
	b, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// molecule returns a random connected-or-not graph with atom types in [0,5) and bond types in
// [1,4).
func molecule(rng *rand.Rand, n int) *graph.Graph {
	g, err := graph.ErdosRenyi(n, 0.45, rng)
	if err != nil {
		panic(err)
	}
	atoms := make([]int32, n)
	for i := range atoms {
		atoms[i] = int32(rng.IntN(5))
	}
	bonds := make([]int32, g.NumEdges())
	for i := range bonds {
		bonds[i] = int32(1 + rng.IntN(3))
	}
	g, err = graph.New(n, g.Edges(), graph.Features{Width: 1, Ints: atoms}, graph.Features{Width: 1, Ints: bonds})
	if err != nil {
		panic(err)
	}
	return g
}

// examplesOf preprocesses gs as the model configured by c needs.
func examplesOf(t testing.TB, gs []*graph.Graph, c model.Config) []batch.Example {
	var out []batch.Example
	for i, g := range gs {
		it, err := preprocess.Graph(g, c.Preprocess())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, batch.Example{Graph: g, Item: it, Target: []float64{float64(i), -float64(i)}})
	}
	return out
}

func setParams(ctx *context.Context, name string, k int, dtype string) {
	model.Defaults(ctx)
	ctx.SetParams(map[string]any{
		model.ParamModel: name, model.ParamLayers: 2, model.ParamHidden: 12, model.ParamHeads: 2,
		model.ParamPEK: k, model.ParamDType: dtype, model.ParamMaxDistance: 3,
	})
	ctx.SetParam(context.ParamInitialSeed, int64(7))
}

// config returns the model configuration of ctx.
func config(t testing.TB, ctx *context.Context) model.Config {
	t.Helper()
	c, err := model.ReadConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// predict runs the model in inference mode on a batch and returns predictions per real graph.
func predict(t testing.TB, be backends.Backend, ctx *context.Context, b *batch.Batch) [][]float64 {
	t.Helper()
	return predictIn(t, be, ctx, b, false)
}

// predictIn is predict in training mode (BatchNorm normalising with the batch's statistics and
// updating its running averages) when training is true.
func predictIn(t testing.TB, be backends.Backend, ctx *context.Context, b *batch.Batch, training bool) [][]float64 {
	t.Helper()
	inputs, _, err := model.Tensors(b, spec, config(t, ctx))
	if err != nil {
		t.Fatal(err)
	}
	fn := model.New(spec, config(t, ctx))
	if ctx.NumVariables() > 0 {
		ctx = ctx.Reuse()
	}
	exec, err := context.NewExec(be, ctx, func(ctx *context.Context, nodes []*Node) *Node {
		ctx.SetTraining(nodes[0].Graph(), training)
		return ConvertDType(fn(ctx, nil, nodes)[0], dtypes.Float64)
	})
	if err != nil {
		t.Fatal(err)
	}
	args := make([]any, len(inputs))
	for i, x := range inputs {
		args[i] = x
	}
	out, err := exec.Exec(args...)
	if err != nil {
		t.Fatal(err)
	}
	flat := tensors.MustCopyFlatData[float64](out[0])
	preds := make([][]float64, b.Graphs)
	for g := range preds {
		preds[g] = flat[g*spec.Tasks : (g+1)*spec.Tasks]
	}
	return preds
}

func optionsFor(c model.Config, bucket float64) batch.Options {
	return batch.Options{PEK: c.PEColumns(), MaxDistance: 3, Bucket: bucket, Original: !c.OnProducts()}
}

// variant is one model configuration the tests cover: a model and the hyperparameters it
// sets beyond setParams'.
type variant struct {
	name, model string
	params      map[string]any
}

var variants = []variant{
	{"subgraphormer", model.Subgraphormer, nil},
	{"subgraphormer-mlp", model.Subgraphormer, map[string]any{model.ParamLayerEncoder: model.MLP}},
	{"subgraphormer-no-bonds", model.Subgraphormer, map[string]any{model.ParamEdgeFeatures: false}},
	{"subgraphormer-external-point", model.Subgraphormer, map[string]any{model.ParamAggregations: "external,point"}},
	{"subgraphormer-global", model.Subgraphormer, map[string]any{model.ParamAggregations: "internal,global_external,point"}},
	{"subgraphormer-concat-pe", model.Subgraphormer, map[string]any{model.ParamPEMode: "concat"}},
	{"subgraphormer-3-tuples", model.Subgraphormer, map[string]any{model.ParamTupleK: 3}},
	{"sswl+-3-tuples", model.SSWLPlus, map[string]any{model.ParamTupleK: 3, model.ParamAggregations: "adjacency_0,adjacency_2,point_1"}},
	{"sswl+", model.SSWLPlus, nil},
	{"gin", model.GIN, nil},
}

// Relabelling the nodes of every input graph leaves every model's predictions unchanged
// (without PE), and so does the batch a graph is in and the bucket it is padded to, in
// inference and in training mode.
func TestInvariances(t *testing.T) {
	be := testBackend(t)
	rng := rand.New(rand.NewPCG(1, 1))
	var gs []*graph.Graph
	for range 4 {
		gs = append(gs, molecule(rng, 4+rng.IntN(4)))
	}
	for _, m := range variants {
		name := m.model
		t.Run(m.name, func(t *testing.T) {
			ctx := context.New()
			setParams(ctx, name, 0, "float64")
			ctx.SetParams(m.params)
			c := config(t, ctx)
			b, err := batch.Build(examplesOf(t, gs, c), nil, optionsFor(c, 0), nil)
			if err != nil {
				t.Fatal(err)
			}
			base := predict(t, be, ctx, b)
			if math.Abs(base[0][0]-base[1][0]) < 1e-6 && math.Abs(base[1][0]-base[2][0]) < 1e-6 {
				t.Fatalf("predictions do not depend on the graph: %v", base)
			}

			var relabelled []*graph.Graph
			for _, g := range gs {
				h, _ := g.Permute(rng.Perm(g.N()))
				relabelled = append(relabelled, h)
			}
			b2, _ := batch.Build(examplesOf(t, relabelled, c), nil, optionsFor(c, 1.3), nil)
			compare(t, "relabelled, other bucket", predict(t, be, ctx, b2), base, 1e-9)

			alone, _ := batch.Build(examplesOf(t, gs[2:3], c), nil, optionsFor(c, 1.5), nil)
			compare(t, "alone", predict(t, be, ctx, alone), base[2:3], 1e-9)

			// In training mode BatchNorm normalises with the batch's statistics, over its real
			// nodes only: the padding a bucket adds changes nothing there either.
			padded, _ := batch.Build(examplesOf(t, gs, c), nil, optionsFor(c, 3), nil)
			compare(t, "training mode, padded", predictIn(t, be, ctx, padded, true), predictIn(t, be, ctx, b, true), 1e-9)
		})
	}
}

func compare(t *testing.T, what string, got, want [][]float64, tol float64) {
	t.Helper()
	for g := range want {
		for j := range want[g] {
			if d := math.Abs(got[g][j] - want[g][j]); d > tol*max(1, math.Abs(want[g][j])) || math.IsNaN(got[g][j]) {
				t.Fatalf("%s: graph %d target %d: %v, want %v", what, g, j, got[g][j], want[g][j])
			}
		}
	}
}

// lossAndGradients builds, on ctx, the scalar Σ w ⊙ pred + ½ Σ pred² over the real graphs of
// the model in training mode, and its gradient with respect to each variable of vars.
func lossAndGradients(t *testing.T, be backends.Backend, ctx *context.Context, vars []*context.Variable) *context.Exec {
	fn := model.New(spec, config(t, ctx))
	exec, err := context.NewExec(be, ctx, func(ctx *context.Context, nodes []*Node) []*Node {
		g := nodes[0].Graph()
		ctx.SetTraining(g, true)
		pred := ConvertDType(fn(ctx, nil, nodes)[0], dtypes.Float64)
		// The last row is the padding slot, which no loss sees: leave it out.
		real := LessThan(Iota(g, pred.Shape(), 0), Scalar(g, dtypes.Float64, pred.Shape().Dimensions[0]-1))
		pred = Where(real, pred, ZerosLike(pred))
		w := Sin(IotaFull(g, pred.Shape()))
		loss := Add(ReduceAllSum(Mul(pred, w)), MulScalar(ReduceAllSum(Square(pred)), 0.5))
		var params []*Node
		for _, v := range vars {
			params = append(params, v.ValueGraph(g))
		}
		out := []*Node{loss}
		if len(params) > 0 {
			for _, grad := range Gradient(loss, params...) {
				out = append(out, ConvertDType(grad, dtypes.Float64))
			}
		}
		return out
	})
	if err != nil {
		t.Fatal(err)
	}
	return exec
}

// Every trainable variable of every model gets the gradient that central finite differences
// give, on tiny graphs in float64: this checks each layer (attention, its segment softmax and
// self loops, the point update, masked BatchNorm, embeddings, the GIN aggregations, pooling
// and the head) together with the matrix-product gradients of package backend.
func TestGradientsAgainstFiniteDifferences(t *testing.T) {
	be := testBackend(t)
	rng := rand.New(rand.NewPCG(5, 5))
	gs := []*graph.Graph{molecule(rng, 4), molecule(rng, 5), molecule(rng, 3)}
	for _, m := range variants {
		name := m.model
		t.Run(m.name, func(t *testing.T) {
			k := 0
			if name == model.Subgraphormer {
				k = 3
			}
			ctx := context.New()
			setParams(ctx, name, k, "float64")
			ctx.SetParams(m.params)
			c := config(t, ctx)
			b, err := batch.Build(examplesOf(t, gs, c), nil, optionsFor(c, 1.2), nil)
			if err != nil {
				t.Fatal(err)
			}
			inputs, _, err := model.Tensors(b, spec, config(t, ctx))
			if err != nil {
				t.Fatal(err)
			}
			args := make([]any, len(inputs))
			for i, x := range inputs {
				args[i] = x
			}
			if _, err := lossAndGradients(t, be, ctx, nil).Exec(args...); err != nil { // creates the variables
				t.Fatal(err)
			}
			var vars []*context.Variable
			for v := range ctx.IterVariables() {
				if v.Trainable {
					vars = append(vars, v)
				}
			}
			exec := lossAndGradients(t, be, ctx.Reuse(), vars)
			out, err := exec.Exec(args...)
			if err != nil {
				t.Fatal(err)
			}
			loss := func() float64 {
				o, err := exec.Exec(args...)
				if err != nil {
					t.Fatal(err)
				}
				return tensors.ToScalar[float64](o[0])
			}
			checked := 0
			for i, v := range vars {
				grad := tensors.MustCopyFlatData[float64](out[1+i])
				value, _ := v.Value()
				flat := tensors.MustCopyFlatData[float64](value)
				dims := v.Shape().Dimensions
				for _, j := range []int{0, len(flat) / 2} {
					set := func(x float64) {
						p := append([]float64(nil), flat...)
						p[j] = x
						if err := v.SetValue(tensors.FromFlatDataAndDimensions(p, dims...)); err != nil {
							t.Fatal(err)
						}
					}
					const h = 1e-5
					set(flat[j] + h)
					up := loss()
					set(flat[j] - h)
					down := loss()
					set(flat[j])
					fd := (up - down) / (2 * h)
					if math.Abs(fd-grad[j]) > 1e-5*max(1, math.Abs(fd)) {
						t.Errorf("%s[%d]: gradient %.8g, finite difference %.8g", v.ScopeAndName(), j, grad[j], fd)
					}
					checked++
				}
			}
			if checked < 20 {
				t.Fatalf("only %d entries checked", checked)
			}
			t.Logf("%d variables, %d entries checked", len(vars), checked)
		})
	}
}

// gradientsOf returns the test loss and its gradient with respect to every trainable variable
// (by name) for a batch.
func gradientsOf(t *testing.T, be backends.Backend, ctx *context.Context, b *batch.Batch) (float64, map[string][]float64) {
	t.Helper()
	inputs, _, err := model.Tensors(b, spec, config(t, ctx))
	if err != nil {
		t.Fatal(err)
	}
	args := make([]any, len(inputs))
	for i, x := range inputs {
		args[i] = x
	}
	var vars []*context.Variable
	for v := range ctx.IterVariables() {
		if v.Trainable {
			vars = append(vars, v)
		}
	}
	out, err := lossAndGradients(t, be, ctx.Reuse(), vars).Exec(args...)
	if err != nil {
		t.Fatal(err)
	}
	grads := map[string][]float64{}
	for i, v := range vars {
		grads[v.ScopeAndName()] = tensors.MustCopyFlatData[float64](out[1+i])
	}
	return tensors.ToScalar[float64](out[0]), grads
}

// The sparse and dense executions of Subgraphormer give the same predictions and the same
// gradients for every variable, on the full bag and with subgraph sampling.
func TestSparseEqualsDense(t *testing.T) {
	be := testBackend(t)
	rng := rand.New(rand.NewPCG(9, 9))
	gs := []*graph.Graph{molecule(rng, 5), molecule(rng, 7), molecule(rng, 3), molecule(rng, 6)}
	ctx := context.New()
	setParams(ctx, model.Subgraphormer, 3, "float64")
	exs := examplesOf(t, gs, config(t, ctx))
	for _, encoder := range []string{model.Linear, model.MLP} {
		t.Run(encoder, func(t *testing.T) { sparseEqualsDense(t, be, rng, exs, encoder) })
	}
}

func sparseEqualsDense(t *testing.T, be backends.Backend, rng *rand.Rand, exs []batch.Example, encoder string) {
	ctx := context.New()
	setParams(ctx, model.Subgraphormer, 3, "float64")
	ctx.SetParam(model.ParamLayerEncoder, encoder)
	for _, ratio := range []float64{1, 0.5} {
		var products []*product.Graph
		if ratio < 1 {
			for _, ex := range exs {
				roots, _ := product.SampleRoots(ex.Graph.N(), ratio, rng)
				p, _ := ex.Item.Product.Sample(roots)
				products = append(products, p)
			}
		}
		sparse, err := batch.Build(exs, products, batch.Options{PEK: 3, MaxDistance: 3, Bucket: 1.2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		dense, err := batch.Build(exs, products, batch.Options{PEK: 3, MaxDistance: 3, Bucket: 1.2, Dense: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Predictions first: training-mode runs update BatchNorm's running averages.
		ctx.SetParam(model.ParamExecution, model.Sparse)
		ps := predict(t, be, ctx, sparse)
		ctx.SetParam(model.ParamExecution, model.Dense)
		compare(t, fmt.Sprintf("ratio %v: dense predictions", ratio), predict(t, be, ctx, dense), ps, 1e-9)
		ctx.SetParam(model.ParamExecution, model.Sparse)
		ls, gs := gradientsOf(t, be, ctx, sparse)
		ctx.SetParam(model.ParamExecution, model.Dense)
		ld, gd := gradientsOf(t, be, ctx, dense)
		if math.Abs(ls-ld) > 1e-9*max(1, math.Abs(ls)) {
			t.Fatalf("ratio %v: loss %v sparse, %v dense", ratio, ls, ld)
		}
		for name, g := range gs {
			for i := range g {
				if math.Abs(g[i]-gd[name][i]) > 1e-8*max(1, math.Abs(g[i])) {
					t.Fatalf("ratio %v: gradient of %s[%d]: %v sparse, %v dense", ratio, name, i, g[i], gd[name][i])
				}
			}
		}
	}
}

// With the PE, predictions depend on the labelling of the nodes through the sign of each
// eigenvector and the basis chosen in repeated eigenspaces (package pe). This measures the
// size of that dependence for an untrained model (reported in the README) and checks that it
// is there at all, so that the invariance test above cannot pass by ignoring the PE.
func TestPELabellingDependence(t *testing.T) {
	be := testBackend(t)
	rng := rand.New(rand.NewPCG(2, 3))
	var gs, relabelled []*graph.Graph
	for range 16 {
		g := molecule(rng, 6+rng.IntN(6))
		h, _ := g.Permute(rng.Perm(g.N()))
		gs, relabelled = append(gs, g), append(relabelled, h)
	}
	ctx := context.New()
	setParams(ctx, model.Subgraphormer, 8, "float64")
	ctx.SetParam(model.ParamHidden, 24)
	opt := batch.Options{PEK: 8, MaxDistance: 3}
	a, _ := batch.Build(examplesOf(t, gs, config(t, ctx)), nil, opt, nil)
	b, _ := batch.Build(examplesOf(t, relabelled, config(t, ctx)), nil, opt, nil)
	pa, pb := predict(t, be, ctx, a), predict(t, be, ctx, b)
	var diff, scale float64
	for g := range pa {
		for j := range pa[g] {
			diff += math.Abs(pa[g][j] - pb[g][j])
			scale += math.Abs(pa[g][j])
		}
	}
	t.Logf("k = 8: mean |Δ prediction| under relabelling = %.3g of the mean |prediction|", diff/scale)
	if diff/scale < 1e-6 {
		t.Fatalf("predictions with PE do not depend on the labelling (%.3g): is the PE used?", diff/scale)
	}
}

// The XLA CPU backend computes the function the pure-Go one does, on the same weights and
// graphs, for every model: in float64, predictions and the gradient of every variable agree to
// 1e-9 (both round at 1e-16, in their own order: XLA vectorises and reassociates sums; BatchNorm's
// division by a small batch variance amplifies that by at most a few orders). In float32, the
// dtype models train in, predictions agree to 1e-4 relative: a few ulps (1.2e-7) per layer
// amplified the same way, far below what a wrong term would change (O(1)). Float32 gradients are
// not compared: through BatchNorm on these tiny batches one of them (sswl+-3-tuples) moves by 1%
// with the summation order alone, while the float64 check shows both compute the same function.
func TestXLAParity(t *testing.T) {
	xb := xlatest.CPU(t)
	be := testBackend(t)
	rng := rand.New(rand.NewPCG(11, 11))
	gs := []*graph.Graph{molecule(rng, 5), molecule(rng, 7), molecule(rng, 3), molecule(rng, 6)}
	for _, m := range variants {
		for _, dtype := range []string{"float64", "float32"} {
			t.Run(m.name+"/"+dtype, func(t *testing.T) {
				k := 0
				if m.model == model.Subgraphormer {
					k = 3
				}
				ctx := context.New()
				setParams(ctx, m.model, k, dtype)
				ctx.SetParams(m.params)
				c := config(t, ctx)
				b, err := batch.Build(examplesOf(t, gs, c), nil, optionsFor(c, 1.2), nil)
				if err != nil {
					t.Fatal(err)
				}
				tol := 1e-9
				if dtype == "float32" {
					tol = 1e-4
				}
				want := predict(t, be, ctx, b) // creates the variables, on the pure-Go backend
				detach(t, ctx)
				compare(t, "predictions", predict(t, xb, ctx, b), want, tol)
				if dtype == "float32" {
					return
				}
				detach(t, ctx)
				lg, gg := gradientsOf(t, be, ctx, b)
				detach(t, ctx)
				lx, gx := gradientsOf(t, xb, ctx, b)
				if math.Abs(lg-lx) > tol*max(1, math.Abs(lg)) {
					t.Fatalf("loss %v go, %v xla:cpu", lg, lx)
				}
				for name, g := range gg {
					for i := range g {
						if math.Abs(g[i]-gx[name][i]) > tol*max(1, math.Abs(g[i])) {
							t.Fatalf("gradient of %s[%d]: %v go, %v xla:cpu", name, i, g[i], gx[name][i])
						}
					}
				}
			})
		}
	}
}

// detach moves the values of ctx's variables off their backend, to be used on another.
func detach(t *testing.T, ctx *context.Context) {
	t.Helper()
	for v := range ctx.IterVariables() {
		value, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		value.ToLocal()
	}
}

// The dense execution refuses what its grid does not lay out, before any work: another model,
// triples, the global connectivities, and the adjacencies of pairs under other names than
// internal and external (which would find no edge lists in a dense batch).
func TestDenseRefuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"gin", map[string]any{model.ParamModel: model.GIN}, "runs sparse"},
		{"triples", map[string]any{model.ParamTupleK: 3}, "runs sparse"},
		{"global", map[string]any{model.ParamAggregations: "internal,global_internal"}, "aggregation global_internal runs sparse"},
		{"adjacency_0", map[string]any{model.ParamAggregations: "adjacency_0,external,point"}, "aggregation adjacency_0 runs sparse"},
	} {
		ctx := context.New()
		setParams(ctx, model.Subgraphormer, 2, "float32")
		ctx.SetParams(c.params)
		ctx.SetParam(model.ParamExecution, model.Dense)
		if _, err := model.ReadConfig(ctx); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	ctx := context.New()
	setParams(ctx, model.Subgraphormer, 2, "float32")
	ctx.SetParams(map[string]any{model.ParamExecution: model.Dense, model.ParamAggregations: "internal,external,point"})
	if _, err := model.ReadConfig(ctx); err != nil {
		t.Errorf("internal, external, point: %v", err)
	}
}

// The authors' pooling under sampling is defined for pairs in the sparse layout only.
func TestAuthorsMeanRefuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"triples", map[string]any{model.ParamTupleK: 3}, "got 3, sparse"},
		{"dense", map[string]any{model.ParamExecution: model.Dense, model.ParamAggregations: "internal,external,point"}, "got 2, dense"},
		{"pairs", nil, ""},
	} {
		ctx := context.New()
		setParams(ctx, model.Subgraphormer, 2, "float32")
		ctx.SetParams(c.params)
		ctx.SetParam(model.ParamPooling, model.AuthorsMean)
		_, err := model.ReadConfig(ctx)
		if (c.want == "" && err != nil) || (c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want))) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
