package recipe_test

import (
	"fmt"

	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/training"
)

// The paper's recipe for ogbg-molesol at a sampling ratio of 20 % (its appendix table "Best
// hyperparameters … stochastic sampling"), and at 30 %, which the paper does not give: the
// full-bag recipe at that ratio.
func ExampleAt() {
	for _, p := range []float64{0.2, 0.3} {
		params, published := recipe.At("ogbg-molesol", p)
		fmt.Println(p, published, params[model.ParamLayers], params[model.ParamPEK], params[training.ParamSamplingRatio], params[training.ParamEvalSamples])
	}
	// Output:
	// 0.2 true 12 1 0.2 5
	// 0.3 false 3 2 0.3 5
}
