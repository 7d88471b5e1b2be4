package training_test

import (
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/training"
)

// The internal tests train and measure the published recipes, which package recipe holds.
func init() {
	all := make([]training.Recipe, len(recipe.All))
	for i, r := range recipe.All {
		all[i] = training.Recipe{Dataset: r.Dataset, Ratio: r.Ratio, Params: r.Params}
	}
	training.SetRecipes(all)
}
