package kernelext

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/sgformer/sgformer/sgformer/training"
)

// Size of the figure PolylineCurves draws, in pixels: two panels side by side.
const (
	curvesWidth, curvesHeight = 640, 220
	panelWidth                = curvesWidth / 2
	marginLeft, marginRight   = 52, 12
	marginTop, marginBottom   = 26, 22
)

// series is one curve: its name, colour and value per record.
type series struct {
	name, color string
	value       func(training.Record) float64
}

// PolylineCurves is the Renderer LiveTraining uses: a light SVG of two panels, the training
// loss on the left and the validation and test metric on the right, each curve a polyline with
// one point per record (records with a non-finite value are left out), the latest point
// marked and its value in the legend, the best epoch (named by the last record) dashed. A panel's vertical axis is logarithmic when its values
// are positive and span more than a decade. It never fails.
//
// It is not plots.Curves, the figure of a finished run, for two reasons of a live one: a run that
// diverges (a NaN loss) is still drawn, where plots.Curves refuses non-finite records, and it is
// some fifty times cheaper to redraw after every epoch (hand-written SVG, no plotting library).
func PolylineCurves(records []training.Record, metric string) (SVGer, error) {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`,
		curvesWidth, curvesHeight, curvesWidth, curvesHeight)
	best := 0
	if len(records) > 0 {
		best = records[len(records)-1].BestEpoch
	}
	panel(&b, 0, records, 0, []series{{"train loss", "#0072B2", func(r training.Record) float64 { return r.TrainLoss }}})
	panel(&b, panelWidth, records, best, []series{
		{"val " + metric, "#E69F00", func(r training.Record) float64 { return r.Valid }},
		{"test " + metric, "#009E73", func(r training.Record) float64 { return r.Test }},
	})
	b.WriteString("</svg>")
	return svgDocument(b.String()), nil
}

// svgDocument is an SVG document as text.
type svgDocument string

// SVG implements SVGer.
func (s svgDocument) SVG() ([]byte, error) { return []byte(s), nil }

// panel draws the curves of ss against the epoch in the panel whose left edge is at x0, and a
// dashed vertical line at epoch best if it is in range (0: none).
func panel(b *strings.Builder, x0 int, records []training.Record, best int, ss []series) {
	left, right := float64(x0+marginLeft), float64(x0+panelWidth-marginRight)
	top, bottom := float64(marginTop), float64(curvesHeight-marginBottom)

	// Ranges of the epochs and of the finite values.
	firstEpoch, lastEpoch := math.Inf(1), math.Inf(-1)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range records {
		for _, s := range ss {
			if v := s.value(r); !math.IsNaN(v) && !math.IsInf(v, 0) {
				firstEpoch, lastEpoch = min(firstEpoch, float64(r.Epoch)), max(lastEpoch, float64(r.Epoch))
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	fmt.Fprintf(b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#bbb"/>`, left, top, right-left, bottom-top)
	if lo > hi {
		return // nothing finite to draw
	}
	logScale := lo > 0 && hi > 10*lo
	scale := func(v float64) float64 {
		if logScale {
			return math.Log10(v)
		}
		return v
	}
	x := func(epoch int) float64 {
		if lastEpoch == firstEpoch {
			return (left + right) / 2
		}
		return left + (float64(epoch)-firstEpoch)/(lastEpoch-firstEpoch)*(right-left)
	}
	y := func(v float64) float64 {
		if hi == lo {
			return (top + bottom) / 2
		}
		return bottom - (scale(v)-scale(lo))/(scale(hi)-scale(lo))*(bottom-top)
	}

	// Axis labels: the value range ("log" marks a logarithmic axis) and the epoch range.
	fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="end">%.3g</text>`, left-4, top+8, hi)
	fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="end">%.3g</text>`, left-4, bottom, lo)
	if logScale {
		fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="end" fill="#666">log</text>`, left-4, (top+bottom)/2)
	}
	fmt.Fprintf(b, `<text x="%g" y="%g">%g</text>`, left, bottom+14, firstEpoch)
	fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="middle" fill="#666">epoch</text>`, (left+right)/2, bottom+14)
	fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="end">%g</text>`, right, bottom+14, lastEpoch)

	if e := float64(best); best > 0 && e >= firstEpoch && e <= lastEpoch {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#999" stroke-dasharray="3,3"/>`, x(best), top, x(best), bottom)
	}
	legendX := left
	for _, s := range ss {
		var points []string
		var lastX, lastY, lastV float64
		for _, r := range records {
			v := s.value(r)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			lastX, lastY, lastV = x(r.Epoch), y(v), v
			points = append(points, fmt.Sprintf("%.1f,%.1f", lastX, lastY))
		}
		if len(points) == 0 {
			continue
		}
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`, s.color, strings.Join(points, " "))
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>`, lastX, lastY, s.color)
		label := fmt.Sprintf("%s %.4g", s.name, lastV)
		fmt.Fprintf(b, `<text x="%g" y="%g" fill="%s">%s</text>`, legendX, top-8, s.color, html.EscapeString(label))
		legendX += 7*float64(len(label)) + 12
	}
}
