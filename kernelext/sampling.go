package kernelext

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/sgformer/sgformer/plots"
	"github.com/sgformer/sgformer/sgformer/product"
)

// SamplingView is a state of the sampling explorer: the sampling ratio p in (0, 1], the seed
// of the draws, and the number of draws evaluation averages (the eval_samples
// hyperparameter).
type SamplingView struct {
	Ratio       float64
	Seed, Draws int
}

// SampleDraw returns the roots that draw d of seed keeps (product.SampleRoots of a graph of n
// nodes with the given ratio, from the stream rand.NewPCG(seed, d)): the explorer's draw 0
// stands for a training batch's, draws 0 … E−1 for evaluation's. A run draws from streams of
// its own, keyed by its seed, epoch and graph, with the same distribution.
func SampleDraw(n int, ratio float64, seed, d int) ([]int, error) {
	return product.SampleRoots(n, ratio, rand.New(rand.NewPCG(uint64(seed), uint64(d))))
}

// SamplingCounts are what the sampling explorer reports for a view.
type SamplingCounts struct {
	// Roots are the roots of draw 0, ascending; Nodes the product nodes it keeps (|Roots|·n).
	Roots []int
	Nodes int
	// Kept and Total give, per connectivity (internal, external, point), the edges draw 0
	// keeps and those of the full bag.
	Kept, Total map[product.Name]int
	// Draws holds the roots of every evaluation draw; Covered counts the roots kept by at least
	// one of them, and Expected is its expectation n·(1 − (1 − k/n)^E).
	Draws    [][]int
	Covered  int
	Expected float64
}

// CountSampling returns the counts of view on the full product graph p (product.New(g, 2))
// of an n-node graph, and the sampled product graph of draw 0.
func CountSampling(p *product.Graph, view SamplingView) (SamplingCounts, *product.Graph, error) {
	n := p.N
	if view.Draws < 1 {
		return SamplingCounts{}, nil, fmt.Errorf("kernelext: %d evaluation draws, want at least 1", view.Draws)
	}
	c := SamplingCounts{Kept: map[product.Name]int{}, Total: map[product.Name]int{}}
	covered := make([]bool, n)
	for d := range view.Draws {
		roots, err := SampleDraw(n, view.Ratio, view.Seed, d)
		if err != nil {
			return SamplingCounts{}, nil, err
		}
		c.Draws = append(c.Draws, roots)
		for _, r := range roots {
			if !covered[r] {
				covered[r] = true
				c.Covered++
			}
		}
	}
	c.Roots = c.Draws[0]
	sp, err := p.Sample(c.Roots)
	if err != nil {
		return SamplingCounts{}, nil, err
	}
	c.Nodes = sp.NumNodes()
	for _, conn := range p.Connectivities {
		c.Total[conn.Name] = conn.Len()
		kept, _ := sp.Connectivity(conn.Name)
		c.Kept[conn.Name] = kept.Len()
	}
	k := float64(len(c.Roots))
	c.Expected = float64(n) * (1 - math.Pow(1-k/float64(n), float64(view.Draws)))
	return c, sp, nil
}

