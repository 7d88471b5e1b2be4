// Package plots draws publication-quality figures of Subgraphormer's objects and runs with
// gonum/plot, as SVG or PNG: training curves of a run (Curves), matrices such as the
// product-graph adjacencies A_G, A_{G^S}, A_point or a PE table (Heatmap, AdjacencyMatrix),
// graphs and product graphs coloured by a node vector (Graph, ProductGraph), the paper's
// Sec. 4.2 figure of the first non-trivial eigenvector on G and on G□G (EigenvectorFigure),
// and line charts with error bars for ablations and timings (Lines, Ablation).
//
// Every constructor returns a Figure: one or more panels side by side with a fixed size.
// Its fields may be adjusted (a title, a font, the PNG resolution) before it is rendered
// with SVG, PNG or Save. Layouts, colour scales and tick choices are deterministic, so a
// figure regenerated from the same data is the same.
package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/sgformer/sgformer/internal/atomicfile"
)

// Figure is a figure of one or more panels drawn side by side, each given the same width,
// under an optional overall title.
type Figure struct {
	// Title, if not empty, is drawn centred above the panels.
	Title string
	// Width and Height are the size of the whole figure.
	Width, Height vg.Length
	// DPI is the resolution of PNG output in dots per inch (SVG is resolution independent).
	DPI int
	// Panels are drawn left to right.
	Panels []Panel
}

// Panel is one plot of a Figure, with an optional vertical colour bar on its right that
// spans the height of the plot's data area.
type Panel struct {
	Plot *plot.Plot
	// ColorBar, if not nil, is drawn on the right of Plot.
	ColorBar *ColorBar
}

// DefaultDPI is the PNG resolution of the figures this package makes.
const DefaultDPI = 150

// Text sizes and fonts shared by every figure.
var (
	sansFont   = font.Font{Typeface: "Liberation", Variant: "Sans"}
	titleSize  = vg.Points(12)
	labelSize  = vg.Points(11)
	tickSize   = vg.Points(9.5)
	legendSize = vg.Points(9.5)
)

// Series colours: the Okabe–Ito palette, distinguishable with the common colour-vision
// deficiencies and in greyscale by their glyphs and dashes.
var seriesColors = []color.Color{
	color.RGBA{0x00, 0x72, 0xB2, 0xFF}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	color.RGBA{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	color.RGBA{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	color.RGBA{0xE6, 0x9F, 0x00, 0xFF}, // orange
	color.RGBA{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	color.RGBA{0x00, 0x00, 0x00, 0xFF}, // black
}

// newPlot returns a plot with the package's fonts and sizes.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sansFont, titleSize)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, labelSize)
		a.Tick.Label.Font = font.From(sansFont, tickSize)
		a.Tick.Length = vg.Points(4)
		a.Padding = vg.Points(3)
	}
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Y.Tick.Marker = linearTicks
	return p
}

// SVG renders the figure as an SVG document.
func (f *Figure) SVG() ([]byte, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	c := vgsvg.New(f.Width, f.Height)
	svg, err := f.render(c, func(w io.Writer) error { _, err := c.WriteTo(w); return err })
	// gonum's SVG canvas embeds images (a heatmap's cells) as PNG data labelled JPEG and
	// lets viewers keep the image's aspect ratio, which shifts the cells off the axes.
	return bytes.ReplaceAll(svg, []byte(`xlink:href="data:image/jpg;base64,`),
		[]byte(`preserveAspectRatio="none" xlink:href="data:image/png;base64,`)), err
}

// PNG renders the figure as a PNG image of Width×Height at DPI dots per inch.
func (f *Figure) PNG() ([]byte, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	c := vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(f.DPI))
	return f.render(c, func(w io.Writer) error { return png.Encode(w, c.Image()) })
}

// Save writes the figure to path, as SVG or PNG according to its extension (.svg or .png),
// atomically: readers see the previous file or the new one, never a partial one.
func (f *Figure) Save(path string) error {
	var (
		data []byte
		err  error
	)
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg":
		data, err = f.SVG()
	case ".png":
		data, err = f.PNG()
	default:
		return fmt.Errorf("plots: cannot save %s: unknown image format %q, want .svg or .png", path, ext)
	}
	if err != nil {
		return fmt.Errorf("plots: %s: %w", path, err)
	}
	return atomicfile.Write(path, data)
}

func (f *Figure) check() error {
	switch {
	case f.Width <= 0 || f.Height <= 0:
		return fmt.Errorf("plots: figure size %v×%v must be positive", f.Width, f.Height)
	case f.DPI <= 0:
		return fmt.Errorf("plots: figure DPI %d must be positive", f.DPI)
	case len(f.Panels) == 0:
		return errors.New("plots: figure has no panels")
	}
	for i, p := range f.Panels {
		if p.Plot == nil {
			return fmt.Errorf("plots: panel %d has no plot", i)
		}
	}
	return nil
}

// render draws the figure on c and returns what write writes. gonum/plot reports some invalid
// settings (e.g. a non-positive value on a log axis) by panicking; those become errors.
func (f *Figure) render(c vg.CanvasSizer, write func(io.Writer) error) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("plots: rendering the figure: %v", r)
		}
	}()
	f.draw(draw.New(c))
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Spacing of a figure: the margin around it, the gap between panels, and the space under the
// overall title.
var (
	figureMargin = vg.Points(6)
	panelGap     = vg.Points(14)
	titleGap     = vg.Points(8)
)

func (f *Figure) draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, figureMargin, -figureMargin, figureMargin, -figureMargin)
	if f.Title != "" {
		sty := textStyle(titleSize+vg.Points(1), draw.XCenter, draw.YTop)
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y}, f.Title)
		c.Max.Y -= sty.Height(f.Title) + titleGap
	}
	tiles := draw.Tiles{Cols: len(f.Panels), Rows: 1, PadX: panelGap}
	for i, p := range f.Panels {
		p.draw(tiles.At(c, i, 0))
	}
}

func (p Panel) draw(c draw.Canvas) {
	main := c
	if p.ColorBar != nil {
		main.Max.X -= p.ColorBar.width()
	}
	p.Plot.Draw(main)
	if p.ColorBar != nil {
		data := p.Plot.DataCanvas(main)
		bar := c
		bar.Min = vg.Point{X: main.Max.X, Y: data.Min.Y}
		bar.Max.Y = data.Max.Y
		p.ColorBar.draw(bar)
	}
}

// textStyle returns a black text style in the package's font.
func textStyle(size vg.Length, x draw.XAlignment, y draw.YAlignment) text.Style {
	return text.Style{Color: color.Black, Font: font.From(sansFont, size), XAlign: x, YAlign: y, Handler: plot.DefaultTextHandler}
}
