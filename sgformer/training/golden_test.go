package training_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomlx/gomlx/backends"

	"github.com/sgformer/sgformer/internal/xlatest"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/training"
)

// goldenPath holds what the K = 2 models computed on the pure-Go backend before product-graph
// message passing became data (named connectivities, one aggregation interface): per
// configuration, the bits of every epoch's training loss and validation and test metric, and of
// the predictions for the first graphs. goldenXLAPath holds the same computed on XLA's CPU
// plugin (backend.CPUPlugin), whose weights start elsewhere (its random numbers are its own).
// SGFORMER_UPDATE_GOLDEN=1 rewrites them.
const (
	goldenPath    = "testdata/golden-k2.json"
	goldenXLAPath = "testdata/golden-k2-xla-cpu.json"
)

// Every model, in both executions, with and without sampling, trains and predicts bit for bit
// as it did when the golden file was written.
func TestGoldenK2(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, be, goldenPath, 0)
}

// The same on XLA's CPU plugin, within 1e-4 relative rather than bit for bit: the plugin picks
// its vector code for the CPU it runs on, so another CPU may round sums differently, and two
// epochs of training carry a few float32 ulps (1.2e-7) to about 1e-6 here; a changed
// computation moves these values by far more (the two backends' starts differ by O(1)).
func TestGoldenK2XLA(t *testing.T) {
	golden(t, xlatest.CPU(t), goldenXLAPath, 1e-4)
}

// golden trains and predicts with the golden configurations on be and compares with the file
// at path, within tol relative (0: bit for bit).
func golden(t *testing.T, be backends.Backend, path string, tol float64) {
	tk := syntheticTask(t, 24, 3)
	configs := map[string]map[string]any{
		"subgraphormer":         {model.ParamModel: model.Subgraphormer},
		"subgraphormer-dense":   {model.ParamModel: model.Subgraphormer, model.ParamExecution: model.Dense},
		"subgraphormer-mlp":     {model.ParamModel: model.Subgraphormer, model.ParamLayerEncoder: model.MLP, training.ParamSamplingRatio: 0.5, training.ParamEvalSamples: 2},
		"subgraphormer-sampled": {model.ParamModel: model.Subgraphormer, model.ParamExecution: model.Dense, training.ParamSamplingRatio: 0.5, training.ParamEvalSamples: 2},
		"sswl+":                 {model.ParamModel: model.SSWLPlus, training.ParamSamplingRatio: 0.5, training.ParamEvalSamples: 2},
		"gin":                   {model.ParamModel: model.GIN},
	}
	got := map[string][]uint64{}
	for name, params := range configs {
		ctx := newContext(params[model.ParamModel].(string), map[string]any{training.ParamEpochs: 2, training.ParamBatchSize: 8, model.ParamDropout: 0.1})
		ctx.SetParams(params)
		out := t.TempDir()
		from := len(backend.Programs(0))
		sum, err := training.Train(ctx, tk, training.Options{Out: out, Backend: be})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkDeviceBytes(t, name, sum, backend.Programs(from))
		var bits []uint64
		for _, r := range readRecords(t, filepath.Join(out, training.MetricsFile)) {
			bits = append(bits, math.Float64bits(r.TrainLoss), math.Float64bits(r.Valid), math.Float64bits(r.Test))
		}
		p, err := training.NewPredictor(ctx, be, tk.Spec)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := p.Predict(tk.Examples[:6])
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range pred {
			bits = append(bits, math.Float64bits(row[0]))
		}
		got[name] = bits
	}
	if os.Getenv("SGFORMER_UPDATE_GOLDEN") == "1" {
		raw, _ := json.MarshalIndent(got, "", " ")
		if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]uint64
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	for name, w := range want {
		g := got[name]
		if len(g) != len(w) {
			t.Errorf("%s: %d values, golden %d", name, len(g), len(w))
			continue
		}
		for i := range w {
			x, y := math.Float64frombits(g[i]), math.Float64frombits(w[i])
			if g[i] != w[i] && !(math.Abs(x-y) <= tol*math.Abs(y)) {
				t.Errorf("%s: value %d is %v, golden %v", name, i, math.Float64frombits(g[i]), math.Float64frombits(w[i]))
				break
			}
		}
	}
}

// checkDeviceBytes checks a run's device memory against the programs it compiled: the largest
// of theirs, and on XLA at least the training step's parameters with Adam's two moments
// (float32); none on the pure-Go backend, which compiles no XLA program.
func checkDeviceBytes(t *testing.T, name string, sum *training.Summary, programs []backend.ProgramMemory) {
	t.Helper()
	var most int64
	for _, p := range programs {
		most = max(most, p.Bytes())
	}
	if sum.DeviceBytes != most || (len(programs) > 0 && sum.DeviceBytes < int64(3*4*sum.Parameters)) {
		t.Errorf("%s: device bytes %d; its %d programs' largest %d, its %d parameters with Adam's moments %d bytes",
			name, sum.DeviceBytes, len(programs), most, sum.Parameters, 3*4*sum.Parameters)
	}
}
