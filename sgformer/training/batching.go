package training

import (
	"math/rand/v2"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/product"
)

// batching holds what turns examples into model inputs.
type batching struct {
	spec       model.Spec
	model      model.Config
	options    batch.Options
	preprocess preprocess.Options // how a graph not seen before is preprocessed
	size       int
	ratio      float64 // sampling ratio; 1 keeps every subgraph
	signFlips  bool
}

// newBatching returns the batching of a run's configuration.
func newBatching(cfg Config, spec model.Spec) batching {
	return batching{
		spec:  spec,
		model: cfg.Model,
		options: batch.Options{PEK: cfg.Model.PEColumns(), MaxDistance: cfg.Model.MaxDistance, Bucket: cfg.Bucket,
			Original: !cfg.Model.OnProducts(), Dense: cfg.Model.Execution == model.Dense},
		preprocess: cfg.Model.Preprocess(),
		size:       cfg.BatchSize,
		ratio:      cfg.SamplingRatio,
		signFlips:  cfg.SignFlip,
	}
}

// Random streams: every random choice of a run is drawn from a stream fixed by the seed and
// the epoch (or, per graph, the evaluation draw), so a run resumed from a checkpoint makes
// exactly the choices the uninterrupted run would have.
const (
	streamTrain         = 1 << 32 // + epoch: shuffling, subgraph sampling, PE sign flips
	streamEval          = 2 << 32 // + draw: subgraph sampling at evaluation, seeded per graph
	streamProfile       = 3 << 32 // the sampled graphs the batch profile is measured on
	streamRecalibration = 4 << 32 // RecalibrateBatchNorm's batches
)

// build returns the inputs and labels of one batch. When the recipe samples subgraphs, roots(i)
// is the random stream that draws example i's; flips, if not nil, draws the PE signs.
func (b batching) build(examples []batch.Example, roots func(i int) *rand.Rand, flips *rand.Rand) (inputs, labels []*tensors.Tensor, err error) {
	products, err := b.products(examples, roots)
	if err != nil {
		return nil, nil, err
	}
	bt, err := batch.Build(examples, products, b.options, flips)
	if err != nil {
		return nil, nil, err
	}
	return model.Tensors(bt, b.spec, b.model)
}

// products returns the product graphs of examples to batch in place of their own (nil when
// their own serve): built where they were left out (preprocess.Options.OnDemand), and sampled
// from the stream roots(i) when the recipe samples subgraphs.
func (b batching) products(examples []batch.Example, roots func(i int) *rand.Rand) ([]*product.Graph, error) {
	sample := b.ratio < 1
	if b.options.Original || !sample && !slices.ContainsFunc(examples, func(ex batch.Example) bool { return ex.Item.Product == nil }) {
		return nil, nil
	}
	products := make([]*product.Graph, len(examples))
	for i, ex := range examples {
		p := ex.Item.Product
		var err error
		if p == nil { // preprocess.Options.OnDemand
			if p, err = b.preprocess.Product(ex.Graph); err != nil {
				return nil, err
			}
		}
		if sample {
			kept, err := product.SampleRoots(ex.Graph.N(), b.ratio, roots(i))
			if err != nil {
				return nil, err
			}
			if p, err = p.Sample(kept); err != nil {
				return nil, err
			}
		}
		products[i] = p
	}
	return products, nil
}

// profileGraphs is how many training graphs the batch profile is measured on.
const profileGraphs = 256

// withProfile returns b padding its batches by the profile (batch.Options.Profile) of the first
// profileGraphs of examples, sampled as in training from a stream of their own: a run's batches
// then take one shape per size level, so that XLA compiles a few programs rather than one per
// batch.
func (b batching) withProfile(examples []batch.Example) (batching, error) {
	examples = examples[:min(len(examples), profileGraphs)]
	rng := rand.New(rand.NewPCG(0, streamProfile))
	products, err := b.products(examples, func(int) *rand.Rand { return rng })
	if err != nil {
		return b, err
	}
	b.options.Profile = batch.ProfileOf(examples, products, b.options)
	return b, nil
}

// finalize frees tensors now rather than at the garbage collector's leisure.
func finalize(ts []*tensors.Tensor) {
	for _, x := range ts {
		x.MustFinalizeAll()
	}
}
