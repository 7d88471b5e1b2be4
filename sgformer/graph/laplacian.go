package graph

import (
	"gonum.org/v1/gonum/mat"

	"github.com/sgformer/sgformer/internal/memory"
)

// Laplacian returns the combinatorial Laplacian L = D − A of g, with D = diag(A1) (Sec. 4.2).
// The graph with no nodes has the empty matrix. L is dense, n×n float64 (80 GB for 100,000
// nodes): a graph whose Laplacian does not fit in the available memory is an error
// (*memory.Error), before anything is allocated.
func (g *Graph) Laplacian() (*mat.SymDense, error) {
	if g.n == 0 {
		return &mat.SymDense{}, nil
	}
	if err := memory.Check(memory.Bytes(8, g.n, g.n), "graph: the Laplacian of a %d-node graph (n×n float64)", g.n); err != nil {
		return nil, err
	}
	l := mat.NewSymDense(g.n, nil)
	for v := range g.n {
		l.SetSym(v, v, float64(g.Degree(v)))
	}
	for _, e := range g.edges {
		l.SetSym(e[0], e[1], -1)
	}
	return l, nil
}
