package pytorch_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/pe"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/pytorch"
	"github.com/sgformer/sgformer/sgformer/task"
	"github.com/sgformer/sgformer/sgformer/training"
)

// The fixtures in testdata were made with the authors' code by scripts/pytorch-fixtures.py
// (which says how to regenerate them): for each, their model's configuration (NAME.yaml), its
// state_dict after a few training steps (NAME.pt), and molecules with the PE their model read and
// its outputs in evaluation (NAME.json).
var fixtures = []struct {
	name string
	spec model.Spec
}{
	{"molesol-pe", ogbSpec},     // Subgraphormer + PE (k = 2), Linear layer encoders, residual, mean pooling
	{"molesol-mlp-pe", ogbSpec}, // + their MLP layer encoders, k = 4
	{"zinc-mlp", zincSpec},      // no PE, MLP layer encoders, sum pooling per subgraph, ZINC's single atom and bond columns
}

var (
	ogbSpec  = model.Spec{NodeVocab: data.AtomFeatureDims, EdgeVocab: data.BondFeatureDims, Tasks: 1}
	zincSpec = model.Spec{NodeVocab: []int{28}, EdgeVocab: []int{4}, EdgeMin: []int{1}, Tasks: 1}
)

// fixture is a NAME.json.
type fixture struct {
	Molecules []struct {
		Graph  json.RawMessage `json:"graph"`
		PE     [][]float64     `json:"pe"`
		Output []float64       `json:"output"`
	} `json:"molecules"`
}

func goBackend(t *testing.T) backends.Backend {
	t.Helper()
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	return be
}

// imported builds the model of fixture name's configuration and imports the state_dict at path.
func imported(t *testing.T, be backends.Backend, name string, spec model.Spec, path string) (*context.Context, model.Config, *pytorch.Report) {
	t.Helper()
	cfg, err := pytorch.ReadConfig(filepath.Join("testdata", name+".yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	params, err := cfg.Params()
	if err != nil {
		t.Fatal(err)
	}
	ctx, c, err := training.BuildModel(be, spec, params)
	if err != nil {
		t.Fatal(err)
	}
	sd, err := pytorch.ReadStateDict(path)
	if err != nil {
		t.Fatal(err)
	}
	report, err := pytorch.Import(ctx, sd, c)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return ctx, c, report
}

// predictions are the model's outputs on the fixture's molecules, each fed the PE the authors'
// model read (their eigenvectors' signs are random, and degenerate eigenvalues leave the basis
// of an eigenspace arbitrary, so an independently computed PE may differ).
func predictions(t *testing.T, be backends.Backend, ctx *context.Context, c model.Config, spec model.Spec, fx *fixture) [][]float64 {
	t.Helper()
	var examples []batch.Example
	for i, m := range fx.Molecules {
		g, err := graph.ReadJSON(bytes.NewReader(m.Graph), "molecule")
		if err != nil {
			t.Fatal(err)
		}
		item, err := preprocess.Graph(g, c.Preprocess())
		if err != nil {
			t.Fatal(err)
		}
		if c.PEK > 0 {
			n := g.N()
			if len(m.PE) != n*n || len(m.PE[0]) != c.PEK {
				t.Fatalf("molecule %d: PE of %d×%d, want %d×%d", i, len(m.PE), len(m.PE[0]), n*n, c.PEK)
			}
			// Their PE as an encoding of order 1 over the n² product nodes: one basis vector
			// per column.
			enc := &pe.Encoding{N: n * n, Order: 1}
			for col := range c.PEK {
				v := make([]float64, n*n)
				for r := range v {
					v[r] = m.PE[r][col]
				}
				enc.Values = append(enc.Values, float64(col))
				enc.Factors = append(enc.Factors, col)
				enc.Basis = append(enc.Basis, v)
				enc.BasisIndex = append(enc.BasisIndex, col)
			}
			item.PE = enc
		}
		examples = append(examples, batch.Example{Graph: g, Item: item, Target: make([]float64, spec.Tasks)})
	}
	p, err := training.NewPredictor(ctx, be, spec)
	if err != nil {
		t.Fatal(err)
	}
	preds, err := p.Predict(examples)
	if err != nil {
		t.Fatal(err)
	}
	return preds
}

func readFixture(t *testing.T, name string) *fixture {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx fixture
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	return &fx
}

// checkOutputs compares predictions with the authors' outputs: within 1e-5 relative (of the
// largest output), float32 computed in another order.
func checkOutputs(t *testing.T, what string, got [][]float64, fx *fixture) {
	t.Helper()
	scale := 0.0
	for _, m := range fx.Molecules {
		for _, y := range m.Output {
			scale = max(scale, math.Abs(y))
		}
	}
	largest := 0.0
	for i, m := range fx.Molecules {
		for j, want := range m.Output {
			d := math.Abs(got[i][j] - want)
			largest = max(largest, d)
			if d > 1e-5*scale {
				t.Errorf("%s: molecule %d output %d: %.7g, the authors' model %.7g (difference %.2g, %.2g relative)", what, i, j, got[i][j], want, d, d/scale)
			}
		}
	}
	t.Logf("%s: largest difference from the authors' outputs %.2g (%.2g relative)", what, largest, largest/scale)
}

// TestImportMatchesTheAuthors imports each fixture's state_dict and compares the predictions
// with the outputs of the authors' model on the same molecules; the whole-module pickle and the
// float64 state_dict of molesol-pe must give the same.
func TestImportMatchesTheAuthors(t *testing.T) {
	be := goBackend(t)
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			fx := readFixture(t, f.name)
			paths := []string{f.name + ".pt"}
			if f.name == "molesol-pe" {
				paths = append(paths, f.name+".model.pt", f.name+".fp64.pt")
			}
			for _, path := range paths {
				ctx, c, report := imported(t, be, f.name, f.spec, filepath.Join("testdata", path))
				checkOutputs(t, path, predictions(t, be, ctx, c, f.spec, fx), fx)
				// Left out: the step counters, the tables of the bond columns after the first
				// (the authors' code reads the first only), and ZINC's atom tables after its one.
				for _, key := range report.Unused {
					if !strings.HasSuffix(key, ".num_batches_tracked") && !strings.Contains(key, ".bond_embedding_list.") &&
						!(len(f.spec.NodeVocab) == 1 && strings.Contains(key, ".atom_embedding_list.")) || strings.HasSuffix(key, "_list.0.weight") {
						t.Errorf("%s: %s left out", path, key)
					}
				}
			}
		})
	}
}

