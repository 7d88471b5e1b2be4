package training_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/metrics"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/task"
	"github.com/sgformer/sgformer/sgformer/training"
)

// TestNewRun writes a run from a built model's weights and checks that it is a run like any
// other: OpenRun gives the same predictions as the model it was written from, a second NewRun
// into it is refused, and Train resumes it (fine-tuning from a fresh optimizer state) for an
// epoch, whose record is epoch 1.
func TestNewRun(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 24, 4)
	params := recipe.Default("synthetic")
	params[model.ParamInit] = model.PyTorchInit
	ctx, _, err := training.BuildModel(be, tk.Spec, params)
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(t.TempDir(), "run")
	src := task.Source{Dataset: tk.Name, Spec: tk.Spec}
	if err := training.NewRun(ctx, src, run); err != nil {
		t.Fatal(err)
	}
	if err := training.NewRun(ctx, src, run); !errors.Is(err, training.ErrRunExists) {
		t.Errorf("a second NewRun into %s: %v, want ErrRunExists", run, err)
	}
	p, err := training.NewPredictor(ctx, be, tk.Spec)
	if err != nil {
		t.Fatal(err)
	}
	metric, err := metrics.ByName("mae")
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.Evaluate(tk, tk.Test, metric)
	if err != nil {
		t.Fatal(err)
	}
	opened, _, sum, err := training.OpenRun(run)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Epochs != 0 || sum.Model != model.Subgraphormer {
		t.Errorf("summary %+v: want a Subgraphormer before its first epoch", sum)
	}
	p, err = training.NewPredictor(opened, be, tk.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.Evaluate(tk, tk.Test, metric); err != nil || got != want {
		t.Fatalf("the run's test MAE %v (%v), the model it was written from %v", got, err, want)
	}
	resumed, _, _, err := training.OpenRun(run)
	if err != nil {
		t.Fatal(err)
	}
	resumed.SetParam(training.ParamEpochs, 1)
	if _, err := training.Train(resumed, tk, training.Options{Out: run, Backend: be, Resume: true}); err != nil {
		t.Fatalf("fine-tuning the written run: %v", err)
	}
	if recs := readRecords(t, filepath.Join(run, training.MetricsFile)); len(recs) != 1 || recs[0].Epoch != 1 {
		t.Errorf("records %+v, want epoch 1 only", recs)
	}
}
