package model_test

import (
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/internal/xlatest"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/training"
)

// A pytorchStart is one of the authors' modules' initialisations, written from PyTorch's and
// PyG's sources rather than from package model's rules: the variables it covers, by scope and
// name, and its distribution: kind "uniform" in ±bound or "normal" with standard deviation
// bound, where bound is of the fan-in and fan-out of the variable's shape (for embeddings, OGB's
// rows of the table), or the constant kind "one" or "zero".
type pytorchStart struct {
	re    *regexp.Regexp
	kind  string
	bound func(fanIn, fanOut int) float64
}

var pytorchStarts = []pytorchStart{
	// torch_geometric.nn.inits.glorot on GATConv's lin and lin_edge weights and its att_* [1, H, C].
	{regexp.MustCompile(`/lin(_edge)?/dense/weights$`), "uniform", glorot},
	{regexp.MustCompile(`/att_(src|dst|edge)$`), "uniform", glorot},
	// nn.Linear.reset_parameters: kaiming_uniform_(a=√5) gives ±1/√fan_in; the bias ±1/√fan_in.
	{regexp.MustCompile(`/dense/(weights|biases)$`), "uniform", func(in, _ int) float64 { return 1 / math.Sqrt(float64(in)) }},
	// OGB's AtomEncoder and BondEncoder: xavier_uniform_ on the [rows, width] table.
	{regexp.MustCompile(`/(atom|bond)/feature_\d+/embeddings$`), "uniform", glorot},
	// nn.Embedding: normal_(0, 1).
	{regexp.MustCompile(`/marking/embeddings$`), "normal", func(int, int) float64 { return 1 }},
	{regexp.MustCompile(`/batch_norm/gamma$`), "one", nil},
	{regexp.MustCompile(`/(batch_norm/beta|epsilon|bias)$`), "zero", nil},
}

func glorot(in, out int) float64 { return math.Sqrt(6 / float64(in+out)) }

// OGB's get_atom_feature_dims and get_bond_feature_dims: the rows of the authors' tables, also
// for ZINC, whose single atom and bond type columns index the first.
var ogbRows = map[string][]int{"atom": {119, 5, 12, 12, 10, 6, 6, 2, 2}, "bond": {5, 6, 2}}

