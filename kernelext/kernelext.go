// Package kernelext displays the project's results inline in GoNB notebooks: figures of
// package plots (saved as PNG, which renders wherever a notebook is opened), HTML tables of results
// with mean ± standard deviation over seeds, a live view of a training run that redraws
// one output cell after each epoch, and interactive explorers built on GoNB's widgets.
//
// Each explorer is one call in a notebook cell, and draws each state of its controls with a
// pure function of the library's objects (ProductFrame, PEFrame, SamplingFrame):
//
//	kernelext.Must(kernelext.ExploreProduct("zinc12k:5853"))   // a subgraph of G□G and its neighbourhood
//	kernelext.Must(kernelext.ExplorePE("Cn1cnc2c1c(=O)n(C)c(=O)n2C")) // the product-graph PE, column by column
//	kernelext.Must(kernelext.ExploreSampling(kernelext.ZINC5853))    // stochastic subgraph sampling
//	summary, err := kernelext.Train(ctx, task, training.Options{Out: dir, Backend: be}) // live curves and Stop
//
// Where a notebook front end listens (a browser), an explorer stays live until its Done button
// is pressed, a cell below it is queued to run (Run All goes on without anyone pressing a
// button), IdleTimeout passes without a change or the kernel is interrupted, then leaves its
// last figure in the output as an image; where none does (nbconvert, CI; or
// SGFORMER_WIDGETS=static), it draws its default state as an image. Must, Show, LoadMolecule,
// DataDir, Dataset, Path and Task are the one-line helpers the notebooks' first cells use.
//
// Every function is split in two: one builds the HTML, SVG or PNG, and works and is tested
// anywhere; the other sends it to the notebook through GoNB's gonbui package, and returns
// ErrNotInKernel when the program is not run by a GoNB kernel. In a notebook:
//
//	fig, err := plots.Curves(records, "mae")
//	if err == nil {
//		err = kernelext.Figure(fig)
//	}
//
//	table := kernelext.ResultsTable("ZINC-12k, test MAE", []string{"model", "MAE"},
//		[][]string{{"subgraphormer", kernelext.MeanStd(maes, 3)}})
//	err = kernelext.DisplayHTML(table)
//
//	live := kernelext.LiveTraining("mae", 40)
//	summary, err := training.Train(ctx, task, training.Options{Out: dir, Backend: backend,
//		OnEpoch: live.OnEpoch, Progress: live})
//	live.Finish()
//
// In a notebook, importing the package also sets the Go runtime's soft memory limit to 90 % of
// the memory available (the container's cgroup limit on Binder), as the sgformer command does
// (unless $GOMEMLIMIT is set): a cell that trains then collects its garbage rather than being
// killed for it.
package kernelext

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/plots"
)

func init() { limitMemory(gonbui.IsNotebook) }

// limitMemory sets the soft memory limit in a notebook and returns it (0: none set).
func limitMemory(inNotebook bool) int64 {
	if !inNotebook {
		return 0
	}
	return memory.SoftLimit(0.9)
}

// ErrNotInKernel is returned by the functions that display something when the program does
// not run in a GoNB kernel (gonbui.IsNotebook is false): nothing was displayed.
var ErrNotInKernel = errors.New("kernelext: not running in a GoNB kernel, nothing displayed")

// SVGer is a figure that renders itself as an SVG document; *plots.Figure is one, and so are
// the live curves of a training run (PolylineCurves).
type SVGer interface {
	SVG() ([]byte, error)
}

// DisplayHTML displays html as an output of the running cell. It returns ErrNotInKernel
// outside a GoNB kernel, and the error of the connection to the kernel if it broke.
func DisplayHTML(html string) error {
	return display("", Bundle{Data: map[protocol.MIMEType]any{protocol.MIMETextHTML: html}})
}

// updateHTML replaces the contents of the output with the given display id (creating it the
// first time) by html, with DisplayHTML's errors.
func updateHTML(id, html string) error {
	return display(id, Bundle{Data: map[protocol.MIMEType]any{protocol.MIMETextHTML: html}})
}

