package report

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/task"
	"github.com/sgformer/sgformer/sgformer/training"
)

// A RecipeRow is a recipe of recipe.All as templates/recipes.md.tmpl lists it: its
// configuration, sampling, optimiser and schedule, and the parameter count of its model, ours
// and the authors' get_model_params for the same configuration (model.ParameterCounts), "—"
// for a dataset whose dimensions are known only from its files (task.SpecOf): alchemy12k,
// whose atoms and bonds the authors' model embeds with linear maps
// (yamls/alchemy_deterministic.yaml).
type RecipeRow struct {
	R                           recipe.Recipe
	C                           training.Config
	Sampling, Optimiser, Params string
}

// Recipes returns the rows of recipe.All.
func Recipes() ([]RecipeRow, error) {
	var rows []RecipeRow
	for _, r := range recipe.All {
		c, _, err := ConfigOf(r.Params)
		if err != nil {
			return nil, fmt.Errorf("%s at %g: %w", r.Dataset, r.Ratio, err)
		}
		x := RecipeRow{R: r, C: c, Sampling: "full bag", Optimiser: optimiser(c), Params: "—"}
		if _, ok := task.SpecOf(r.Dataset); ok {
			ours, theirs, err := parameterCounts(r.Dataset, r.Params)
			if err != nil {
				return nil, fmt.Errorf("%s at %g: %w", r.Dataset, r.Ratio, err)
			}
			x.Params = fmt.Sprintf("%s / %s", Thousands(ours), Thousands(theirs))
		}
		if c.SamplingRatio < 1 {
			x.Sampling = fmt.Sprintf("%g %%, %d draws", 100*c.SamplingRatio, c.EvalSamples)
		}
		rows = append(rows, x)
	}
	return rows, nil
}

// ConfigOf is the configuration of a run with params, and the context holding every
// parameter's value.
func ConfigOf(params map[string]any) (training.Config, *context.Context, error) {
	ctx := context.New()
	training.Defaults(ctx)
	ctx.SetParams(params)
	cfg, err := training.ReadConfig(ctx)
	return cfg, ctx, err
}

// parameterCounts are the parameters of the model of dataset with params: ours, and as the
// authors' get_model_params counts them (model.ParameterCounts; 0 but for Subgraphormer's).
func parameterCounts(dataset string, params map[string]any) (ours, theirs int, err error) {
	be, err := backend.New("go")
	if err != nil {
		return 0, 0, err
	}
	spec, ok := task.SpecOf(dataset)
	if !ok {
		return 0, 0, fmt.Errorf("the dimensions of %s are known only from its files (task.SpecOf)", dataset)
	}
	ctx, cfg, err := training.BuildModel(be, spec, params)
	if err != nil {
		return 0, 0, err
	}
	ours, theirs = model.ParameterCounts(ctx, cfg)
	return ours, theirs, nil
}

// optimiser describes the optimiser and schedule of c.
func optimiser(c training.Config) string {
	var o string
	switch c.Optimizer {
	case training.ASAM:
		o = fmt.Sprintf("ASAM (ρ %g, η %g) over SGD (momentum %g)", c.ASAMRho, c.ASAMEta, c.Momentum)
	case training.AdamW:
		o = fmt.Sprintf("AdamW (weight decay %g)", c.WeightDecay)
	default:
		o = "Adam"
	}
	switch c.Schedule {
	case training.Plateau:
		return fmt.Sprintf("%s, ReduceLROnPlateau (%g, patience %d, min %g)", o, c.PlateauFactor, c.PlateauPatience, c.MinLearningRate)
	case training.Cosine:
		return fmt.Sprintf("%s, %d warm-up epochs, cosine to %g", o, c.WarmupEpochs, c.MinLearningRate)
	}
	return o + ", constant"
}

// Thousands writes n with a comma between groups of three digits.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
