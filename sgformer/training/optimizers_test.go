package training

import (
	"math"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/task"
)

// linearModel is y = x·w + b with w [2,1] ("weights") and b [1] ("biases").
func linearModel(ctx *context.Context, _ any, inputs []*Node) []*Node {
	g := inputs[0].Graph()
	w := ctx.VariableWithValue("weights", [][]float64{{0.5}, {-1}}).ValueGraph(g)
	b := ctx.VariableWithValue("biases", []float64{0.1}).ValueGraph(g)
	return []*Node{Add(Dot(inputs[0], w), InsertAxes(b, 0))}
}

func mseLoss(labels, predictions []*Node) *Node {
	return ReduceAllMean(Square(Sub(predictions[0], labels[0])))
}

// asamReference is one ASAM step (the authors' algorithm, written out) on the linear model
// with the MSE loss, for parameters p = (w1, w2, b) and momentum buffers v.
func asamReference(p, v []float64, x [][]float64, y []float64, lr, rho, eta, mom float64) {
	grad := func(p []float64) []float64 {
		g := make([]float64, 3)
		for i, xi := range x {
			r := 2 * (xi[0]*p[0] + xi[1]*p[1] + p[2] - y[i]) / float64(len(x))
			g[0] += r * xi[0]
			g[1] += r * xi[1]
			g[2] += r
		}
		return g
	}
	g := grad(p)
	t := []float64{math.Abs(p[0]) + eta, math.Abs(p[1]) + eta, 1} // biases are not rescaled
	norm := 0.0
	for i := range g {
		norm += (t[i] * g[i]) * (t[i] * g[i])
	}
	norm = math.Sqrt(norm) + 1e-16
	q := make([]float64, 3)
	for i := range p {
		q[i] = p[i] + rho*t[i]*t[i]*g[i]/norm
	}
	g2 := grad(q)
	for i := range p {
		v[i] = mom*v[i] + g2[i]
		p[i] -= lr * v[i]
	}
}

// Two ASAM steps in GoMLX equal the algorithm written out by hand (the second step exercises
// the momentum buffers).
func TestASAMStep(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	const lr, rho, eta, mom = 0.1, 0.5, 0.01, 0.9
	ctx := context.New()
	opt, modelFn, lossFn := newOptimizer(Config{Optimizer: ASAM, LearningRate: lr, ASAMRho: rho, ASAMEta: eta, Momentum: mom}, linearModel, mseLoss)
	trainer := train.NewTrainer(be, ctx, modelFn, lossFn, opt, nil, nil)
	x := [][]float64{{1, 2}, {-1, 0.5}, {0.3, -2}}
	y := []float64{1, -2, 0.5}
	p, v := []float64{0.5, -1, 0.1}, make([]float64, 3)
	for step := range 2 {
		if _, err := trainer.TrainStep(nil, []*tensors.Tensor{tensors.FromValue(x)}, []*tensors.Tensor{tensors.FromFlatDataAndDimensions(y, 3, 1)}); err != nil {
			t.Fatal(err)
		}
		asamReference(p, v, x, y, lr, rho, eta, mom)
		w := ctx.GetVariableByScopeAndName("/", "weights").MustValue().Value().([][]float64)
		b := ctx.GetVariableByScopeAndName("/", "biases").MustValue().Value().([]float64)
		got := []float64{w[0][0], w[1][0], b[0]}
		for i := range got {
			if math.Abs(got[i]-p[i]) > 1e-12 {
				t.Fatalf("step %d: parameters %v, want %v", step+1, got, p)
			}
		}
	}
}

