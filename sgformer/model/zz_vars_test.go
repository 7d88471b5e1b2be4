package model_test

import (
	"fmt"
	"testing"

	"github.com/sgformer/sgformer/sgformer/model"
)

func TestZZVars(t *testing.T) {
	for _, p := range []map[string]any{
		{model.ParamLayers: 2, model.ParamHidden: 24, model.ParamPEK: 2, model.ParamResidual: true, model.ParamLayerEncoder: model.Linear, model.ParamInit: model.PyTorchInit},
		{model.ParamLayers: 1, model.ParamHidden: 24, model.ParamPEK: 0, model.ParamLayerEncoder: model.MLP},
	} {
		ctx, _ := built(t, ogbSpec, p)
		for v := range ctx.IterVariables() {
			fmt.Println(v.ScopeAndName(), v.Shape(), v.Trainable)
		}
		fmt.Println("----")
	}
}
