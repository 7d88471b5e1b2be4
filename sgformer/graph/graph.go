// Package graph holds the undirected graphs G = (A, X) that Subgraphormer starts from: n nodes,
// a list of undirected edges, and optional node and edge features.
//
// A Graph is immutable once built: New validates everything (node ids in range, no self loops,
// no duplicate edges, feature tables of the right length) and returns an error naming the
// offending edge or field instead of building a graph that would give wrong answers later.
package graph

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/sgformer/sgformer/internal/memory"
)

// Edge is an undirected edge {u, v} between two node ids. Its orientation carries no meaning.
type Edge [2]int

// EdgeError reports an invalid edge given to New: its position in the edge list, the edge,
// and what is wrong with it.
type EdgeError struct {
	Index  int
	Edge   Edge
	Reason string
}

func (e *EdgeError) Error() string {
	return fmt.Sprintf("graph: edge %d (%d,%d): %s", e.Index, e.Edge[0], e.Edge[1], e.Reason)
}

// Features is a row-major table of per-node or per-edge features with Width columns: either
// integer categories (Ints, e.g. atom or bond types) or real vectors (Floats), never both.
// The zero value means "no features".
type Features struct {
	Width  int
	Ints   []int32
	Floats []float32
}

// Rows returns the number of rows of f, or 0 when f has no features.
func (f Features) Rows() int {
	if f.Width == 0 {
		return 0
	}
	return (len(f.Ints) + len(f.Floats)) / f.Width
}

// Empty reports whether f holds no features.
func (f Features) Empty() bool { return f.Width == 0 && len(f.Ints) == 0 && len(f.Floats) == 0 }

// check reports whether f is a well-formed table of exactly rows rows.
func (f Features) check(what string, rows int) error {
	if f.Empty() {
		return nil
	}
	switch {
	case f.Width <= 0:
		return fmt.Errorf("%s features: width %d must be positive", what, f.Width)
	case f.Ints != nil && f.Floats != nil:
		return fmt.Errorf("%s features: both integer and float values given; use one", what)
	}
	n := len(f.Ints) + len(f.Floats)
	if n != rows*f.Width {
		return fmt.Errorf("%s features: %d values, want %d (%d %ss × width %d)", what, n, rows*f.Width, rows, what, f.Width)
	}
	return nil
}

// Graph is an undirected simple graph on nodes 0..N()-1.
type Graph struct {
	n     int
	edges []Edge
	// Compressed adjacency: the neighbours of v are nbr[off[v]:off[v+1]], in ascending order,
	// and eid[i] is the index in edges of the edge joining v to nbr[i].
	off, nbr, eid []int32

	// NodeFeatures has one row per node; EdgeFeatures one row per edge, in the order of Edges().
	NodeFeatures, EdgeFeatures Features
}

// New builds the graph on n nodes with the given undirected edges, each listed once in either
// orientation, and the given (possibly empty) node and edge feature tables.
func New(n int, edges []Edge, nodeFeatures, edgeFeatures Features) (*Graph, error) {
	if n < 0 {
		return nil, fmt.Errorf("graph: negative node count %d", n)
	}
	if n > 1<<30 {
		return nil, fmt.Errorf("graph: node count %d too large", n)
	}
	// The adjacency offsets (n+1 int32) and, per edge, both orientations in the compressed
	// adjacency and while sorting, the copy of the edge list and the duplicate check's map.
	if err := memory.Check(memory.Sum(memory.Bytes(4, n+1), memory.Bytes(120, len(edges))), "graph: a graph with n = %d, |E| = %d", n, len(edges)); err != nil {
		return nil, err
	}
	seen := make(map[[2]int]int, len(edges))
	for i, e := range edges {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n {
			return nil, &EdgeError{i, e, fmt.Sprintf("node id out of range [0,%d)", n)}
		}
		if e[0] == e[1] {
			return nil, &EdgeError{i, e, fmt.Sprintf("self loop on node %d", e[0])}
		}
		key := [2]int{min(e[0], e[1]), max(e[0], e[1])}
		if j, dup := seen[key]; dup {
			return nil, &EdgeError{i, e, fmt.Sprintf("duplicates edge %d (%d,%d)", j, edges[j][0], edges[j][1])}
		}
		seen[key] = i
	}
	if err := nodeFeatures.check("node", n); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	if err := edgeFeatures.check("edge", len(edges)); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}

	// Both orientations of every edge, sorted by (node, neighbour), give the compressed adjacency.
	type half struct{ v, w, id int32 }
	halves := make([]half, 0, 2*len(edges))
	for i, e := range edges {
		halves = append(halves, half{int32(e[0]), int32(e[1]), int32(i)}, half{int32(e[1]), int32(e[0]), int32(i)})
	}
	slices.SortFunc(halves, func(a, b half) int {
		if a.v != b.v {
			return cmp.Compare(a.v, b.v)
		}
		return cmp.Compare(a.w, b.w)
	})
	g := &Graph{n: n, edges: slices.Clone(edges), NodeFeatures: nodeFeatures, EdgeFeatures: edgeFeatures,
		off: make([]int32, n+1), nbr: make([]int32, len(halves)), eid: make([]int32, len(halves))}
	for i, h := range halves {
		g.off[h.v+1]++
		g.nbr[i], g.eid[i] = h.w, h.id
	}
	for v := range n {
		g.off[v+1] += g.off[v]
	}
	return g, nil
}