// Invalid training hyperparameters are errors that name the parameter.
func TestReadConfigRejects(t *testing.T) {
	for _, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{ParamOptimizer: "sgd"}, `optimizer = "sgd", want adam, adamw or asam`},
		{map[string]any{ParamOptimizer: ASAM, ParamMomentum: 1.0}, "momentum = 1, want [0, 1)"},
		{map[string]any{ParamASAMRho: 0.0}, "asam_rho = 0"},
		{map[string]any{ParamLearningRate: -1.0}, "learning_rate = -1, want a positive rate"},
		{map[string]any{ParamLearningRate: math.NaN()}, "learning_rate = NaN"},
		{map[string]any{ParamEpochs: 0}, "epochs = 0, want at least 1"},
		{map[string]any{ParamBatchSize: 0}, "batch_size = 0, want at least 1"},
		{map[string]any{ParamSamplingRatio: 1.5}, "sampling_ratio = 1.5, want (0, 1]"},
		{map[string]any{ParamSamplingRatio: 0.0}, "sampling_ratio = 0, want (0, 1]"},
		{map[string]any{ParamEvalSamples: 0}, "eval_samples = 0"},
		{map[string]any{ParamWeightDecay: 0.01}, "weight_decay = 0.01, want ≥ 0, and 0 unless optimizer = adamw"},
		{map[string]any{ParamSchedule: "step"}, `schedule = "step"`},
		{map[string]any{ParamSchedule: Cosine, ParamWarmupEpochs: 400}, "warmup_epochs = 400"},
		{map[string]any{ParamPlateauFactor: 1.0}, "plateau_factor = 1"},
		{map[string]any{ParamMinLearningRate: -1e-5}, "min_learning_rate = -1e-05"},
		{map[string]any{ParamLoss: "huber"}, `loss = "huber"`},
		{map[string]any{ParamMetric: "f1"}, `unknown metric "f1"`},
		{map[string]any{ParamBucket: 0.5}, "bucket = 0.5"},
		// GoMLX's seed in place of training's would be overwritten by Train and BuildModel
		{map[string]any{context.ParamInitialSeed: int64(7)}, "initializers_seed = 7 in the context: the weights' seed is seed (0, which sets it to 1); set seed instead"},
		{map[string]any{context.ParamInitialSeed: int64(4), ParamSeed: 2}, "initializers_seed = 4"},
	} {
		ctx := context.New()
		Defaults(ctx)
		ctx.SetParams(tc.params)
		if _, err := ReadConfig(ctx); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.params, err, tc.want)
		}
	}
	ctx := context.New()
	Defaults(ctx)
	if _, err := ReadConfig(ctx); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// The warm-up-then-cosine schedule against hand-computed values (base 1e-3, 10 warm-up epochs,
// 110 epochs).
func TestScheduledLR(t *testing.T) {
	sched := newSchedule(Config{Schedule: Cosine, MinLearningRate: 0, WarmupEpochs: 10, Epochs: 110}, &state{BaseLR: 1e-3})
	for _, tc := range []struct {
		epoch int
		want  float64
	}{
		{1, 1e-4}, {5, 5e-4}, {10, 1e-3},
		{60, 0.5e-3}, // half way through the cosine: cos(π/2) = 0
		{35, 0.5e-3 * (1 + math.Cos(math.Pi/4))},
		{110, 0},
	} {
		if got := sched.before(tc.epoch, 0); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("epoch %d: lr %v, want %v", tc.epoch, got, tc.want)
		}
	}
}

// A cosine schedule that reaches 0 at its last epoch (no warm-up, one epoch) evaluates, and the
// finished run extends with --resume.
func TestCosineToZero(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.New()
	Defaults(ctx)
	ctx.SetParams(map[string]any{ParamSchedule: Cosine, ParamEpochs: 1, model.ParamLayers: 1, model.ParamHidden: 12, model.ParamHeads: 1, model.ParamPEK: 0})
	cfg, err := ReadConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := task.Load(task.Source{Dataset: task.Synthetic, SyntheticGraphs: 12}, cfg.Model, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := Train(ctx, tk, Options{Out: out, Backend: be}); err != nil {
		t.Fatalf("one cosine epoch: %v", err)
	}
	if _, err := Train(epochsContext(2), tk, Options{Out: out, Backend: be, Resume: true}); err != nil {
		t.Fatalf("extending a finished cosine run: %v", err)
	}
}

// epochsContext is the context of a run resumed for epochs epochs: its other hyperparameters
// are its checkpoint's (Options.Resume).
func epochsContext(epochs int) *context.Context {
	ctx := context.New()
	ctx.SetParam(ParamEpochs, epochs)
	return ctx
}
