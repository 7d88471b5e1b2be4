package training

import (
	"sync"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/initializers"
	"github.com/gomlx/gomlx/pkg/ml/train"
	"github.com/gomlx/gomlx/pkg/ml/train/losses"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/sgformer/sgformer/sgformer/model"
)

// newOptimizer returns the optimizer of c. ASAM needs to evaluate the loss a second time at
// perturbed weights, so it is built from the model and loss functions, which it wraps: the
// trainer must use the returned ones.
func newOptimizer(c Config, modelFn train.ModelFn, lossFn losses.LossFn) (optimizers.Interface, train.ModelFn, losses.LossFn) {
	switch c.Optimizer {
	case AdamW:
		return optimizers.Adam().WeightDecay(c.WeightDecay).Epsilon(c.AdamEpsilon).Done(), modelFn, lossFn
	case ASAM:
		o := &sharpnessAware{rho: c.ASAMRho, eta: c.ASAMEta, momentum: c.Momentum, lr: c.LearningRate, steps: map[*Graph]*stepInputs{}}
		o.modelFn, o.lossFn = modelFn, lossFn
		return o, o.recordModel, o.recordLoss
	}
	return optimizers.Adam().WeightDecay(0).Epsilon(c.AdamEpsilon).Done(), modelFn, lossFn
}

// sharpnessAware is ASAM (Kwon et al., ICML 2021) over SGD with momentum, as in the authors'
// code: with the gradient g at weights w, the ascent step
//
//	ε = ρ · T² g / ‖T g‖,  T = |w| + η for the weights (model.IsWeight) and 1 for the rest,
//
// then the gradient g' at w + ε, and the SGD step v ← μ v + g', w ← w − lr · v from the
// original w. The model and loss it wraps record each graph's inputs and labels, so that the
// loss can be rebuilt at w + ε in the same graph.
type sharpnessAware struct {
	rho, eta, momentum float64
	lr                 float64 // the initial learning rate
	modelFn            train.ModelFn
	lossFn             losses.LossFn

	mu    sync.Mutex
	steps map[*Graph]*stepInputs
}

// stepInputs are what a training step's graph was built from.
type stepInputs struct {
	ctx            *context.Context
	spec           any
	inputs, labels []*Node
}

func (o *sharpnessAware) step(g *Graph) *stepInputs {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.steps[g]
	if s == nil {
		s = &stepInputs{}
		o.steps[g] = s
	}
	return s
}

func (o *sharpnessAware) recordModel(ctx *context.Context, spec any, inputs []*Node) []*Node {
	s := o.step(inputs[0].Graph())
	s.ctx, s.spec, s.inputs = ctx, spec, inputs
	return o.modelFn(ctx, spec, inputs)
}

func (o *sharpnessAware) recordLoss(labels, predictions []*Node) *Node {
	o.step(predictions[0].Graph()).labels = labels
	return o.lossFn(labels, predictions)
}

// UpdateGraph implements optimizers.Interface.
func (o *sharpnessAware) UpdateGraph(ctx *context.Context, g *Graph, loss *Node) {
	s := o.step(g)
	if s.ctx == nil || s.labels == nil {
		panic("training: ASAM's model and loss functions were not the ones the trainer used")
	}
	var vars []*context.Variable
	for v := range ctx.IterVariables() {
		if v.Trainable && v.InUseByGraph(g) {
			vars = append(vars, v)
		}
	}
	w := make([]*Node, len(vars))
	for i, v := range vars {
		w[i] = v.ValueGraph(g)
	}
	grads := Gradient(loss, w...)

	// Ascent: ε = ρ T (T g) / ‖T g‖.
	scale := make([]*Node, len(vars))
	sq := ScalarZero(g, loss.DType())
	for i, v := range vars {
		tg := grads[i]
		if model.IsWeight(v) {
			scale[i] = AddScalar(Abs(w[i]), o.eta)
			tg = Mul(scale[i], tg)
		}
		sq = Add(sq, ConvertDType(ReduceAllSum(Square(tg)), loss.DType()))
		grads[i] = tg
	}
	factor := Div(Scalar(g, loss.DType(), o.rho), AddScalar(Sqrt(sq), 1e-16))
	perturbed := make([]*Node, len(vars))
	for i, v := range vars {
		eps := grads[i]
		if scale[i] != nil {
			eps = Mul(scale[i], eps)
		}
		perturbed[i] = Add(w[i], StopGradient(Mul(eps, ConvertDType(factor, eps.DType()))))
		v.SetValueGraph(perturbed[i])
	}

	// The gradient at w + ε.
	loss2 := o.lossFn(s.labels, o.modelFn(s.ctx.Reuse(), s.spec, s.inputs))
	grads = Gradient(loss2, perturbed...)

	// SGD with momentum from w.
	lr := optimizers.LearningRateVar(ctx, loss.DType(), o.lr).ValueGraph(g)
	optimizers.IncrementGlobalStepGraph(ctx, g, loss.DType())
	for i, v := range vars {
		buf := ctx.InAbsPath("/"+optimizers.Scope+"/momentum"+v.Scope()).Checked(false).
			WithInitializer(initializers.Zero).VariableWithShape(v.Name(), v.Shape()).SetTrainable(false)
		velocity := Add(MulScalar(buf.ValueGraph(g), o.momentum), grads[i])
		buf.SetValueGraph(velocity)
		v.SetValueGraph(Sub(w[i], Mul(velocity, ConvertDType(lr, velocity.DType()))))
	}
}

// Clear implements optimizers.Interface.
func (o *sharpnessAware) Clear(ctx *context.Context) error {
	return ctx.InAbsPath("/" + optimizers.Scope + "/momentum").DeleteVariablesInScope()
}
