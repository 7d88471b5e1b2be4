// Package batch packs preprocessed graphs into the fixed-shape arrays a compiled model runs
// on: product nodes and edges of several graphs concatenated, padded up to a few size buckets
// (a compiled executable exists per shape, so shapes must repeat), with the padding kept
// apart so that no real node ever receives from it.
//
// Padding: every batch has at least one padding node, the last one; padding edges join it to
// itself, and padding nodes belong to the extra graph slot Graphs (one past the real graphs),
// so sums and softmaxes over real nodes never see them. NodeMask marks the real nodes for
// statistics such as BatchNorm's.
package batch

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/pe"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/product"
)

// Example is one graph ready for batching: the graph with its integer features, its
// preprocessed form, and its targets (NaN where missing).
type Example struct {
	Graph  *graph.Graph
	Item   preprocess.Item
	Target []float64
}

// Options control how examples become a batch.
type Options struct {
	// PEK is the number of PE columns (zero-padded for small graphs).
	PEK int
	// MaxDistance clamps node marks: d(s, v) ≥ MaxDistance maps to MaxDistance, and
	// unreachable pairs to MaxDistance + 1 (the authors' max_dis = 5).
	MaxDistance int
	// Bucket is the growth factor between padded sizes (e.g. 1.25); ≤ 1 pads to the exact size
	// plus one padding node.
	Bucket float64
	// Profile, if set (ProfileOf), pads the product nodes and every connectivity's edges
	// together, to one level of the sequence of Bucket: the smallest size s = ⌈16·Bucket^i⌉
	// at which the nodes fit in s and connectivity j's edges in ⌈Profile[j]·s⌉. A run's
	// batches then take one shape per level, rather than one per combination of sizes bucketed
	// apart, at the cost of padding the connectivities a batch has fewer edges of than the
	// profile's share. Ignored by the dense layout.
	Profile Profile
	// Dense lays the product nodes of graph b out on a padded grid, node b·m² + s·m + v for
	// m = GridSize, and describes the Neighbours connectivities (internal and external) by
	// Adjacency and BondGrid instead of edge lists (which then hold one padding edge each).
	// Pairs only (K = 2).
	Dense bool
	// Original batches the original graphs G instead of their product graphs, for baselines
	// such as GIN: node i is node i of G, the one connectivity (product.Internal) holds G's
	// edges in both directions, and node marks and PE are zero.
	Original bool
}

// Edges are the messages Dst ← Src of one connectivity, with the bond each carries: Bond is a
// row of the batch's bond table (0 for padding and for connectivities without bonds). The
// first Real messages are the product graphs'; the rest pad.
type Edges struct {
	Src, Dst []int32
	Bond     []int32
	Real     int
}

// A Connectivity is one named connectivity of the batch's product graphs (product.Names),
// over the batch's node indices, padded.
type Connectivity struct {
	Name product.Name
	Kind product.Kind
	Edges
}

