package kernelext

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/janpfeifer/gonb/gonbui/protocol"
	"gonum.org/v1/plot/vg"

	"github.com/sgformer/sgformer/plots"
)

// Frame is what an explorer shows for one state of its controls: a few lines of text (the
// counts), a figure, and the state and counts again as data-* attributes of the HTML, for a
// script or a browser test to read. The functions that make frames (ProductFrame, PEFrame,
// SamplingFrame) are pure: the same state gives the same frame.
type Frame struct {
	// Explorer names the explorer: "product", "pe" or "sampling".
	Explorer string
	// State is the state drawn, as "name=value" pairs separated by spaces, in the order of
	// the explorer's controls.
	State string
	// Lines are the counts, one sentence per line.
	Lines []string
	// Data holds the counts by name, each also a data-NAME attribute of the HTML.
	Data map[string]string
	// Figure is the drawing.
	Figure *plots.Figure
}

// HTML renders the frame: a <div class="sgformer-explorer"> with data-explorer, data-state
// and the Data attributes (in name order), holding the lines and the figure's SVG.
func (f Frame) HTML() (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="sgformer-explorer" data-explorer="%s" data-state="%s"`, html.EscapeString(f.Explorer), html.EscapeString(f.State))
	names := make([]string, 0, len(f.Data))
	for name := range f.Data {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&b, ` data-%s="%s"`, html.EscapeString(name), html.EscapeString(f.Data[name]))
	}
	b.WriteString(">")
	b.WriteString(f.countsHTML())
	if f.Figure != nil {
		fig, err := FigureHTML(f.Figure)
		if err != nil {
			return "", err
		}
		// The figure shrinks to the width of the output area rather than overflow it.
		b.WriteString(strings.Replace(fig, "<svg", `<svg style="max-width:100%;height:auto"`, 1))
	}
	b.WriteString("</div>")
	return b.String(), nil
}

// countsHTML renders the frame's lines: a <div class="sgformer-counts">, a line each.
func (f Frame) countsHTML() string {
	lines := make([]string, len(f.Lines))
	for i, line := range f.Lines {
		lines[i] = html.EscapeString(line)
	}
	return `<div class="sgformer-counts" style="font-family:monospace;white-space:pre-wrap">` + strings.Join(lines, "\n") + "</div>"
}

// keep shows the frame's figure as the image a notebook keeps (FigureBundle): in a new output
// when id is "", else in the output with display id id, which it empties when there is no figure.
func (f Frame) keep(id string) error {
	if f.Figure == nil {
		if id == "" {
			return nil
		}
		return display(id, Bundle{Data: map[protocol.MIMEType]any{protocol.MIMETextPlain: ""}})
	}
	b, err := FigureBundle(f.Figure)
	if err != nil {
		return err
	}
	return display(id, b)
}

// sideBySide puts the panels of figs next to each other in one figure of the given size in
// inches.
func sideBySide(width, height float64, figs ...*plots.Figure) *plots.Figure {
	out := &plots.Figure{Width: vg.Length(width) * vg.Inch, Height: vg.Length(height) * vg.Inch, DPI: plots.DefaultDPI}
	for _, f := range figs {
		out.Panels = append(out.Panels, f.Panels...)
	}
	return out
}

// maxExplorerAtoms bounds the molecules the explorers draw: G□G has n² nodes and its
// adjacency n⁴ entries, and a redraw must stay well under a second.
const maxExplorerAtoms = 40

// checkExplorable returns an error unless an explorer can draw the graph of n nodes.
func checkExplorable(n int) error {
	switch {
	case n < 2:
		return fmt.Errorf("kernelext: the explorers need a molecule of at least 2 atoms, not %d", n)
	case n > maxExplorerAtoms:
		return fmt.Errorf("kernelext: the explorers draw G□G for molecules of up to %d atoms (n² = %d product nodes); this one has %d",
			maxExplorerAtoms, maxExplorerAtoms*maxExplorerAtoms, n)
	}
	return nil
}
