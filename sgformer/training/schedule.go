package training

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/sgformer/sgformer/sgformer/metrics"
)

// A schedule sets the learning rate from epoch to epoch (epochs count from 1): before an epoch
// is trained, and after it is evaluated. Each returns the new rate given the current one, lr.
// The paper's schedules are per epoch, some on the validation metric, which GoMLX's
// step-based optimizers.LearningRate schedules cannot express; a new schedule is one new type.
type schedule interface {
	before(epoch int, lr float64) float64
	after(epoch int, valid, lr float64) float64
}

// newSchedule returns the schedule of c (ParamSchedule), which keeps its state, if any, in st so
// that a checkpoint holds it.
func newSchedule(c Config, st *state) schedule {
	switch c.Schedule {
	case Plateau:
		return plateau{metric: c.Metric, patience: c.PlateauPatience, factor: c.PlateauFactor, minLR: c.MinLearningRate, state: &st.plateauState}
	case Cosine:
		var s schedule = cosine{base: st.BaseLR, minLR: c.MinLearningRate, from: c.WarmupEpochs, to: c.Epochs}
		if c.WarmupEpochs > 0 {
			s = warmup{epochs: c.WarmupEpochs, base: st.BaseLR, then: s}
		}
		return s
	}
	return constant{}
}

// constant keeps the learning rate.
type constant struct{}

func (constant) before(_ int, lr float64) float64   { return lr }
func (constant) after(_ int, _, lr float64) float64 { return lr }

// plateau is ReduceLROnPlateau with PyTorch's defaults (relative threshold 1e-4, no cooldown):
// after more than patience epochs without improving the validation metric, the learning rate
// is multiplied by factor, down to minLR.
type plateau struct {
	metric   metrics.Metric
	patience int
	factor   float64
	minLR    float64
	state    *plateauState
}

func (plateau) before(_ int, lr float64) float64 { return lr }

func (p plateau) after(epoch int, valid, lr float64) float64 {
	improved := epoch == 1
	if !improved {
		if p.metric.HigherIsBetter {
			improved = valid > p.state.PlateauBest*(1+1e-4)
		} else {
			improved = valid < p.state.PlateauBest*(1-1e-4)
		}
	}
	if improved {
		p.state.PlateauBest, p.state.BadEpochs = valid, 0
		return lr
	}
	p.state.BadEpochs++
	if p.state.BadEpochs <= p.patience {
		return lr
	}
	p.state.BadEpochs = 0
	return max(lr*p.factor, p.minLR)
}

// cosine is a half cosine from base at epoch from down to minLR at epoch to.
type cosine struct {
	base, minLR float64
	from, to    int
}

func (c cosine) before(epoch int, _ float64) float64 {
	progress := float64(epoch-c.from) / float64(max(1, c.to-c.from))
	return c.minLR + 0.5*(c.base-c.minLR)*(1+math.Cos(math.Pi*progress))
}

func (cosine) after(_ int, _, lr float64) float64 { return lr }

// warmup rises linearly from base/epochs up to base over its first epochs, then follows then.
type warmup struct {
	epochs int
	base   float64
	then   schedule
}

func (w warmup) before(epoch int, lr float64) float64 {
	if epoch <= w.epochs {
		return w.base * float64(epoch) / float64(w.epochs)
	}
	return w.then.before(epoch, lr)
}

func (w warmup) after(epoch int, valid, lr float64) float64 { return w.then.after(epoch, valid, lr) }

// setLR sets the learning rate: in the state, the context parameter (so that a checkpoint holds
// it) and the optimizer's variable.
func (st *state) setLR(ctx *context.Context, lr float64) {
	if lr == st.LR {
		return
	}
	st.LR = lr
	ctx.SetParam(ParamLearningRate, lr)
	if v := ctx.GetVariableByScopeAndName("/"+optimizers.Scope, optimizers.ParamLearningRate); v != nil {
		v.MustSetValue(tensors.FromAnyValue(shapes.CastAsDType(lr, v.DType())))
	}
}