// Batch is a padded batch of product graphs in the sparse (edge-list) layout.
type Batch struct {
	// Graphs is the number of real graphs; Nodes the padded number of product nodes.
	Graphs, Nodes int
	// K is the order of the tuples (2 for pairs (s, v)).
	K int
	// NodeGraph[i] is the graph of product node i (Graphs for padding), NodeMask[i] is 1 for
	// real nodes and 0 for padding. NodeSubgraph[i] numbers the subgraphs (g, s) of the batch
	// from 0 (all padding nodes share the last number, below Nodes); for K-tuples the subgraph
	// of (v_0, …, v_{K−1}) is (v_0, …, v_{K−2}).
	NodeGraph    []int32
	NodeMask     []float32
	NodeSubgraph []int32
	// NodeFeatures holds the integer features of v for each product node (s, v) (of v_{K−1}
	// for K-tuples), NodeWidth per node; Marks the clamped node marks, K − 1 per node
	// (product.TupleMarking); PE the PEK columns of the PE.
	NodeFeatures []int32
	NodeWidth    int
	Marks        []int32
	PE           []float32
	// Connectivities are the connectivities of the product graphs, in their order.
	Connectivities []Connectivity
	// Bonds is the table of the distinct bond-feature tuples of the batch, BondWidth integers
	// per row, BondTypes rows (padded to a power of two, at least 8, with copies of row 0): a
	// batch of ZINC has at most 3 distinct bonds but hundreds of thousands of product edges,
	// so a model embeds the table and gathers rows, instead of embedding every edge.
	Bonds     []int32
	BondTypes int
	BondWidth int
	// GraphNodes[g] is the number of product nodes of graph g in the batch, and GraphN[g] its
	// number of nodes n; both have Graphs+1 entries (the last for padding, set to 1).
	GraphNodes, GraphN []float32
	// GridSize m, Adjacency [Graphs, m, m] (1 where u ~ v in G) and BondGrid [Graphs, m, m]
	// (the row of bond (u, v) in Bonds, 0 elsewhere), for the dense layout only.
	GridSize  int
	Adjacency []float32
	BondGrid  []int32
	// Targets holds (Graphs+1)·Tasks targets, TargetMask 1 where a target is present (never
	// for the padding slot Graphs).
	Targets    []float32
	TargetMask []float32
	Tasks      int
}

// Connectivity returns the connectivity called name, and whether the batch has it.
func (b *Batch) Connectivity(name product.Name) (Connectivity, bool) {
	for _, c := range b.Connectivities {
		if c.Name == name {
			return c, true
		}
	}
	return Connectivity{}, false
}

// Build packs examples into a batch. products, when not nil, replaces each example's product
// graph (e.g. by a sampled one); rng, when not nil, flips the sign of each PE column of each
// graph at random (training-time augmentation, pe.FlipSigns). Every product graph must have
// the same tuple order and connectivities.
func Build(examples []Example, products []*product.Graph, opt Options, rng *rand.Rand) (*Batch, error) {
	switch {
	case len(examples) == 0:
		return nil, fmt.Errorf("batch: no examples")
	case products != nil && len(products) != len(examples):
		return nil, fmt.Errorf("batch: %d product graphs for %d examples", len(products), len(examples))
	case opt.Original && products != nil:
		return nil, fmt.Errorf("batch: sampled product graphs given for a batch of original graphs")
	case opt.Dense && opt.Original:
		return nil, fmt.Errorf("batch: the dense layout is for product graphs, not original graphs")
	}
	var lay layout = sparse{}
	if opt.Dense {
		lay = dense{}
	}
	b, graphs, nodes, edges, err := begin(examples, products, opt)
	if err != nil {
		return nil, err
	}
	sizes, err := lay.size(b, examples, nodes, edges, opt)
	if err != nil {
		return nil, err
	}
	pad := int32(b.Nodes - 1)
	marks := max(b.K-1, 1)

	b.NodeGraph = make([]int32, b.Nodes)
	b.NodeMask = make([]float32, b.Nodes)
	b.NodeSubgraph = make([]int32, b.Nodes)
	b.NodeFeatures = make([]int32, b.Nodes*b.NodeWidth)
	b.Marks = make([]int32, b.Nodes*marks)
	b.PE = make([]float32, b.Nodes*opt.PEK)
	b.GraphNodes = make([]float32, b.Graphs+1)
	b.GraphN = make([]float32, b.Graphs+1)
	for j := range b.Connectivities {
		b.Connectivities[j].Edges = newEdges(sizes[j])
	}
	filled := make([]int, len(b.Connectivities))
	bonds := newBondTable(b.BondWidth)
	b.Targets = make([]float32, (b.Graphs+1)*b.Tasks)
	b.TargetMask = make([]float32, (b.Graphs+1)*b.Tasks)

	off, subgraphs := 0, int32(0)
	for g, ex := range examples {
		p := graphs[g]
		n := p.N
		var full []float32
		if !opt.Original {
			full = ex.Item.PE.Float32(opt.PEK)
			if rng != nil {
				pe.FlipSigns(full, opt.PEK, rng)
			}
		}
		at := make([]int32, p.NumNodes()) // the batch index of each node of p
		for i, sv := range p.Nodes {
			at[i] = int32(lay.node(b, g, off+i, n, sv))
		}
		for i, sv := range p.Nodes {
			a := int(at[i])
			s, v := int(sv)/n, int(sv)%n
			if i > 0 && int(p.Nodes[i-1])/n != s {
				subgraphs++
			}
			b.NodeGraph[a] = int32(g)
			b.NodeMask[a] = 1
			b.NodeSubgraph[a] = lay.subgraph(b, a, subgraphs)
			copy(b.NodeFeatures[a*b.NodeWidth:(a+1)*b.NodeWidth], ex.Graph.NodeFeatures.Ints[v*b.NodeWidth:(v+1)*b.NodeWidth])
			if opt.Original {
				continue
			}
			for j := range marks {
				b.Marks[a*marks+j] = clampMark(ex.Item.Marks[int(sv)*marks+j], opt.MaxDistance)
			}
			copy(b.PE[a*opt.PEK:(a+1)*opt.PEK], full[int(sv)*opt.PEK:(int(sv)+1)*opt.PEK])
		}
		if p.NumNodes() > 0 {
			subgraphs++
		}
		rows := bonds.rows(ex.Graph)
		lay.graph(b, g, ex.Graph, rows)
		for j, c := range p.Connectivities {
			if lay.listed(b.Connectivities[j]) {
				filled[j] = b.Connectivities[j].fill(filled[j], c.Edges, at, rows)
			}
		}
		b.GraphNodes[g] = float32(p.NumNodes())
		b.GraphN[g] = float32(n)
		for t, y := range ex.Target {
			if !math.IsNaN(y) {
				b.Targets[g*b.Tasks+t], b.TargetMask[g*b.Tasks+t] = float32(y), 1
			}
		}
		off += p.NumNodes()
	}
	for a := range b.Nodes {
		if b.NodeMask[a] == 0 {
			b.NodeGraph[a] = int32(b.Graphs)
			b.NodeSubgraph[a] = lay.subgraph(b, a, subgraphs)
		}
	}
	for j := range b.Connectivities {
		b.Connectivities[j].pad(filled[j], pad)
		b.Connectivities[j].Real = filled[j]
	}
	b.Bonds, b.BondTypes = bonds.padded()
	b.GraphNodes[b.Graphs], b.GraphN[b.Graphs] = 1, 1
	return b, nil
}