// TestExportRoundTrip exports each imported model and imports the export again: the same
// variables, bit for bit, and a state_dict with exactly the names and shapes of the authors'.
func TestExportRoundTrip(t *testing.T) {
	be := goBackend(t)
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			path := filepath.Join("testdata", f.name+".pt")
			ctx, c, _ := imported(t, be, f.name, f.spec, path)
			sd, err := pytorch.Export(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := pytorch.ReadStateDict(path)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := slices.Sorted(slices.Values(sd.Names)), slices.Sorted(slices.Values(theirs.Names)); !slices.Equal(got, want) {
				t.Fatalf("exported names\n%v\nwant the authors'\n%v", got, want)
			}
			for _, name := range theirs.Names {
				if !slices.Equal(sd.Tensors[name].Shape, theirs.Tensors[name].Shape) {
					t.Errorf("%s: exported shape %v, the authors' %v", name, sd.Tensors[name].Shape, theirs.Tensors[name].Shape)
				}
			}
			out := filepath.Join(t.TempDir(), "export.pt")
			if err := sd.Write(out); err != nil {
				t.Fatal(err)
			}
			again, c2, _ := imported(t, be, f.name, f.spec, out)
			_ = c2
			for v := range ctx.IterVariables() {
				w := again.GetVariableByScopeAndName(v.Scope(), v.Name())
				if w == nil {
					t.Fatalf("%s missing after the round trip", v.ScopeAndName())
				}
				a, b := v.MustValue(), w.MustValue()
				if !a.Equal(b) && !strings.HasPrefix(v.Name(), "#") {
					t.Errorf("%s changed in the round trip", v.ScopeAndName())
				}
			}
		})
	}
}

// TestExportRun writes an imported fixture as a run, exports it with its configuration, and
// reads both back: the configuration gives the same hyperparameters the fixture's gives, the
// state_dict the same weights, and no difference is reported (the imported model computes
// their function); a run of this implementation's bond encoder on OGB's bonds is reported.
func TestExportRun(t *testing.T) {
	be := goBackend(t)
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg, err := pytorch.ReadConfig(filepath.Join("testdata", f.name+".yaml"), nil)
			if err != nil {
				t.Fatal(err)
			}
			dataset, _ := cfg.Dataset()
			src := task.Source{Dataset: dataset, Spec: f.spec}
			run := filepath.Join(dir, "run")
			if _, err := pytorch.ImportRun(filepath.Join("testdata", f.name+".pt"), cfg, src, be, run); err != nil {
				t.Fatal(err)
			}
			exported, config := filepath.Join(dir, "export.pt"), filepath.Join(dir, "export.yaml")
			differences, err := pytorch.ExportRun(run, exported, config)
			if err != nil {
				t.Fatal(err)
			}
			if len(differences) > 0 {
				t.Errorf("differences %q, want none", differences)
			}
			again, err := pytorch.ReadConfig(config, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := cfg.Params()
			got, err := again.Params()
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range want {
				if fmt.Sprint(got[k]) != fmt.Sprint(v) {
					t.Errorf("%s: %v from the exported configuration, %v from the fixture's", k, got[k], v)
				}
			}
			back, err := pytorch.ImportRun(exported, again, src, be, filepath.Join(dir, "again"))
			if err != nil {
				t.Fatalf("importing the export: %v (report %v)", err, back)
			}
			c, _ := model.ReadConfig(newContext(want))
			c.BondEncoder = model.OGBBonds
			if d := pytorch.Differences(c, f.spec); (len(d) == 1) != (len(f.spec.EdgeVocab) > 1) {
				t.Errorf("differences of bond_encoder=ogb on %d bond columns: %q", len(f.spec.EdgeVocab), d)
			}
		})
	}
}

// newContext is a context with the defaults and params.
func newContext(params map[string]any) *context.Context {
	ctx := context.New()
	training.Defaults(ctx)
	ctx.SetParams(params)
	return ctx
}