// SamplingFrame draws a view of the sampling explorer for molecule m (p = product.New(g, 2)):
// G□G with the subgraphs that draw 0 keeps (a training batch's), the adjacency
// A_G + A_{G^S} masked by A_mask (Sec. 4.3), and which roots each of the evaluation draws
// keeps; and the counts.
func SamplingFrame(m *Molecule, p *product.Graph, view SamplingView) (Frame, error) {
	c, sp, err := CountSampling(p, view)
	if err != nil {
		return Frame{}, err
	}
	n := p.N
	kept := make([]float64, n*n)
	for _, i := range sp.Nodes {
		kept[i] = 1
	}
	drawing, err := plots.ProductGraph(m.Graph, kept, fmt.Sprintf("kept subgraphs (1) of draw 0: roots %v", c.Roots))
	if err != nil {
		return Frame{}, err
	}
	drawing.Panels[0].ColorBar.Label = "1 kept · 0 dropped"
	masked := mat.NewDense(n*n, n*n, nil)
	for _, name := range []product.Name{product.Internal, product.External} {
		e, _ := sp.Connectivity(name)
		for i := range e.Len() {
			masked.Set(int(sp.Nodes[e.Dst[i]]), int(sp.Nodes[e.Src[i]]), 1)
		}
	}
	heat, err := plots.ProductHeatmap("internal + external after the mask (full-bag indices)", masked, n)
	if err != nil {
		return Frame{}, err
	}
	draws := mat.NewDense(view.Draws, n, nil)
	for d, roots := range c.Draws {
		for _, r := range roots {
			draws.Set(d, r, 1)
		}
	}
	drawsFig, err := plots.Heatmap(fmt.Sprintf("evaluation: %d draws (rows) × roots (columns)", view.Draws), draws)
	if err != nil {
		return Frame{}, err
	}
	drawsFig.Panels[0].ColorBar.Label = "1 root kept by the draw"

	k := len(c.Roots)
	edges := func(name product.Name) string { return fmt.Sprintf("%s %d of %d", name, c.Kept[name], c.Total[name]) }
	lines := []string{
		fmt.Sprintf("%s: n = %d. Ratio p = %.2f keeps round(p·n) = %d of the %d subgraphs in every draw (the mask keeps (s,v)–(s',v') iff s and s' are both kept).",
			m.Name, n, view.Ratio, k, n),
		fmt.Sprintf("Draw 0 (seed %d), as a training batch samples a graph: roots %v, %d of the %d product nodes; edges kept: %s, %s, %s.",
			view.Seed, c.Roots, c.Nodes, n*n, edges(product.Internal), edges(product.External), edges(product.Point)),
		fmt.Sprintf("Evaluation averages the model's predictions over %d draws: together they keep %d of the %d subgraphs at least once (expected n·(1 − (1 − k/n)^E) = %.1f).",
			view.Draws, c.Covered, n, c.Expected),
	}
	return Frame{
		Explorer: "sampling",
		State:    fmt.Sprintf("ratio=%.2f seed=%d draws=%d", view.Ratio, view.Seed, view.Draws),
		Lines:    lines,
		Data: map[string]string{
			"ratio": strconv.FormatFloat(view.Ratio, 'f', 2, 64), "seed": strconv.Itoa(view.Seed), "draws": strconv.Itoa(view.Draws),
			"roots": joinInts(c.Roots), "nodes": strconv.Itoa(c.Nodes), "covered": strconv.Itoa(c.Covered), "n": strconv.Itoa(n),
			product.Internal.String(): strconv.Itoa(c.Kept[product.Internal]), product.External.String(): strconv.Itoa(c.Kept[product.External]),
			product.Point.String(): strconv.Itoa(c.Kept[product.Point]),
		},
		Figure: sideBySide(15, 4.6, drawing, heat, drawsFig),
	}, nil
}

// joinInts writes xs separated by commas.
func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

// ExploreSampling shows stochastic subgraph sampling (Sec. 4.3) on a molecule (LoadMolecule's
// spec, at most 40 atoms): sliders pick the sampling ratio, the seed and the number of
// evaluation draws, and the figure redraws the subgraphs a batch keeps, the masked adjacency
// and the roots of each evaluation draw, with the counts (SamplingFrame). Without a notebook
// front end it displays ratio 0.5, seed 0 and 5 draws.
func ExploreSampling(molecule string) error {
	m, err := LoadMolecule(molecule)
	if err != nil {
		return err
	}
	if err := checkExplorable(m.Graph.N()); err != nil {
		return err
	}
	p, err := product.New(m.Graph, 2)
	if err != nil {
		return err
	}
	e := &explorer{
		name:  "sampling",
		title: "Subgraph sampling on " + m.Name,
		knobs: []knob{
			{name: "ratio", label: "ratio p", min: 1, max: 100, value: 50, format: func(v int) string { return strconv.FormatFloat(float64(v)/100, 'f', 2, 64) }},
			{name: "seed", label: "seed", min: 0, max: 99},
			{name: "draws", label: "evaluation draws", min: 1, max: 10, value: 5},
		},
		draw: func(values []int) (Frame, []int, error) {
			values = []int{min(max(values[0], 1), 100), min(max(values[1], 0), 99), min(max(values[2], 1), 10)}
			f, err := SamplingFrame(m, p, SamplingView{Ratio: float64(values[0]) / 100, Seed: values[1], Draws: values[2]})
			return f, values, err
		},
	}
	return e.run()
}
