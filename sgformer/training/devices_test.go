package training

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/distributed"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/xlatest"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/task"
)

// partition's parts are contiguous, non-empty when there are enough items, and their largest
// sum is the least of all such splits (brute force over every split).
func TestPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		m, n := rng.IntN(9), 1+rng.IntN(4)
		sizes := make([]int, m)
		for i := range sizes {
			sizes[i] = 1 + rng.IntN(50)
		}
		ends := partition(sizes, n)
		largest := func(ends []int) int {
			worst, begin := 0, 0
			for _, end := range ends {
				sum := 0
				for _, s := range sizes[begin:end] {
					sum += s
				}
				worst, begin = max(worst, sum), end
			}
			return worst
		}
		if len(ends) != n || ends[n-1] != m || !slices.IsSorted(ends) {
			t.Fatalf("trial %d: %v into %d parts: ends %v", trial, sizes, n, ends)
		}
		for k := range ends {
			empty := k == 0 && ends[0] == 0 || k > 0 && ends[k] == ends[k-1]
			if empty && (m >= n || k < m) {
				t.Fatalf("trial %d: %v into %d parts: an empty part before the last graph, ends %v", trial, sizes, n, ends)
			}
		}
		// Every split into n contiguous parts: n−1 cut points among m+1 positions.
		best := math.MaxInt
		var cuts func(k, from int, ends []int)
		cuts = func(k, from int, ends []int) {
			if k == n-1 {
				best = min(best, largest(append(ends, m)))
				return
			}
			for c := from; c <= m; c++ {
				cuts(k+1, c, append(ends, c))
			}
		}
		cuts(0, 0, nil)
		if got := largest(ends); got != best {
			t.Fatalf("trial %d: %v into %d parts: largest part %d, best %d", trial, sizes, n, got, best)
		}
	}
}

// A batch of fewer graphs than devices (an epoch's last) is split into one graph per device
// and empty blocks (where each block ends says so), all of one shape, with as many graph slots as a full batch has graphs.
func TestBuildShardsFewGraphs(t *testing.T) {
	tk := syntheticTask(t, 20, 3)
	cfg, err := ReadConfig(devicesContext(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	b := newBatching(cfg, tk.Spec)
	rng := rand.New(rand.NewPCG(1, 1))
	inputs, labels, ends, err := b.buildShards(tk.Select(tk.Train[:2]), 4, func(int) *rand.Rand { return rng }, rng)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ends, []int{1, 2, 2, 2}) {
		t.Fatalf("blocks end at %v, want one graph on each of the first two devices", ends)
	}
	if len(inputs) != 4 || len(labels) != 4 {
		t.Fatalf("%d and %d shards, want 4", len(inputs), len(labels))
	}
	for d := range inputs {
		for i, x := range inputs[d] {
			if !x.Shape().Equal(inputs[0][i].Shape()) {
				t.Fatalf("input %d: shard %d is %s, shard 0 %s", i, d, x.Shape(), inputs[0][i].Shape())
			}
		}
		if slots := labels[d][1].Shape().Dimensions[0]; slots != b.size+1 {
			t.Fatalf("shard %d has %d graph slots, want the batch size %d and the padding slot", d, slots, b.size)
		}
		present := 0.0
		for _, m := range tensors.MustCopyFlatData[float32](labels[d][1]) {
			present += float64(m)
		}
		if want := map[bool]float64{true: 1, false: 0}[d < 2]; present != want {
			t.Fatalf("shard %d has %v targets, want %v", d, present, want)
		}
	}
}

// fakeDevices is a backend that says it has n devices, for ResolveDevices.
type fakeDevices struct {
	backends.Backend
	n int
}

func (f fakeDevices) Name() string        { return "xla" }
func (f fakeDevices) Description() string { return "xla:cpu - fake" }
func (f fakeDevices) NumDevices() int     { return f.n }

func TestResolveDevices(t *testing.T) {
	goBackend, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		devices string
		be      backends.Backend
		params  map[string]any
		want    int
		err     string // a part of the error, "" for none
	}{
		{"1", goBackend, nil, 1, ""},
		{"all", goBackend, nil, 1, ""},
		{"2", goBackend, nil, 0, "backend go has 1 device(s)"},
		{"all", fakeDevices{n: 4}, nil, 4, ""},
		{"3", fakeDevices{n: 4}, nil, 3, ""},
		{"8", fakeDevices{n: 4}, nil, 0, "backend xla:cpu has 4 device(s); on a CPU, XLA_FLAGS"},
		{"4", fakeDevices{n: 4}, map[string]any{ParamBatchSize: 3}, 0, "batch_size = 3 graphs cannot be split among devices = 4"},
		{"2", fakeDevices{n: 4}, map[string]any{model.ParamExecution: model.Dense}, 0, "needs execution = sparse"},
		{"all", fakeDevices{n: 4}, map[string]any{model.ParamExecution: model.Dense}, 0, "devices = all needs execution = sparse"},
		{"2", goBackend, map[string]any{model.ParamExecution: model.Dense}, 0, "needs execution = sparse"}, // whatever the backend
		{"all", goBackend, map[string]any{model.ParamExecution: model.Dense}, 1, ""},
		{"0", fakeDevices{n: 4}, nil, 0, `want a positive number of devices or "all"`},
		{"two", fakeDevices{n: 4}, nil, 0, `devices = "two"`},
	} {
		t.Run(tc.devices, func(t *testing.T) {
			ctx := context.New()
			Defaults(ctx)
			ctx.SetParams(tc.params)
			ctx.SetParam(ParamDevices, tc.devices)
			cfg, err := ReadConfig(ctx)
			if err == nil {
				var n int
				n, err = ResolveDevices(cfg, tc.be)
				if err == nil && n != tc.want {
					t.Fatalf("%d devices, want %d", n, tc.want)
				}
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want one with %q", err, tc.err)
			}
		})
	}
}

