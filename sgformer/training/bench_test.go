package training_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/training"
)

// zincExamples returns the first 128 ZINC-12k training molecules, preprocessed (product graph,
// node marks, k = 8 PE), and the dataset's model spec.
func zincExamples(b *testing.B) ([]batch.Example, model.Spec) {
	ds, err := data.ZINC(shareddata.Dir(b, "zinc12k"))
	if err != nil {
		b.Fatal(err)
	}
	gs := ds.Graphs[:128]
	items, err := preprocess.Dataset(gs, preprocess.Options{PEK: 8}, 0, nil)
	if err != nil {
		b.Fatal(err)
	}
	var exs []batch.Example
	for i, g := range gs {
		exs = append(exs, batch.Example{Graph: g, Item: items[i], Target: ds.Labels[i : i+1]})
	}
	return exs, model.Spec{NodeVocab: ds.NodeVocab, EdgeVocab: ds.EdgeVocab, Tasks: 1}
}

// zincBatchOptions are the batching options of the ZINC recipe in an execution.
func zincBatchOptions(execution string) batch.Options {
	return batch.Options{PEK: 8, MaxDistance: 5, Bucket: 1.15, Dense: execution == model.Dense}
}

// zincBatch returns the first 128 ZINC-12k training molecules as one batch, in the sparse or
// dense layout, with the paper's model (6 layers, hidden 96, 4 heads, k = 8).
func zincBatch(b *testing.B, execution string) (*batch.Batch, model.Spec) {
	exs, spec := zincExamples(b)
	bt, err := batch.Build(exs, nil, zincBatchOptions(execution), nil)
	if err != nil {
		b.Fatal(err)
	}
	return bt, spec
}

