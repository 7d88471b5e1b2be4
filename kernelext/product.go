package kernelext

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/plots"
	"github.com/sgformer/sgformer/sgformer/product"
)

// ProductConnectivities are the connectivities of pairs the product-graph explorer offers: the
// paper's internal A_G, external A_{G^S} and point-wise A_point (Sec. 3.1), and the global
// ones of Appendix A.
var ProductConnectivities = []product.Name{product.Internal, product.External, product.Point, product.GlobalInternal, product.GlobalExternal}

// ProductView is a state of the product-graph explorer: the subgraph rooted at Root, and the
// connectivity whose messages into it are shown.
type ProductView struct {
	Root         int
	Connectivity product.Name
}

// ProductCounts are the counts the product-graph explorer reports for a view.
type ProductCounts struct {
	// Nodes is the number of product nodes (s, v) of subgraph s: n.
	Nodes int
	// Edges is the number of directed edges of the connectivity in all of G□G.
	Edges int
	// EdgesIn counts the edges whose receiver lies in subgraph s; FromInside those of them
	// sent from subgraph s itself, FromOutside those sent from other subgraphs.
	EdgesIn, FromInside, FromOutside int
	// Neighbours is the number of distinct product nodes outside subgraph s that send to it:
	// its neighbourhood under the connectivity.
	Neighbours int
}

// ProductGraphs builds, once, the product graph of the explorer: G□G of the molecule with
// every connectivity of ProductConnectivities.
func ProductGraphs(m *Molecule) (*product.Graph, error) {
	if err := checkExplorable(m.Graph.N()); err != nil {
		return nil, err
	}
	return product.New(m.Graph, 2, ProductConnectivities...)
}

// CountProduct returns the counts of view on the product graph p of an n-node graph (p from
// ProductGraphs), and the role of every product node: 1 for subgraph s, −1 for its root
// (s, s), ½ for its neighbours under the connectivity, 0 for the rest.
func CountProduct(p *product.Graph, view ProductView) (ProductCounts, []float64, error) {
	n := p.N
	if view.Root < 0 || view.Root >= n {
		return ProductCounts{}, nil, fmt.Errorf("kernelext: root %d of a graph of %d nodes", view.Root, n)
	}
	e, ok := p.Connectivity(view.Connectivity)
	if !ok {
		return ProductCounts{}, nil, fmt.Errorf("kernelext: no connectivity %q (want one of %v)", view.Connectivity, ProductConnectivities)
	}
	role := make([]float64, n*n)
	inside := func(i int32) bool { return int(i)/n == view.Root }
	for v := range n {
		role[view.Root*n+v] = 1
	}
	role[view.Root*n+view.Root] = -1
	c := ProductCounts{Nodes: n, Edges: e.Len()}
	for i := range e.Len() {
		if !inside(e.Dst[i]) {
			continue
		}
		c.EdgesIn++
		if inside(e.Src[i]) {
			c.FromInside++
			continue
		}
		c.FromOutside++
		if role[e.Src[i]] == 0 {
			role[e.Src[i]] = 0.5
			c.Neighbours++
		}
	}
	return c, role, nil
}

// connectivityLabel names a connectivity of pairs by its name and, where the paper gives one,
// its Kronecker form, in Unicode rather than the TeX of the paper's symbol: "internal I ⊗ A",
// "point".
func connectivityLabel(name product.Name) string {
	label := strings.ReplaceAll(name.String(), "_", " ")
	notation := name.Notation(2)
	if _, form, ok := strings.Cut(notation, " = "); ok {
		return label + " " + form
	}
	if !strings.ContainsAny(notation, "_^{}") {
		return label + " " + notation
	}
	return label
}

