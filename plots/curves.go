package plots

import (
	"errors"
	"fmt"
	"image/color"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/sgformer/sgformer/sgformer/training"
)

// Curves draws the training curves of a run from its records (one per epoch, as in the run's
// metrics.jsonl): the training loss, the validation and test metric with the best epoch
// marked, and the learning rate, each against the epoch. metric names the metric in the labels
// (e.g. "mae").
//
// The best epoch is the one the last record names (Record.BestEpoch): the epoch whose
// checkpoint the run keeps as best. The loss and metric panels use a log scale when their
// values are positive and span more than a decade, the learning rate whenever it is
// positive. When an epoch appears twice (a resumed run that repeated it), the later record
// counts. Records must be non-empty, with finite values.
func Curves(recs []training.Record, metric string) (*Figure, error) {
	if len(recs) == 0 {
		return nil, errors.New("plots: no training records to plot")
	}
	byEpoch := make(map[int]training.Record, len(recs))
	for _, r := range recs {
		if !finite(r.TrainLoss) || !finite(r.Valid) || !finite(r.Test) || !finite(r.LR) {
			return nil, fmt.Errorf("plots: the record of epoch %d holds a non-finite value", r.Epoch)
		}
		byEpoch[r.Epoch] = r
	}
	epochs := make([]int, 0, len(byEpoch))
	for e := range byEpoch {
		epochs = append(epochs, e)
	}
	slices.Sort(epochs)
	best, ok := byEpoch[recs[len(recs)-1].BestEpoch]
	if !ok {
		return nil, fmt.Errorf("plots: the best epoch %d named by the last record is not among the records", recs[len(recs)-1].BestEpoch)
	}

	column := func(get func(training.Record) float64) plotter.XYs {
		xys := make(plotter.XYs, len(epochs))
		for i, e := range epochs {
			xys[i] = plotter.XY{X: float64(e), Y: get(byEpoch[e])}
		}
		return xys
	}
	loss := column(func(r training.Record) float64 { return r.TrainLoss })
	valid := column(func(r training.Record) float64 { return r.Valid })
	test := column(func(r training.Record) float64 { return r.Test })
	lr := column(func(r training.Record) float64 { return r.LR })
	name := strings.ToUpper(metric)
	if name == "" {
		name = "metric"
	}

	lossPlot := newPlot("Training loss", "epoch", "training loss")
	lossPlot.Add(grid())
	if err := addSeries(lossPlot, nil, "", loss, 0, len(epochs) <= 30); err != nil {
		return nil, err
	}
	if useLogScale(ys(loss)) {
		setLogScale(&lossPlot.Y)
	}

	metricPlot := newPlot("Validation and test "+name, "epoch", name)
	metricPlot.Add(grid())
	bestLine := draw.LineStyle{Color: color.Gray{Y: 0x70}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
	metricPlot.Add(vline{x: float64(best.Epoch), style: bestLine})
	leg := newLegend()
	leg.vlines = []float64{float64(best.Epoch)}
	if err := addSeries(metricPlot, leg, "validation", valid, 0, len(epochs) <= 30); err != nil {
		return nil, err
	}
	if err := addSeries(metricPlot, leg, "test", test, 1, len(epochs) <= 30); err != nil {
		return nil, err
	}
	dots, err := plotter.NewScatter(plotter.XYs{{X: float64(best.Epoch), Y: best.Valid}, {X: float64(best.Epoch), Y: best.Test}})
	if err != nil {
		return nil, err
	}
	dots.GlyphStyle = draw.GlyphStyle{Shape: draw.RingGlyph{}, Radius: vg.Points(4.5), Color: color.Black}
	metricPlot.Add(dots)
	leg.Add(fmt.Sprintf("best epoch %d", best.Epoch), dots)
	leg.lines = append(leg.lines, dots.XYs)
	if useLogScale(ys(valid), ys(test)) {
		setLogScale(&metricPlot.Y)
	}

	lrPlot := newPlot("Learning rate", "epoch", "learning rate")
	lrPlot.Add(grid())
	lrLine, err := plotter.NewLine(lr)
	if err != nil {
		return nil, err
	}
	lrLine.StepStyle = plotter.PostStep
	lrLine.LineStyle = draw.LineStyle{Color: seriesColors[2], Width: vg.Points(1.5)}
	lrPlot.Add(lrLine)
	if slices.Min(ys(lr)) > 0 {
		setLogScale(&lrPlot.Y)
	}

	fig := &Figure{Width: 11 * vg.Inch, Height: 3.6 * vg.Inch, DPI: DefaultDPI}
	for _, p := range []*plot.Plot{lossPlot, metricPlot, lrPlot} {
		p.X.Tick.Marker = integerTicks
		p.X.Min = min(p.X.Min, 0)
		if _, log := p.Y.Scale.(plot.LogScale); !log {
			widenFlat(&p.Y)
		}
		fig.Panels = append(fig.Panels, Panel{Plot: p})
	}
	// The data area of a panel is about 2.7 by 1.8 inches under a figure title.
	leg.makeRoom(metricPlot, 2.7*vg.Inch, 1.8*vg.Inch)
	metricPlot.Add(leg)
	return fig, nil
}

// ys returns the Y values of xys.
func ys(xys plotter.XYs) []float64 {
	out := make([]float64, len(xys))
	for i, xy := range xys {
		out[i] = xy.Y
	}
	return out
}

// grid returns light grid lines at the major ticks.
func grid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical = draw.LineStyle{Color: color.Gray{Y: 0xE0}, Width: vg.Points(0.5)}
	g.Horizontal = g.Vertical
	return g
}

// vline is a vertical line across the whole data area at x.
type vline struct {
	x     float64
	style draw.LineStyle
}

// Plot implements plot.Plotter.
func (l vline) Plot(c draw.Canvas, p *plot.Plot) {
	x, _ := p.Transforms(&c)
	c.StrokeLine2(l.style, x(l.x), c.Min.Y, x(l.x), c.Max.Y)
}
