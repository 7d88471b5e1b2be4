package model

import (
	"fmt"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// Floats returns the values of v, a float32 or float64 variable, as float64s in row-major order.
func Floats(v *context.Variable) ([]float64, error) {
	t, err := v.Value()
	if err != nil {
		return nil, err
	}
	switch v.DType() {
	case dtypes.Float32:
		f := tensors.MustCopyFlatData[float32](t)
		values := make([]float64, len(f))
		for i, x := range f {
			values[i] = float64(x)
		}
		return values, nil
	case dtypes.Float64:
		return tensors.MustCopyFlatData[float64](t), nil
	}
	return nil, fmt.Errorf("model: variable %s has dtype %s, want float32 or float64", v.ScopeAndName(), v.DType())
}

// SetFloats sets v, a float32 or float64 variable, to values (row-major), in its dtype.
func SetFloats(v *context.Variable, values []float64) error {
	dims := v.Shape().Dimensions
	var t *tensors.Tensor
	switch v.DType() {
	case dtypes.Float32:
		f := make([]float32, len(values))
		for i, x := range values {
			f[i] = float32(x)
		}
		t = tensors.FromFlatDataAndDimensions(f, dims...)
	case dtypes.Float64:
		t = tensors.FromFlatDataAndDimensions(slices.Clone(values), dims...)
	default:
		return fmt.Errorf("model: variable %s has dtype %s, want float32 or float64", v.ScopeAndName(), v.DType())
	}
	if err := v.SetValue(t); err != nil {
		return fmt.Errorf("model: setting %s: %w", v.ScopeAndName(), err)
	}
	return nil
}
