package product

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// A Connectivity is one named connectivity of a product graph.
type Connectivity struct {
	Name Name
	Edges
}

// Graph is the product graph Subgraphormer runs on (Sec. 3, and Sec. 4.4 / Appendix B for
// K-tuples): the nodes (v_0, …, v_{K−1}) of G^□K — for K = 2 the nodes (s, v) of the bag of
// node-marked subgraphs — and the named connectivities a model aggregates over. After Sample it
// holds only the nodes of the kept subgraphs, compactly re-indexed.
type Graph struct {
	// N is the number of nodes n of G, K the order of the tuples.
	N, K int
	// Nodes[i] is the full-bag index Σ v_j·n^(K−1−j) of node i of this graph (s·n + v for
	// K = 2). For the full bag it is the identity on 0..n^K−1; after sampling it maps each kept
	// node back to its tuple.
	Nodes []int32
	// Connectivities are the connectivities built, over the indices of Nodes, in the order
	// asked for.
	Connectivities []Connectivity
}

// GraphBytes is the memory New needs for the named connectivities of the K-tuples of a graph
// of n nodes and m edges: n^K node indices and 12 bytes per edge, n^(K−1)·2m edges for a
// neighbours connectivity, n² for a point-wise one, n²(n−1) for a global one. For the pairs of
// a graph with n = 1000 and m = 1000 and the default connectivities that is 112 MB.
func GraphBytes(n, m, k int, names []Name) int64 {
	rest := make([]int, k-1) // n^(K−1)
	for i := range rest {
		rest[i] = n
	}
	total := memory.Bytes(append([]int{4, n}, rest...)...)
	for _, name := range names {
		switch kind, _ := name.Kind(k); kind {
		case Neighbours:
			total = memory.Sum(total, memory.Bytes(append([]int{24, m}, rest...)...))
		case PointWise:
			total = memory.Sum(total, memory.Bytes(12, n, n))
		case Global:
			total = memory.Sum(total, memory.Bytes(12, n, n, max(n-1, 0)))
		}
	}
	return total
}

// New returns the full product graph of g on K-tuples with the named connectivities (see
// Names; by default DefaultNames(k)). A product graph that does not fit in the available
// memory (GraphBytes) is an error (*memory.Error), before anything is allocated.
func New(g *graph.Graph, k int, names ...Name) (*Graph, error) {
	if k < 2 {
		return nil, fmt.Errorf("product: tuples of order %d; want at least 2", k)
	}
	size, err := NumNodes(g.N(), k)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = DefaultNames(k)
	}
	for _, name := range names {
		if _, err := name.Kind(k); err != nil {
			return nil, err
		}
	}
	if err := memory.Check(GraphBytes(g.N(), g.NumEdges(), k, names), "product: the %d-tuple product graph of a graph with n = %d, |E| = %d", k, g.N(), g.NumEdges()); err != nil {
		return nil, err
	}
	p := &Graph{N: g.N(), K: k, Nodes: make([]int32, size)}
	for i := range p.Nodes {
		p.Nodes[i] = int32(i)
	}
	for i, name := range names {
		if slices.Contains(names[:i], name) {
			return nil, fmt.Errorf("product: connectivity %q asked for twice", name)
		}
		e, err := Connect(g, k, name)
		if err != nil {
			return nil, err
		}
		p.Connectivities = append(p.Connectivities, Connectivity{name, e})
	}
	return p, nil
}

// Connectivity returns the edges of the connectivity called name, and whether p has it.
func (p *Graph) Connectivity(name Name) (Edges, bool) {
	for _, c := range p.Connectivities {
		if c.Name == name {
			return c.Edges, true
		}
	}
	return Edges{}, false
}

// NumNodes returns the number of product nodes (n^K for the full bag).
func (p *Graph) NumNodes() int { return len(p.Nodes) }

// Subgraph returns the subgraph and the node of product node i: for K = 2 its (s, v); for
// K-tuples, the index of the (K−1)-tuple (v_0, …, v_{K−2}) and v_{K−1}.
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

// TupleMarking returns the node marks of K-tuples, K − 1 per product node (row-major): the
// distances d(v_i, v_{K−1}) in G from each entry v_i, i < K − 1, to the last one (−1 where
// unreachable). The paper marks node v of the subgraph rooted at s with d(s, v); Appendix B
// takes the first K − 1 entries of a tuple as its subgraph and the last as its node, so each of
// the K − 1 roots marks the node with its own distance. For K = 2 it is NodeMarking.
func TupleMarking(g *graph.Graph, k int) ([]int32, error) {
	size, err := NumNodes(g.N(), k)
	if err != nil {
		return nil, err
	}
	if k < 2 {
		return nil, fmt.Errorf("product: tuples of order %d; want at least 2", k)
	}
	d, err := NodeMarking(g)
	if err != nil || k == 2 {
		return d, err
	}
	n := g.N()
	if err := memory.Check(memory.Bytes(4*(k-1), size), "product: the node marks of the %d-tuples of a %d-node graph", k, n); err != nil {
		return nil, err
	}
	marks := make([]int32, size*(k-1))
	for t := range size {
		v := t % n
		rest := t / n
		for i := k - 2; i >= 0; i-- {
			marks[t*(k-1)+i] = d[(rest%n)*n+v]
			rest /= n
		}
	}
	return marks, nil
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
// mask A_mask): it keeps the nodes whose first entry (s of (s, v)) is a root and every edge
// of every connectivity whose two ends are both kept, re-indexed compactly in the order of
// the kept nodes. Nodes of the result maps back to the tuples. p must be a full product graph
// from New.
func (p *Graph) Sample(roots []int) (*Graph, error) {
	n := p.N
	size, err := NumNodes(n, p.K)
	if err != nil {
		return nil, err
	}
	if len(p.Nodes) != size {
		return nil, fmt.Errorf("product: Sample needs the full bag of %d nodes, got %d", size, len(p.Nodes))
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
	per := 1 // tuples per value of the first entry
	if n > 0 {
		per = size / n
	}
	index := make([]int32, size) // full index -> new index, or −1
	out := &Graph{N: n, K: p.K, Nodes: make([]int32, 0, len(roots)*per)}
	for full := range index {
		index[full] = -1
		if keep[full/per] {
			index[full] = int32(len(out.Nodes))
			out.Nodes = append(out.Nodes, int32(full))
		}
	}
	for _, c := range p.Connectivities {
		out.Connectivities = append(out.Connectivities, Connectivity{c.Name, c.restrict(index)})
	}
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
