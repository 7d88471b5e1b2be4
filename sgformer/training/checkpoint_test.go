package training_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/internal/xlatest"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/training"
)

// A damaged checkpoint is reported as corrupt, naming it and the way out (the best epoch's
// checkpoint, or starting over), never as "nothing to resume" nor resumed from: a state.json
// with bytes changed that still parses, a truncated or missing variables file.
func TestCorruptCheckpoint(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 16, 2)
	run := t.TempDir()
	ctx := newContext(model.Subgraphormer, map[string]any{training.ParamEpochs: 2})
	if _, err := training.Train(ctx, tk, training.Options{Out: run, Backend: be}); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(run, training.CheckpointDir, "state.json")
	pristine, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	vars, _ := filepath.Glob(filepath.Join(run, training.CheckpointDir, "variables", "*"))
	var biggest string
	var size int64
	for _, v := range vars {
		if fi, err := os.Stat(v); err == nil && fi.Size() > size {
			biggest, size = v, fi.Size()
		}
	}
	original, _ := os.ReadFile(biggest)
	for _, tc := range []struct {
		name   string
		damage func()
		repair func()
	}{
		{"state.json with a digit changed", func() {
			os.WriteFile(state, []byte(strings.Replace(string(pristine), `"epoch": 2`, `"epoch": 7`, 1)), 0o644)
		}, func() { os.WriteFile(state, pristine, 0o644) }},
		{"state.json with 16 bytes flipped", func() {
			b := []byte(string(pristine))
			for i := len(b) / 2; i < len(b)/2+16; i++ {
				b[i] ^= 0x01
			}
			os.WriteFile(state, b, 0o644)
		}, func() { os.WriteFile(state, pristine, 0o644) }},
		{"a truncated variables file", func() { os.WriteFile(biggest, original[:len(original)/2], 0o644) },
			func() { os.WriteFile(biggest, original, 0o644) }},
		{"a missing variables file", func() { os.Remove(biggest) }, func() { os.WriteFile(biggest, original, 0o644) }},
	} {
		tc.damage()
		_, err := training.Train(epochsContext(3), tk, training.Options{Out: run, Backend: be, Resume: true})
		tc.repair()
		if err == nil || !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), training.BestDir) || strings.Contains(err.Error(), "nothing to resume") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := training.Train(epochsContext(3), tk, training.Options{Out: run, Backend: be, Resume: true}); err != nil {
		t.Fatalf("the repaired checkpoint: %v", err)
	}
}

// A stop request ends training at the next step, saves the checkpoint there (within the epoch)
// and returns ErrInterrupted; resuming from that step gives exactly the records of an
// uninterrupted run.
func TestInterrupt(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 30, 2)
	params := map[string]any{training.ParamEpochs: 3, training.ParamBatchSize: 8}
	straight := t.TempDir()
	if _, err := training.Train(newContext(model.Subgraphormer, params), tk, training.Options{Out: straight, Backend: be}); err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	stop := make(chan struct{})
	// Asked to stop at the end of epoch 1, training stops during epoch 2, after its first step.
	opt := training.Options{Out: run, Backend: be, Stop: stop, OnEpoch: func(r training.Record) {
		if r.Epoch == 1 {
			close(stop)
		}
	}}
	sum, err := training.Train(newContext(model.Subgraphormer, params), tk, opt)
	if !errors.Is(err, training.ErrInterrupted) || sum == nil || sum.Epochs != 1 {
		t.Fatalf("interrupted run: %v, %+v", err, sum)
	}
	raw, err := os.ReadFile(filepath.Join(run, training.CheckpointDir, "state.json"))
	var state struct {
		Epoch   int
		Partial struct{ Epoch, Graphs, LossCount int } `json:"partial"`
	}
	if err != nil || json.Unmarshal(raw, &state) != nil || state.Epoch != 1 || state.Partial.Epoch != 2 || state.Partial.Graphs != 8 {
		t.Fatalf("checkpoint after the interrupt: %s (%v)", raw, err)
	}
	if _, err := training.Train(context.New(), tk, training.Options{Out: run, Backend: be, Resume: true}); err != nil {
		t.Fatal(err)
	}
	a, b := readRecords(t, filepath.Join(straight, training.MetricsFile)), readRecords(t, filepath.Join(run, training.MetricsFile))
	if len(a) != 3 || len(b) != 3 {
		t.Fatalf("%d and %d records", len(a), len(b))
	}
	for i := range a {
		if untimed(a[i]) != untimed(b[i]) {
			t.Fatalf("epoch %d: straight %+v, interrupted and resumed %+v", i+1, a[i], b[i])
		}
	}
}

