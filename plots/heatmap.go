package plots

import (
	"errors"
	"fmt"
	"image"
	"image/color"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/sgformer/sgformer/sgformer/product"
)

// heatmapPixels is the least number of pixels along the longer side of a heatmap's image:
// each cell is a block of equal pixels, so that cells stay sharp when the image is scaled.
const heatmapPixels = 1000

// Heatmap draws the matrix m with entry (i, j) in row i (counted from the top) and column j,
// axes labelled by row and column index, and a colour bar: white to blue when m has no
// negative entry (e.g. an AdjacencyMatrix of a product-graph connectivity, n²×n² with
// product node (s, v) at index s·n + v), blue–grey–red centred on zero when it has both signs
// (e.g. a PE table, pe.Encoding.Dense). m must be non-empty with finite entries.
func Heatmap(title string, m mat.Matrix) (*Figure, error) {
	rows, cols := m.Dims()
	if rows == 0 || cols == 0 {
		return nil, fmt.Errorf("plots: heatmap %q: empty %d×%d matrix", title, rows, cols)
	}
	values := make([]float64, 0, rows*cols)
	for i := range rows {
		for j := range cols {
			v := m.At(i, j)
			if !finite(v) {
				return nil, fmt.Errorf("plots: heatmap %q: entry (%d, %d) is %v", title, i, j, v)
			}
			values = append(values, v)
		}
	}
	lo, hi := colorRange(values)
	cmap := sequentialMap(lo, hi)
	if lo < 0 {
		cmap = divergingMap(lo, hi)
	}

	k := max(1, (heatmapPixels+max(rows, cols)-1)/max(rows, cols))
	img := image.NewNRGBA(image.Rect(0, 0, cols*k, rows*k))
	for i := range rows {
		for j := range cols {
			col, err := cmap.At(values[i*cols+j])
			if err != nil {
				return nil, fmt.Errorf("plots: heatmap %q: %w", title, err)
			}
			for y := i * k; y < (i+1)*k; y++ {
				for x := j * k; x < (j+1)*k; x++ {
					img.Set(x, y, col)
				}
			}
		}
	}
	p := newPlot(title, "column", "row")
	// Cell (i, j) is centred on (j, −i): row 0 on top, and integer ticks fall on cell centres.
	p.Add(plotter.NewImage(img, -0.5, -float64(rows)+0.5, float64(cols)-0.5, 0.5))
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Tick.Marker = integerTicks
	p.Y.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		ticks := integerTicks.Ticks(-hi, -lo)
		for i := range ticks {
			ticks[i].Value = -ticks[i].Value
		}
		return ticks
	})
	return &Figure{Width: 5.3 * vg.Inch, Height: 4.6 * vg.Inch, DPI: DefaultDPI,
		Panels: []Panel{{Plot: p, ColorBar: &ColorBar{Map: cmap}}}}, nil
}

// ProductHeatmap is Heatmap for a matrix indexed by the n² product nodes of G□G (product node
// (s, v) at index s·n + v) along its rows, its columns or both, with lines between the n blocks
// of each such axis: block (s, s') then holds the entries between subgraphs s and s'.
func ProductHeatmap(title string, m mat.Matrix, n int) (*Figure, error) {
	rows, cols := m.Dims()
	if n < 1 || rows != n*n && cols != n*n {
		return nil, fmt.Errorf("plots: product heatmap %q: a %d×%d matrix has no axis of n² = %d product nodes", title, rows, cols, n*n)
	}
	f, err := Heatmap(title, m)
	if err != nil {
		return nil, err
	}
	style := draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: vg.Points(0.5)}
	add := func(a, b plotter.XY) {
		l, _ := plotter.NewLine(plotter.XYs{a, b}) // finite points: no error
		l.LineStyle = style
		f.Panels[0].Plot.Add(l)
	}
	for s := 1; s < n; s++ {
		at := float64(s*n) - 0.5 // between product nodes s·n − 1 and s·n
		if cols == n*n {
			add(plotter.XY{X: at, Y: 0.5}, plotter.XY{X: at, Y: 0.5 - float64(rows)})
		}
		if rows == n*n {
			add(plotter.XY{X: -0.5, Y: -at}, plotter.XY{X: float64(cols) - 0.5, Y: -at})
		}
	}
	return f, nil
}

// AdjacencyMatrix returns the dense nodes×nodes adjacency matrix of a product-graph
// connectivity: entry (Dst[e], Src[e]) is 1 for every edge e, so that row i lists the nodes
// that send messages to node i (for the full product graph, nodes is n² and product node
// (s, v) has index s·n + v). Every index must lie in [0, nodes).
func AdjacencyMatrix(nodes int, e product.Edges) (*mat.Dense, error) {
	if nodes <= 0 {
		return nil, fmt.Errorf("plots: adjacency of %d nodes: want at least one", nodes)
	}
	if len(e.Dst) != len(e.Src) {
		return nil, errors.New("plots: adjacency: edges have different numbers of destinations and sources")
	}
	a := mat.NewDense(nodes, nodes, nil)
	for i := range e.Dst {
		d, s := int(e.Dst[i]), int(e.Src[i])
		if d < 0 || d >= nodes || s < 0 || s >= nodes {
			return nil, fmt.Errorf("plots: adjacency: edge %d (%d ← %d) leaves the %d nodes", i, d, s, nodes)
		}
		a.Set(d, s, 1)
	}
	return a, nil
}
