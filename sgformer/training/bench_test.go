package training_test

import (
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/training"
)

// zincBatch returns the first 128 ZINC-12k training molecules as one batch, in the sparse or
// dense layout, with the paper's model (6 layers, hidden 96, 4 heads, k = 8).
func zincBatch(b *testing.B, execution string) (*batch.Batch, model.Spec) {
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
	bt, err := batch.Build(exs, nil, batch.Options{PEK: 8, MaxDistance: 5, Bucket: 1.15, Dense: execution == model.Dense}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return bt, model.Spec{NodeVocab: ds.NodeVocab, EdgeVocab: ds.EdgeVocab, Tasks: 1}
}

// benchSetup returns the batch, the backend ($GOMLX_BACKEND, else the pure-Go one) and a
// context with the ZINC recipe and the given execution.
func benchSetup(b *testing.B, execution string) (*batch.Batch, model.Spec, backends.Backend, *context.Context) {
	bt, spec := zincBatch(b, execution)
	be, err := backend.New("")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.New()
	training.Defaults(ctx)
	ctx.SetParams(training.DefaultRecipe("zinc12k"))
	ctx.SetParam(model.ParamExecution, execution)
	return bt, spec, be, ctx
}

// BenchmarkZINCTrainStep is one training step (forward, backward, Adam) of Subgraphormer with
// the ZINC recipe on a batch of 128 ZINC-12k molecules, per execution.
func BenchmarkZINCTrainStep(b *testing.B) {
	for _, execution := range []string{model.Sparse, model.Dense} {
		b.Run(execution, func(b *testing.B) {
			bt, spec, be, ctx := benchSetup(b, execution)
			trainer := train.NewTrainer(be, ctx, model.New(spec), model.L1Loss, optimizers.Adam().Done(), nil, nil)
			inputs, labels, err := model.Tensors(bt, spec)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := trainer.TrainStep(nil, inputs, labels); err != nil { // compiles
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := trainer.TrainStep(nil, inputs, labels); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(bt.Nodes), "product_nodes")
		})
	}
}

// BenchmarkZINCInference is one forward pass in inference mode on the same batch.
func BenchmarkZINCInference(b *testing.B) {
	for _, execution := range []string{model.Sparse, model.Dense} {
		b.Run(execution, func(b *testing.B) {
			bt, spec, be, ctx := benchSetup(b, execution)
			fn := model.New(spec)
			exec, err := context.NewExec(be, ctx, func(ctx *context.Context, nodes []*graph.Node) *graph.Node {
				ctx.SetTraining(nodes[0].Graph(), false)
				return fn(ctx, nil, nodes)[0]
			})
			if err != nil {
				b.Fatal(err)
			}
			inputs, _, err := model.Tensors(bt, spec)
			if err != nil {
				b.Fatal(err)
			}
			args := make([]any, len(inputs))
			for i, x := range inputs {
				args[i] = x
			}
			if _, err := exec.Exec(args...); err != nil { // compiles
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				out, err := exec.Exec(args...)
				if err != nil {
					b.Fatal(err)
				}
				out[0].MustFinalizeAll()
			}
		})
	}
}
