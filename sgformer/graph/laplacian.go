package graph

import "gonum.org/v1/gonum/mat"

// Laplacian returns the combinatorial Laplacian L = D − A of g, with D = diag(A1) (Sec. 4.2).
// The graph with no nodes has the empty matrix.
func (g *Graph) Laplacian() *mat.SymDense {
	if g.n == 0 {
		return &mat.SymDense{}
	}
	l := mat.NewSymDense(g.n, nil)
	for v := range g.n {
		l.SetSym(v, v, float64(g.Degree(v)))
	}
	for _, e := range g.edges {
		l.SetSym(e[0], e[1], -1)
	}
	return l
}