// begin checks that the examples (and products) can share a batch and returns the batch with
// its graph count, feature widths, tuple order and connectivities set, the product graph each
// example contributes, and their total nodes and messages per connectivity.
func begin(examples []Example, products []*product.Graph, opt Options) (b *Batch, graphs []*product.Graph, nodes int, edges []int, err error) {
	first := examples[0]
	b = &Batch{Graphs: len(examples), NodeWidth: first.Graph.NodeFeatures.Width, Tasks: len(first.Target)}
	for _, ex := range examples { // a graph without edges (a single atom, a salt) says nothing of the bonds' width
		if ex.Graph.NumEdges() > 0 {
			b.BondWidth = ex.Graph.EdgeFeatures.Width
			break
		}
	}
	graphs = make([]*product.Graph, len(examples))
	for i, ex := range examples {
		graphs[i] = packed(examples, products, opt, i)
		p := graphs[i]
		switch {
		case p == nil:
			return nil, nil, 0, nil, fmt.Errorf("batch: example %d has no product graph (preprocessed on demand: pass it in products)", i)
		case ex.Graph.NodeFeatures.Width != b.NodeWidth || ex.Graph.NodeFeatures.Ints == nil && b.NodeWidth > 0:
			return nil, nil, 0, nil, fmt.Errorf("batch: example %d: node features of width %d (integers), want %d", i, ex.Graph.NodeFeatures.Width, b.NodeWidth)
		case ex.Graph.NumEdges() > 0 && (ex.Graph.EdgeFeatures.Width != b.BondWidth || ex.Graph.EdgeFeatures.Ints == nil && b.BondWidth > 0):
			return nil, nil, 0, nil, fmt.Errorf("batch: example %d: edge features of width %d (integers), want %d", i, ex.Graph.EdgeFeatures.Width, b.BondWidth)
		case len(ex.Target) != b.Tasks:
			return nil, nil, 0, nil, fmt.Errorf("batch: example %d: %d targets, want %d", i, len(ex.Target), b.Tasks)
		case p.N != ex.Graph.N():
			return nil, nil, 0, nil, fmt.Errorf("batch: example %d: product graph of a %d-node graph for a %d-node graph", i, p.N, ex.Graph.N())
		}
		if i == 0 {
			b.K = p.K
			edges = make([]int, len(p.Connectivities))
			for _, c := range p.Connectivities {
				kind, err := c.Name.Kind(max(p.K, 2))
				if err != nil {
					return nil, nil, 0, nil, fmt.Errorf("batch: %w", err)
				}
				b.Connectivities = append(b.Connectivities, Connectivity{Name: c.Name, Kind: kind})
			}
		}
		if p.K != b.K || len(p.Connectivities) != len(edges) {
			return nil, nil, 0, nil, fmt.Errorf("batch: example %d: %d-tuples with %d connectivities, example 0 %d-tuples with %d", i, p.K, len(p.Connectivities), b.K, len(edges))
		}
		for j, c := range p.Connectivities {
			if c.Name != b.Connectivities[j].Name {
				return nil, nil, 0, nil, fmt.Errorf("batch: example %d: connectivity %d is %q, example 0's %q", i, j, c.Name, b.Connectivities[j].Name)
			}
			edges[j] += c.Len()
		}
		nodes += p.NumNodes()
	}
	return b, graphs, nodes, edges, nil
}

