package product

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// Graph is the product graph Subgraphormer runs on (Sec. 3): the nodes (s, v) of the bag of
// node-marked subgraphs of G and the three connectivities of a Subgraph Attention Block.
// After Sample it holds only the nodes of the kept subgraphs, compactly re-indexed.
type Graph struct {
	// N is the number of nodes n of G.
	N int
	// Nodes[i] is the full-bag index s·n + v of node i of this graph. For the full bag it is the
	// identity on 0..n²−1; after sampling it maps each kept node back to its (s, v).
	Nodes []int32
	// Internal (A_G), External (A_{G^S}) and Point (A_point) connectivities, over the indices of
	// Nodes.
	Internal, External, Point Edges
}

// GraphBytes is the memory New needs for a graph of n nodes and m edges: n² node indices, the
// internal and external connectivities (2·n·m edges each) and the point connectivity (n²
// edges), 12 bytes per edge. For n = 1000 and m = 1000 that is 112 MB.
func GraphBytes(n, m int) int64 {
	return memory.Sum(memory.Bytes(16, n, n), memory.Bytes(48, n, m))
}

// New returns the full product graph of g: n² nodes with internal, external and point edges.
// A graph whose product graph does not fit in the available memory (GraphBytes) is an error
// (*memory.Error), before anything is allocated.
func New(g *graph.Graph) (*Graph, error) {
	n := g.N()
	size, err := NumNodes(n, 2)
	if err != nil {
		return nil, err
	}
	if err := memory.Check(GraphBytes(n, g.NumEdges()), "product: the product graph of a graph with n = %d, |E| = %d", n, g.NumEdges()); err != nil {
		return nil, err
	}
	p := &Graph{N: n, Nodes: make([]int32, size)}
	for i := range p.Nodes {
		p.Nodes[i] = int32(i)
	}
	if p.Internal, err = Internal(g); err != nil {
		return nil, err
	}
	if p.External, err = External(g); err != nil {
		return nil, err
	}
	if p.Point, err = Point(n, 2, 0); err != nil {
		return nil, err
	}
	return p, nil
}

// NumNodes returns the number of product nodes (n² for the full bag).
func (p *Graph) NumNodes() int { return len(p.Nodes) }

// Subgraph returns the subgraph s (the root) and node v of product node i.
func (p *Graph) Subgraph(i int) (s, v int) {
	full := int(p.Nodes[i])
	return full / p.N, full % p.N
}

// MarkingBytes is the memory NodeMarking needs for an n-node graph: n² int32 and a queue.
func MarkingBytes(n int) int64 { return memory.Sum(memory.Bytes(4, n, n), memory.Bytes(4, n)) }

// NodeMarking returns the node marks of Sec. 4.2: the shortest-path distance d(s, v) in G for
// every product node s·n + v, computed by breadth-first search, or −1 where v is unreachable
// from s. The model clamps them (to max_dis, plus one index for unreachable). Marks that do not
// fit in the available memory (MarkingBytes) are an error (*memory.Error).
func NodeMarking(g *graph.Graph) ([]int32, error) {
	n := g.N()
	if _, err := NumNodes(n, 2); err != nil {
		return nil, err
	}
	if err := memory.Check(MarkingBytes(n), "product: the node marks of a %d-node graph (n² int32)", n); err != nil {
		return nil, err
	}
	dist := make([]int32, n*n)
	queue := make([]int32, 0, n)
	for s := range n {
		row := dist[s*n : (s+1)*n]
		for i := range row {
			row[i] = -1
		}
		row[s] = 0
		queue = append(queue[:0], int32(s))
		for head := 0; head < len(queue); head++ {
			u := queue[head]
			nbrs, _ := g.Neighbors(int(u))
			for _, w := range nbrs {
				if row[w] < 0 {
					row[w] = row[u] + 1
					queue = append(queue, w)
				}
			}
		}
	}
	return dist, nil
}

// SampleRoots draws the roots of the subgraphs kept by stochastic subgraph sampling (Sec. 4.3):
// round(ratio·n) of the n nodes, at least one when n > 0, uniformly without replacement, in
// ascending order. ratio must lie in (0, 1]; ratio 1 keeps every root.
func SampleRoots(n int, ratio float64, rng *rand.Rand) ([]int, error) {
	if !(ratio > 0 && ratio <= 1) {
		return nil, fmt.Errorf("product: sampling ratio %v outside (0, 1]", ratio)
	}
	if n == 0 {
		return nil, nil
	}
	k := max(1, int(math.Round(ratio*float64(n))))
	roots := rng.Perm(n)[:k]
	slices.Sort(roots)
	return roots, nil
}

// Sample returns the product graph restricted to the subgraphs rooted at roots (Sec. 4.3, the
// mask A_mask): it keeps the nodes (s, v) with s a root and every edge of every connectivity
// whose two ends are both kept, re-indexed compactly in the order of the kept nodes. Nodes of
// the result maps back to (s, v). p must be a full product graph from New.
func (p *Graph) Sample(roots []int) (*Graph, error) {
	n := p.N
	if len(p.Nodes) != n*n {
		return nil, fmt.Errorf("product: Sample needs the full bag of %d nodes, got %d", n*n, len(p.Nodes))
	}
	keep := make([]bool, n)
	for i, r := range roots {
		if r < 0 || r >= n {
			return nil, fmt.Errorf("product: root %d out of range [0,%d)", r, n)
		}
		if keep[r] {
			return nil, fmt.Errorf("product: root %d listed twice (roots[%d])", r, i)
		}
		keep[r] = true
	}
	index := make([]int32, n*n) // full index -> new index, or −1
	out := &Graph{N: n, Nodes: make([]int32, 0, len(roots)*n)}
	for full := range index {
		index[full] = -1
		if keep[full/n] {
			index[full] = int32(len(out.Nodes))
			out.Nodes = append(out.Nodes, int32(full))
		}
	}
	out.Internal = p.Internal.restrict(index)
	out.External = p.External.restrict(index)
	out.Point = p.Point.restrict(index)
	return out, nil
}

// restrict keeps the edges whose ends both have a non-negative new index, renumbered. The
// renumbering preserves order, so the result stays sorted by (Dst, Src).
func (e Edges) restrict(index []int32) Edges {
	var out Edges
	for i := range e.Dst {
		d, s := index[e.Dst[i]], index[e.Src[i]]
		if d >= 0 && s >= 0 {
			out.Dst = append(out.Dst, d)
			out.Src = append(out.Src, s)
			out.Bond = append(out.Bond, e.Bond[i])
		}
	}
	return out
}
