package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ColorBar is a vertical colour scale: the colours of Map from its Min (bottom) to its Max
// (top), with tick labels on the right.
type ColorBar struct {
	Map palette.ColorMap
	// Label, if not empty, is written vertically to the right of the tick labels.
	Label string
}

// Geometry of a colour bar, left to right: gap, bar, tick, tick label, label.
var (
	colorBarGap   = vg.Points(10)
	colorBarWidth = vg.Points(11)
	colorBarTick  = vg.Points(3)
	colorBarPad   = vg.Points(3)
)

// colorBarSteps is the number of colour steps of a colour bar.
const colorBarSteps = 128

func (b *ColorBar) ticks() []plot.Tick {
	var major []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(b.Map.Min(), b.Map.Max()) {
		if !t.IsMinor() && t.Value >= b.Map.Min() && t.Value <= b.Map.Max() {
			major = append(major, t)
		}
	}
	return major
}

// width returns the horizontal space the colour bar takes.
func (b *ColorBar) width() vg.Length {
	sty := textStyle(tickSize, draw.XLeft, draw.YCenter)
	var labels vg.Length
	for _, t := range b.ticks() {
		labels = max(labels, sty.Width(t.Label))
	}
	w := colorBarGap + colorBarWidth + colorBarTick + colorBarPad + labels
	if b.Label != "" {
		w += colorBarPad + textStyle(labelSize, draw.XCenter, draw.YTop).Height(b.Label)
	}
	return w
}

// draw draws the colour bar in c, whose height is the bar's.
func (b *ColorBar) draw(c draw.Canvas) {
	lo, hi := b.Map.Min(), b.Map.Max()
	x0 := c.Min.X + colorBarGap
	x1 := x0 + colorBarWidth
	h := c.Max.Y - c.Min.Y
	for i := range colorBarSteps {
		col, err := b.Map.At(lo + (float64(i)+0.5)/colorBarSteps*(hi-lo))
		if err != nil {
			continue
		}
		y0 := c.Min.Y + h*vg.Length(i)/colorBarSteps
		y1 := c.Min.Y + h*vg.Length(i+1)/colorBarSteps
		if i+1 < colorBarSteps {
			y1 += h / colorBarSteps / 2 // overlap the next step: no hairline seams
		}
		c.FillPolygon(col, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	}
	frame := draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}
	c.StrokeLines(frame, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}, {X: x0, Y: c.Min.Y}})
	sty := textStyle(tickSize, draw.XLeft, draw.YCenter)
	var labels vg.Length
	for _, t := range b.ticks() {
		y := c.Min.Y + h*vg.Length((t.Value-lo)/(hi-lo))
		c.StrokeLine2(frame, x1, y, x1+colorBarTick, y)
		c.FillText(sty, vg.Point{X: x1 + colorBarTick + colorBarPad, Y: y}, t.Label)
		labels = max(labels, sty.Width(t.Label))
	}
	if b.Label != "" {
		ls := textStyle(labelSize, draw.XCenter, draw.YTop)
		ls.Rotation = math.Pi / 2 // reads upwards; its top faces the tick labels
		c.FillText(ls, vg.Point{X: x1 + colorBarTick + 2*colorBarPad + labels, Y: c.Center().Y}, b.Label)
	}
}

// colorRange returns the range a colour scale spans for values: symmetric about zero when
// the values have both signs (so that the neutral middle of a diverging scale means zero),
// otherwise their range; widened when all values are equal.
func colorRange(values []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range values {
		lo, hi = min(lo, v), max(hi, v)
	}
	switch {
	case lo < 0 && hi > 0:
		m := max(-lo, hi)
		return -m, m
	case lo == hi:
		d := max(math.Abs(lo)/2, 0.5)
		return lo - d, hi + d
	}
	return lo, hi
}

// divergingMap returns Moreland's cool–warm diverging colour map over [lo, hi]: blue, light
// grey at the midpoint, red.
func divergingMap(lo, hi float64) palette.ColorMap {
	m := moreland.SmoothBlueRed()
	m.SetMin(lo)
	m.SetMax(hi)
	return m
}

// sequentialMap returns a white-to-dark-blue colour map of increasing luminance contrast over
// [lo, hi], for non-negative quantities such as adjacencies.
func sequentialMap(lo, hi float64) palette.ColorMap {
	dark, err := moreland.NewLuminance([]color.Color{
		color.NRGBA{0x08, 0x30, 0x6B, 0xFF},
		color.NRGBA{0x6B, 0xAE, 0xD6, 0xFF},
		color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF},
	})
	if err != nil {
		panic(err) // the control colours are fixed, of increasing luminance
	}
	m := palette.Reverse(dark)
	m.SetMin(lo)
	m.SetMax(hi)
	return m
}