// A layout is where a batch's product nodes and connectivities go: one after another with edge
// lists (sparse), or on a grid per graph whose neighbour connectivities are adjacency matrices
// (dense). Build does the rest, the same for both.
type layout interface {
	// size sets the batch's padded node count, and whatever else the layout holds, for
	// examples of nodes product nodes and edges[j] messages of connectivity j; it returns the
	// padded length of each connectivity's edge list.
	size(b *Batch, examples []Example, nodes int, edges []int, opt Options) ([]int, error)
	// node returns the batch index of product node sv of graph g (of n nodes), whose index in
	// the sparse order, the graphs' nodes one after another, is at.
	node(b *Batch, g, at, n int, sv int32) int
	// subgraph returns the subgraph number of batch node a, where running is the number the
	// sparse order has reached.
	subgraph(b *Batch, a int, running int32) int32
	// graph adds what the layout holds of graph g besides its nodes and edge lists; rows are
	// the bond-table rows of G's edges.
	graph(b *Batch, g int, G *graph.Graph, rows []int32)
	// listed reports whether the layout holds connectivity c as an edge list.
	listed(c Connectivity) bool
}

// sparse is the edge-list layout: the graphs' product nodes one after another, padded to one
// of a few sizes (Options.Bucket, Options.Profile).
type sparse struct{}

func (sparse) size(b *Batch, _ []Example, nodes int, edges []int, opt Options) ([]int, error) {
	if len(opt.Profile) == len(edges) && opt.Bucket > 1 {
		var sizes []int
		b.Nodes, sizes = opt.Profile.level(nodes+1, edges, opt.Bucket)
		return sizes, nil
	}
	b.Nodes = bucket(nodes+1, opt.Bucket)
	sizes := make([]int, len(edges))
	for j, n := range edges {
		sizes[j] = bucket(n, opt.Bucket)
	}
	return sizes, nil
}

func (sparse) node(_ *Batch, _, at, _ int, _ int32) int      { return at }
func (sparse) subgraph(_ *Batch, _ int, running int32) int32 { return running }
func (sparse) graph(*Batch, int, *graph.Graph, []int32)      {}
func (sparse) listed(Connectivity) bool                      { return true }

