// Package testgraphs provides the graphs the tests of the library run on: small classic graphs
// with degenerate spectra, disconnected graphs, and seeded random graphs.
package testgraphs

import (
	"fmt"
	"math/rand/v2"

	"github.com/sgformer/sgformer/sgformer/graph"
)

// Named is a test graph with a name for sub-test labels.
type Named struct {
	Name string
	G    *graph.Graph
}

func must(n int, edges []graph.Edge) *graph.Graph {
	g, err := graph.New(n, edges, graph.Features{}, graph.Features{})
	if err != nil {
		panic(err)
	}
	return g
}

// Clique returns the complete graph on n nodes.
func Clique(n int) *graph.Graph {
	g, err := graph.Clique(n)
	if err != nil {
		panic(err)
	}
	return g
}

// Path returns the path on n nodes.
func Path(n int) *graph.Graph {
	var e []graph.Edge
	for v := 1; v < n; v++ {
		e = append(e, graph.Edge{v - 1, v})
	}
	return must(n, e)
}

// Cycle returns the cycle on n ≥ 3 nodes.
func Cycle(n int) *graph.Graph {
	e := Path(n).Edges()
	return must(n, append(append([]graph.Edge(nil), e...), graph.Edge{n - 1, 0}))
}

// Star returns the star with one centre and n−1 leaves.
func Star(n int) *graph.Graph {
	var e []graph.Edge
	for v := 1; v < n; v++ {
		e = append(e, graph.Edge{0, v})
	}
	return must(n, e)
}

// Petersen returns the Petersen graph (10 nodes, eigenvalues of L: 0, 2×5, 5×4).
func Petersen() *graph.Graph {
	var e []graph.Edge
	for i := range 5 {
		e = append(e, graph.Edge{i, (i + 1) % 5}, graph.Edge{i, i + 5}, graph.Edge{5 + i, 5 + (i+2)%5})
	}
	return must(10, e)
}

// Hypercube returns the d-dimensional hypercube Q_d.
func Hypercube(d int) *graph.Graph {
	var e []graph.Edge
	for u := range 1 << d {
		for b := range d {
			if v := u ^ 1<<b; u < v {
				e = append(e, graph.Edge{u, v})
			}
		}
	}
	return must(1<<d, e)
}

// TwoTriangles returns two disjoint triangles: 1-WL cannot tell them from the 6-cycle (both are
// 2-regular on 6 nodes), 2-FWL can.
func TwoTriangles() *graph.Graph {
	return must(6, []graph.Edge{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}})
}

// Rook4 returns the 4×4 rook's graph: cells of a 4×4 board, adjacent in the same row or column.
// Shrikhande returns the Shrikhande graph: Z4 × Z4, (a, b) ~ (c, d) when the difference is
// ±(0, 1), ±(1, 0) or ±(1, 1). Both are strongly regular with parameters (16, 6, 2, 2), so
// 2-FWL (3-WL), which bounds 2-tuple subgraph GNNs, cannot tell them apart; 4-WL can (the
// rook's graph has 4-cliques, the rows, and the Shrikhande graph none).
func Rook4() *graph.Graph {
	return board(func(dr, dc int) bool { return dr == 0 || dc == 0 })
}

// Shrikhande: see Rook4.
func Shrikhande() *graph.Graph {
	return board(func(dr, dc int) bool {
		return (dr == 0 && (dc == 1 || dc == 3)) || (dc == 0 && (dr == 1 || dr == 3)) || (dr == dc && (dr == 1 || dr == 3))
	})
}

// board joins distinct cells (r, c) and (r', c') of Z4 × Z4 when adjacent(r'−r, c'−c) (mod 4).
func board(adjacent func(dr, dc int) bool) *graph.Graph {
	var edges []graph.Edge
	for u := range 16 {
		for v := u + 1; v < 16; v++ {
			if adjacent((v/4-u/4+4)%4, (v%4-u%4+4)%4) {
				edges = append(edges, graph.Edge{u, v})
			}
		}
	}
	return must(16, edges)
}

// Classic returns small graphs with repeated Laplacian eigenvalues, disconnected graphs and
// graphs with isolated nodes.
func Classic() []Named {
	return []Named{
		{"empty0", must(0, nil)},
		{"single", must(1, nil)},
		{"isolated3", must(3, nil)},
		{"edge", Path(2)},
		{"path5", Path(5)},
		{"cycle4", Cycle(4)},
		{"cycle6", Cycle(6)},
		{"star5", Star(5)},
		{"complete4", Clique(4)},
		{"cube", Hypercube(3)},
		{"petersen", Petersen()},
		{"two-triangles", TwoTriangles()},
		{"path-plus-isolated", must(4, []graph.Edge{{0, 1}, {1, 2}})},
	}
}

// Random returns count seeded G(n, p) graphs with n drawn from [lo, hi] and p from
// [0.15, 0.6], connected or not.
func Random(seed uint64, count, lo, hi int) []Named {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]Named, count)
	for i := range out {
		n := lo + rng.IntN(hi-lo+1)
		p := 0.15 + 0.45*rng.Float64()
		g, err := graph.ErdosRenyi(n, p, rng)
		if err != nil {
			panic(err)
		}
		out[i] = Named{fmt.Sprintf("random%d-n%d", i, n), g}
	}
	return out
}