// modelConfig returns the model configuration of ctx.
func modelConfig(b *testing.B, ctx *context.Context) model.Config {
	c, err := model.ReadConfig(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// zincContext returns a context with the ZINC recipe and the given execution.
func zincContext(execution string) *context.Context {
	ctx := context.New()
	training.Defaults(ctx)
	ctx.SetParams(recipe.Default("zinc12k"))
	ctx.SetParam(model.ParamExecution, execution)
	return ctx
}

// benchSetup returns the batch, the backend ($GOMLX_BACKEND, else backend.Default) and a
// context with the ZINC recipe and the given execution.
func benchSetup(b *testing.B, execution string) (*batch.Batch, model.Spec, backends.Backend, *context.Context) {
	bt, spec := zincBatch(b, execution)
	be, err := backend.New("")
	if err != nil {
		b.Fatal(err)
	}
	return bt, spec, be, zincContext(execution)
}

// warmUps is how many executions after the compiling one are left out of the timing: on
// xla:cpu the first executions of a program also grow the allocator's heap to the program's
// working set (page faults: sgformer/backend/malloc.go), which a run pays once, and measured
// 1.5-2× a steady ZINC step (2-core AMD EPYC, 2026-11-27). PyG's side is steady too: the median
// of its epochs 2-3.
const warmUps = 1

// benchTrainStep times one training step (forward, backward, Adam) of the model of ctx on a
// batch, after a first step that compiles it and a second that warms it up (warmUps).
func benchTrainStep(b *testing.B, be backends.Backend, ctx *context.Context, spec model.Spec, bt *batch.Batch) {
	c := modelConfig(b, ctx)
	trainer := train.NewTrainer(be, ctx, model.New(spec, c), model.L1Loss, optimizers.Adam().Done(), nil, nil)
	inputs, labels, err := model.Tensors(bt, spec, c)
	if err != nil {
		b.Fatal(err)
	}
	for range 1 + warmUps { // the first compiles
		if _, err := trainer.TrainStep(nil, inputs, labels); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	launches(b, func() ([]*tensors.Tensor, error) { return trainer.TrainStep(nil, inputs, labels) })
}

// launches runs launch b.N times and waits for the last one's outputs, and reports
// host_ms/op: the milliseconds a launch kept the host busy until it returned, of the ns/op that
// also count the device's work, and median_ms/op, the median launch: a step that met a burst of
// page faults or another process's work moves the mean (ns/op) but not the median. Where
// host_ms/op is close to ns/op, either the host bounds the loop or the launch returns only when
// the device is done (go-xla v0.1.4's Execute waits for it: docs/gpu.md, "What bounds the
// step"), and then the median launch is the median step.
func launches(b *testing.B, launch func() ([]*tensors.Tensor, error)) {
	times := make([]time.Duration, 0, b.N)
	var last []*tensors.Tensor
	for range b.N {
		began := time.Now()
		out, err := launch()
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(began))
		for _, t := range last {
			t.MustFinalizeAll()
		}
		last = out
	}
	last[0].MaterializeLocal() // waits for the operations launched
	var host time.Duration
	for _, t := range times {
		host += t
	}
	slices.Sort(times)
	b.ReportMetric(host.Seconds()*1e3/float64(b.N), "host_ms/op")
	b.ReportMetric(times[len(times)/2].Seconds()*1e3, "median_ms/op")
}

// benchInference times one forward pass in inference mode of the model of ctx on a batch, after
// a first pass that compiles it and a second that warms it up (warmUps).
func benchInference(b *testing.B, be backends.Backend, ctx *context.Context, spec model.Spec, bt *batch.Batch) {
	c := modelConfig(b, ctx)
	fn := model.New(spec, c)
	if ctx.NumVariables() > 0 {
		ctx = ctx.Reuse()
	}
	exec, err := context.NewExec(be, ctx, func(ctx *context.Context, nodes []*graph.Node) *graph.Node {
		ctx.SetTraining(nodes[0].Graph(), false)
		return fn(ctx, nil, nodes)[0]
	})
	if err != nil {
		b.Fatal(err)
	}
	inputs, _, err := model.Tensors(bt, spec, c)
	if err != nil {
		b.Fatal(err)
	}
	args := make([]any, len(inputs))
	for i, x := range inputs {
		args[i] = x
	}
	for range 1 + warmUps { // the first compiles
		if _, err := exec.Exec(args...); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	launches(b, func() ([]*tensors.Tensor, error) { return exec.Exec(args...) })
}

// BenchmarkZINCTrainStep is one training step (forward, backward, Adam) of Subgraphormer with
// the ZINC recipe on a batch of 128 ZINC-12k molecules, per execution.
func BenchmarkZINCTrainStep(b *testing.B) {
	for _, execution := range []string{model.Sparse, model.Dense} {
		b.Run(execution, func(b *testing.B) {
			bt, spec, be, ctx := benchSetup(b, execution)
			benchTrainStep(b, be, ctx, spec, bt)
			b.ReportMetric(float64(bt.Nodes), "product_nodes")
		})
	}
}

// BenchmarkZINCInference is one forward pass in inference mode on the same batch.
func BenchmarkZINCInference(b *testing.B) {
	for _, execution := range []string{model.Sparse, model.Dense} {
		b.Run(execution, func(b *testing.B) {
			bt, spec, be, ctx := benchSetup(b, execution)
			benchInference(b, be, ctx, spec, bt)
			b.ReportMetric(float64(bt.Nodes), "product_nodes")
		})
	}
}

// BenchmarkZINCBatch is the host's share of a step on the same 128 molecules: the batch built
// from their preprocessed product graphs (with the training's PE sign flips) and made into the
// model's input tensors. It runs before every step, 79 times in a ZINC-12k training epoch, and
// on a GPU it is not overlapped with the device's work.
func BenchmarkZINCBatch(b *testing.B) {
	for _, execution := range []string{model.Sparse, model.Dense} {
		b.Run(execution, func(b *testing.B) {
			exs, spec := zincExamples(b)
			c := modelConfig(b, zincContext(execution))
			rng := rand.New(rand.NewPCG(1, 2))
			b.ResetTimer()
			for range b.N {
				bt, err := batch.Build(exs, nil, zincBatchOptions(execution), rng)
				if err != nil {
					b.Fatal(err)
				}
				inputs, labels, err := model.Tensors(bt, spec, c)
				if err != nil {
					b.Fatal(err)
				}
				for _, x := range append(inputs, labels...) {
					x.MustFinalizeAll()
				}
			}
		})
	}
}

// BenchmarkTupleOrder is the cost of K = 3 (Appendix B: n³ product nodes, 3 adjacencies and 3
// point updates per block) against K = 2 on ZINC-sized graphs: one training step and one
// inference pass of the ZINC model (6 layers, hidden 96, 4 heads, k = 8 exact PE) on a batch of
// the first 2 ZINC-12k training molecules (29 and 26 atoms), reported per graph.
func BenchmarkTupleOrder(b *testing.B) {
	ds, err := data.ZINC(shareddata.Dir(b, "zinc12k"))
	if err != nil {
		b.Fatal(err)
	}
	be, err := backend.New("")
	if err != nil {
		b.Fatal(err)
	}
	const graphs = 2
	spec := model.Spec{NodeVocab: ds.NodeVocab, EdgeVocab: ds.EdgeVocab, Tasks: 1}
	for _, k := range []int{2, 3} {
		ctx := context.New()
		training.Defaults(ctx)
		ctx.SetParams(recipe.Default("zinc12k"))
		ctx.SetParams(map[string]any{model.ParamTupleK: k, model.ParamPEMode: string(preprocess.Exact)})
		c := modelConfig(b, ctx)
		var exs []batch.Example
		for i, g := range ds.Graphs[:graphs] {
			it, err := preprocess.Graph(g, c.Preprocess())
			if err != nil {
				b.Fatal(err)
			}
			exs = append(exs, batch.Example{Graph: g, Item: it, Target: ds.Labels[i : i+1]})
		}
		bt, err := batch.Build(exs, nil, batch.Options{PEK: c.PEColumns(), MaxDistance: c.MaxDistance, Bucket: 1.15}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("K=%d/train", k), func(b *testing.B) {
			benchTrainStep(b, be, ctx, spec, bt)
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N*graphs), "s/graph")
			b.ReportMetric(float64(bt.Nodes), "nodes/batch")
		})
		b.Run(fmt.Sprintf("K=%d/inference", k), func(b *testing.B) {
			benchInference(b, be, ctx, spec, bt)
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N*graphs), "s/graph")
		})
	}
}
