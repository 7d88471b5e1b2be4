package training

import (
	"fmt"
	"math/rand/v2"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
)

// Tensors returns the model inputs and labels of one batch of graphs, in their order, for the
// model and hyperparameters in ctx, built as training builds a batch: each graph preprocessed
// (its product graph, node marks and PE), then packed and padded (batch.Build); flips, if not
// nil, draws the PE's signs where the recipe flips them (pe_sign_flip). The labels are zeros. It is for training loops of their own (BREC's
// contrastive one, package brec): the recipe must keep every subgraph, as sampling draws them
// per epoch within Train.
func Tensors(ctx *context.Context, spec model.Spec, graphs []*graph.Graph, flips *rand.Rand) (inputs, labels []*tensors.Tensor, err error) {
	cfg, err := ReadConfig(ctx)
	if err != nil {
		return nil, nil, err
	}
	if cfg.SamplingRatio < 1 {
		return nil, nil, fmt.Errorf("training: Tensors of a recipe that samples subgraphs (%s = %g): only Train draws them", ParamSamplingRatio, cfg.SamplingRatio)
	}
	b := newBatching(cfg, spec)
	examples := make([]batch.Example, len(graphs))
	for i, g := range graphs {
		item, err := preprocess.Graph(g, b.preprocess)
		if err != nil {
			return nil, nil, fmt.Errorf("training: graph %d: %w", i, err)
		}
		examples[i] = batch.Example{Graph: g, Item: item, Target: make([]float64, spec.Tasks)}
	}
	if !b.signFlips {
		flips = nil
	}
	return b.build(examples, nil, flips)
}
