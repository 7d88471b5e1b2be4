package training

import (
	"maps"
	"testing"
)

// SyntheticTask is syntheticTask, for the external tests of the package.
var SyntheticTask = syntheticTask

// Names in a run directory, for the external tests.
const (
	BestDir = bestDir
	RunFile = runFile
)

// A Recipe is one of package recipe's, which imports this package: the external tests hand
// them to the internal ones (SetRecipes, in recipes_test.go's init).
type Recipe struct {
	Dataset string
	Ratio   float64
	Params  map[string]any
}

// recipes are package recipe's published recipes (recipe.All), for the internal tests.
var recipes []Recipe

// SetRecipes sets the recipes the internal tests read.
func SetRecipes(all []Recipe) { recipes = all }

// recipeAt returns a copy of the hyperparameters of dataset's published recipe at sampling
// ratio p, failing the test if there is none.
func recipeAt(t testing.TB, dataset string, p float64) map[string]any {
	t.Helper()
	for _, r := range recipes {
		if r.Dataset == dataset && r.Ratio == p {
			return maps.Clone(r.Params)
		}
	}
	t.Fatalf("no recipe of %s at ratio %g among the %d set (SetRecipes)", dataset, p, len(recipes))
	return nil
}
