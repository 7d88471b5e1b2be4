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

// linearTicks are gonum's default ticks of a linear axis, each major one labelled with the
// fewest decimals that give its value exactly (gonum's own labels of 2.02, 2.04 and 2.06 read
// "2", "2" and "2.1").
var linearTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	step := hi - lo
	var majors []float64
	for _, t := range ticks {
		if t.Label != "" {
			if len(majors) > 0 {
				step = min(step, t.Value-majors[len(majors)-1])
			}
			majors = append(majors, t.Value)
		}
	}
	exact := func(decimals int) bool {
		for _, v := range majors {
			got, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', decimals, 64), 64)
			if math.Abs(got-v) > 1e-6*step {
				return false
			}
		}
		return true
	}
	decimals := 0
	for decimals < 15 && !exact(decimals) {
		decimals++
	}
	for i, t := range ticks {
		if t.Label != "" {
			if math.Abs(t.Value) < 1e-9*step {
				t.Value = 0 // not −0
			}
			ticks[i].Label = strconv.FormatFloat(t.Value, 'f', decimals, 64)
		}
	}
	return ticks
})

// widenFlat widens the range of a linear axis whose data has a single value (a constant
// series) to ±10 % of it (±1 around 0), instead of gonum's ±1 whatever the value.
func widenFlat(a *plot.Axis) {
	if a.Min != a.Max {
		return
	}
	d := math.Abs(a.Min) / 10
	if d == 0 {
		d = 1
	}
	a.Min, a.Max = a.Min-d, a.Max+d
}

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
