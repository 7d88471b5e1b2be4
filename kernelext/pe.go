package kernelext

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/sgformer/sgformer/plots"
	"github.com/sgformer/sgformer/sgformer/pe"
)

// PEModes are the product-graph PEs the PE explorer offers, named as the pe_mode
// hyperparameter names them: the k smallest eigenpairs of L_{G□G} (pe.Product), the authors'
// procedure (pe.Reference) and the concatenation p_s ‖ p_v (pe.Concatenation).
var PEModes = []string{"exact", "reference", "concat"}

// maxPEK is the largest k the PE explorer offers.
const maxPEK = 16

// PEView is a state of the PE explorer: the PE mode, its number of eigenvectors k, and the
// column shown.
type PEView struct {
	Mode   string
	K      int
	Column int
}

// PEEncoding returns the PE of the given mode (PEModes) with k eigenvectors of the spectrum
// of G: k columns for exact, up to k for reference, 2k for concat (fewer on small graphs).
func PEEncoding(spec *pe.Spectrum, mode string, k int) (*pe.Encoding, error) {
	switch mode {
	case "exact":
		return pe.Product(spec, k)
	case "reference":
		return pe.Reference(spec, k)
	case "concat":
		return pe.Concatenation(spec, 2, k)
	}
	return nil, fmt.Errorf("kernelext: PE mode %q, want one of %v", mode, PEModes)
}

// describeColumn says what column c of enc is, on product node (s, v).
func describeColumn(enc *pe.Encoding, c int) string {
	t := enc.Tuple(c)
	switch {
	case t[0] >= 0 && t[1] >= 0:
		return fmt.Sprintf("v_%d ⊗ v_%d, entry (s, v) = v_%d(s)·v_%d(v), eigenvalue λ_%d + λ_%d = %.4g", t[0], t[1], t[0], t[1], t[0], t[1], enc.Values[c])
	case t[0] >= 0:
		return fmt.Sprintf("v_%d ⊗ 1 (p_s), entry (s, v) = v_%d(s), eigenvalue λ_%d = %.4g", t[0], t[0], t[0], enc.Values[c])
	default:
		return fmt.Sprintf("1 ⊗ v_%d (p_v), entry (s, v) = v_%d(v), eigenvalue λ_%d = %.4g", t[1], t[1], t[1], enc.Values[c])
	}
}

// distinctValues counts the values of x that differ by more than 1e-9 of the largest magnitude.
func distinctValues(x []float64) int {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	tol := 1e-9 * max(math.Abs(s[0]), math.Abs(s[len(s)-1]), 1e-300)
	count := 1
	for i := 1; i < len(s); i++ {
		if s[i]-s[i-1] > tol {
			count++
		}
	}
	return count
}

// PEFrame draws a view of the PE explorer for molecule m whose Laplacian has the spectrum
// spec: the table of the PE's columns over the n² product nodes, column view.Column on the
// n × n grid of product nodes (row s, column v), and G□G coloured by it; and the counts. A k
// outside [1, min(16, n²)] and a column beyond the PE's columns are brought into range: the
// view drawn is returned.
func PEFrame(m *Molecule, spec *pe.Spectrum, view PEView) (Frame, PEView, error) {
	n := len(spec.Values)
	view.K = min(max(view.K, 1), maxPEK, n*n)
	enc, err := PEEncoding(spec, view.Mode, view.K)
	if err != nil {
		return Frame{}, view, err
	}
	cols := enc.Columns()
	if cols == 0 {
		return Frame{}, view, fmt.Errorf("kernelext: the %s PE with k = %d has no column on this graph", view.Mode, view.K)
	}
	view.Column = min(max(view.Column, 0), cols-1)
	table := enc.Dense()
	column := mat.Col(nil, view.Column, table)
	grid := mat.NewDense(n, n, slices.Clone(column)) // row s, column v: product node s·n + v

	tableFig, err := plots.ProductHeatmap(fmt.Sprintf("%s PE, k = %d: %d columns (rows) × n² product nodes", view.Mode, view.K, cols), table.T(), n)
	if err != nil {
		return Frame{}, view, err
	}
	gridFig, err := plots.Heatmap(fmt.Sprintf("column %d on the n × n grid: row s, column v", view.Column), grid)
	if err != nil {
		return Frame{}, view, err
	}
	drawing, err := plots.ProductGraph(m.Graph, column, fmt.Sprintf("G□G coloured by column %d", view.Column))
	if err != nil {
		return Frame{}, view, err
	}
	drawing.Panels[0].ColorBar.Label = fmt.Sprintf("PE column %d", view.Column)
	t := enc.Tuple(view.Column)
	distinct := distinctValues(column)
	lines := []string{
		fmt.Sprintf("%s: n = %d, %s PE with k = %d: %d columns over the n² = %d product nodes.", m.Name, n, view.Mode, view.K, cols, n*n),
		fmt.Sprintf("Column %d = %s.", view.Column, describeColumn(enc, view.Column)),
		fmt.Sprintf("It takes %d distinct values over the %d product nodes.", distinct, n*n),
	}
	return Frame{
		Explorer: "pe",
		State:    fmt.Sprintf("mode=%s k=%d column=%d", view.Mode, view.K, view.Column),
		Lines:    lines,
		Data: map[string]string{
			"mode": view.Mode, "k": strconv.Itoa(view.K), "column": strconv.Itoa(view.Column), "columns": strconv.Itoa(cols),
			"tuple": fmt.Sprintf("%d,%d", t[0], t[1]), "eigenvalue": strconv.FormatFloat(enc.Values[view.Column], 'g', 10, 64),
			"distinct": strconv.Itoa(distinct), "n": strconv.Itoa(n),
		},
		Figure: sideBySide(15, 4.6, tableFig, gridFig, drawing),
	}, view, nil
}

// ExplorePE shows the product-graph PE of a molecule (LoadMolecule's spec, at most 40 atoms):
// sliders pick k and the column (eigenvector) shown, a select the PE mode (PEModes), and the
// figure redraws the PE table, the column on the n × n grid of product nodes and G□G coloured
// by it, with the column's eigenvector and eigenvalue (PEFrame). Without a notebook front end
// it displays the exact PE with k = 8, column 1.
func ExplorePE(molecule string) error {
	m, err := LoadMolecule(molecule)
	if err != nil {
		return err
	}
	if err := checkExplorable(m.Graph.N()); err != nil {
		return err
	}
	spec, err := pe.NewSpectrum(m.Graph)
	if err != nil {
		return err
	}
	n := m.Graph.N()
	kMax := min(maxPEK, n*n)
	e := &explorer{
		name:  "pe",
		title: "The product-graph PE of " + m.Name,
		knobs: []knob{
			{name: "mode", label: "PE mode", options: PEModes},
			{name: "k", label: "k", min: 1, max: kMax, value: min(8, kMax)},
			{name: "column", label: "column (eigenvector)", min: 0, max: 2*kMax - 1, value: 1},
		},
		draw: func(values []int) (Frame, []int, error) {
			mode := PEModes[min(max(values[0], 0), len(PEModes)-1)]
			f, view, err := PEFrame(m, spec, PEView{Mode: mode, K: values[1], Column: values[2]})
			return f, []int{slices.Index(PEModes, view.Mode), view.K, view.Column}, err
		},
	}
	return e.run()
}