// syntheticTask is the synthetic counting task of count graphs, preprocessed with k PE columns
// (the external tests call it as SyntheticTask, export_test.go).
func syntheticTask(t testing.TB, count, k int) *task.Task {
	t.Helper()
	ds, err := data.Synthetic(data.Triangles, count, 3)
	if err != nil {
		t.Fatal(err)
	}
	items, err := preprocess.Dataset(ds.Graphs, preprocess.Options{PEK: k}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := task.New(ds.Name, ds.Graphs, items, ds.Labels, model.Spec{NodeVocab: ds.NodeVocab, EdgeVocab: ds.EdgeVocab, Tasks: 1}, ds.Split.Train, ds.Split.Valid, ds.Split.Test)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// devicesContext is the synthetic task's recipe with params: the model runs with sampling (so
// that its random draws are exercised), batches of 8 graphs, no dropout (whose random numbers
// the backend draws per device).
func devicesContext(t testing.TB, params map[string]any) *context.Context {
	t.Helper()
	ctx := context.New()
	Defaults(ctx)
	ctx.SetParams(recipeAt(t, "synthetic", 1))
	ctx.SetParams(map[string]any{ParamBatchSize: 8, ParamSamplingRatio: 0.5, ParamEvalSamples: 2, model.ParamDropout: 0.0})
	ctx.SetParams(params)
	return ctx
}

// startDevicesModel creates the variables of the model ctx configures from its seed, as Train
// does, and returns its configuration: the same weights whatever the number of devices.
func startDevicesModel(t *testing.T, be backends.Backend, tk *task.Task, ctx *context.Context) Config {
	t.Helper()
	cfg, err := ReadConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ctx.SetParam(context.ParamInitialSeed, int64(cfg.Seed)+1)
	if err := startModel(ctx, be, tk.Spec, cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// firstStep returns the loss of the first training batch of the run ctx configures, split
// among devices, and the gradient of every trainable variable (by name), as the training
// step computes them before its update.
func firstStep(t *testing.T, be backends.Backend, tk *task.Task, ctx *context.Context, devices int) (float64, map[string][]float64) {
	t.Helper()
	cfg := startDevicesModel(t, be, tk, ctx)
	batches, err := newBatching(cfg, tk.Spec).withProfile(tk.Select(tk.Train))
	if err != nil {
		t.Fatal(err)
	}
	d := &epochData{task: tk, batches: batches, seed: cfg.Seed, devices: devices}
	if devices > 1 {
		if d.sharding, err = newSharding(devices); err != nil {
			t.Fatal(err)
		}
	}
	d.start(1)
	b := d.build(0)
	if b.err != nil {
		t.Fatal(b.err)
	}
	lossFn, err := lossByName(cfg.Loss)
	if err != nil {
		t.Fatal(err)
	}
	fn := model.New(tk.Spec, cfg.Model)
	var vars []*context.Variable
	for v := range ctx.IterVariables() {
		if v.Trainable {
			vars = append(vars, v)
		}
	}
	exec, err := context.NewExec(be, ctx.Reuse(), func(ctx *context.Context, nodes []*Node) []*Node {
		g := nodes[0].Graph()
		ctx.SetTraining(g, true)
		n := len(nodes) - 2 // the labels: targets and their mask
		loss := lossFn(nodes[n:], fn(ctx, nil, nodes[:n]))
		var params []*Node
		for _, v := range vars {
			params = append(params, v.ValueGraph(g))
		}
		out := []*Node{ConvertDType(loss, dtypes.Float64)}
		for _, grad := range Gradient(loss, params...) {
			out = append(out, ConvertDType(grad, dtypes.Float64))
		}
		return out
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []*tensors.Tensor
	if devices == 1 {
		var args []any
		for _, x := range append(b.inputs, b.labels...) {
			args = append(args, x)
		}
		out, err = exec.Exec(args...)
	} else {
		var args []any
		var specs []*distributed.ShardingSpec
		for _, x := range append(b.dinputs, b.dlabels...) {
			args, specs = append(args, x), append(specs, x.ShardingSpec())
		}
		replicated := slices.Repeat([]*distributed.ShardingSpec{distributed.NewReplicatedShardingSpec(d.sharding.spec.Mesh)}, 1+len(vars))
		exec = exec.AutoSharding(d.sharding.spec.Mesh).WithInputShardingSpecs(specs...).WithOutputShardingSpecs(replicated...)
		var dout []*distributed.Tensor
		dout, err = exec.DistributedExec(args...)
		for _, x := range dout {
			out = append(out, x.Shards()[0])
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	grads := map[string][]float64{}
	for i, v := range vars {
		grads[v.ScopeAndName()] = tensors.MustCopyFlatData[float64](out[1+i])
	}
	return tensors.ToScalar[float64](out[0]), grads
}

// Tolerances of training on several devices against one, in float32. The programs differ only
// in the order of their sums over the batch (each device sums its share, then XLA's all-reduce
// sums the shares), and float32 rounds each sum to a relative 6e-8 per term added in the worst
// case, about √terms·6e-8 typically: over a batch's thousands of product nodes and edges
// (~10⁴ terms), 1e-5 relative to the whole. The loss, a mean of such sums, is checked to 1e-5;
// a gradient, which goes back through BatchNorm's divisions by the batch's standard deviation
// (amplifying absolute errors where a feature varies little), to 1e-4 of its norm, per
// variable; a variable whose gradient is 0 but for rounding (below 1e-3 of the whole
// gradient's norm: the last layer's internal attention on this task, 1e-9 against 10) is held
// to 1e-4 of 1e-3 of the whole, since rounding errors are absolute at the scale of the sums
// that make them. A wrong computation — a block's graphs missing, BatchNorm over one device's nodes,
// the loss of one device — moves them by 1e-2 or more (TestShardsAreOneBatch checks the
// mathematics exactly, in float64).
const (
	deviceLossTol       = 1e-5
	deviceGradientTol   = 1e-4
	deviceGradientFloor = 1e-3
)

// The first training step on 2 and 4 of XLA's CPU devices computes the loss and gradients it
// computes on one: the batch split among the devices, by product-graph size, is the same
// global batch (the same sampled subgraphs and PE sign flips), whose loss and BatchNorm
// statistics the partitioned program computes across devices.
func TestDevicesFirstStep(t *testing.T) {
	be := xlatest.CPU(t)
	if be.NumDevices() < 4 {
		t.Skipf("XLA's CPU plugin has %d device(s) here, the test wants 4 (XLA_FLAGS=--xla_force_host_platform_device_count=4)", be.NumDevices())
	}
	tk := syntheticTask(t, 40, 3)
	for _, name := range []string{model.Subgraphormer, model.GIN} {
		params := map[string]any{model.ParamModel: name}
		wantLoss, want := firstStep(t, be, tk, devicesContext(t, params), 1)
		for _, devices := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s/%d", name, devices), func(t *testing.T) {
				loss, grads := firstStep(t, be, tk, devicesContext(t, params), devices)
				if math.Abs(loss-wantLoss) > deviceLossTol*math.Abs(wantLoss) {
					t.Errorf("loss %v, on one device %v", loss, wantLoss)
				}
				whole := 0.0
				for _, w := range want {
					for _, x := range w {
						whole += x * x
					}
				}
				whole = math.Sqrt(whole)
				worst := 0.0
				for name, w := range want {
					g := grads[name]
					var diff, norm float64
					for i := range w {
						diff += (g[i] - w[i]) * (g[i] - w[i])
						norm += w[i] * w[i]
					}
					rel := math.Sqrt(diff) / max(math.Sqrt(norm), deviceGradientFloor*whole)
					worst = max(worst, rel)
					if rel > deviceGradientTol || len(g) != len(w) {
						t.Errorf("%s: gradient differs by %.2g of its norm %.3g (the whole gradient's: %.3g)", name, rel, math.Sqrt(norm), whole)
					}
				}
				t.Logf("loss %.9g (one device %.9g), gradients within %.2g of their norms", loss, wantLoss, worst)
			})
		}
	}
}

// Training on 2 and 4 devices follows training on one: 5 epochs of 4 steps (20 steps), the
// losses, validation and test metrics within 1e-3 relative (float32 rounding, compounded over
// the steps by Adam, which divides by the gradients' running scale). A run checkpointed on 2
// devices resumes on 4, is checkpointed there and resumes on 1, and ends where the
// uninterrupted run on 2 does, within the same tolerance. (The full bag, so that the runs meet
// few batch shapes: each is a program XLA compiles for seconds.)
func TestDevicesTraining(t *testing.T) {
	be := xlatest.CPU(t)
	if be.NumDevices() < 4 {
		t.Skipf("XLA's CPU plugin has %d device(s) here, the test wants 4 (XLA_FLAGS=--xla_force_host_platform_device_count=4)", be.NumDevices())
	}
	const tol = 1e-3
	tk := syntheticTask(t, 40, 3) // 32 training graphs: 4 batches of 8
	params := map[string]any{ParamEpochs: 5, model.ParamModel: model.Subgraphormer, ParamSamplingRatio: 1.0}
	train := func(devices string, opt Options) []Record {
		t.Helper()
		ctx := devicesContext(t, params)
		if opt.Resume { // the checkpoint's hyperparameters, on devices
			ctx = context.New()
		}
		ctx.SetParam(ParamDevices, devices)
		opt.Backend = be
		if _, err := Train(ctx, tk, opt); err != nil {
			t.Fatalf("%s devices: %v", devices, err)
		}
		recs, err := ReadRecords(filepath.Join(opt.Out, MetricsFile))
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	closeTo := func(what string, got, want []Record) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d epochs, want %d", what, len(got), len(want))
		}
		for i := range want {
			for _, v := range [][2]float64{{got[i].TrainLoss, want[i].TrainLoss}, {got[i].Valid, want[i].Valid}, {got[i].Test, want[i].Test}} {
				if math.Abs(v[0]-v[1]) > tol*math.Abs(v[1]) {
					t.Errorf("%s: epoch %d: %+v, want %+v", what, i+1, got[i], want[i])
				}
			}
		}
	}
	one := train("1", Options{Out: t.TempDir()})
	two := train("2", Options{Out: t.TempDir()})
	closeTo("2 devices", two, one)
	closeTo("4 devices", train("4", Options{Out: t.TempDir()}), one)

	out := t.TempDir()
	if recs := train("2", Options{Out: out, Deadline: time.Now()}); len(recs) != 1 {
		t.Fatalf("2 devices until a deadline: %d epochs, want 1", len(recs))
	}
	if recs := train("4", Options{Out: out, Resume: true, Deadline: time.Now()}); len(recs) != 2 {
		t.Fatalf("resumed on 4 devices until a deadline: %d epochs, want 2", len(recs))
	}
	closeTo("2 devices, then 4, then 1", train("1", Options{Out: out, Resume: true}), two)
}

// Prediction and evaluation on 2 and 4 of XLA's CPU devices give what they give on one: each
// batch split among the devices as in training (17 graphs in batches of 8: the last, of one
// graph, leaves devices empty), Subgraphormer with subgraph sampling (2 draws per graph, from
// streams of their own) and GIN (on the graphs themselves). Each prediction within deviceLossTol of the largest, and the metric
// within deviceLossTol relative: the same tolerance as the training step's loss (inference has
// no BatchNorm statistics of the batch, so only the partitioned sums' order differs).
func TestDevicesPredict(t *testing.T) {
	be := xlatest.CPU(t)
	if be.NumDevices() < 4 {
		t.Skipf("XLA's CPU plugin has %d device(s) here, the test wants 4 (XLA_FLAGS=--xla_force_host_platform_device_count=4)", be.NumDevices())
	}
	tk := syntheticTask(t, 40, 3)
	examples := tk.Select(tk.Train[:17])
	for _, name := range []string{model.Subgraphormer, model.GIN} {
		params := map[string]any{model.ParamModel: name}
		// A fresh context per number of devices (a context's variables, once on a mesh, stay
		// on it), started from the same seed: the same weights.
		predict := func(devices int) ([][]float64, float64) {
			t.Helper()
			ctx := devicesContext(t, params)
			ctx.SetParam(ParamDevices, fmt.Sprint(devices))
			cfg := startDevicesModel(t, be, tk, ctx)
			p, err := NewPredictor(ctx, be, tk.Spec)
			if err != nil {
				t.Fatal(err)
			}
			pred, err := p.Predict(examples)
			if err != nil {
				t.Fatalf("%d devices: %v", devices, err)
			}
			metric, err := p.Evaluate(tk, tk.Test, cfg.Metric)
			if err != nil {
				t.Fatalf("%d devices: %v", devices, err)
			}
			return pred, metric
		}
		want, wantMetric := predict(1)
		scale := 0.0
		for _, row := range want {
			for _, x := range row {
				scale = max(scale, math.Abs(x))
			}
		}
		for _, devices := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s/%d", name, devices), func(t *testing.T) {
				got, metric := predict(devices)
				worst := 0.0
				for i := range want {
					for j := range want[i] {
						worst = max(worst, math.Abs(got[i][j]-want[i][j]))
					}
				}
				if worst > deviceLossTol*scale {
					t.Errorf("predictions differ from one device's by up to %.3g (the largest is %.3g)", worst, scale)
				}
				if math.Abs(metric-wantMetric) > deviceLossTol*math.Abs(wantMetric) {
					t.Errorf("metric %v, on one device %v", metric, wantMetric)
				}
				t.Logf("predictions within %.2g of the largest (%.3g); metric %.9g (one device %.9g)", worst/scale, scale, metric, wantMetric)
			})
		}
	}
}

// A batch built ahead for one device is on the backend's device when the step takes it (its
// transfer ran beside the step before), and on the host without a backend.
func TestBatchBuiltOnTheDevice(t *testing.T) {
	be := xlatest.CPU(t)
	tk := syntheticTask(t, 20, 3)
	cfg, err := ReadConfig(devicesContext(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	batches, err := newBatching(cfg, tk.Spec).withProfile(tk.Select(tk.Train))
	if err != nil {
		t.Fatal(err)
	}
	for _, backend := range []backends.Backend{be, nil} {
		d := &epochData{task: tk, batches: batches, seed: cfg.Seed, devices: 1, backend: backend}
		d.start(1)
		b, err := d.next()
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range append(b.inputs, b.labels...) {
			if got := x.IsOnDevice(0); got != (backend != nil) {
				t.Errorf("backend %v: tensor %d of the batch (%s) on the device: %v", backend, i, x.Shape(), got)
			}
		}
		b.free()
		d.stop()
	}
}
