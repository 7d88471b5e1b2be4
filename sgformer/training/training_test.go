package training_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/metrics"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/task"
	"github.com/sgformer/sgformer/sgformer/training"
)

// syntheticTask is the synthetic counting task of count graphs, preprocessed with k PE columns.
var syntheticTask = training.SyntheticTask

// epochsContext is the context of a run resumed for epochs epochs: its other hyperparameters
// are its checkpoint's (Options.Resume).
func epochsContext(epochs int) *context.Context {
	ctx := context.New()
	ctx.SetParam(training.ParamEpochs, epochs)
	return ctx
}

func newContext(name string, extra map[string]any) *context.Context {
	ctx := context.New()
	training.Defaults(ctx)
	ctx.SetParams(recipe.Default("synthetic"))
	ctx.SetParams(map[string]any{model.ParamModel: name})
	ctx.SetParams(extra)
	return ctx
}

func readRecords(t *testing.T, path string) []training.Record {
	t.Helper()
	recs, err := training.ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// untimed returns r without its times and programs, which differ between runs of the same
// computation (a resumed run builds its programs again).
func untimed(r training.Record) training.Record {
	r.Seconds, r.TrainSeconds, r.BatchSeconds = 0, 0, 0
	r.Programs, r.CompileSeconds = 0, 0
	return r
}

func TestParamNames(t *testing.T) {
	if training.ParamLearningRate != optimizers.ParamLearningRate {
		t.Fatalf("learning-rate parameter %q, GoMLX's is %q", training.ParamLearningRate, optimizers.ParamLearningRate)
	}
	if training.ParamAdamEpsilon != optimizers.ParamAdamEpsilon {
		t.Fatalf("Adam's ε parameter %q, GoMLX's is %q", training.ParamAdamEpsilon, optimizers.ParamAdamEpsilon)
	}
}

func zincTask(t testing.TB, graphs int) *task.Task {
	t.Helper()
	ds, err := data.ZINC(shareddata.Dir(t, "zinc12k"))
	if err != nil {
		t.Fatal(err)
	}
	gs := ds.Graphs[:graphs]
	items, err := preprocess.Dataset(gs, preprocess.Options{PEK: 4}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	split := make([]int, graphs)
	for i := range split {
		split[i] = i
	}
	tk, err := task.New(ds.Name, gs, items, ds.Labels[:graphs], model.Spec{NodeVocab: ds.NodeVocab, EdgeVocab: ds.EdgeVocab, Tasks: 1}, split, split[:2], split[2:4])
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// Every model overfits a tiny training set of ZINC molecules: the training loss falls by 10×
// or more.
func TestOverfit(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := zincTask(t, 8)
	for _, name := range []string{model.Subgraphormer, model.SSWLPlus, model.GIN} {
		t.Run(name, func(t *testing.T) {
			ctx := newContext(name, map[string]any{training.ParamBatchSize: 8, training.ParamEpochs: 60,
				training.ParamLearningRate: 3e-3, training.ParamSchedule: "constant", training.ParamLoss: "mse"})
			out := t.TempDir()
			var seen []training.Record
			if _, err := training.Train(ctx, tk, training.Options{Out: out, Backend: be, OnEpoch: func(r training.Record) { seen = append(seen, r) }}); err != nil {
				t.Fatal(err)
			}
			recs := readRecords(t, filepath.Join(out, training.MetricsFile))
			if !reflect.DeepEqual(seen, recs) {
				t.Fatalf("OnEpoch saw %v, %s holds %v", seen, training.MetricsFile, recs)
			}
			for _, r := range recs { // the epoch's time, its training steps' and their batches'
				if !(0 < r.BatchSeconds && r.BatchSeconds < r.TrainSeconds && r.TrainSeconds < r.Seconds) {
					t.Fatalf("epoch %d: %v s, of which training %v s, of which batches %v s", r.Epoch, r.Seconds, r.TrainSeconds, r.BatchSeconds)
				}
			}
			var config map[string]any
			raw, _ := os.ReadFile(filepath.Join(out, training.ConfigFile))
			if err := json.Unmarshal(raw, &config); err != nil || config[model.ParamModel] != name || config[training.ParamEpochs] != 60.0 {
				t.Fatalf("%s: %v, %v", training.ConfigFile, config, err)
			}
			first, last := recs[0].TrainLoss, recs[len(recs)-1].TrainLoss
			t.Logf("%s: training loss %.4g → %.4g (%.0f×)", name, first, last, first/last)
			if first/last < 10 {
				t.Fatalf("training loss fell only %.1f× (%.4g → %.4g)", first/last, first, last)
			}
		})
	}
}

// GIN (1-WL) cannot count triangles; Subgraphormer, with node marking, can: on held-out
// graphs its error is clearly lower.
func TestSubgraphormerBeatsGINOnCounting(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three models for minutes; skipped under -short")
	}
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 300, 4)
	test := map[string]float64{}
	for _, name := range []string{model.Subgraphormer, model.GIN} {
		ctx := newContext(name, nil) // the synthetic recipe
		sum, err := training.Train(ctx, tk, training.Options{Out: t.TempDir(), Backend: be})
		if err != nil {
			t.Fatal(err)
		}
		test[name] = sum.TestAtBest
	}
	t.Logf("test MAE at best validation: %v", test)
	if !(test[model.Subgraphormer] < 0.8*test[model.GIN]) {
		t.Fatalf("Subgraphormer test MAE %.3f, GIN %.3f: want Subgraphormer clearly lower", test[model.Subgraphormer], test[model.GIN])
	}
}

// A run stopped after one epoch and resumed for a second gives exactly the records of a run of
// two epochs: same weights, optimizer state, schedule and random streams (with sampling and
// sign flips on).
func TestResumeIsExact(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 30, 4)
	params := map[string]any{training.ParamBatchSize: 8, training.ParamSamplingRatio: 0.5, model.ParamDropout: 0.1,
		training.ParamPlateauPatience: 0}
	straight := t.TempDir()
	ctx := newContext(model.Subgraphormer, params)
	ctx.SetParam(training.ParamEpochs, 3)
	if _, err := training.Train(ctx, tk, training.Options{Out: straight, Backend: be}); err != nil {
		t.Fatal(err)
	}
	// The first piece ends at a deadline already passed: after one epoch, at a checkpoint.
	pieces := t.TempDir()
	ctx = newContext(model.Subgraphormer, params)
	ctx.SetParam(training.ParamEpochs, 3)
	if sum, err := training.Train(ctx, tk, training.Options{Out: pieces, Backend: be, Deadline: time.Now()}); err != nil || sum.Epochs != 1 {
		t.Fatalf("first piece: %v, %+v", err, sum)
	}
	if _, err := training.Train(newContext(model.Subgraphormer, params), tk, training.Options{Out: pieces, Backend: be}); err == nil || !strings.Contains(err.Error(), "already holds a run") {
		t.Fatalf("training over an existing run: %v", err)
	}
	sum, err := training.Train(epochsContext(3), tk, training.Options{Out: pieces, Backend: be, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	a, b := readRecords(t, filepath.Join(straight, training.MetricsFile)), readRecords(t, filepath.Join(pieces, training.MetricsFile))
	if len(a) != 3 || len(b) != 3 || sum.Epochs != 3 {
		t.Fatalf("%d and %d records, summary after %d epochs", len(a), len(b), sum.Epochs)
	}
	for i := range a {
		if untimed(a[i]) != untimed(b[i]) {
			t.Fatalf("epoch %d: straight %+v, resumed %+v", i+1, a[i], b[i])
		}
	}
	if a[2].LR >= a[0].LR {
		t.Logf("learning rate %v → %v", a[0].LR, a[2].LR)
	}
	if _, err := training.Train(context.New(), tk, training.Options{Out: t.TempDir(), Backend: be, Resume: true}); err == nil || !strings.Contains(err.Error(), "nothing to resume") {
		t.Fatalf("resuming nothing: %v", err)
	}
}

// Evaluation with sampling averages fixed draws: two predictors agree, a graph's prediction
// does not depend on the graphs predicted with it or their order, and sampling ratio 1 is the
// full bag.
func TestPredictorDeterministic(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 20, 4)
	ctx := newContext(model.Subgraphormer, map[string]any{training.ParamSamplingRatio: 0.4, training.ParamEvalSamples: 3, training.ParamEpochs: 1})
	out := t.TempDir()
	if _, err := training.Train(ctx, tk, training.Options{Out: out, Backend: be}); err != nil {
		t.Fatal(err)
	}
	predict := func(ratio float64, examples []batch.Example) [][]float64 {
		c, _, _, err := training.OpenRun(out)
		if err != nil {
			t.Fatal(err)
		}
		c.SetParam(training.ParamSamplingRatio, ratio)
		p, err := training.NewPredictor(c, be, tk.Spec)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := p.Predict(examples)
		if err != nil {
			t.Fatal(err)
		}
		return pred
	}
	first := tk.Examples[:10]
	a, b, full := predict(0.4, first), predict(0.4, first), predict(1, first)
	// The same graphs reversed, after others, in batches of another composition.
	mixed := slices.Concat(tk.Examples[10:15], first)
	slices.Reverse(mixed[5:])
	c := predict(0.4, mixed)
	differs := false
	for i := range a {
		if a[i][0] != b[i][0] || math.IsNaN(a[i][0]) {
			t.Fatalf("graph %d: %v then %v", i, a[i][0], b[i][0])
		}
		if in := c[len(c)-1-i][0]; math.Abs(in-a[i][0]) > 1e-12 {
			t.Errorf("graph %d: %v, and %v among other graphs", i, a[i][0], in)
		}
		differs = differs || a[i][0] != full[i][0]
	}
	if !differs {
		t.Fatal("sampled predictions equal the full bag's")
	}
}

// Batches of many different shapes (fine buckets, sampling, batches of two) train and
// evaluate: GoMLX's default cache of 32 compiled graphs per executor is not a limit.
func TestManyBatchShapes(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 100, 2)
	ctx := newContext(model.GIN, map[string]any{training.ParamBatchSize: 2, training.ParamBucket: 1.001,
		training.ParamSamplingRatio: 0.5, training.ParamEpochs: 1, model.ParamLayers: 1, model.ParamHidden: 6})
	if _, err := training.Train(ctx, tk, training.Options{Out: t.TempDir(), Backend: be}); err != nil {
		t.Fatal(err)
	}
}

