package plots

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one line of a chart: Mean[i] at X[i], with an error bar from Mean[i] − Std[i] to
// Mean[i] + Std[i] where Std is not nil (e.g. the mean and standard deviation over seeds).
type Series struct {
	// Name labels the series in the legend; a series without a name has no legend entry.
	Name         string
	X, Mean, Std []float64
}

// Lines draws each series as a line with markers, error bars where Std is given, and a
// legend of their names, with a log-scale Y axis when logY is set: e.g. the time of the
// product-graph PE and of a brute-force eigendecomposition of L_{G□G} as n grows. Each series
// needs at least one point, finite values, Std nil or as long as X and non-negative, and with
// logY every Mean − Std positive.
func Lines(title, xLabel, yLabel string, logY bool, series []Series) (*Figure, error) {
	if len(series) == 0 {
		return nil, errors.New("plots: no series to plot")
	}
	p := newPlot(title, xLabel, yLabel)
	p.Add(grid())
	leg := newLegend()
	for i, s := range series {
		if err := s.check(logY); err != nil {
			return nil, fmt.Errorf("plots: series %d (%q): %w", i, s.Name, err)
		}
		xys := make(plotter.XYs, len(s.X))
		for j := range xys {
			xys[j] = plotter.XY{X: s.X[j], Y: s.Mean[j]}
		}
		if s.Std != nil {
			bars, err := plotter.NewYErrorBars(errorXYs{xys, s.Std})
			if err != nil {
				return nil, fmt.Errorf("plots: series %d (%q): %w", i, s.Name, err)
			}
			bars.LineStyle = draw.LineStyle{Color: seriesColors[i%len(seriesColors)], Width: vg.Points(1)}
			bars.CapWidth = vg.Points(6)
			p.Add(bars)
			for j := range xys {
				leg.lines = append(leg.lines, plotter.XYs{{X: s.X[j], Y: s.Mean[j] - s.Std[j]}, {X: s.X[j], Y: s.Mean[j] + s.Std[j]}})
			}
		}
		if err := addSeries(p, leg, s.Name, xys, i, true); err != nil {
			return nil, fmt.Errorf("plots: series %d (%q): %w", i, s.Name, err)
		}
	}
	if logY {
		setLogScale(&p.Y)
	}
	fig := &Figure{Width: 5.5 * vg.Inch, Height: 4 * vg.Inch, DPI: DefaultDPI, Panels: []Panel{{Plot: p}}}
	leg.makeRoom(p, fig.Width-vg.Inch, fig.Height-1.2*vg.Inch)
	p.Add(leg)
	return fig, nil
}

// Ablation draws an ablation chart: each series' Mean ± Std (required) against X on linear
// axes, e.g. the test MAE against the subgraph sampling ratio with and without PE.
func Ablation(title, xLabel, yLabel string, series []Series) (*Figure, error) {
	for i, s := range series {
		if s.Std == nil {
			return nil, fmt.Errorf("plots: ablation series %d (%q) has no standard deviations", i, s.Name)
		}
	}
	return Lines(title, xLabel, yLabel, false, series)
}

func (s Series) check(logY bool) error {
	switch {
	case len(s.X) == 0:
		return errors.New("no points")
	case len(s.Mean) != len(s.X):
		return fmt.Errorf("%d means for %d x values", len(s.Mean), len(s.X))
	case s.Std != nil && len(s.Std) != len(s.X):
		return fmt.Errorf("%d standard deviations for %d x values", len(s.Std), len(s.X))
	}
	for j, x := range s.X {
		sd := 0.0
		if s.Std != nil {
			sd = s.Std[j]
		}
		switch {
		case !finite(x) || !finite(s.Mean[j]) || !finite(sd):
			return fmt.Errorf("point %d is not finite (x %v, mean %v, std %v)", j, x, s.Mean[j], sd)
		case sd < 0:
			return fmt.Errorf("point %d has a negative standard deviation %v", j, sd)
		case logY && s.Mean[j]-sd <= 0:
			return fmt.Errorf("point %d (x %v): mean − std = %v cannot be shown on a log scale", j, x, s.Mean[j]-sd)
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// errorXYs are points with symmetric error bars of ±std.
type errorXYs struct {
	plotter.XYs
	std []float64
}

// YError implements plotter.YErrorer.
func (e errorXYs) YError(i int) (float64, float64) { return e.std[i], e.std[i] }

// Line dashes and marker shapes of the series, in order, so that series stay apart in
// greyscale.
var (
	seriesDashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(6), vg.Points(2), vg.Points(2), vg.Points(2)}}
	seriesGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}}
)

// addSeries adds xys to p as the i-th series: a line, with markers if glyphs is set, and, if
// leg is not nil, to the data leg avoids, with an entry if name is not empty.
func addSeries(p *plot.Plot, leg *legend, name string, xys plotter.XYs, i int, glyphs bool) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	col := seriesColors[i%len(seriesColors)]
	l.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: seriesDashes[i%len(seriesDashes)]}
	p.Add(l)
	thumbs := []plot.Thumbnailer{l}
	if glyphs {
		s, err := plotter.NewScatter(xys)
		if err != nil {
			return err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.8), Shape: seriesGlyphs[i%len(seriesGlyphs)]}
		p.Add(s)
		thumbs = append(thumbs, s)
	}
	if leg == nil {
		return nil
	}
	leg.lines = append(leg.lines, xys)
	if name != "" {
		leg.Add(name, thumbs...)
	}
	return nil
}
