package recipe_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/training"
)

// config returns the validated configuration of a recipe.
func config(t *testing.T, params map[string]any) training.Config {
	t.Helper()
	ctx := context.New()
	training.Defaults(ctx)
	ctx.SetParams(params)
	c, err := training.ReadConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every recipe's layers, learning rate, width, epochs, batch size, dropout and k are the
// paper's, copied here from its appendix tables "Best hyperparameters for Subgraphormer + PE in
// full bag settings" and "… in stochastic sampling settings", one line per table row.
func TestRecipesArePapers(t *testing.T) {
	for _, tc := range []struct {
		dataset               string
		ratio                 float64
		layers                int
		lr                    float64
		hidden, epochs, batch int
		dropout               float64
		k                     int
	}{
		// Full bag.
		{"zinc12k", 1, 6, 0.0005, 96, 400, 128, 0, 8},
		{"zinc-full", 1, 6, 0.0005, 96, 400, 128, 0, 16},
		{"ogbg-molhiv", 1, 2, 0.1, 60, 100, 32, 0.3, 8},
		{"ogbg-molesol", 1, 3, 0.001, 60, 100, 32, 0.5, 2},
		{"ogbg-molbace", 1, 3, 0.001, 60, 100, 32, 0.3, 16},
		{"alchemy12k", 1, 5, 0.01, 96, 400, 128, 0, 16},
		// Stochastic sampling.
		{"zinc12k", 0.5, 6, 0.0005, 96, 400, 128, 0, 8},
		{"ogbg-molhiv", 0.5, 2, 0.1, 60, 100, 32, 0.3, 8},
		{"ogbg-molesol", 0.5, 3, 0.001, 60, 100, 32, 0.5, 2},
		{"ogbg-molbace", 0.5, 3, 0.001, 60, 100, 32, 0.3, 8},
		{"peptides-func", 0.3, 5, 0.003, 96, 200, 128, 0, 16},
		{"peptides-struct", 0.3, 4, 0.005, 96, 200, 128, 0, 16},
		{"zinc12k", 0.2, 6, 0.0005, 96, 800, 128, 0, 8},
		{"ogbg-molhiv", 0.2, 2, 0.1, 60, 100, 32, 0.3, 8},
		{"ogbg-molesol", 0.2, 12, 0.001, 60, 100, 32, 0.5, 1},
		{"ogbg-molbace", 0.2, 3, 0.001, 60, 100, 32, 0.3, 8},
		{"zinc12k", 0.05, 6, 0.0005, 96, 800, 128, 0, 8},
		{"ogbg-molhiv", 0.05, 2, 0.1, 60, 100, 32, 0.3, 8},
		{"ogbg-molesol", 0.05, 12, 0.001, 60, 100, 32, 0.5, 2},
		{"ogbg-molbace", 0.05, 3, 0.001, 60, 100, 32, 0.3, 2},
	} {
		params, published := recipe.At(tc.dataset, tc.ratio)
		if !published {
			t.Errorf("%s at %g: no recipe", tc.dataset, tc.ratio)
			continue
		}
		c := config(t, params)
		got := []any{c.Model.Layers, c.LearningRate, c.Model.Hidden, c.Epochs, c.BatchSize, c.Model.Dropout, c.Model.PEK, c.SamplingRatio}
		want := []any{tc.layers, tc.lr, tc.hidden, tc.epochs, tc.batch, tc.dropout, tc.k, tc.ratio}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s at %g: (layers, lr, hidden, epochs, batch, dropout, k, ratio) = %v, the paper's %v", tc.dataset, tc.ratio, got, want)
				break
			}
		}
	}
	published := 0
	for _, r := range recipe.All {
		if r.Dataset != "synthetic" {
			published++
		}
	}
	if published != 20 {
		t.Errorf("%d published recipes, the paper's two tables have 20 rows", published)
	}
}

