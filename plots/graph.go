package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/pe"
)

// A GraphOption adjusts a drawing of Graph or ProductGraph.
type GraphOption func(*drawing)

// NodeLabels writes labels[v] in the disc of node v, e.g. the element of each atom of a
// molecule; there must be one label per node drawn (an empty one leaves its disc blank).
func NodeLabels(labels []string) GraphOption {
	return func(d *drawing) { d.labels = labels }
}

// Graph draws g with node v coloured by values[v] on a diverging blue–grey–red scale (grey
// at zero when the values have both signs), with a colour bar, and its edges as lines. The
// layout is deterministic: stress majorization on shortest-path distances (Kamada–Kawai's
// objective), which draws molecules much as chemists do. A caption under the drawing gives
// the numbers of nodes and edges. values must hold one finite number per node. Options add
// node labels (NodeLabels).
func Graph(g *graph.Graph, values []float64, title string, options ...GraphOption) (*Figure, error) {
	if err := checkGraphValues(g, values, 1); err != nil {
		return nil, err
	}
	pos, err := layout(g)
	if err != nil {
		return nil, err
	}
	d := &drawing{pos: pos, values: values, cmap: nodeMap(values), maxRadius: vg.Points(9)}
	d.layers = []edgeLayer{{edges: g.Edges(), style: draw.LineStyle{Color: color.Gray{Y: 0x40}, Width: vg.Points(1.4)}}}
	if err := d.apply(options); err != nil {
		return nil, err
	}
	return d.figure(title, fmt.Sprintf("n = %d, |E| = %d", g.N(), g.NumEdges())), nil
}

// apply applies the options and checks what they set.
func (d *drawing) apply(options []GraphOption) error {
	for _, o := range options {
		o(d)
	}
	if d.labels != nil && len(d.labels) != len(d.pos) {
		return fmt.Errorf("plots: %d node labels for %d nodes", len(d.labels), len(d.pos))
	}
	return nil
}

// ProductGraph draws the product graph G□G of g, product node (s, v) coloured by
// values[s·n + v] on the scale of Graph, with a colour bar (and options as Graph's, with n²
// labels). The subgraph rooted at s is drawn
// as a small copy of G's layout placed at s's position in it, so that internal edges
// (s, v)–(s, w) lie inside a copy (dark) and external edges (s, v)–(t, v) join the copies of
// neighbouring roots (light). values must hold n² finite numbers.
func ProductGraph(g *graph.Graph, values []float64, title string, options ...GraphOption) (*Figure, error) {
	if err := checkGraphValues(g, values, 2); err != nil {
		return nil, err
	}
	n := g.N()
	pos, err := layout(g)
	if err != nil {
		return nil, err
	}
	d := &drawing{pos: productLayout(pos), values: values, cmap: nodeMap(values), maxRadius: vg.Points(5)}
	var internal, external []graph.Edge
	for _, e := range g.Edges() {
		for x := range n {
			internal = append(internal, graph.Edge{x*n + e[0], x*n + e[1]}) // (x, e₀)–(x, e₁)
			external = append(external, graph.Edge{e[0]*n + x, e[1]*n + x}) // (e₀, x)–(e₁, x)
		}
	}
	d.layers = []edgeLayer{
		{edges: external, style: draw.LineStyle{Color: color.Gray{Y: 0xB8}, Width: vg.Points(0.5)}},
		{edges: internal, style: draw.LineStyle{Color: color.Gray{Y: 0x30}, Width: vg.Points(0.9)}},
	}
	if err := d.apply(options); err != nil {
		return nil, err
	}
	return d.figure(title, "dark: internal edges (s, v)–(s, w);  light: external edges (s, v)–(t, v)"), nil
}

// EigenvectorFigure makes the figure of Sec. 4.2 of the paper ("Visualizing product graph
// PE") for g: on the left G coloured by the first non-trivial eigenvector v₁ of its Laplacian,
// on the right G□G coloured by the first column of the product-graph PE as the authors
// compute it (pe.Reference): v₁ ⊗ v₁, an eigenvector of L_{G□G} with eigenvalue 2λ₁, whose
// entries v₁(s)·v₁(v) take more distinct values (the paper's "ten colours instead of four").
// Each title gives the number of distinct values. g needs at least two nodes.
func EigenvectorFigure(g *graph.Graph) (*Figure, error) {
	if g == nil || g.N() < 2 {
		return nil, errors.New("plots: the eigenvector figure needs a graph of at least two nodes")
	}
	spec, err := pe.NewSpectrum(g)
	if err != nil {
		return nil, err
	}
	enc, err := pe.Reference(spec, 1)
	if err != nil {
		return nil, err
	}
	if enc.Columns() == 0 {
		return nil, errors.New("plots: the graph has no non-trivial eigenvector")
	}
	v1 := spec.Vectors[1]
	prod := firstColumn(enc)
	left, err := Graph(g, v1, fmt.Sprintf("G: v₁, λ₁ = %.3g (%d values)", spec.Values[1], distinct(v1)))
	if err != nil {
		return nil, err
	}
	right, err := ProductGraph(g, prod, fmt.Sprintf("G□G: v₁(s)·v₁(v), λ = 2λ₁ = %.3g (%d values)", enc.Values[0], distinct(prod)))
	if err != nil {
		return nil, err
	}
	left.Panels[0].ColorBar.Label = "v₁(v)"
	right.Panels[0].ColorBar.Label = "v₁(s)·v₁(v)"
	return &Figure{Width: 11 * vg.Inch, Height: 4.6 * vg.Inch, DPI: DefaultDPI, Panels: append(left.Panels, right.Panels...)}, nil
}