// dense is the grid layout (Options.Dense): node (s, v) of graph g at g·m² + s·m + v, the
// neighbour connectivities as Adjacency and BondGrid (their edge lists one padding edge each),
// subgraph (g, s) numbered by its row of the grid, padding ones included, so that the numbers
// stay sorted along it.
type dense struct{}

func (dense) size(b *Batch, examples []Example, _ int, edges []int, opt Options) ([]int, error) {
	if b.K != 2 {
		return nil, fmt.Errorf("batch: the dense layout is for pairs (s, v), not %d-tuples", b.K)
	}
	for _, ex := range examples {
		b.GridSize = max(b.GridSize, ex.Graph.N())
	}
	b.GridSize = bucket(b.GridSize, opt.Bucket)
	b.Nodes = b.Graphs * b.GridSize * b.GridSize
	b.Adjacency = make([]float32, b.Nodes)
	b.BondGrid = make([]int32, b.Nodes)
	sizes := make([]int, len(edges))
	for j, n := range edges {
		sizes[j] = bucket(n, opt.Bucket)
		if b.Connectivities[j].Kind == product.Neighbours {
			sizes[j] = 1 // on the grid
		}
	}
	return sizes, nil
}

func (dense) node(b *Batch, g, _, n int, sv int32) int {
	m := b.GridSize
	return g*m*m + int(sv)/n*m + int(sv)%n
}

func (dense) subgraph(b *Batch, a int, _ int32) int32 { return int32(a / b.GridSize) }

// graph writes the adjacency and bonds of graph g of the batch, G, to the grid.
func (dense) graph(b *Batch, g int, G *graph.Graph, rows []int32) {
	m := b.GridSize
	for i, e := range G.Edges() {
		for _, uv := range [2][2]int{{e[0], e[1]}, {e[1], e[0]}} {
			at := g*m*m + uv[0]*m + uv[1]
			b.Adjacency[at] = 1
			b.BondGrid[at] = rows[i]
		}
	}
}

func (dense) listed(c Connectivity) bool { return c.Kind != product.Neighbours }

// bondTable collects the distinct bond-feature tuples of a batch.
type bondTable struct {
	width int
	index map[string]int32
	table []int32
}

func newBondTable(width int) *bondTable {
	return &bondTable{width: width, index: map[string]int32{}}
}

