package metrics

import (
	"math"
	"testing"
)

func TestRegressionMetrics(t *testing.T) {
	nan := math.NaN()
	pred := [][]float64{{1, 5}, {2, 0}, {4, 1}}
	target := [][]float64{{2, nan}, {2, 3}, {0, nan}}
	// Present: |1−2| = 1, |2−2| = 0, |0−3| = 3, |4−0| = 4.
	if got, err := MAE(pred, target); err != nil || got != 2 {
		t.Errorf("MAE = %v, %v; want 2", got, err)
	}
	if got, err := RMSE(pred, target); err != nil || math.Abs(got-math.Sqrt(26.0/4)) > 1e-15 {
		t.Errorf("RMSE = %v, %v; want √6.5", got, err)
	}
	if _, err := MAE([][]float64{{1}}, [][]float64{{nan}}); err == nil {
		t.Error("MAE with no present target succeeded")
	}
	if _, err := MAE([][]float64{{1}}, nil); err == nil {
		t.Error("MAE with mismatched rows succeeded")
	}
	m, _ := ByName("mae")
	if !m.Better(0.1, 0.2) || m.Better(nan, 0.2) || !m.Better(0.3, nan) {
		t.Error("Better for MAE")
	}
	if _, err := ByName("auc"); err == nil {
		t.Error("unknown metric accepted")
	}
	for _, name := range []string{"rocauc", "ap"} {
		if m, err := ByName(name); err != nil || !m.HigherIsBetter || !m.Better(0.9, 0.8) {
			t.Errorf("%s: %+v, %v", name, m, err)
		}
	}
}
