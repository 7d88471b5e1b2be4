package plots

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legend is a plot.Plotter drawing a legend inside the data area where it hides the least
// of the data: at the candidate position (the four corners and the middle of the top and
// bottom edges) covering the fewest sampled points of the lines and markers drawn, the top
// right on ties. Added last, it is drawn over everything else.
type legend struct {
	plot.Legend
	// lines are the polylines and markers drawn (a marker is a one-point line), in data
	// coordinates; vlines the X of vertical lines across the whole data area.
	lines  []plotter.XYs
	vlines []float64
}

// legendInset separates the legend from the edges of the data area and from the data.
var legendInset = vg.Points(4)

// newLegend returns an empty legend in the package's style.
func newLegend() *legend {
	l := &legend{Legend: plot.NewLegend()}
	l.TextStyle.Font.Typeface, l.TextStyle.Font.Variant = sansFont.Typeface, sansFont.Variant
	l.TextStyle.Font.Size = legendSize
	l.ThumbnailWidth = vg.Points(22)
	l.Padding = vg.Points(2)
	return l
}

// empty reports whether the legend has no entries.
func (l *legend) empty() bool { return l.Rectangle(draw.Canvas{}).Size().Y == 0 }

// box is a candidate position of the legend, as fractions of the data area.
type box struct{ x0, x1, y0, y1 float64 }

// candidates returns the candidate boxes of a legend of fw×fh (fractions of the data area),
// in order of preference.
func candidates(fw, fh float64) []box {
	var out []box
	for _, y := range [][2]float64{{1 - fh, 1}, {0, fh}} {
		for _, x := range [][2]float64{{1 - fw, 1}, {0, fw}, {(1 - fw) / 2, (1 + fw) / 2}} {
			out = append(out, box{x[0], x[1], y[0], y[1]})
		}
	}
	return out
}

// cost counts the sampled points of the data that fall in b.
func (l *legend) cost(p *plot.Plot, b box) int {
	in := func(x, y float64) bool { return x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1 }
	n := 0
	for _, x := range l.vlines {
		if in(p.X.Norm(x), (b.y0+b.y1)/2) {
			n += 100
		}
	}
	const samples = 24 // per segment
	for _, line := range l.lines {
		for i, xy := range line {
			x, y := p.X.Norm(xy.X), p.Y.Norm(xy.Y)
			if i == 0 {
				if in(x, y) {
					n++
				}
				continue
			}
			px, py := p.X.Norm(line[i-1].X), p.Y.Norm(line[i-1].Y)
			for k := 1; k <= samples; k++ {
				t := float64(k) / samples
				if in(px+t*(x-px), py+t*(y-py)) {
					n++
				}
			}
		}
	}
	return n
}

// best returns the candidate box with the least cost for a data area of w×h, and that cost.
func (l *legend) best(p *plot.Plot, w, h vg.Length) (box, int) {
	size := l.Rectangle(draw.Canvas{}).Size()
	fw := float64((size.X + 2*legendInset) / w)
	fh := float64((size.Y + 2*legendInset) / h)
	var bestBox box
	bestCost := math.MaxInt
	for _, b := range candidates(fw, fh) {
		if c := l.cost(p, b); c < bestCost {
			bestBox, bestCost = b, c
		}
	}
	return bestBox, bestCost
}

// makeRoom raises the top of p's Y axis, once all the data is added, so that the legend fits
// above the data when no candidate position is free, for a data area of about w×h.
func (l *legend) makeRoom(p *plot.Plot, w, h vg.Length) {
	if l.empty() {
		return
	}
	if _, cost := l.best(p, w, h); cost == 0 {
		return
	}
	fh := float64((l.Rectangle(draw.Canvas{}).Size().Y + 3*legendInset) / h)
	if fh > 0.8 {
		return // too tall a legend to make room for
	}
	if _, log := p.Y.Scale.(plot.LogScale); log {
		p.Y.Max = p.Y.Min * math.Pow(p.Y.Max/p.Y.Min, 1/(1-fh))
	} else {
		p.Y.Max = p.Y.Min + (p.Y.Max-p.Y.Min)/(1-fh)
	}
}

// Plot implements plot.Plotter: it draws the legend in the best position in c.
func (l *legend) Plot(c draw.Canvas, p *plot.Plot) {
	if l.empty() {
		return
	}
	w, h := c.Max.X-c.Min.X, c.Max.Y-c.Min.Y
	b, _ := l.best(p, w, h)
	size := l.Rectangle(draw.Canvas{}).Size()
	l.Top, l.Left = b.y0 > 0, b.x1 < 1
	switch {
	case b.x1 == 1:
		l.XOffs = -legendInset
	case b.x0 == 0:
		l.XOffs = legendInset
	default:
		l.XOffs = (w - size.X) / 2
	}
	l.YOffs = legendInset
	if l.Top {
		l.YOffs = -legendInset
	}
	l.Legend.Draw(c)
}
