package model_test

import (
	"fmt"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/training"
)

// The size of Subgraphormer + PE with the paper's ogbg-molesol recipe (3 blocks of width 60,
// k = 2), built once on two small graphs, and what the authors' get_model_params reports for it.
func ExampleParameterCounts() {
	be, err := backend.New("go")
	if err != nil {
		fmt.Println(err)
		return
	}
	spec := model.Spec{NodeVocab: []int{119, 5, 12, 12, 10, 6, 6, 2, 2}, EdgeVocab: []int{5, 6, 2}, Tasks: 1} // OGB's molecules
	ctx, cfg, err := training.BuildModel(be, spec, recipe.Default("ogbg-molesol"))
	if err != nil {
		fmt.Println(err)
		return
	}
	ours, authors := model.ParameterCounts(ctx, cfg)
	fmt.Println(cfg.Model, cfg.Layers, "×", cfg.Hidden, "k =", cfg.PEK)
	fmt.Printf("parameters: %d (the authors' get_model_params: %d)\n", ours, authors)
	// Output:
	// subgraphormer 3 × 60 k = 2
	// parameters: 52502 (the authors' get_model_params: 41330)
}