// N returns the number of nodes n.
func (g *Graph) N() int { return g.n }

// NumEdges returns the number of undirected edges |E|.
func (g *Graph) NumEdges() int { return len(g.edges) }

// Edges returns the undirected edges in the order given to New. The slice must not be modified.
func (g *Graph) Edges() []Edge { return g.edges }

// Degree returns the number of neighbours of v.
func (g *Graph) Degree(v int) int { return int(g.off[v+1] - g.off[v]) }

// Neighbors returns the neighbours of v in ascending order, and for each the index in Edges()
// of the edge joining them. The slices must not be modified.
func (g *Graph) Neighbors(v int) (nodes, edgeIDs []int32) {
	lo, hi := g.off[v], g.off[v+1]
	return g.nbr[lo:hi], g.eid[lo:hi]
}

// Clique returns the complete graph K_n (adjacency 11ᵀ − I, Eq. "A clique" of Appendix A),
// without features. It has n(n−1)/2 edges; an n whose clique does not fit in the available
// memory is an error (*memory.Error).
func Clique(n int) (*Graph, error) {
	m := memory.Bytes(n, max(n-1, 0)) / 2
	if err := memory.Check(memory.Bytes(16+120, int(m)), "graph: the clique on %d nodes (%d edges)", n, m); err != nil {
		return nil, err
	}
	edges := make([]Edge, 0, m)
	for u := range n {
		for v := u + 1; v < n; v++ {
			edges = append(edges, Edge{u, v})
		}
	}
	return New(n, edges, Features{}, Features{})
}

// Permute returns the graph with node v renamed perm[v], with its features and edge order
// carried along (edge i of the result is the image of edge i of g).
func (g *Graph) Permute(perm []int) (*Graph, error) {
	if len(perm) != g.n {
		return nil, fmt.Errorf("graph: permutation of length %d for %d nodes", len(perm), g.n)
	}
	seen := make([]bool, g.n)
	for v, p := range perm {
		if p < 0 || p >= g.n || seen[p] {
			return nil, fmt.Errorf("graph: perm[%d] = %d: not a permutation of 0..%d", v, p, g.n-1)
		}
		seen[p] = true
	}
	edges := make([]Edge, len(g.edges))
	for i, e := range g.edges {
		edges[i] = Edge{perm[e[0]], perm[e[1]]}
	}
	nf := g.NodeFeatures
	if !nf.Empty() {
		w := nf.Width
		out := Features{Width: w}
		if nf.Ints != nil {
			out.Ints = make([]int32, len(nf.Ints))
			for v := range g.n {
				copy(out.Ints[perm[v]*w:(perm[v]+1)*w], nf.Ints[v*w:(v+1)*w])
			}
		} else {
			out.Floats = make([]float32, len(nf.Floats))
			for v := range g.n {
				copy(out.Floats[perm[v]*w:(perm[v]+1)*w], nf.Floats[v*w:(v+1)*w])
			}
		}
		nf = out
	}
	return New(g.n, edges, nf, g.EdgeFeatures)
}

// ErdosRenyi returns a random graph G(n, p): each of the n(n−1)/2 node pairs is an edge with
// probability p, independently, drawn from rng.
func ErdosRenyi(n int, p float64, rng *rand.Rand) (*Graph, error) {
	if !(p >= 0 && p <= 1) {
		return nil, fmt.Errorf("graph: edge probability %v outside [0, 1]", p)
	}
	var edges []Edge
	for u := range max(n, 0) {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < p {
				edges = append(edges, Edge{u, v})
			}
		}
	}
	return New(n, edges, Features{}, Features{})
}