// rows returns, for each edge of G, its row in the table, adding new tuples.
func (t *bondTable) rows(G *graph.Graph) []int32 {
	out := make([]int32, G.NumEdges())
	if t.width == 0 {
		return out
	}
	key := make([]byte, 4*t.width)
	for i := range out {
		tuple := G.EdgeFeatures.Ints[i*t.width : (i+1)*t.width]
		for j, x := range tuple {
			key[4*j], key[4*j+1], key[4*j+2], key[4*j+3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
		}
		row, ok := t.index[string(key)]
		if !ok {
			row = int32(len(t.table) / t.width)
			t.index[string(key)] = row
			t.table = append(t.table, tuple...)
		}
		out[i] = row
	}
	return out
}

// padded returns the table padded to a power of two rows (at least 8) with copies of row 0.
func (t *bondTable) padded() ([]int32, int) {
	rows := 0
	if t.width > 0 {
		rows = len(t.table) / t.width
	}
	size := 8
	for size < rows {
		size *= 2
	}
	out := make([]int32, size*t.width)
	copy(out, t.table)
	for r := max(rows, 1); r < size && rows > 0; r++ {
		copy(out[r*t.width:(r+1)*t.width], t.table[:t.width])
	}
	return out, size
}

// originalGraph presents G as a "product graph" whose nodes are G's own nodes: one subgraph
// (s = 0) holding every node, with G's edges as its one connectivity, product.Internal.
func originalGraph(g *graph.Graph) *product.Graph {
	n := g.N()
	p := &product.Graph{N: n, K: 2, Nodes: make([]int32, n)}
	var e product.Edges
	for v := range n {
		p.Nodes[v] = int32(v)
		nbrs, bonds := g.Neighbors(v)
		for i, w := range nbrs {
			e.Dst = append(e.Dst, int32(v))
			e.Src = append(e.Src, w)
			e.Bond = append(e.Bond, bonds[i])
		}
	}
	p.Connectivities = []product.Connectivity{{Name: product.Internal, Edges: e}}
	return p
}

func clampMark(d int32, maxDistance int) int32 {
	if d < 0 {
		return int32(maxDistance + 1)
	}
	return min(d, int32(maxDistance))
}

// Len returns the number of edges, padding included.
func (e Edges) Len() int { return len(e.Src) }

func newEdges(n int) Edges {
	return Edges{Src: make([]int32, n), Dst: make([]int32, n), Bond: make([]int32, n)}
}

// fill copies the edges of one graph, whose node i is batch node at[i], from position i on,
// with bondRows the table row of each edge of G; it returns the next position.
func (e Edges) fill(i int, src product.Edges, at []int32, bondRows []int32) int {
	for j := range src.Dst {
		e.Src[i] = at[src.Src[j]]
		e.Dst[i] = at[src.Dst[j]]
		if b := src.Bond[j]; b >= 0 {
			e.Bond[i] = bondRows[b]
		}
		i++
	}
	return i
}

// pad points the edges from position at on to the padding node.
func (e Edges) pad(at int, node int32) {
	for ; at < len(e.Src); at++ {
		e.Src[at], e.Dst[at] = node, node
	}
}

// A Profile is the edges per product node of each connectivity of a dataset's product graphs,
// in their order (Options.Profile).
type Profile []float64

// packed is the graph Build packs for example i: its original graph, products[i], or its
// product graph.
func packed(examples []Example, products []*product.Graph, opt Options, i int) *product.Graph {
	switch {
	case opt.Original:
		return originalGraph(examples[i].Graph)
	case products != nil:
		return products[i]
	}
	return examples[i].Item.Product
}

// ProfileOf returns the profile of the graphs Build would pack from examples and products
// (e.g. sampled ones, for batches of sampled graphs) under opt: each connectivity's edges over
// all the graphs per node. It is nil when they hold no node, or some example has no graph.
func ProfileOf(examples []Example, products []*product.Graph, opt Options) Profile {
	if len(examples) == 0 || products != nil && len(products) != len(examples) {
		return nil
	}
	nodes := 0
	var edges []float64
	for i := range examples {
		p := packed(examples, products, opt, i)
		if p == nil {
			return nil
		}
		if edges == nil {
			edges = make([]float64, len(p.Connectivities))
		}
		nodes += p.NumNodes()
		for j, c := range p.Connectivities {
			if j < len(edges) {
				edges[j] += float64(c.Len())
			}
		}
	}
	if nodes == 0 {
		return nil
	}
	for j := range edges {
		edges[j] /= float64(nodes)
	}
	return edges
}

// level returns the padded sizes of a batch of nodes product nodes (the padding node
// included) and edges[j] edges of each connectivity: those of the first level of
// ⌈16·factor^i⌉ that holds them all (Options.Profile). A connectivity the profile has no edges
// of is bucketed on its own.
func (p Profile) level(nodes int, edges []int, factor float64) (int, []int) {
	sizes := make([]int, len(edges))
	for s := 16.0; ; s *= factor {
		fits := int(math.Ceil(s)) >= nodes
		for j, n := range edges {
			if p[j] > 0 {
				sizes[j] = max(int(math.Ceil(p[j]*math.Ceil(s))), 1)
			} else {
				sizes[j] = bucket(n, factor)
			}
			fits = fits && sizes[j] >= n
		}
		if fits {
			return int(math.Ceil(s)), sizes
		}
	}
}

// bucket rounds n up to the next size of the geometric sequence ⌈16·factor^i⌉, so that
// batches of similar size share one compiled shape; factor ≤ 1 returns n. It never returns
// 0: a connectivity without edges keeps one padding edge, so no array is empty.
func bucket(n int, factor float64) int {
	if factor <= 1 {
		return max(n, 1)
	}
	size := 16.0
	for int(math.Ceil(size)) < n {
		size *= factor
	}
	return int(math.Ceil(size))
}
