package training

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/distributed"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/internal/parallel"
	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/metrics"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/task"
)

// Predictor runs a model in inference mode. It is deterministic: the PE has the sign
// convention of package pe (no random flips), BatchNorm uses its running averages, and with
// subgraph sampling the predictions are the average over a fixed number of draws from
// streams fixed by the seed.
type Predictor struct {
	exec    *context.Exec
	batches batching
	draws   int
	seed    int
	// devices, when more than 1, is how many devices each batch is split among, as in
	// training (buildShards), laid out by sharding.
	devices  int
	sharding sharding
	// compiled counts the programs compiled, one per new batch shape.
	compiled compilations
}

// NewPredictor returns a predictor for the model and hyperparameters in ctx, whose variables
// must exist (trained, or loaded from a checkpoint). It runs on the devices ParamDevices in
// ctx names, each batch split among them as in training (ResolveDevices says when it cannot
// be; OpenRun's context names one device): the predictions are those of one device, up to
// the order of float32 sums.
func NewPredictor(ctx *context.Context, be backends.Backend, spec model.Spec) (*Predictor, error) {
	cfg, err := ReadConfig(ctx)
	if err != nil {
		return nil, err
	}
	return newPredictor(ctx, be, spec, cfg)
}

// newPredictor is NewPredictor for the configuration cfg read from ctx.
func newPredictor(ctx *context.Context, be backends.Backend, spec model.Spec, cfg Config) (*Predictor, error) {
	devices, err := ResolveDevices(cfg, be)
	if err != nil {
		return nil, err
	}
	fn := model.New(spec, cfg.Model)
	exec, err := context.NewExec(be, ctx.Reuse(), func(ctx *context.Context, nodes []*Node) *Node {
		ctx.SetTraining(nodes[0].Graph(), false)
		return ConvertDType(fn(ctx, nil, nodes)[0], dtypes.Float64)
	})
	if err != nil {
		return nil, err
	}
	exec.SetMaxCache(-1) // one graph per batch shape, however many (see epochData.Yield)
	p := &Predictor{exec: exec, batches: newBatching(cfg, spec), draws: cfg.EvalSamples, seed: cfg.Seed, devices: devices}
	if devices > 1 {
		if p.sharding, err = newSharding(devices); err != nil {
			return nil, err
		}
		// Every input split along axis 0 (the last spec serves the rest); the predictions,
		// [devices·(slots+1), tasks], too: device d's rows are its block's graph slots.
		exec.AutoSharding(p.sharding.spec.Mesh).WithInputShardingSpecs(p.sharding.spec).WithOutputShardingSpecs(p.sharding.spec)
	}
	return p, nil
}

// Predict returns the predictions for examples, one row of Tasks values per example. A model
// that samples subgraphs averages EvalSamples draws per graph, each a function of the run's
// seed and of the graph alone.
func (p *Predictor) Predict(examples []batch.Example) ([][]float64, error) {
	out := make([][]float64, len(examples))
	for i := range out {
		out[i] = make([]float64, p.batches.spec.Tasks)
	}
	draws := 1
	var keys []uint64
	if p.batches.ratio < 1 {
		draws = p.draws
		keys = make([]uint64, len(examples))
		for i, ex := range examples {
			fp := preprocess.Fingerprint([]*graph.Graph{ex.Graph})
			keys[i] = binary.LittleEndian.Uint64(fp[:8])
		}
	}
	// The batches are built on another goroutine, each while the one before runs.
	built := runAhead(func(yield func(builtBatch) bool) {
		for d := range draws {
			for lo := 0; lo < len(examples); lo += p.batches.size {
				hi := min(lo+p.batches.size, len(examples))
				// Draw d of a graph's subgraphs comes from a stream of its own, keyed by the
				// graph's fingerprint: its prediction depends neither on the graphs evaluated
				// with it nor on their order.
				roots := func(i int) *rand.Rand { return rand.New(rand.NewPCG(uint64(p.seed)^keys[lo+i], streamEval+uint64(d))) }
				b := p.build(examples[lo:hi], roots)
				b.lo = lo
				if !yield(b) || b.err != nil {
					return
				}
			}
		}
	}, builtBatch.free)
	defer built.stop() // on an early return: stop the builder, and free what it built
	for b, ok := built.next(); ok; b, ok = built.next() {
		if b.err != nil {
			return nil, b.err
		}
		blocks, err := p.run(b)
		if err != nil {
			return nil, err
		}
		begin := 0
		for k, flat := range blocks {
			for g := range b.ends[k] - begin {
				for t := range p.batches.spec.Tasks {
					out[b.lo+begin+g][t] += flat[g*p.batches.spec.Tasks+t] / float64(draws)
				}
			}
			begin = b.ends[k]
		}
	}
	return out, nil
}

// builtBatch is a batch of examples[lo:lo+ends[len(ends)-1]] made into the model's inputs: on
// one device, inputs; on several, dinputs, block k of examples[lo+ends[k-1]:lo+ends[k]] on
// device k.
type builtBatch struct {
	lo      int
	ends    []int
	inputs  []*tensors.Tensor
	dinputs []*distributed.Tensor
	err     error
}

