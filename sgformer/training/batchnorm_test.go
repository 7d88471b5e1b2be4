package training

import (
	"math"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/task"
)

// When the training split is one batch and nothing in it is drawn at random, the batch
// statistics training normalises with are the same at every step, so the running averages
// RecalibrateBatchNorm leaves are those statistics: evaluation then predicts what training
// mode does on that batch, up to the unbiased variance the averages keep (a factor n/(n−1),
// n the product nodes). Before it, from running averages far off, the two differ.
func TestRecalibrateBatchNorm(t *testing.T) {
	be, ctx, cfg, tk := batchNormModel(t, 64)
	train := tk.Select(tk.Train)
	var running int
	for v := range ctx.IterVariables() {
		switch {
		case strings.HasSuffix(v.Name(), "running_mean"):
			running++
			v.MustSetValue(tensors.FromScalarAndDimensions(float32(3), v.Shape().Dimensions...))
		case strings.HasSuffix(v.Name(), "running_var"):
			v.MustSetValue(tensors.FromScalarAndDimensions(float32(50), v.Shape().Dimensions...))
		}
	}
	if running == 0 {
		t.Fatal("the model has no BatchNorm")
	}
	// inTraining predicts the training split as one batch in training mode (batch statistics).
	b, err := newBatching(cfg, tk.Spec).withProfile(train)
	if err != nil {
		t.Fatal(err)
	}
	exec, err := trainingMode(ctx, be, tk.Spec, cfg)
	if err != nil {
		t.Fatal(err)
	}
	inputs, _, err := b.build(train, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := execute(exec, inputs)
	if err != nil {
		t.Fatal(err)
	}
	inTraining := tensors.MustCopyFlatData[float32](out[0])
	// gap is the largest difference between evaluation's predictions and inTraining's.
	gap := func() float64 {
		p, err := NewPredictor(ctx, be, tk.Spec)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Finalize()
		pred, err := p.Predict(train)
		if err != nil {
			t.Fatal(err)
		}
		var d float64
		for i, row := range pred {
			d = max(d, math.Abs(row[0]-float64(inTraining[i])))
		}
		return d
	}
	before := gap()
	if err := RecalibrateBatchNorm(ctx, be, tk); err != nil {
		t.Fatal(err)
	}
	after := gap()
	scale := 0.0
	for _, x := range inTraining[:len(train)] {
		scale = max(scale, math.Abs(float64(x)))
	}
	t.Logf("%d graphs, predictions up to %.3g: evaluation differs from training mode by %.3g before and %.3g after", len(train), scale, before, after)
	if after > 2e-3*scale+1e-5 || before < 10*after {
		t.Fatalf("evaluation differs from training mode by %.3g before RecalibrateBatchNorm and %.3g after (predictions up to %.3g)", before, after, scale)
	}
}

// Over batches of different statistics, the running averages RecalibrateBatchNorm leaves are
// their mean, whatever the averages held before.
func TestRecalibrateBatchNormForgets(t *testing.T) {
	be, ctx, _, tk := batchNormModel(t, 4)
	var err error
	var got [2]map[*context.Variable][]float64
	for i, start := range []float32{0, 40} {
		for v := range ctx.IterVariables() {
			if model.RunningAverage(v.Name()) {
				v.MustSetValue(tensors.FromScalarAndDimensions(start, v.Shape().Dimensions...))
			}
		}
		if err := RecalibrateBatchNorm(ctx, be, tk); err != nil {
			t.Fatal(err)
		}
		if got[i], err = runningAverages(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for v, a := range got[0] {
		for j, x := range a {
			if y := got[1][v][j]; math.Abs(x-y) > 1e-4*(1+math.Abs(x)) {
				t.Fatalf("%s[%d]: %g recalibrated from 0, %g from 40", v.ScopeAndName(), j, x, y)
			}
		}
	}
}

// batchNormModel returns a small Subgraphormer, started, on the synthetic task's 16 graphs in
// batches of batchSize, on the pure-Go backend.
func batchNormModel(t *testing.T, batchSize int) (backends.Backend, *context.Context, Config, *task.Task) {
	t.Helper()
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]any{ParamBatchSize: batchSize, model.ParamLayers: 2, model.ParamHidden: 12, model.ParamHeads: 1, model.ParamPEK: 0}
	ctx := context.New()
	Defaults(ctx)
	ctx.SetParams(params)
	cfg, err := ReadConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := task.Load(task.Source{Dataset: task.Synthetic, SyntheticGraphs: 16}, cfg.Model, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ctx, _, err = BuildModel(be, tk.Spec, params); err != nil {
		t.Fatal(err)
	}
	return be, ctx, cfg, tk
}
