package brec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/training"
)

// ModelOptions are BREC's settings for a model tested pair by pair (the constants of
// test_BREC.py, GraphPKU/BREC).
type ModelOptions struct {
	// Params are the model's hyperparameters (training.BuildModel's), e.g. model, layers,
	// hidden, pe_k, tuple_k; its output has OutputDim values.
	Params map[string]any
	// Epochs bounds the training on a pair (EPOCH); it stops early once the loss of an epoch
	// falls below LossThreshold (LOSS_THRESHOLD).
	Epochs        int
	LossThreshold float64
	// LearningRate and WeightDecay are Adam's (LEARNING_RATE, WEIGHT_DECAY); the decay is
	// decoupled from the gradient (AdamW, GoMLX's), where PyTorch's Adam adds it to the gradient.
	LearningRate, WeightDecay float64
	// Seed draws the relabelings and starts the weights, the same for every pair.
	Seed int
}

// Protocol's constants (test_BREC.py).
const (
	OutputDim = 16 // OUTPUT_DIM
	batchSize = 32 // BATCH_SIZE: graphs, 16 pairs
	// maxSizes bounds the pair sizes (nodes, edges) whose compiled programs a Model keeps: a
	// pair of a new size beyond it drops them all. A pair's 64 graphs share one size, so one
	// training and one inference program each; XLA's programs stay in memory while kept, and
	// GoMLX refuses a 33rd shape to an executor.
	maxSizes = 16
	// closeAtol is EPSILON_CMP, torch.isclose's absolute tolerance between the two T2 values.
	closeAtol = 1e-6
	// Their scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau with its defaults: the rate
	// times 0.1 after 10 epochs whose loss did not improve on the best by a relative 1e-4.
	plateauFactor, plateauPatience, plateauThreshold = 0.1, 10, 1e-4
)

// DefaultModelOptions are test_BREC.py's defaults (20 epochs, Adam at 1e-5 with weight decay
// 1e-4, early stop below 0.01, seed 2022) for the model params.
func DefaultModelOptions(params map[string]any) ModelOptions {
	return ModelOptions{Params: params, Epochs: 20, LossThreshold: 0.01, LearningRate: 1e-5, WeightDecay: 1e-4, Seed: 2022}
}

// spec is what the model reads of a BREC graph: no features (one constant node and bond type)
// and OutputDim outputs.
var spec = model.Spec{NodeVocab: []int{1}, EdgeVocab: []int{1}, Tasks: OutputDim}

// Model is a model under BREC's protocol, built once and started afresh for each pair: its
// weights set back to where they started (the same for every pair, drawn from Seed), Adam's
// state to zero and the learning rate to LearningRate, so that every pair reuses the programs
// XLA compiled for the shapes it has met.
type Model struct {
	be      backends.Backend
	opt     ModelOptions
	ctx     *context.Context
	trainer *train.Trainer
	pred    *training.Predictor
	start   map[*context.Variable]*tensors.Tensor // the weights' first values
	sizes   map[[2]int]bool                       // the pair sizes met since the programs were last dropped
	tupleK  int                                   // the order K of the product's tuples (n^K of them)
}

// NewModel builds the model of opt.Params on be.
func NewModel(be backends.Backend, opt ModelOptions) (*Model, error) {
	params := map[string]any{training.ParamSeed: opt.Seed, training.ParamLearningRate: opt.LearningRate}
	for k, v := range opt.Params {
		params[k] = v
	}
	ctx, cfg, err := training.BuildModel(be, spec, params)
	if err != nil {
		return nil, err
	}
	m := &Model{be: be, opt: opt, ctx: ctx, start: map[*context.Variable]*tensors.Tensor{}, sizes: map[[2]int]bool{}, tupleK: cfg.TupleK}
	var cloneErr error
	ctx.EnumerateVariables(func(v *context.Variable) {
		value, err := v.Value()
		if err == nil {
			value, err = value.Clone()
		}
		if err != nil && cloneErr == nil {
			cloneErr = fmt.Errorf("brec: variable %s: %w", v.ScopeAndName(), err)
		}
		m.start[v] = value
	})
	if cloneErr != nil {
		return nil, cloneErr
	}
	adam := optimizers.Adam().WeightDecay(opt.WeightDecay).Done()
	m.trainer = train.NewTrainer(be, ctx, model.New(spec, cfg), cosineLoss, adam, nil, nil)
	m.trainer.SetContext(ctx.Checked(false)) // the weights exist, started by BuildModel
	if m.pred, err = training.NewPredictor(ctx, be, spec); err != nil {
		return nil, err
	}
	return m, nil
}

