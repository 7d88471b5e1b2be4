package plots

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/plot"
)

// Linear axes label their major ticks distinctly and exactly, however narrow the range, and a
// constant series gets a range around its value.
func TestLinearTicks(t *testing.T) {
	for _, r := range [][2]float64{{2.01, 2.09}, {0.8, 0.86}, {-1, 1}, {0, 1200}, {1e-4, 3e-4}, {99.9, 100.4}} {
		var labels []string
		for _, tick := range linearTicks.Ticks(r[0], r[1]) {
			if tick.Label == "" {
				continue
			}
			v, err := strconv.ParseFloat(tick.Label, 64)
			if err != nil || math.Abs(v-tick.Value) > 1e-6*(r[1]-r[0]) || slices.Contains(labels, tick.Label) || tick.Label == "-0" {
				t.Errorf("range %v: tick %v labelled %q after %q", r, tick.Value, tick.Label, labels)
			}
			labels = append(labels, tick.Label)
		}
		if len(labels) < 2 {
			t.Errorf("range %v: labels %q", r, labels)
		}
	}
	for _, v := range []float64{0.001, 0, -3} {
		a := plot.Axis{Min: v, Max: v}
		widenFlat(&a)
		if !(a.Min < v && v < a.Max) || a.Max-a.Min > math.Max(2, math.Abs(v)) {
			t.Errorf("constant %v: axis [%v, %v]", v, a.Min, a.Max)
		}
	}
}