// build builds the batch of examples, their subgraphs drawn from roots.
func (p *Predictor) build(examples []batch.Example, roots func(i int) *rand.Rand) builtBatch {
	var b builtBatch
	if p.devices == 1 {
		var labels []*tensors.Tensor
		b.ends = []int{len(examples)}
		b.inputs, labels, b.err = p.batches.build(examples, roots, nil)
		finalize(labels)
		return b
	}
	var inputs, labels [][]*tensors.Tensor
	inputs, labels, b.ends, b.err = p.batches.buildShards(examples, p.devices, roots, nil)
	for _, y := range labels {
		finalize(y)
	}
	if b.err == nil {
		b.dinputs, b.err = p.sharding.tensors(inputs)
	}
	return b
}

// free frees the batch's tensors.
func (b builtBatch) free() {
	finalize(b.inputs)
	for _, x := range b.dinputs {
		_ = x.Finalize()
	}
}

// run runs the model on b, compiling it first for a new shape, and returns the predictions of
// each block, [slots, tasks] flat, the padding slots included.
func (p *Predictor) run(b builtBatch) ([][]float64, error) {
	defer b.free()
	var args []any
	var in []shapes.Shape
	for _, x := range b.inputs {
		args, in = append(args, x), append(in, x.Shape())
	}
	for _, x := range b.dinputs {
		args, in = append(args, x), append(in, x.ShardShape())
	}
	if p.compiled.add(in) {
		began := time.Now()
		if err := p.exec.PreCompile(args...); err != nil {
			return nil, err
		}
		p.compiled.seconds += time.Since(began).Seconds()
	}
	var res []*tensors.Tensor
	if p.devices == 1 {
		out, err := p.exec.Exec(args...)
		if err != nil {
			return nil, err
		}
		res = out[:1]
	} else {
		out, err := p.exec.DistributedExec(args...)
		if err != nil {
			return nil, err
		}
		res = out[0].Shards()
	}
	blocks := make([][]float64, len(res))
	for k, x := range res {
		blocks[k] = tensors.MustCopyFlatData[float64](x)
		x.MustFinalizeAll()
	}
	return blocks, nil
}

// Finalize frees the programs compiled for the batch shapes met; p is not used after it.
func (p *Predictor) Finalize() { p.exec.Finalize() }

// PredictGraph preprocesses one graph as the model needs (product graph, node marks, the PE
// of the model's size) and returns its predictions, one per task. Its integer node and edge
// features must be in the encoding of the data the model was trained on.
func (p *Predictor) PredictGraph(g *graph.Graph) ([]float64, error) {
	pred, errs, err := p.PredictGraphs([]*graph.Graph{g}, 1)
	if err == nil && errs != nil {
		err = errs[0]
	}
	if err != nil {
		return nil, err
	}
	return pred[0], nil
}

// PredictGraphs predicts many graphs: each is checked and preprocessed as PredictGraph does,
// in parallel on workers goroutines (GOMAXPROCS when workers ≤ 0), and those that could be
// are predicted together by Predict, in batches of the run's batch size (a graph's prediction
// does not depend on the others: the same as PredictGraph's). It returns a row of
// predictions per graph, or for a graph that cannot be predicted (features not in the model's
// encoding, a product graph too large for the memory) a nil row and its error at the same
// index of errs, which is nil when every graph was predicted. err reports a failure of the
// model itself.
func (p *Predictor) PredictGraphs(gs []*graph.Graph, workers int) (preds [][]float64, errs []error, err error) {
	spec := p.batches.spec
	examples := make([]batch.Example, len(gs))
	all := make([]error, len(gs))
	parallel.For(len(gs), workers, func(i int) {
		g := gs[i]
		if all[i] = p.check(g); all[i] != nil {
			return
		}
		item, err := preprocess.Graph(g, p.batches.preprocess)
		if err != nil {
			all[i] = err
			return
		}
		examples[i] = batch.Example{Graph: g, Item: item, Target: make([]float64, spec.Tasks)}
	})
	var ready []batch.Example
	var at []int
	for i, err := range all {
		if err != nil {
			errs = all
			continue
		}
		ready, at = append(ready, examples[i]), append(at, i)
	}
	preds = make([][]float64, len(gs))
	rows, err := p.Predict(ready)
	if err != nil {
		return nil, nil, err
	}
	for j, i := range at {
		preds[i] = rows[j]
	}
	return preds, errs, nil
}

// check reports a graph whose features the model cannot read.
func (p *Predictor) check(g *graph.Graph) error {
	spec := p.batches.spec
	if g.NodeFeatures.Width != len(spec.NodeVocab) || g.NodeFeatures.Ints == nil {
		return fmt.Errorf("training: the model needs %d integer node feature(s) per node (\"node_features\"), the graph has %d", len(spec.NodeVocab), g.NodeFeatures.Width)
	}
	if g.NumEdges() > 0 && (g.EdgeFeatures.Width != len(spec.EdgeVocab) || g.EdgeFeatures.Ints == nil) {
		return fmt.Errorf("training: the model needs %d integer edge feature(s) per edge (\"edge_features\"), the graph has %d", len(spec.EdgeVocab), g.EdgeFeatures.Width)
	}
	return nil
}

// Evaluate returns the metric of the predictions for the examples split of task.
func (p *Predictor) Evaluate(task *task.Task, split []int, metric metrics.Metric) (float64, error) {
	examples := task.Select(split)
	targets := make([][]float64, len(split))
	for i, ex := range examples {
		targets[i] = ex.Target
	}
	if p.batches.options.Profile == nil {
		var err error
		if p.batches, err = p.batches.withProfile(task.Select(task.Train)); err != nil {
			return 0, err
		}
	}
	pred, err := p.Predict(examples)
	if err != nil {
		return 0, err
	}
	return metric.Compute(pred, targets)
}
