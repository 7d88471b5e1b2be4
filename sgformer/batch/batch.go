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
	// Dense lays the product nodes of graph b out on a padded grid, node b·m² + s·m + v for
	// m = GridSize, and describes the connectivity by Adjacency and BondGrid instead of edge
	// lists (which then hold one padding edge each).
	Dense bool
	// Original batches the original graphs G instead of their product graphs, for baselines
	// such as GIN: node i is node i of G, Internal holds G's edges in both directions, and
	// External holds only one padding edge, and node marks and PE are zero.
	Original bool
}

// Edges are the messages Dst ← Src of one connectivity, with the bond each carries: Bond is a
// row of the batch's bond table (0 for padding).
type Edges struct {
	Src, Dst []int32
	Bond     []int32
}

// Batch is a padded batch of product graphs in the sparse (edge-list) layout.
type Batch struct {
	// Graphs is the number of real graphs; Nodes the padded number of product nodes.
	Graphs, Nodes int
	// NodeGraph[i] is the graph of product node i (Graphs for padding), NodeMask[i] is 1 for
	// real nodes and 0 for padding. NodeSubgraph[i] numbers the subgraphs (g, s) of the batch
	// from 0 (all padding nodes share the last number, below Nodes).
	NodeGraph    []int32
	NodeMask     []float32
	NodeSubgraph []int32
	// NodeFeatures holds the integer features of v for each product node (s, v), NodeWidth
	// per node; Marks the clamped node marks; PE the PEK columns of the PE.
	NodeFeatures []int32
	NodeWidth    int
	Marks        []int32
	PE           []float32
	// Internal and External connectivities.
	Internal, External Edges
	// Bonds is the table of the distinct bond-feature tuples of the batch, BondWidth integers
	// per row, BondTypes rows (padded to a power of two, at least 8, with copies of row 0): a
	// batch of ZINC has at most 3 distinct bonds but hundreds of thousands of product edges,
	// so a model embeds the table and gathers rows, instead of embedding every edge.
	Bonds     []int32
	BondTypes int
	BondWidth int
	// PointSrc[i] is the root node (v, v) that product node (s, v) receives from (A_point);
	// padding nodes point to themselves. With sampling, a node whose root subgraph was not
	// kept has no point message: its PointMask is 0.
	PointSrc  []int32
	PointMask []float32
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

// Build packs examples into a batch. products, when not nil, replaces each example's product
// graph (e.g. by a sampled one); rng, when not nil, flips the sign of each PE column of each
// graph at random (training-time augmentation, pe.FlipSigns).
func Build(examples []Example, products []*product.Graph, opt Options, rng *rand.Rand) (*Batch, error) {
	if len(examples) == 0 {
		return nil, fmt.Errorf("batch: no examples")
	}
	if products != nil && len(products) != len(examples) {
		return nil, fmt.Errorf("batch: %d product graphs for %d examples", len(products), len(examples))
	}
	first := examples[0]
	b := &Batch{Graphs: len(examples), NodeWidth: first.Graph.NodeFeatures.Width, BondWidth: first.Graph.EdgeFeatures.Width, Tasks: len(first.Target)}
	switch {
	case opt.Original && products != nil:
		return nil, fmt.Errorf("batch: sampled product graphs given for a batch of original graphs")
	case opt.Dense && opt.Original:
		return nil, fmt.Errorf("batch: the dense layout is for product graphs, not original graphs")
	}
	graphs := make([]*product.Graph, len(examples)) // the product graph each example contributes
	nodes, internal, external := 0, 0, 0
	for i, ex := range examples {
		switch {
		case opt.Original:
			graphs[i] = originalGraph(ex.Graph)
		case products != nil:
			graphs[i] = products[i]
		default:
			graphs[i] = ex.Item.Product
		}
		p := graphs[i]
		if ex.Graph.NodeFeatures.Width != b.NodeWidth || ex.Graph.NodeFeatures.Ints == nil && b.NodeWidth > 0 {
			return nil, fmt.Errorf("batch: example %d: node features of width %d (integers), want %d", i, ex.Graph.NodeFeatures.Width, b.NodeWidth)
		}
		if ex.Graph.EdgeFeatures.Width != b.BondWidth || ex.Graph.EdgeFeatures.Ints == nil && b.BondWidth > 0 && ex.Graph.NumEdges() > 0 {
			return nil, fmt.Errorf("batch: example %d: edge features of width %d (integers), want %d", i, ex.Graph.EdgeFeatures.Width, b.BondWidth)
		}
		if len(ex.Target) != b.Tasks {
			return nil, fmt.Errorf("batch: example %d: %d targets, want %d", i, len(ex.Target), b.Tasks)
		}
		if p.N != ex.Graph.N() {
			return nil, fmt.Errorf("batch: example %d: product graph of a %d-node graph for a %d-node graph", i, p.N, ex.Graph.N())
		}
		nodes += p.NumNodes()
		internal += p.Internal.Len()
		external += p.External.Len()
	}
	b.Nodes = bucket(nodes+1, opt.Bucket)
	nInt, nExt := bucket(internal, opt.Bucket), bucket(external, opt.Bucket)
	if opt.Dense {
		for _, ex := range examples {
			b.GridSize = max(b.GridSize, ex.Graph.N())
		}
		b.GridSize = bucket(b.GridSize, opt.Bucket)
		b.Nodes = b.Graphs * b.GridSize * b.GridSize
		nInt, nExt = 1, 1
		b.Adjacency = make([]float32, b.Nodes)
		b.BondGrid = make([]int32, b.Nodes)
	}
	pad := int32(b.Nodes - 1)

	b.NodeGraph = make([]int32, b.Nodes)
	b.NodeMask = make([]float32, b.Nodes)
	b.NodeSubgraph = make([]int32, b.Nodes)
	b.NodeFeatures = make([]int32, b.Nodes*b.NodeWidth)
	b.Marks = make([]int32, b.Nodes)
	b.PE = make([]float32, b.Nodes*opt.PEK)
	b.PointSrc = make([]int32, b.Nodes)
	b.PointMask = make([]float32, b.Nodes)
	b.GraphNodes = make([]float32, b.Graphs+1)
	b.GraphN = make([]float32, b.Graphs+1)
	b.Internal = newEdges(nInt)
	b.External = newEdges(nExt)
	bonds := newBondTable(b.BondWidth)
	b.Targets = make([]float32, (b.Graphs+1)*b.Tasks)
	b.TargetMask = make([]float32, (b.Graphs+1)*b.Tasks)

	off, ei, ee, subgraphs := 0, 0, 0, int32(0)
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
		position := func(i int, sv int32) int { // batch index of node i, (s, v) = sv
			if opt.Dense {
				m := b.GridSize
				return g*m*m + int(sv)/n*m + int(sv)%n
			}
			return off + i
		}
		local := make(map[int32]int32, p.NumNodes()) // full index s·n+v → batch index
		for i, sv := range p.Nodes {
			local[sv] = int32(position(i, sv))
		}
		for i, sv := range p.Nodes {
			at := position(i, sv)
			s, v := int(sv)/n, int(sv)%n
			if i > 0 && int(p.Nodes[i-1])/n != s {
				subgraphs++
			}
			b.NodeGraph[at] = int32(g)
			b.NodeMask[at] = 1
			b.NodeSubgraph[at] = subgraphs
			if opt.Dense {
				b.NodeSubgraph[at] = int32(at / b.GridSize) // (b, s) on the grid
			}
			copy(b.NodeFeatures[at*b.NodeWidth:(at+1)*b.NodeWidth], ex.Graph.NodeFeatures.Ints[v*b.NodeWidth:(v+1)*b.NodeWidth])
			b.PointSrc[at] = int32(at) // no root in the batch: no message, masked
			if opt.Original {
				continue
			}
			b.Marks[at] = clampMark(ex.Item.Marks[sv], opt.MaxDistance)
			copy(b.PE[at*opt.PEK:(at+1)*opt.PEK], full[int(sv)*opt.PEK:(int(sv)+1)*opt.PEK])
			if root, ok := local[int32(v*n+v)]; ok {
				b.PointSrc[at], b.PointMask[at] = root, 1
			}
		}
		if p.NumNodes() > 0 {
			subgraphs++
		}
		if opt.Dense {
			b.fillGrid(g, ex.Graph, bonds)
		} else {
			rows := bonds.rows(ex.Graph)
			ei = b.Internal.fill(ei, p.Internal, off, rows)
			ee = b.External.fill(ee, p.External, off, rows)
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
	for at := range b.Nodes {
		if b.NodeMask[at] == 0 {
			b.NodeGraph[at] = int32(b.Graphs)
			b.PointSrc[at] = int32(at)
			b.NodeSubgraph[at] = subgraphs
			if opt.Dense { // keep subgraph numbers sorted along the grid
				b.NodeSubgraph[at] = int32(at / b.GridSize)
			}
		}
	}
	b.Internal.pad(ei, pad)
	b.External.pad(ee, pad)
	b.Bonds, b.BondTypes = bonds.padded()
	b.GraphNodes[b.Graphs], b.GraphN[b.Graphs] = 1, 1
	return b, nil
}

// fillGrid writes the adjacency and bonds of graph g of the batch, G, to the grid.
func (b *Batch) fillGrid(g int, G *graph.Graph, bonds *bondTable) {
	m := b.GridSize
	rows := bonds.rows(G)
	for i, e := range G.Edges() {
		for _, uv := range [2][2]int{{e[0], e[1]}, {e[1], e[0]}} {
			at := g*m*m + uv[0]*m + uv[1]
			b.Adjacency[at] = 1
			b.BondGrid[at] = rows[i]
		}
	}
}

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
// (s = 0) holding every node, with G's edges as internal edges.
func originalGraph(g *graph.Graph) *product.Graph {
	n := g.N()
	p := &product.Graph{N: n, Nodes: make([]int32, n)}
	for v := range n {
		p.Nodes[v] = int32(v)
		nbrs, bonds := g.Neighbors(v)
		for i, w := range nbrs {
			p.Internal.Dst = append(p.Internal.Dst, int32(v))
			p.Internal.Src = append(p.Internal.Src, w)
			p.Internal.Bond = append(p.Internal.Bond, bonds[i])
		}
	}
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

// fill copies the edges of one graph, shifted by off, from position at, with bondRows the
// table row of each edge of G; it returns the next position.
func (e Edges) fill(at int, src product.Edges, off int, bondRows []int32) int {
	for i := range src.Dst {
		e.Src[at] = src.Src[i] + int32(off)
		e.Dst[at] = src.Dst[i] + int32(off)
		if b := src.Bond[i]; b >= 0 {
			e.Bond[at] = bondRows[b]
		}
		at++
	}
	return at
}

// pad points the edges from position at on to the padding node.
func (e Edges) pad(at int, node int32) {
	for ; at < len(e.Src); at++ {
		e.Src[at], e.Dst[at] = node, node
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