// TestInitPyTorch checks every trainable variable of each model against the distribution of
// the authors' module for it: exact bounds and constants, and the mean and variance of the
// draws, pooled per distribution after scaling by each variable's bound (a uniform in ±1 has
// variance 1/3), within 5 standard errors.
func TestInitPyTorch(t *testing.T) {
	table := regexp.MustCompile(`/(atom|bond)/feature_(\d+)/embeddings$`)
	for _, tc := range []struct {
		name  string
		spec  model.Spec
		over  map[string]any
		kinds []string // the distributions the model draws from
	}{
		{"subgraphormer+pe ogb", ogbSpec, map[string]any{model.ParamPEK: 4, model.ParamHidden: 240, model.ParamMaxDistance: 60}, []string{"normal", "uniform"}},
		{"subgraphormer zinc mlp", zincSpec, map[string]any{model.ParamLayerEncoder: model.MLP}, []string{"normal", "uniform"}},
		{"sswl+", ogbSpec, map[string]any{model.ParamModel: model.SSWLPlus}, []string{"normal", "uniform"}},
		{"gin", zincSpec, map[string]any{model.ParamModel: model.GIN}, []string{"uniform"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := recipe.Default("ogbg-molesol")
			maps.Copy(params, tc.over)
			params[model.ParamLayers] = 2
			ctx, _ := built(t, tc.spec, params)
			type moments struct{ n, sum, sum2 float64 }
			pooled := map[string]*moments{}
			for v := range ctx.IterVariables() {
				if !v.Trainable {
					continue
				}
				name := v.ScopeAndName()
				i := slices.IndexFunc(pytorchStarts, func(s pytorchStart) bool { return s.re.MatchString(name) })
				if i < 0 {
					t.Fatalf("%s: no PyTorch initialisation known to the test", name)
				}
				s, x := pytorchStarts[i], values(t, v)
				if s.bound == nil {
					want := map[string]float64{"one": 1, "zero": 0}[s.kind]
					if j := slices.IndexFunc(x, func(xi float64) bool { return xi != want }); j >= 0 {
						t.Fatalf("%s: %v, want %v", name, x[j], want)
					}
					continue
				}
				dims := v.Shape().Dimensions
				if v.Name() == "biases" {
					dims = ctx.GetVariableByScopeAndName(v.Scope(), "weights").Shape().Dimensions
				}
				if m := table.FindStringSubmatch(name); m != nil {
					dims = []int{ogbRows[m[1]][int(m[2][0]-'0')], dims[1]}
				}
				bound := s.bound(dims[0], dims[1])
				m := pooled[s.kind]
				if m == nil {
					m = &moments{}
					pooled[s.kind] = m
				}
				// A uniform's largest draw of n lies within 20 % of its bound but with probability 0.8ⁿ.
				if largest := slices.Max(abs(x)); s.kind == "uniform" && len(x) >= 50 && largest < 0.8*bound {
					t.Fatalf("%s: largest draw %v of %d, want close to the bound %v", name, largest, len(x), bound)
				}
				for _, xi := range x {
					if s.kind == "uniform" && math.Abs(xi) > bound*(1+1e-6) {
						t.Fatalf("%s: %v outside ±%v", name, xi, bound)
					}
					z := xi / bound
					m.n++
					m.sum += z
					m.sum2 += z * z
				}
			}
			// Moments of the scaled draws: U(−1, 1) has mean 0, variance 1/3 and E[z⁴] = 1/5;
			// N(0, 1) variance 1 and E[z⁴] = 3.
			for _, kind := range tc.kinds {
				m := pooled[kind]
				if m == nil {
					t.Errorf("no %s draws", kind)
					continue
				}
				variance, fourth := 1.0/3, 1.0/5
				if kind == "normal" {
					variance, fourth = 1, 3
				}
				mean, second := m.sum/m.n, m.sum2/m.n
				if se := math.Sqrt(variance / m.n); math.Abs(mean) > 5*se {
					t.Errorf("%s: mean %.4f over %v draws, want 0 ± %.4f", kind, mean, m.n, 5*se)
				}
				if se := math.Sqrt((fourth - variance*variance) / m.n); math.Abs(second-variance) > 5*se {
					t.Errorf("%s: variance %.4f over %v draws, want %.4f ± %.4f", kind, second, m.n, variance, 5*se)
				}
			}
		})
	}
}

// TestInitPyTorchIsTheSeeds checks that the start is a function of the seed alone: the same on
// the pure-Go and the XLA backends (GoMLX's own initialisers differ between them), and
// different for another seed.
func TestInitPyTorchIsTheSeeds(t *testing.T) {
	params := recipe.Default("ogbg-molesol")
	params[model.ParamLayers] = 1
	start := func(ctx *context.Context) map[string][]float64 {
		m := map[string][]float64{}
		for v := range ctx.IterVariables() {
			if v.Trainable {
				m[v.ScopeAndName()] = values(t, v)
			}
		}
		return m
	}
	ctx, _ := built(t, ogbSpec, params)
	goStart := start(ctx)
	xctx, _, err := training.BuildModel(xlatest.CPU(t), ogbSpec, params)
	if err != nil {
		t.Fatal(err)
	}
	if xlaStart := start(xctx); !mapsEqual(goStart, xlaStart) {
		t.Error("seed 0 starts differently on go and xla:cpu")
	}
	params[training.ParamSeed] = 1
	other, _ := built(t, ogbSpec, params)
	if mapsEqual(goStart, start(other)) {
		t.Error("seeds 0 and 1 start the same")
	}
}

func TestInitPyTorchUnknownVariable(t *testing.T) {
	ctx := context.New()
	ctx.In("mystery").VariableWithValue("w", [][]float32{{1, 2}})
	err := model.InitPyTorch(ctx, 0, model.TableRows{})
	if err == nil || !strings.Contains(err.Error(), "/mystery/w") {
		t.Fatalf("got %v, want an error naming /mystery/w", err)
	}
}

func values(t *testing.T, v *context.Variable) []float64 {
	t.Helper()
	value, err := v.Value()
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	tensors.MustConstFlatData(value, func(f []float32) {
		for _, x := range f {
			out = append(out, float64(x))
		}
	})
	return out
}

func abs(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, xi := range x {
		out[i] = math.Abs(xi)
	}
	return out
}

func mapsEqual(a, b map[string][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		if !slices.Equal(x, b[k]) {
			return false
		}
	}
	return true
}
