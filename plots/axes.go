package plots

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// integerTicks labels integers (epochs, indices) at a step of 1, 2 or 5 times a power of ten,
// the least that gives at most six intervals.
var integerTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	step := 1.0
	for i := 0; (hi-lo)/step > 6; i++ {
		step = []float64{2, 5, 10}[i%3] * math.Pow(10, float64(i/3))
	}
	start := math.Ceil(lo/step) * step
	if start == 0 {
		start = 0 // not −0
	}
	var ticks []plot.Tick
	for v := start; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return ticks
})

// logTicks labels the powers of ten over a range of two decades or more, and the 1–2–5
// sequence within each decade over a narrower one (where powers of ten alone would leave
// at most one label).
var logTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	if hi/lo >= 100 {
		return plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', 6, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
})

// useLogScale reports whether values are best shown on a log axis: all positive and
// spanning more than a decade.
func useLogScale(values ...[]float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, vs := range values {
		for _, v := range vs {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo > 0 && hi > 10*lo
}

// setLogScale puts a on a log scale whose range covers the data already added to the plot,
// widened to half a decade when the data has a single value.
func setLogScale(a *plot.Axis) {
	a.Scale = plot.LogScale{}
	a.Tick.Marker = logTicks
	if a.Min == a.Max {
		a.Min, a.Max = a.Min/math.Sqrt(10), a.Max*math.Sqrt(10)
	}
}