// A run's PE mode, tuple order and aggregations travel with it: a run trained on a task from
// LoadTask (concatenation PE; 3-tuples) is read back by OpenRun with its configuration and data
// source, and its reloaded best epoch reproduces the recorded test metric, although its
// checkpoint leaves out the optimizer's state, which the latest checkpoint keeps.
func TestRunCarriesItsConfiguration(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, params := range []map[string]any{
		{model.ParamPEMode: "concat", model.ParamPEK: 2},
		{model.ParamTupleK: 3, model.ParamPEK: 3, model.ParamHidden: 24, training.ParamBatchSize: 4},
		{model.ParamAggregations: "external,point", model.ParamHidden: 24},
	} {
		ctx := newContext(model.Subgraphormer, map[string]any{training.ParamEpochs: 1})
		ctx.SetParams(params)
		cfg, err := model.ReadConfig(ctx)
		if err != nil {
			t.Fatal(err)
		}
		src := task.Source{Dataset: task.Synthetic, SyntheticGraphs: 12}
		tk, err := task.Load(src, cfg, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		sum, err := training.Train(ctx, tk, training.Options{Out: out, Backend: be})
		if err != nil {
			t.Fatalf("%v: %v", params, err)
		}
		if best, latest := optimizerVariables(t, out, training.BestDir), optimizerVariables(t, out, training.CheckpointDir); best != 0 || latest == 0 {
			t.Fatalf("%v: %d variables of the optimizer in the best epoch's checkpoint (want 0), %d in the latest (want all)", params, best, latest)
		}
		loaded, src2, _, err := training.OpenRun(out)
		if err != nil {
			t.Fatal(err)
		}
		cfg2, err := model.ReadConfig(loaded)
		if err != nil {
			t.Fatal(err)
		}
		if cfg2.PEMode != cfg.PEMode || cfg2.TupleK != cfg.TupleK || !slices.Equal(cfg2.Aggregations, cfg.Aggregations) || src2.Dataset != src.Dataset || src2.SyntheticGraphs != 12 {
			t.Fatalf("%v: reloaded %+v from %+v", params, cfg2, src2)
		}
		task2, err := task.Load(src2, cfg2, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := training.NewPredictor(loaded, be, src2.Spec)
		if err != nil {
			t.Fatal(err)
		}
		metric, _ := metrics.ByName(sum.Metric)
		test, err := p.Evaluate(task2, task2.Test, metric)
		if err != nil || math.Abs(test-sum.TestAtBest) > 1e-9*max(1, math.Abs(test)) {
			t.Fatalf("%v: reloaded test %v (%v), recorded %v", params, test, err, sum.TestAtBest)
		}
	}
}

// optimizerVariables counts the variables of Adam (its moments) and of the optimizers' scope
// (the learning rate) that the checkpoint dir of the run out lists in its state.
func optimizerVariables(t *testing.T, out, dir string) int {
	raw, err := os.ReadFile(filepath.Join(out, dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct{ Variables []string }
	if err := json.Unmarshal(raw, &st); err != nil || len(st.Variables) == 0 {
		t.Fatalf("%s: %d variables (%v)", dir, len(st.Variables), err)
	}
	n := 0
	for _, v := range st.Variables {
		if strings.HasPrefix(v, "var:/"+optimizers.AdamDefaultScope+"/") || strings.HasPrefix(v, "var:/"+optimizers.Scope+"/") {
			n++
		}
	}
	return n
}

// A graph without edges (a single atom; a salt of separate ions) is predicted like any other,
// with or without the bond features' width given, alone or in a batch with bonded graphs.
func TestPredictGraphWithoutEdges(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 16, 2)
	ctx := newContext(model.Subgraphormer, map[string]any{training.ParamEpochs: 1})
	out := t.TempDir()
	if _, err := training.Train(ctx, tk, training.Options{Out: out, Backend: be}); err != nil {
		t.Fatal(err)
	}
	p, err := training.NewPredictor(ctx, be, tk.Spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, bonds := range []graph.Features{{}, {Width: 1, Ints: []int32{}}} {
		for _, n := range []int{1, 3} {
			g, err := graph.New(n, nil, graph.Features{Width: 1, Ints: make([]int32, n)}, bonds)
			if err != nil {
				t.Fatal(err)
			}
			pred, err := p.PredictGraph(g)
			if err != nil || len(pred) != 1 || math.IsNaN(pred[0]) {
				t.Fatalf("%d atoms, no bonds (%+v): %v, %v", n, bonds, pred, err)
			}
			item, err := preprocess.Graph(g, preprocess.Options{PEK: 2})
			if err != nil {
				t.Fatal(err)
			}
			mixed := []batch.Example{{Graph: g, Item: item, Target: []float64{0}}, tk.Examples[0]}
			if _, err := p.Predict(mixed); err != nil {
				t.Fatalf("an edgeless graph first in a batch: %v", err)
			}
		}
	}
}

// When every product graph would not fit in memory, LoadTask leaves them out and training
// builds them batch by batch (preprocess.Options.OnDemand): the same run, record for record,
// with subgraph sampling and with the full bag.
func TestProductsOnDemand(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	src := task.Source{Dataset: task.Synthetic, SyntheticGraphs: 24}
	for _, ratio := range []float64{0.5, 1} {
		params := map[string]any{training.ParamEpochs: 2, training.ParamBatchSize: 8, training.ParamSamplingRatio: ratio, model.ParamHidden: 12}
		cfg, err := model.ReadConfig(newContext(model.Subgraphormer, params))
		if err != nil {
			t.Fatal(err)
		}
		kept, err := task.Load(src, cfg, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		graphs := make([]*graph.Graph, len(kept.Examples))
		for i, ex := range kept.Examples {
			graphs[i] = ex.Graph
		}
		need := func(opt preprocess.Options) int64 { // what the items take, as CheckMemory counts it
			defer memory.SetLimit(1)()
			var me *memory.Error
			if !errors.As(preprocess.CheckMemory(graphs, opt), &me) {
				t.Fatal("no memory.Error under a 1-byte limit")
			}
			return me.Need
		}
		opt := cfg.Preprocess()
		full := need(opt)
		opt.OnDemand = true
		restore := memory.SetLimit((full + need(opt)) / 2)
		var log strings.Builder
		onDemand, err := task.Load(src, cfg, "", &log)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		if onDemand.Examples[0].Item.Product != nil || !strings.Contains(log.String(), "product graphs built batch by batch") {
			t.Fatalf("products kept (log %q)", log.String())
		}
		var records [2][]training.Record
		for i, tk := range []*task.Task{kept, onDemand} {
			out := t.TempDir()
			if _, err := training.Train(newContext(model.Subgraphormer, params), tk, training.Options{Out: out, Backend: be}); err != nil {
				t.Fatal(err)
			}
			records[i] = readRecords(t, filepath.Join(out, training.MetricsFile))
		}
		if len(records[0]) != 2 || len(records[1]) != 2 {
			t.Fatalf("%d and %d records", len(records[0]), len(records[1]))
		}
		for i := range records[0] {
			if untimed(records[0][i]) != untimed(records[1][i]) {
				t.Fatalf("ratio %v, epoch %d: kept %+v, on demand %+v", ratio, i+1, records[0][i], records[1][i])
			}
		}
	}
}

// The progress bar counts graphs, like the step lines. Its first rate is one step's graphs over
// the time the step took (building and compiling its program included), not over the
// microseconds since the bar first drew: some graphs per second here, never thousands.
func TestProgressFirstRate(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 30, 4)
	var bar strings.Builder
	ctx := newContext(model.Subgraphormer, map[string]any{training.ParamEpochs: 1, training.ParamBatchSize: 8})
	if _, err := training.Train(ctx, tk, training.Options{Out: t.TempDir(), Backend: be, Progress: &bar}); err != nil {
		t.Fatal(err)
	}
	var graphs int
	var rate float64
	first := regexp.MustCompile(`\((\d+)/\d+, (\d+) graphs/s\)`).FindStringSubmatch(bar.String())
	if first != nil {
		graphs, _ = strconv.Atoi(first[1])
		rate, _ = strconv.ParseFloat(first[2], 64)
	}
	if first == nil || graphs != 8 || rate > 800 {
		t.Errorf("first progress line %q: want the first step's 8 graphs at a sane rate", first)
	}
}

// A run counts the programs it builds, one per batch shape new to the process, and their
// seconds: every epoch's in its record, their sums in the summary; the first epoch builds some,
// and so does the first after a resume, which starts without them.
func TestProgramsCounted(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 24, 2)
	out := t.TempDir()
	if _, err := training.Train(newContext(model.Subgraphormer, map[string]any{training.ParamEpochs: 2}), tk, training.Options{Out: out, Backend: be}); err != nil {
		t.Fatal(err)
	}
	sum, err := training.Train(newContext(model.Subgraphormer, map[string]any{training.ParamEpochs: 3}), tk, training.Options{Out: out, Backend: be, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, filepath.Join(out, training.MetricsFile))
	programs, secs := 0, 0.0
	for _, r := range recs {
		programs += r.Programs
		secs += r.CompileSeconds
	}
	if recs[0].Programs < 2 || recs[0].CompileSeconds <= 0 || recs[2].Programs < 2 {
		t.Errorf("records %+v: want programs (training and evaluation) built in epochs 1 and 3 (resumed)", recs)
	}
	if sum.Programs != programs || math.Abs(sum.CompileSeconds-secs) > 1e-9*secs {
		t.Errorf("summary: %d programs in %v s, records %d in %v s", sum.Programs, sum.CompileSeconds, programs, secs)
	}
}

// A step whose loss is not finite stops the run at once, naming the epoch and the step, though
// the loop reads each step's loss only after launching the next.
func TestDivergedStep(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 40, 4)
	ctx := newContext(model.Subgraphormer, map[string]any{training.ParamEpochs: 2, training.ParamBatchSize: 4,
		training.ParamLearningRate: 1e38, training.ParamSchedule: "constant"})
	var epochs []training.Record
	_, err = training.Train(ctx, tk, training.Options{Out: t.TempDir(), Backend: be, OnEpoch: func(r training.Record) { epochs = append(epochs, r) }})
	if err == nil || !regexp.MustCompile(`^training: epoch 1: training loss (NaN|\+Inf|-Inf) at step \d+ of the epoch: the run diverged`).MatchString(err.Error()) {
		t.Fatalf("a diverging run: %v", err)
	}
	if len(epochs) != 0 {
		t.Errorf("epochs recorded after the divergence: %v", epochs)
	}
}

// With bn_recalibrate, each epoch is evaluated with BatchNorm's running averages recalibrated at
// its weights, and the checkpoint keeps them so: training itself (its losses, with dropout) is
// the same as without it, the validation metric is not, evaluating the latest checkpoint gives
// the metric its epoch recorded, and a run stopped and resumed is the run trained straight.
func TestTrainRecalibratingBatchNorm(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 30, 4)
	params := map[string]any{training.ParamBatchSize: 8, model.ParamDropout: 0.1, training.ParamEpochs: 3}
	train := func(recalibrate bool, opt training.Options) []training.Record {
		t.Helper()
		ctx := newContext(model.Subgraphormer, params)
		ctx.SetParam(training.ParamBNRecalibrate, recalibrate)
		opt.Backend = be
		if opt.Resume {
			ctx = epochsContext(3)
		}
		if _, err := training.Train(ctx, tk, opt); err != nil {
			t.Fatal(err)
		}
		return readRecords(t, filepath.Join(opt.Out, training.MetricsFile))
	}
	plain := train(false, training.Options{Out: t.TempDir()})
	out := t.TempDir()
	recalibrated := train(true, training.Options{Out: out})
	differs := false
	for i := range plain {
		if plain[i].TrainLoss != recalibrated[i].TrainLoss {
			t.Fatalf("epoch %d: training loss %v without recalibration, %v with it", i+1, plain[i].TrainLoss, recalibrated[i].TrainLoss)
		}
		differs = differs || plain[i].Valid != recalibrated[i].Valid
	}
	if !differs {
		t.Fatalf("the same validation metrics with and without recalibration: %+v", recalibrated)
	}

	ctx := context.New()
	training.Defaults(ctx)
	if _, err := training.LoadLatest(ctx, out); err != nil {
		t.Fatal(err)
	}
	p, err := training.NewPredictor(ctx, be, tk.Spec)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Finalize()
	cfg, err := training.ReadConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	valid, err := p.Evaluate(tk, tk.Valid, cfg.Metric)
	if last := recalibrated[len(recalibrated)-1].Valid; err != nil || math.Abs(valid-last) > 1e-6*math.Abs(last) {
		t.Fatalf("the latest checkpoint evaluates to %v (%v); its epoch recorded %v", valid, err, last)
	}

	pieces := t.TempDir()
	if first := train(true, training.Options{Out: pieces, Deadline: time.Now()}); len(first) != 1 {
		t.Fatalf("the first piece trained %d epochs, want 1", len(first))
	}
	resumed := train(true, training.Options{Out: pieces, Resume: true})
	for i := range recalibrated {
		if untimed(recalibrated[i]) != untimed(resumed[i]) {
			t.Fatalf("epoch %d: straight %+v, resumed %+v", i+1, recalibrated[i], resumed[i])
		}
	}
}