// display sends b as an output of the running cell: a new one when id is "", else the output
// with display id id, created the first time and replaced after.
func display(id string, b Bundle) error {
	if !gonbui.IsNotebook {
		return ErrNotInKernel
	}
	gonbui.SendData(&protocol.DisplayData{Data: b.Data, Metadata: b.Metadata, DisplayID: id})
	return gonbui.Error()
}

// Bundle is an output as Jupyter keeps it: its content in one or more MIME types, and their
// metadata (an image's display size).
type Bundle struct {
	Data     map[protocol.MIMEType]any
	Metadata map[string]any
}

// Figure displays the figure f in the running cell as FigureBundle makes it.
func Figure(f *plots.Figure) error {
	b, err := FigureBundle(f)
	if err != nil {
		return err
	}
	return display("", b)
}

// FigureBundle renders f as the output a notebook saves: a PNG at f's resolution, shown at f's
// size (its metadata), with f's title as text/plain for readers that show no images. PNG, not
// SVG or HTML, because it is what every front end renders in a notebook it did not run itself:
// JupyterLab and Notebook 7 sanitise the HTML of an untrusted notebook (inline SVG is removed)
// and do not run their SVG renderer for it; GitHub and nbviewer show PNG too.
func FigureBundle(f *plots.Figure) (Bundle, error) {
	png, err := f.PNG()
	if err != nil {
		return Bundle{}, fmt.Errorf("kernelext: rendering the figure: %w", err)
	}
	// CSS pixels: 96 an inch, 72 points an inch.
	return pngBundle(png, describe(f), int(math.Round(f.Width.Points()*96/72)), int(math.Round(f.Height.Points()*96/72))), nil
}

// pngBundle is the output of a PNG image shown at width × height CSS pixels, with text, in
// brackets, for readers that show no images.
func pngBundle(png []byte, text string, width, height int) Bundle {
	return Bundle{
		Data:     map[protocol.MIMEType]any{protocol.MIMEImagePNG: png, protocol.MIMETextPlain: "[" + text + "]"},
		Metadata: map[string]any{string(protocol.MIMEImagePNG): map[string]int{"width": width, "height": height}},
	}
}

// ShowFile displays the PNG file at path, an image package plots wrote at plots.DefaultDPI (the
// documents' figures, docs/figures/*.png), as Figure displays a figure.
func ShowFile(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("kernelext: %w", err)
	}
	img, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("kernelext: %s: not a PNG image: %w", path, err)
	}
	return display("", pngBundle(raw, filepath.Base(path), img.Width*96/plots.DefaultDPI, img.Height*96/plots.DefaultDPI))
}

// describe names a figure in a line: its title, then its panels' titles.
func describe(f *plots.Figure) string {
	var titles []string
	for _, p := range f.Panels {
		if p.Plot != nil && p.Plot.Title.Text != "" {
			titles = append(titles, p.Plot.Title.Text)
		}
	}
	switch panels := strings.Join(titles, "; "); {
	case f.Title != "" && panels != "":
		return f.Title + ": " + panels
	case f.Title != "":
		return f.Title
	case panels != "":
		return panels
	}
	return "a figure"
}

// FigureHTML renders f and returns its SVG wrapped in a <div>, the XML declaration and
// doctype that precede the <svg> element removed so that it can be inlined in HTML: how the
// explorers and the training view redraw a figure in place while they are live (a notebook
// front end renders the HTML of a cell it runs; FigureBundle makes what stays).
func FigureHTML(f SVGer) (string, error) {
	svg, err := f.SVG()
	if err != nil {
		return "", fmt.Errorf("kernelext: rendering the figure: %w", err)
	}
	i := bytes.Index(svg, []byte("<svg"))
	if i < 0 {
		return "", errors.New("kernelext: the figure's SVG has no <svg> element")
	}
	return "<div>" + string(svg[i:]) + "</div>", nil
}
