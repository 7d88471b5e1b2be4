package training

import (
	"fmt"
	"math/rand/v2"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/task"
)

// recalibrationBatches is how many training batches RecalibrateBatchNorm runs, over as many
// epochs as that takes.
const recalibrationBatches = 100

// RecalibrateBatchNorm sets the running averages of the model's BatchNorm layers in ctx to
// those of its weights as they are ("precise BatchNorm": Wu and Johnson, "Rethinking 'Batch'
// in BatchNorm", 2021). Training leaves in them the batch statistics of its last steps, each
// taken under weights that were still moving; evaluation normalises with them. It runs the
// model in training mode, its weights fixed, on recalibrationBatches batches of tk's training
// split drawn as training draws them (shuffled, PE signs flipped and subgraphs sampled where the
// recipe does, from the run's seed), reads each batch's statistics back from the running
// averages' update (model.BatchNormMomentum), and sets each running average to their mean, as
// PyTorch's BatchNorm with momentum=None. Nothing is saved: a run's checkpoints keep what
// training left (unless it trains with ParamBNRecalibrate, which does this before each
// evaluation).
func RecalibrateBatchNorm(ctx *context.Context, be backends.Backend, tk *task.Task) error {
	cfg, err := ReadConfig(ctx)
	if err != nil {
		return err
	}
	b, err := newBatching(cfg, tk.Spec).withProfile(tk.Select(tk.Train))
	if err != nil {
		return err
	}
	r, err := newRecalibrator(ctx, be, tk, cfg, b)
	if err != nil {
		return err
	}
	defer r.finalize()
	return r.run()
}

// A recalibrator recalibrates the running averages of a model's BatchNorm layers
// (RecalibrateBatchNorm), again and again as the weights change: its programs are compiled once.
type recalibrator struct {
	ctx   *context.Context
	cfg   Config
	train []batch.Example
	b     batching
	exec  *context.Exec
}

// newRecalibrator prepares the recalibration of the model cfg configures in ctx on tk's
// training split, in batches made as b makes them (the run's batching, with its profile).
func newRecalibrator(ctx *context.Context, be backends.Backend, tk *task.Task, cfg Config, b batching) (*recalibrator, error) {
	exec, err := trainingMode(ctx, be, tk.Spec, cfg)
	if err != nil {
		return nil, err
	}
	return &recalibrator{ctx: ctx, cfg: cfg, train: tk.Select(tk.Train), b: b, exec: exec}, nil
}

// finalize frees the programs.
func (r *recalibrator) finalize() { r.exec.Finalize() }

// run recalibrates the running averages in r.ctx, drawing the same batches at every call. The
// random state of r.ctx (dropout's, in training mode) is left as it was, so that training goes
// on as if nothing had run.
func (r *recalibrator) run() error {
	rngState := r.ctx.GetVariableByScopeAndName(context.RootScope, context.RNGStateVariableName)
	if rngState != nil {
		value, err := rngState.Value()
		if err != nil {
			return err
		}
		saved, err := value.Clone()
		if err != nil {
			return err
		}
		defer func() { rngState.MustSetValue(saved) }()
	}
	rng := rand.New(rand.NewPCG(uint64(r.cfg.Seed), streamRecalibration))
	roots := func(int) *rand.Rand { return rng }
	var flips *rand.Rand
	if r.b.signFlips {
		flips = rng
	}
	running, err := runningAverages(r.ctx)
	if err != nil {
		return err
	}
	if len(running) == 0 {
		return fmt.Errorf("training: the model has no BatchNorm to recalibrate")
	}
	sums := make(map[*context.Variable][]float64, len(running))
	var order []int
	for batches, lo := 0, 0; batches < recalibrationBatches; batches, lo = batches+1, lo+r.b.size {
		if lo >= len(order) { // a new epoch
			order, lo = rng.Perm(len(r.train)), 0
		}
		examples := make([]batch.Example, 0, r.b.size)
		for _, i := range order[lo:min(lo+r.b.size, len(order))] {
			examples = append(examples, r.train[i])
		}
		inputs, labels, err := r.b.build(examples, roots, flips)
		if err != nil {
			return err
		}
		finalize(labels)
		out, err := execute(r.exec, inputs)
		if err != nil {
			return err
		}
		finalize(out)
		after, err := runningAverages(r.ctx)
		if err != nil {
			return err
		}
		const m = model.BatchNormMomentum
		for v, now := range after {
			if sums[v] == nil {
				sums[v] = make([]float64, len(now))
			}
			for i, x := range now { // running = (1 − m)·before + m·batch
				sums[v][i] += (x - (1-m)*running[v][i]) / m
			}
		}
		running = after
	}
	for v, sum := range sums {
		mean := make([]float64, len(sum))
		for i, x := range sum {
			mean[i] = x / recalibrationBatches
		}
		if err := model.SetFloats(v, mean); err != nil {
			return err
		}
	}
	return nil
}

// trainingMode returns an executor of the model cfg configures in ctx in training mode: it
// normalises with batch statistics and updates BatchNorm's running averages in ctx.
func trainingMode(ctx *context.Context, be backends.Backend, spec model.Spec, cfg Config) (*context.Exec, error) {
	fn := model.New(spec, cfg.Model)
	exec, err := context.NewExec(be, ctx.Reuse(), func(ctx *context.Context, nodes []*Node) *Node {
		ctx.SetTraining(nodes[0].Graph(), true)
		return fn(ctx, nil, nodes)[0]
	})
	if err != nil {
		return nil, err
	}
	exec.SetMaxCache(-1) // one program per batch shape, as in training
	return exec, nil
}

// execute runs exec on a batch's inputs, which it frees.
func execute(exec *context.Exec, inputs []*tensors.Tensor) ([]*tensors.Tensor, error) {
	defer finalize(inputs)
	args := make([]any, len(inputs))
	for i, x := range inputs {
		args[i] = x
	}
	return exec.Exec(args...)
}

// runningAverages returns the values of ctx's BatchNorm running averages (the variables
// model.RunningAverage names).
func runningAverages(ctx *context.Context) (map[*context.Variable][]float64, error) {
	values := map[*context.Variable][]float64{}
	for v := range ctx.IterVariables() {
		if !model.RunningAverage(v.Name()) {
			continue
		}
		x, err := model.Floats(v)
		if err != nil {
			return nil, err
		}
		values[v] = x
	}
	return values, nil
}
