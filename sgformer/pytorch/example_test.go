package pytorch_test

import (
	"fmt"
	"path/filepath"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/pytorch"
	"github.com/sgformer/sgformer/sgformer/training"
)

// A model the authors' code trained, brought over: their configuration read as
// hyperparameters, the model built, their state_dict's tensors set as its variables.
func ExampleImport() {
	cfg, err := pytorch.ReadConfig(filepath.Join("testdata", "molesol-pe.yaml"), nil)
	if err != nil {
		panic(err)
	}
	params, err := cfg.Params()
	if err != nil {
		panic(err)
	}
	sd, err := pytorch.ReadStateDict(filepath.Join("testdata", "molesol-pe.pt"))
	if err != nil {
		panic(err)
	}
	be, err := backend.New("go")
	if err != nil {
		panic(err)
	}
	spec := model.Spec{NodeVocab: data.AtomFeatureDims, EdgeVocab: data.BondFeatureDims, Tasks: 1}
	ctx, c, err := training.BuildModel(be, spec, params)
	if err != nil {
		panic(err)
	}
	report, err := pytorch.Import(ctx, sd, c)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d layers of width %d, bond encoder %s\n", c.Layers, c.Hidden, c.BondEncoder)
	fmt.Printf("%d tensors in the state_dict, %d left out:\n", len(sd.Names), len(report.Unused))
	for _, name := range report.Unused[:3] {
		fmt.Println(" ", name)
	}
	// Output:
	// 2 layers of width 24, bond encoder authors
	// 70 tensors in the state_dict, 10 left out:
	//   EDGE_ENCODER.0.uL.embed.bond_embedding_list.1.weight
	//   EDGE_ENCODER.0.uL.embed.bond_embedding_list.2.weight
	//   EDGE_ENCODER.0.vL.embed.bond_embedding_list.1.weight
}
