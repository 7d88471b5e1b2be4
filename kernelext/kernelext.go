// Package kernelext displays the project's results inline in GoNB notebooks: figures (any
// value with an SVG method, such as the figures of package plots), HTML tables of results
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
// is pressed, IdleTimeout passes without a change or the kernel is interrupted, then leaves its
// last figure in the output; where none does (nbconvert, CI; or SGFORMER_WIDGETS=static), it
// draws its default state as a static figure. Must, Show, LoadMolecule, DataDir and Task are
// the one-line helpers the notebooks' first cells use.
//
// Every function is split in two: one builds the HTML or SVG as a string, and works and is
// tested anywhere; the other sends it to the notebook through GoNB's gonbui package, and
// returns ErrNotInKernel when the program is not run by a GoNB kernel. In a notebook:
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

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/sgformer/sgformer/internal/memory"
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

// SVGer is a figure that renders itself as an SVG document; *plots.Figure is one.
type SVGer interface {
	SVG() ([]byte, error)
}

// DisplayHTML displays html as an output of the running cell. It returns ErrNotInKernel
// outside a GoNB kernel, and the error of the connection to the kernel if it broke.
func DisplayHTML(html string) error {
	if !gonbui.IsNotebook {
		return ErrNotInKernel
	}
	gonbui.DisplayHTML(html)
	return gonbui.Error()
}

// updateHTML replaces the contents of the output with the given display id (creating it the
// first time) by html, with DisplayHTML's errors.
func updateHTML(id, html string) error {
	if !gonbui.IsNotebook {
		return ErrNotInKernel
	}
	gonbui.UpdateHTML(id, html)
	return gonbui.Error()
}

// Figure displays the figure f as inline SVG in the running cell (see FigureHTML).
func Figure(f SVGer) error {
	html, err := FigureHTML(f)
	if err != nil {
		return err
	}
	return DisplayHTML(html)
}

// FigureHTML renders f and returns its SVG wrapped in a <div>, the XML declaration and
// doctype that precede the <svg> element removed so that it can be inlined in HTML (this is
// also how GoNB displays SVG, so that it survives the notebook's export to HTML).
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