// A run resumes on the backend it was trained on only: on another, the resume is refused with
// the way out, and the run is left as it was; on its own, it continues.
func TestResumeOnOtherBackend(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	xb := xlatest.CPU(t)
	tk := syntheticTask(t, 16, 2)
	run := t.TempDir()
	ctx := newContext(model.Subgraphormer, map[string]any{training.ParamEpochs: 1})
	if _, err := training.Train(ctx, tk, training.Options{Out: run, Backend: be}); err != nil {
		t.Fatal(err)
	}
	metrics, _ := os.ReadFile(filepath.Join(run, training.MetricsFile))
	ctx = newContext(model.Subgraphormer, map[string]any{training.ParamEpochs: 2})
	_, err = training.Train(ctx, tk, training.Options{Out: run, Backend: xb, Resume: true})
	for _, want := range []string{"trained on backend go", "on xla:cpu", "--backend go"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("resumed on xla:cpu: %v; want %q", err, want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(run, training.MetricsFile)); string(after) != string(metrics) {
		t.Fatal("the refused resume changed the run's metrics")
	}
	ctx = newContext(model.Subgraphormer, map[string]any{training.ParamEpochs: 2})
	if _, err := training.Train(ctx, tk, training.Options{Out: run, Backend: be, Resume: true}); err != nil {
		t.Fatalf("resumed on go: %v", err)
	}
}

// Under init = pytorch a seed starts the same weights on every backend (they are drawn on the
// host), so that a first epoch without dropout trains the same on go and xla:cpu, up to float32
// rounding; GoMLX's initialisers, drawn by each backend, start elsewhere. The run records the
// start it took.
func TestPyTorchStartIsTheSameOnEveryBackend(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	xb := xlatest.CPU(t)
	tk := syntheticTask(t, 16, 2)
	firstLoss := func(b backends.Backend, init string) float64 {
		run := t.TempDir()
		ctx := newContext(model.Subgraphormer, map[string]any{training.ParamEpochs: 1, model.ParamInit: init})
		if _, err := training.Train(ctx, tk, training.Options{Out: run, Backend: b}); err != nil {
			t.Fatal(err)
		}
		loaded, _, _, err := training.OpenRun(run)
		if err != nil {
			t.Fatal(err)
		}
		if got := model.Get[string](loaded, model.Params, model.ParamInit); got != init {
			t.Fatalf("the run records init %q, want %q", got, init)
		}
		return readRecords(t, filepath.Join(run, training.MetricsFile))[0].TrainLoss
	}
	goLoss, xlaLoss := firstLoss(be, model.PyTorchInit), firstLoss(xb, model.PyTorchInit)
	t.Logf("init pytorch: first-epoch loss %v on go, %v on xla:cpu", goLoss, xlaLoss)
	if math.Abs(goLoss-xlaLoss) > 1e-4*math.Abs(goLoss) {
		t.Errorf("init pytorch: first-epoch loss %v on go, %v on xla:cpu", goLoss, xlaLoss)
	}
	if gomlx := firstLoss(be, model.GoMLXInit); math.Abs(gomlx-goLoss) < 1e-3*math.Abs(goLoss) {
		t.Errorf("init gomlx and pytorch: first-epoch losses %v and %v, the same start", gomlx, goLoss)
	}
}

// A resumed run builds the programs a fresh run builds (its variables come back in the order the
// run created them, which decides a program's parameters): each is loaded from the compile
// cache, none compiled again, whether the weights were started by GoMLX or as PyTorch does.
func TestResumeLoadsCompiledPrograms(t *testing.T) {
	t.Setenv(backend.CompileCacheVar, t.TempDir())
	be := xlatest.CPU(t)
	tk := syntheticTask(t, 16, 2)
	for _, init := range []string{model.GoMLXInit, model.PyTorchInit} {
		run := t.TempDir()
		params := map[string]any{training.ParamEpochs: 1, model.ParamInit: init}
		if _, err := training.Train(newContext(model.Subgraphormer, params), tk, training.Options{Out: run, Backend: be}); err != nil {
			t.Fatal(err)
		}
		fresh := backend.CompileCache()
		if fresh.Misses == 0 || fresh.Err != nil {
			t.Fatalf("%s: the fresh run compiled nothing: %+v", init, fresh)
		}
		if _, err := training.Train(epochsContext(2), tk, training.Options{Out: run, Backend: be, Resume: true}); err != nil {
			t.Fatal(err)
		}
		recs := readRecords(t, filepath.Join(run, training.MetricsFile))
		resumed := backend.CompileCache()
		if resumed.Misses != fresh.Misses || resumed.Hits-fresh.Hits != recs[1].Programs || recs[1].Programs == 0 {
			t.Errorf("%s: the resumed epoch built %d programs, %d compiled and %d loaded from the cache; want all loaded",
				init, recs[1].Programs, resumed.Misses-fresh.Misses, resumed.Hits-fresh.Hits)
		}
	}
}