// What the paper's tables leave out comes from its "Optimizers and Schedulers" paragraph and
// the authors' yamls and utils/training.py.
func TestRecipesAreAuthors(t *testing.T) {
	for _, tc := range []struct {
		dataset             string
		ratio               float64
		optimizer, schedule string
		minLR               float64
		patience            int
		loss, metric        string
		encoder, pooling    string
		residual, edges     bool
		evalSamples, warmup int
	}{
		{"zinc12k", 1, training.Adam, training.Plateau, 0, 20, "l1", "mae", model.MLP, model.SubgraphMean, false, true, 5, 0},
		{"zinc12k", 0.2, training.Adam, training.Plateau, 0, 20, "l1", "mae", model.MLP, model.SubgraphMean, false, true, 5, 0},
		{"zinc-full", 1, training.Adam, training.Plateau, 0, 20, "l1", "mae", model.MLP, model.SubgraphMean, false, true, 5, 0},
		{"alchemy12k", 1, training.Adam, training.Plateau, 1e-7, 20, "l1", "mae", model.Linear, model.Mean, true, true, 5, 0},
		{"ogbg-molhiv", 1, training.ASAM, training.Constant, 0, 40, "bce", "rocauc", model.Linear, model.Mean, true, true, 5, 0},
		{"ogbg-molesol", 1, training.Adam, training.Constant, 0, 40, "rmse", "rmse", model.Linear, model.Mean, true, true, 5, 0},
		{"ogbg-molbace", 0.05, training.Adam, training.Constant, 0, 40, "bce", "rocauc", model.Linear, model.Mean, true, true, 5, 0},
		{"peptides-func", 0.3, training.AdamW, training.Cosine, 0, 40, "bce", "ap", model.MLP, model.Mean, false, false, 3, 10},
		{"peptides-struct", 0.3, training.AdamW, training.Cosine, 0, 40, "l1", "mae", model.MLP, model.Mean, false, false, 3, 10},
	} {
		params, _ := recipe.At(tc.dataset, tc.ratio)
		c := config(t, params)
		got := []any{c.Optimizer, c.Schedule, c.MinLearningRate, c.PlateauPatience, c.Loss, c.Metric.Name, c.Model.LayerEncoder,
			c.Model.Pooling, c.Model.Residual, c.Model.EdgeFeatures, c.EvalSamples, c.WarmupEpochs, c.WeightDecay}
		want := []any{tc.optimizer, tc.schedule, tc.minLR, tc.patience, tc.loss, tc.metric, tc.encoder,
			tc.pooling, tc.residual, tc.edges, tc.evalSamples, tc.warmup, 0.0}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s at %g: %v, want %v", tc.dataset, tc.ratio, got, want)
				break
			}
		}
		if c.Model.PEMode != "reference" {
			t.Errorf("%s at %g: pe_mode %s, want the authors' procedure", tc.dataset, tc.ratio, c.Model.PEMode)
		}
	}
}

// A sampling ratio without a published recipe gets the dataset's first recipe at that ratio;
// an unknown dataset gets none; every recipe is a valid configuration.
func TestRecipeAt(t *testing.T) {
	params, published := recipe.At("zinc-full", 0.5)
	if c := config(t, params); published || c.SamplingRatio != 0.5 || c.EvalSamples != 5 || c.Model.PEK != 16 {
		t.Errorf("zinc-full at 0.5: published %v, %+v", published, c)
	}
	if params, published := recipe.At("cora", 1); params != nil || published {
		t.Errorf("cora: %v, %v", params, published)
	}
	for _, r := range recipe.All {
		config(t, r.Params)
	}
}

// A table of molecules gets ours recipe for its task: ogbg-molbace's, with L1/MAE for
// regression and BCE/ROC-AUC for classification.
func TestCSVRecipes(t *testing.T) {
	molbace := recipe.Default("ogbg-molbace")
	for _, tc := range []struct {
		task         data.Task
		loss, metric string
	}{{data.Regression, "l1", "mae"}, {data.Classification, "bce", "rocauc"}} {
		name := recipe.CSVName(tc.task)
		params, published := recipe.At(name, 1)
		if !published || params[training.ParamLoss] != tc.loss || params[training.ParamMetric] != tc.metric {
			t.Errorf("%s: loss %v, metric %v (published %v)", name, params[training.ParamLoss], params[training.ParamMetric], published)
		}
		for key, v := range molbace {
			if key != training.ParamLoss && key != training.ParamMetric && !reflect.DeepEqual(params[key], v) {
				t.Errorf("%s: %s = %v, ogbg-molbace's %v", name, key, params[key], v)
			}
		}
		if p, _ := recipe.At(name, 0.5); p[training.ParamSamplingRatio] != 0.5 || p[training.ParamLoss] != tc.loss {
			t.Errorf("%s at 50 %%: %v", name, p)
		}
		if d := recipe.Default(name); !reflect.DeepEqual(d, params) {
			t.Errorf("%s: default recipe %v", name, d)
		}
	}
	for _, r := range recipe.All {
		if strings.HasPrefix(r.Dataset, "csv") {
			t.Errorf("ours recipe %s among the paper's", r.Dataset)
		}
	}
}
