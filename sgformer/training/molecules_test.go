package training_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"

	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/internal/xlatest"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/task"
	"github.com/sgformer/sgformer/sgformer/training"
)

const smallCSV = "../../data/testdata/molecules/small.csv"

// A run.json of before the CSV options and task names still reads.
func TestReadSourceBeforeCSV(t *testing.T) {
	run := t.TempDir()
	os.WriteFile(filepath.Join(run, training.RunFile), []byte(`{"dataset":"ogbg-molesol","spec":{"NodeVocab":[119,5,12,12,10,6,6,2,2],"EdgeVocab":[5,6,2],"Tasks":1}}`), 0o644)
	old, err := training.ReadSource(run)
	if err != nil || old.CSV != nil || old.LabelNames != nil || !old.Molecules() {
		t.Errorf("old run.json: %+v, %v", old, err)
	}
}

// PredictGraphs predicts what it can and gives an error for each graph it cannot, with the
// same predictions as PredictGraph one at a time, with the full bag and with sampling: exactly
// on the pure-Go backend, and within 1e-5 of each other (relative; float32 rounding, seen up to
// 2.5e-6) on xla:cpu, whose sums run in an order that depends on the batch's padded size, as
// docs/cli.md says.
func TestPredictGraphs(t *testing.T) {
	for _, ratio := range []float64{1, 0.5} {
		t.Run(fmt.Sprint("sampling ratio ", ratio), func(t *testing.T) {
			be, err := backend.New("go")
			if err != nil {
				t.Fatal(err)
			}
			testPredictGraphs(t, be, ratio, 1e-12)
		})
	}
	t.Run("xla:cpu", func(t *testing.T) { testPredictGraphs(t, xlatest.CPU(t), 1, 1e-5) })
}

func testPredictGraphs(t *testing.T, be backends.Backend, ratio, tolerance float64) {
	tk := syntheticTask(t, 16, 2)
	ctx := newContext(model.Subgraphormer, map[string]any{training.ParamEpochs: 1, training.ParamBatchSize: 3, training.ParamSamplingRatio: ratio, training.ParamEvalSamples: 2})
	if _, err := training.Train(ctx, tk, training.Options{Out: t.TempDir(), Backend: be}); err != nil {
		t.Fatal(err)
	}
	p, err := training.NewPredictor(ctx, be, tk.Spec)
	if err != nil {
		t.Fatal(err)
	}
	var gs []*graph.Graph
	for _, ex := range tk.Examples[:7] {
		gs = append(gs, ex.Graph)
	}
	bare, _ := graph.New(2, []graph.Edge{{0, 1}}, graph.Features{}, graph.Features{})
	gs = slices.Insert(gs, 2, bare)
	preds, errs, err := p.PredictGraphs(gs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(preds) != 8 || errs == nil || errs[2] == nil || preds[2] != nil || !strings.Contains(errs[2].Error(), "the model needs 1 integer node feature(s) per node") {
		t.Fatalf("predictions %v, errors %v", preds, errs)
	}
	for i, g := range gs {
		if i == 2 {
			continue
		}
		if errs[i] != nil {
			t.Errorf("graph %d: %v", i, errs[i])
		}
		one, err := p.PredictGraph(g)
		if err != nil || math.Abs(one[0]-preds[i][0]) > tolerance*math.Abs(one[0]) {
			t.Errorf("graph %d: %v alone (%v), %v in the batch", i, one, err, preds[i])
		}
	}
}

// Peptides-func trains end to end with its recipe (BCE on 10 tasks, AP, AdamW with warm-up and
// cosine, 30 % sampling and 3 evaluation draws), here on 12 peptides of the shared copy and a
// narrower model, two epochs (one of warm-up): an epoch of the whole dataset takes hours on a
// CPU (see the README).
func TestTrainPeptidesFunc(t *testing.T) {
	ds, err := task.Dataset(task.Source{Dataset: "peptides-func", DataDir: shareddata.Dir(t, "peptides_func")})
	if err != nil {
		t.Fatal(err)
	}
	ctx := newContext(model.Subgraphormer, nil)
	ctx.SetParams(recipe.Default("peptides-func"))
	ctx.SetParams(map[string]any{training.ParamEpochs: 2, training.ParamWarmupEpochs: 1, model.ParamLayers: 1, model.ParamHidden: 24, training.ParamBatchSize: 4})
	cfg, err := model.ReadConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pick := slices.Concat(ds.Split.Train[:8], ds.Split.Valid[:2], ds.Split.Test[:2])
	var graphs []*graph.Graph
	var labels []float64
	for _, i := range pick {
		graphs = append(graphs, ds.Graphs[i])
		labels = append(labels, ds.Labels[i*ds.Tasks:(i+1)*ds.Tasks]...)
	}
	items, err := preprocess.Dataset(graphs, cfg.Preprocess(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := model.Spec{NodeVocab: ds.NodeVocab, EdgeVocab: ds.EdgeVocab, Tasks: ds.Tasks}
	tk, err := task.New(ds.Name, graphs, items, labels, spec, []int{0, 1, 2, 3, 4, 5, 6, 7}, []int{8, 9}, []int{10, 11})
	if err != nil {
		t.Fatal(err)
	}
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := training.Train(ctx, tk, training.Options{Out: t.TempDir(), Backend: be})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Metric != "ap" || sum.Epochs != 2 || math.IsNaN(sum.TestAtBest) || spec.Tasks != 10 {
		t.Errorf("summary %+v", sum)
	}
}
