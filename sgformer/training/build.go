package training

import (
	"slices"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
)

// BuildModel returns a context with the defaults, params, and the variables of the model they
// configure for data of spec, created by running it once on two small graphs and started as
// model.ParamInit says, from the configured seed: the start training gives it. It is how a
// model's size is known before training: see model.ParameterCounts.
func BuildModel(be backends.Backend, spec model.Spec, params map[string]any) (*context.Context, model.Config, error) {
	ctx := context.New()
	Defaults(ctx)
	ctx.SetParams(params)
	cfg, err := ReadConfig(ctx)
	if err != nil {
		return nil, model.Config{}, err
	}
	ctx.SetParam(context.ParamInitialSeed, int64(cfg.Seed)+1) // GoMLX takes seed 0 as "random"
	if err := startModel(ctx, be, spec, cfg); err != nil {
		return nil, model.Config{}, err
	}
	return ctx, cfg.Model, nil
}

// authorsTables are the rows of the authors' atom and bond embedding tables: OGB's AtomEncoder
// and BondEncoder, which their code uses for every dataset (ZINC's atom and bond types index
// the first column's table).
var authorsTables = model.TableRows{Atom: data.AtomFeatureDims, Bond: data.BondFeatureDims}

// startModel creates the variables of the model cfg configures in ctx (createVariables, which
// starts them with GoMLX's initialisers) and starts its weights as cfg configures: unchanged
// for model.GoMLXInit, drawn from the seed for model.PyTorchInit.
func startModel(ctx *context.Context, be backends.Backend, spec model.Spec, cfg Config) error {
	if err := createVariables(ctx, be, spec, cfg); err != nil {
		return err
	}
	if cfg.Model.Init != model.PyTorchInit {
		return nil
	}
	return model.InitPyTorch(ctx, uint64(cfg.Seed), authorsTables)
}

// createVariables creates the variables of the model cfg configures in ctx by running it once,
// in inference, on two small graphs (paths of 3 and 4 atoms of category 0, bonds of category 1).
func createVariables(ctx *context.Context, be backends.Backend, spec model.Spec, cfg Config) error {
	var examples []batch.Example
	for _, n := range []int{3, 4} {
		var edges []graph.Edge
		for v := 1; v < n; v++ {
			edges = append(edges, graph.Edge{v - 1, v})
		}
		var bonds graph.Features
		if w := len(spec.EdgeVocab); w > 0 {
			bonds = graph.Features{Width: w, Ints: slices.Repeat([]int32{min(1, int32(spec.EdgeVocab[0])-1)}, len(edges)*w)}
		}
		g, err := graph.New(n, edges, graph.Features{Width: len(spec.NodeVocab), Ints: make([]int32, n*len(spec.NodeVocab))}, bonds)
		if err != nil {
			return err
		}
		item, err := preprocess.Graph(g, cfg.Model.Preprocess())
		if err != nil {
			return err
		}
		examples = append(examples, batch.Example{Graph: g, Item: item, Target: make([]float64, spec.Tasks)})
	}
	b := newBatching(cfg, spec)
	b.ratio = 1 // the variables do not depend on sampling
	inputs, _, err := b.build(examples, nil, nil)
	if err != nil {
		return err
	}
	args := make([]any, len(inputs))
	for i, x := range inputs {
		args[i] = x
	}
	fn := model.New(spec, cfg.Model)
	exec, err := context.NewExec(be, ctx, func(ctx *context.Context, nodes []*Node) *Node {
		ctx.SetTraining(nodes[0].Graph(), false)
		return fn(ctx, nil, nodes)[0]
	})
	if err != nil {
		return err
	}
	_, err = exec.Exec(args...)
	return err
}