// restart sets the weights back to their first values, the optimizer's state (created by the
// first training step) to zero and the learning rate to opt.LearningRate.
func (m *Model) restart() error {
	var err error
	m.ctx.EnumerateVariables(func(v *context.Variable) {
		value, ok := m.start[v]
		if ok {
			value, err = value.Clone()
		} else {
			value = tensors.FromShape(v.Shape())
		}
		if err == nil {
			err = v.SetValue(value)
		}
	})
	if err != nil {
		return err
	}
	return m.setLR(m.opt.LearningRate)
}

// fit makes room for the programs of a pair of the given size: after maxSizes sizes, the
// programs compiled for them are dropped (compiled again, or read from the backend's program
// cache, when a size comes back).
func (m *Model) fit(size [2]int) error {
	if m.sizes[size] {
		return nil
	}
	if len(m.sizes) == maxSizes {
		m.trainer.ResetComputationGraphs()
		m.pred.Finalize()
		pred, err := training.NewPredictor(m.ctx, m.be, spec)
		if err != nil {
			return err
		}
		m.pred = pred
		clear(m.sizes)
	}
	m.sizes[size] = true
	return nil
}

// setLR sets the optimizer's learning-rate variable, once the first training step created it.
func (m *Model) setLR(lr float64) error {
	v := m.ctx.GetVariableByScopeAndName("/"+optimizers.Scope, optimizers.ParamLearningRate)
	if v == nil {
		return nil
	}
	return v.SetValue(tensors.FromAnyValue(shapes.CastAsDType(lr, v.DType())))
}

// Pair tests the model on pair p with BREC's protocol: started afresh, it is trained to tell
// the two graphs apart on Relabelings renumberings of each (a Siamese cosine-embedding loss,
// target −1, margin 0: the mean of max(0, cos(f(a_i), f(b_i)))), then T2 of its outputs on them
// is compared with Threshold, and T2 of graph A against A renumbered again (the reliability
// check) with T2 and Threshold. The record's test is name.
func (m *Model) Pair(p data.Pair, name string) (Record, error) {
	t0 := time.Now()
	rng := rand.New(rand.NewPCG(uint64(m.opt.Seed), uint64(p.Index)))
	pairs := make([]*graph.Graph, 0, 2*Relabelings)
	same := make([]*graph.Graph, 0, 2*Relabelings)
	for range Relabelings {
		pairs = append(pairs, relabel(p.A, rng), relabel(p.B, rng))
	}
	for range Relabelings {
		same = append(same, relabel(p.A, rng), relabel(p.A, rng))
	}
	if err := m.restart(); err != nil {
		return Record{}, err
	}
	if err := m.fit([2]int{p.A.N(), p.A.NumEdges()}); err != nil {
		return Record{}, err
	}
	epochs, loss, err := m.train(pairs, rng)
	if err != nil {
		return Record{}, fmt.Errorf("brec: pair %d: %w", p.Index, err)
	}
	t2, err := pairedT2(m.pred, pairs)
	if err != nil {
		return Record{}, fmt.Errorf("brec: pair %d: %w", p.Index, err)
	}
	t2rel, err := pairedT2(m.pred, same)
	if err != nil {
		return Record{}, fmt.Errorf("brec: pair %d, reliability: %w", p.Index, err)
	}
	return Record{Pair: p.Index, Category: p.Category, Test: name, Nodes: p.A.N(),
		Distinguished: t2 > Threshold && !isClose(t2, t2rel), Reliable: t2rel < Threshold,
		T2: t2, T2Reliability: t2rel, Epochs: epochs, Loss: loss, Seconds: time.Since(t0).Seconds()}, nil
}