// ProductFrame draws a view of the product-graph explorer for molecule m (p from
// ProductGraphs(m)): G□G with subgraph s in red, its root (s, s) in blue and the product nodes
// that send messages into it under the connectivity in pink, beside the connectivity's
// n² × n² adjacency with the rows of subgraph s's receivers in dark blue; and the counts.
func ProductFrame(m *Molecule, p *product.Graph, view ProductView) (Frame, error) {
	c, role, err := CountProduct(p, view)
	if err != nil {
		return Frame{}, err
	}
	n, s := p.N, view.Root
	e, _ := p.Connectivity(view.Connectivity)
	drawing, err := plots.ProductGraph(m.Graph, role, fmt.Sprintf("G□G: subgraph s = %d and its neighbours", s))
	if err != nil {
		return Frame{}, err
	}
	drawing.Panels[0].ColorBar.Label = "−1 root (s,s) · 1 subgraph s · ½ neighbour · 0 other"
	adj, err := plots.AdjacencyMatrix(n*n, e)
	if err != nil {
		return Frame{}, err
	}
	for i := range e.Len() {
		if int(e.Dst[i])/n == s {
			adj.Set(int(e.Dst[i]), int(e.Src[i]), 2)
		}
	}
	heat, err := plots.ProductHeatmap(fmt.Sprintf("%s: row = receiver (s·n+v)", connectivityLabel(view.Connectivity)), adj, n)
	if err != nil {
		return Frame{}, err
	}
	heat.Panels[0].ColorBar.Label = "2 into subgraph s · 1 other edge"
	lines := []string{
		fmt.Sprintf("%s: n = %d atoms, G□G has n² = %d product nodes (s, v), index s·n + v.", m.Name, n, n*n),
		fmt.Sprintf("Subgraph s = %d: its %d product nodes (%d, 0) … (%d, %d), root (%d, %d).", s, c.Nodes, s, s, n-1, s, s),
		fmt.Sprintf("%s: %d of its %d edges go into subgraph %d, %d from inside it and %d from %d product nodes of other subgraphs (its neighbours).",
			connectivityLabel(view.Connectivity), c.EdgesIn, c.Edges, s, c.FromInside, c.FromOutside, c.Neighbours),
	}
	return Frame{
		Explorer: "product",
		State:    fmt.Sprintf("root=%d connectivity=%s", s, view.Connectivity),
		Lines:    lines,
		Data: map[string]string{
			"root": strconv.Itoa(s), "connectivity": view.Connectivity.String(), "n": strconv.Itoa(n),
			"nodes": strconv.Itoa(c.Nodes), "edges": strconv.Itoa(c.Edges), "edges-in": strconv.Itoa(c.EdgesIn),
			"from-inside": strconv.Itoa(c.FromInside), "from-outside": strconv.Itoa(c.FromOutside), "neighbours": strconv.Itoa(c.Neighbours),
		},
		Figure: sideBySide(11, 4.8, drawing, heat),
	}, nil
}

// ExploreProduct shows the product graph G□G of a molecule (LoadMolecule's spec: a SMILES or
// "DATASET:INDEX", of at most 40 atoms) with one subgraph highlighted: a slider picks the root
// s, a select the connectivity (ProductConnectivities), and the figure redraws with subgraph s,
// the product nodes that send messages into it, and the counts (ProductFrame). Without a
// notebook front end it displays the view of root 0 and the internal connectivity.
func ExploreProduct(molecule string) error {
	m, err := LoadMolecule(molecule)
	if err != nil {
		return err
	}
	p, err := ProductGraphs(m)
	if err != nil {
		return err
	}
	n := m.Graph.N()
	options := make([]string, len(ProductConnectivities))
	for i, c := range ProductConnectivities {
		options[i] = c.String()
	}
	e := &explorer{
		name:  "product",
		title: "G□G of " + m.Name,
		knobs: []knob{
			{name: "root", label: "root s", min: 0, max: n - 1},
			{name: "connectivity", label: "connectivity", options: options},
		},
		draw: func(values []int) (Frame, []int, error) {
			values = slices.Clone(values)
			values[0] = min(max(values[0], 0), n-1)
			values[1] = min(max(values[1], 0), len(ProductConnectivities)-1)
			f, err := ProductFrame(m, p, ProductView{Root: values[0], Connectivity: ProductConnectivities[values[1]]})
			return f, values, err
		},
	}
	return e.run()
}