// firstColumn returns the first column of enc.
func firstColumn(enc *pe.Encoding) []float64 {
	d := enc.Dense()
	out := make([]float64, enc.Rows())
	for r := range out {
		out[r] = d.At(r, 0)
	}
	return out
}

// distinct counts the distinct values of vs, equal within 1e-9 of the largest magnitude.
func distinct(vs []float64) int {
	s := slices.Clone(vs)
	slices.Sort(s)
	tol := 1e-9 * max(math.Abs(s[0]), math.Abs(s[len(s)-1]))
	count := 1
	for i := 1; i < len(s); i++ {
		if s[i]-s[i-1] > tol {
			count++
		}
	}
	return count
}

func checkGraphValues(g *graph.Graph, values []float64, order int) error {
	if g == nil || g.N() == 0 {
		return errors.New("plots: no graph to draw")
	}
	want := int(math.Pow(float64(g.N()), float64(order)))
	if len(values) != want {
		return fmt.Errorf("plots: %d node values for %d nodes", len(values), want)
	}
	for i, v := range values {
		if !finite(v) {
			return fmt.Errorf("plots: node value %d is %v", i, v)
		}
	}
	return nil
}

// nodeMap returns the colour map of node values.
func nodeMap(values []float64) palette.ColorMap {
	return divergingMap(colorRange(values))
}

// drawing is a plot.Plotter drawing a node-link diagram: positions in layout units mapped to
// the data area at equal scale on both axes, edges in layers (drawn in order), then the nodes
// as discs coloured by values.
type drawing struct {
	pos       [][2]float64
	layers    []edgeLayer
	values    []float64
	labels    []string // one per node, or none
	cmap      palette.ColorMap
	maxRadius vg.Length
}

type edgeLayer struct {
	edges []graph.Edge
	style draw.LineStyle
}

// figure wraps the drawing in a one-panel figure with a colour bar; caption goes under it.
func (d *drawing) figure(title, caption string) *Figure {
	p := newPlot(title, caption, "")
	p.HideAxes()
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Label.TextStyle.Font.Size = tickSize
	p.Add(d)
	return &Figure{Width: 5.5 * vg.Inch, Height: 5 * vg.Inch, DPI: DefaultDPI,
		Panels: []Panel{{Plot: p, ColorBar: &ColorBar{Map: d.cmap}}}}
}

// Plot implements plot.Plotter.
func (d *drawing) Plot(c draw.Canvas, _ *plot.Plot) {
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	gap := math.Inf(1)
	for i, p := range d.pos {
		for k := range 2 {
			lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
		}
		for _, q := range d.pos[:i] {
			gap = min(gap, math.Hypot(p[0]-q[0], p[1]-q[1]))
		}
	}
	margin := d.maxRadius + vg.Points(1)
	w, h := c.Max.X-c.Min.X-2*margin, c.Max.Y-c.Min.Y-2*margin
	scale := vg.Length(math.Inf(1))
	if hi[0] > lo[0] {
		scale = w / vg.Length(hi[0]-lo[0])
	}
	if hi[1] > lo[1] {
		scale = min(scale, h/vg.Length(hi[1]-lo[1]))
	}
	if math.IsInf(float64(scale), 1) {
		scale = 0
	}
	radius := d.maxRadius
	if !math.IsInf(gap, 1) {
		radius = max(min(radius, 0.4*scale*vg.Length(gap)), vg.Points(1))
	}
	center := c.Center()
	at := func(i int) vg.Point {
		return vg.Point{
			X: center.X + scale*vg.Length(d.pos[i][0]-(lo[0]+hi[0])/2),
			Y: center.Y + scale*vg.Length(d.pos[i][1]-(lo[1]+hi[1])/2),
		}
	}
	for _, l := range d.layers {
		for _, e := range l.edges {
			c.StrokeLines(l.style, []vg.Point{at(e[0]), at(e[1])})
		}
	}
	outline := draw.LineStyle{Color: color.Gray{Y: 0x20}, Width: min(vg.Points(0.7), radius/5)}
	for i := range d.pos {
		col, err := d.cmap.At(d.values[i])
		if err != nil {
			col = color.Black
		}
		var disc vg.Path
		disc.Move(vg.Point{X: at(i).X + radius, Y: at(i).Y}) // SVG paths must start with a move
		disc.Arc(at(i), radius, 0, 2*math.Pi)
		disc.Close()
		c.SetColor(col)
		c.Fill(disc)
		c.SetLineStyle(outline)
		c.Stroke(disc)
		if d.labels != nil && d.labels[i] != "" {
			style := textStyle(min(1.1*radius, vg.Points(10)), draw.XCenter, draw.YCenter)
			if r, g, b, _ := col.RGBA(); 299*r+587*g+114*b < 1000*0x8000 { // white on dark discs
				style.Color = color.White
			}
			c.FillText(style, at(i), d.labels[i])
		}
	}
}