// train trains the model on the interleaved graphs (a_i at 2i, b_i at 2i+1), in batches of
// batchSize in their order, for at most opt.Epochs epochs; it returns the epochs trained and
// the last epoch's loss.
func (m *Model) train(graphs []*graph.Graph, rng *rand.Rand) (int, float64, error) {
	lr, best, bad := m.opt.LearningRate, math.Inf(1), 0
	loss := math.NaN()
	for epoch := 1; epoch <= m.opt.Epochs; epoch++ {
		loss = 0
		for lo := 0; lo < len(graphs); lo += batchSize {
			hi := min(lo+batchSize, len(graphs))
			inputs, labels, err := training.Tensors(m.ctx, spec, graphs[lo:hi], rng)
			if err != nil {
				return 0, 0, err
			}
			out, err := m.trainer.TrainStep(hi-lo, inputs, labels)
			if err != nil {
				return 0, 0, err
			}
			l, err := scalar(out[0])
			if err != nil {
				return 0, 0, err
			}
			loss += float64(hi-lo) / 2 * l / Relabelings
		}
		if loss < m.opt.LossThreshold {
			return epoch, loss, nil
		}
		if loss < best*(1-plateauThreshold) {
			best, bad = loss, 0
		} else if bad++; bad > plateauPatience {
			lr, bad = lr*plateauFactor, 0
			if err := m.setLR(lr); err != nil {
				return 0, 0, err
			}
		}
	}
	return m.opt.Epochs, loss, nil
}

// cosineLoss is PyTorch's CosineEmbeddingLoss with target −1 and margin 0 over the pairs of a
// batch, rows 2i and 2i+1 of the predictions (the last row, the padding's, left out): the mean
// of max(0, cos), cos = x·y / √((‖x‖² + ε)(‖y‖² + ε)), ε = 1e-12 as theirs.
func cosineLoss(_, predictions []*Node) *Node {
	pred := predictions[0]
	g := pred.Graph()
	even := make([][]int32, (pred.Shape().Dimensions[0]-1)/2)
	odd := make([][]int32, len(even))
	for i := range even {
		even[i], odd[i] = []int32{int32(2 * i)}, []int32{int32(2*i + 1)}
	}
	// Gathered rather than sliced with a stride: the pure-Go backend has no Pad, which the
	// gradient of a strided slice takes.
	x, y := Gather(pred, Const(g, even)), Gather(pred, Const(g, odd))
	eps := Scalar(g, pred.DType(), 1e-12)
	norms := Sqrt(Mul(Add(ReduceSum(Square(x), -1), eps), Add(ReduceSum(Square(y), -1), eps)))
	cos := Div(ReduceSum(Mul(x, y), -1), norms)
	return ReduceAllMean(Max(cos, ZerosLike(cos)))
}

// pairedT2 returns T2 of the model's outputs on the even graphs against the odd ones.
func pairedT2(pred *training.Predictor, graphs []*graph.Graph) (float64, error) {
	out, errs, err := pred.PredictGraphs(graphs, 0)
	if err != nil {
		return 0, err
	}
	for i, e := range errs {
		if e != nil {
			return 0, fmt.Errorf("graph %d: %w", i, e)
		}
	}
	var x, y [][]float64
	for i := 0; i+1 < len(out); i += 2 {
		x, y = append(x, out[i]), append(y, out[i+1])
	}
	return T2(x, y)
}

// scalar returns the value of a float scalar tensor (the loss, in the model's dtype).
func scalar(t *tensors.Tensor) (float64, error) {
	switch v := t.Value().(type) {
	case float32:
		return float64(v), nil
	case float64:
		return v, nil
	}
	return 0, fmt.Errorf("brec: a loss of shape %s, not a float scalar", t.Shape())
}

// isClose is torch.isclose(a, b, atol=EPSILON_CMP) with its default rtol 1e-5.
func isClose(a, b float64) bool { return math.Abs(a-b) <= closeAtol+1e-5*math.Abs(b) }

// relabel returns g with its nodes renumbered by a random permutation drawn from rng, with the
// constant features the model reads (spec).
func relabel(g *graph.Graph, rng *rand.Rand) *graph.Graph {
	perm := rng.Perm(g.N())
	edges := g.Edges()
	renamed := make([]graph.Edge, len(edges))
	for i, e := range edges {
		renamed[i] = graph.Edge{perm[e[0]], perm[e[1]]}
	}
	r, err := graph.New(g.N(), renamed, graph.Features{Width: 1, Ints: make([]int32, g.N())}, graph.Features{Width: 1, Ints: make([]int32, len(renamed))})
	if err != nil {
		panic(fmt.Sprintf("brec: a renumbering of a valid graph: %v", err)) // cannot happen
	}
	return r
}
