// Package metrics computes the evaluation metrics of the paper's benchmarks on predictions and
// targets given as rows of a graph × task table, with NaN marking a missing target.
package metrics

import (
	"fmt"
	"math"
)

// Metric is an evaluation metric: its name, whether larger is better, and how it is computed.
type Metric struct {
	Name           string
	HigherIsBetter bool
	Compute        func(pred, target [][]float64) (float64, error)
}

// ByName returns the metric called name: "mae", "rmse", "rocauc" or "ap".
func ByName(name string) (Metric, error) {
	switch name {
	case "mae":
		return Metric{"mae", false, MAE}, nil
	case "rmse":
		return Metric{"rmse", false, RMSE}, nil
	case "rocauc":
		return Metric{"rocauc", true, ROCAUC}, nil
	case "ap":
		return Metric{"ap", true, AveragePrecision}, nil
	}
	return Metric{}, fmt.Errorf("metrics: unknown metric %q (want mae, rmse, rocauc or ap)", name)
}

// Better reports whether value a is better than b under m (NaN is never better).
func (m Metric) Better(a, b float64) bool {
	if math.IsNaN(a) {
		return false
	}
	if math.IsNaN(b) {
		return true
	}
	if m.HigherIsBetter {
		return a > b
	}
	return a < b
}

// MAE is the mean absolute error over all present targets.
func MAE(pred, target [][]float64) (float64, error) {
	return meanOver(pred, target, func(d float64) float64 { return math.Abs(d) }, func(x float64) float64 { return x })
}

// RMSE is the root of the mean squared error over all present targets.
func RMSE(pred, target [][]float64) (float64, error) {
	return meanOver(pred, target, func(d float64) float64 { return d * d }, math.Sqrt)
}

func meanOver(pred, target [][]float64, f func(float64) float64, finish func(float64) float64) (float64, error) {
	if len(pred) != len(target) {
		return 0, fmt.Errorf("metrics: %d predictions for %d targets", len(pred), len(target))
	}
	sum, n := 0.0, 0
	for i := range pred {
		if len(pred[i]) != len(target[i]) {
			return 0, fmt.Errorf("metrics: row %d: %d predictions for %d targets", i, len(pred[i]), len(target[i]))
		}
		for j, y := range target[i] {
			if !math.IsNaN(y) {
				sum += f(pred[i][j] - y)
				n++
			}
		}
	}
	if n == 0 {
		return math.NaN(), fmt.Errorf("metrics: no target present")
	}
	return finish(sum / float64(n)), nil
}
