// Package pe computes the product-graph positional encodings of Sec. 4.2: eigenvectors of the
// Laplacian of the Cartesian product G□G (and of the K-fold product G^□K, Appendix B) with the
// smallest eigenvalues, used as extra node features of the product graph.
//
// By Prop. 4.1, the eigenpairs of L_{G□G} = L ⊗ I + I ⊗ L are (v_i ⊗ v_j, λ_i + λ_j) for the
// eigenpairs (v_i, λ_i) of L = D − A, so the encodings are computed from one n×n
// eigendecomposition; the n²×n² matrix is never formed. An Encoding keeps that factored form
// (the eigenvalues, the index tuples (i, j) and the eigenvectors of G they use) and expands it
// to an n²×k table on demand.
//
// # Ordering and ties
//
// Columns come in ascending order of eigenvalue. Eigenvalues of G□G are often repeated —
// (i, j) and (j, i) always give the same one, and symmetric graphs have repeated λ_i. Sums
// that agree within a tolerance of 1e-8·max(1, largest sum) are treated as one eigenvalue, and
// within it columns are ordered by their index tuple (i_0, …, i_{K−1}) lexicographically, where
// i indexes the eigenvalues of L in ascending order. When k cuts through a repeated
// eigenvalue, the lexicographically first tuples are kept.
//
// # Sign and basis
//
// An eigenvector is defined up to its sign, and inside a repeated eigenvalue only the
// eigenspace is defined, not the basis. Spectrum fixes a sign convention (the largest entry of
// each eigenvector of L, the first one on ties, is positive), so encodings are deterministic
// for a labelled graph; they are not invariant under relabelling of the nodes, which is why
// training flips signs at random (FlipSigns) and why a model must not rely on them.
package pe

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// Spectrum holds the eigendecomposition of the Laplacian L = D − A of a graph G.
type Spectrum struct {
	// Values are the eigenvalues λ_0 ≤ λ_1 ≤ … ≤ λ_{n−1}.
	Values []float64
	// Vectors[i] is the unit eigenvector of Values[i], with the sign convention of the package.
	Vectors [][]float64
}

// SpectrumBytes is the memory NewSpectrum needs for an n-node graph: four n×n float64 matrices
// (the Laplacian, LAPACK's working copy, its eigenvectors and the Spectrum's copy) and O(n)
// workspace.
func SpectrumBytes(n int) int64 {
	return memory.Sum(memory.Bytes(4*8, n, n), memory.Bytes(8, 64, n))
}

// NewSpectrum eigendecomposes the Laplacian of g (Sec. 4.2, L = D − A). It takes O(n³) time
// (about two minutes for n = 5000 on one core) and SpectrumBytes(n) of memory; a graph for
// which that memory is not available is an error (*memory.Error), before anything is
// allocated.
func NewSpectrum(g *graph.Graph) (*Spectrum, error) {
	n := g.N()
	if err := memory.Check(SpectrumBytes(n), "pe: the eigendecomposition of the Laplacian of a %d-node graph (4 n×n float64 matrices)", n); err != nil {
		return nil, err
	}
	s := &Spectrum{Values: make([]float64, n), Vectors: make([][]float64, n)}
	if n == 0 {
		return s, nil
	}
	l, err := g.Laplacian()
	if err != nil {
		return nil, err
	}
	var es mat.EigenSym
	if !es.Factorize(l, true) {
		return nil, fmt.Errorf("pe: eigendecomposition of the %d-node Laplacian did not converge", n)
	}
	es.Values(s.Values)
	for i, x := range s.Values { // L is positive semi-definite: tiny values are rounding noise
		if math.Abs(x) < 1e-12*max(1, s.Values[n-1]) {
			s.Values[i] = 0
		}
	}
	var u mat.Dense
	es.VectorsTo(&u)
	for i := range n {
		v := make([]float64, n)
		mat.Col(v, i, &u)
		fixSign(v)
		s.Vectors[i] = v
	}
	return s, nil
}

// fixSign makes the largest-magnitude entry of v positive (the first one, on ties).
func fixSign(v []float64) {
	big := 0.0
	for _, x := range v {
		big = max(big, math.Abs(x))
	}
	for _, x := range v {
		if math.Abs(x) >= big-1e-9 {
			if x < 0 {
				for i := range v {
					v[i] = -v[i]
				}
			}
			return
		}
	}
}

// Encoding is a set of eigenpairs of the Laplacian of G^□Order, in factored form: column c
// is the tensor product Basis[Factors[c·Order]] ⊗ … ⊗ Basis[Factors[c·Order+Order−1]], an
// eigenvector of eigenvalue Values[c] (Prop. 4.1, and its K-tuple form in Appendix B).
type Encoding struct {
	// N is the number of nodes of G and Order the number K of factors of the product.
	N, Order int
	// Values holds the eigenvalue of each column, ascending.
	Values []float64
	// Factors holds, for each column, Order indices into Basis.
	Factors []int
	// Basis holds the eigenvectors of L used by some column (each of length N), and
	// BasisIndex their positions in the ascending spectrum of L, or −1 for the constant vector
	// 1 of Concatenation.
	Basis      [][]float64
	BasisIndex []int
}

// Columns returns the number of (non-padding) columns.
func (e *Encoding) Columns() int { return len(e.Values) }

// Rows returns N^Order, the number of product nodes.
func (e *Encoding) Rows() int {
	r := 1
	for range e.Order {
		r *= e.N
	}
	return r
}

// Tuple returns, for column c, the positions (i_0, …, i_{K−1}) in the spectrum of L of its
// factors (−1 for the constant vector of Concatenation).
func (e *Encoding) Tuple(c int) []int {
	t := make([]int, e.Order)
	for j := range t {
		t[j] = e.BasisIndex[e.Factors[c*e.Order+j]]
	}
	return t
}

// Float32 expands the encoding to a row-major table of Rows() rows and width columns: row
// Σ v_j·N^(Order−1−j) (the product node (v_0, …, v_{K−1}); s·n + v for Order 2) holds
// Π_j Basis[f_j][v_j] for each column. Columns beyond Columns() are zero (padding for graphs
// with fewer eigenpairs than width); columns beyond width are dropped.
func (e *Encoding) Float32(width int) []float32 {
	out := make([]float32, e.Rows()*width)
	cols := min(width, e.Columns())
	if e.Order != 2 {
		e.each(cols, func(r, c int, x float64) { out[r*width+c] = float32(x) })
		return out
	}
	for c := range cols { // the common case, v_i ⊗ v_j, without the general loop
		a, b := e.Basis[e.Factors[2*c]], e.Basis[e.Factors[2*c+1]]
		for s, as := range a {
			row := out[s*e.N*width:]
			for v, bv := range b {
				row[v*width+c] = float32(as * bv)
			}
		}
	}
	return out
}

// Row writes row r of the table Float32 expands (product node r; s·n + v for Order 2) into dst,
// one entry per column up to len(dst): zero beyond Columns(). It returns dst, and lets a caller
// stream the table without holding it.
func (e *Encoding) Row(r int, dst []float64) []float64 {
	cols := min(len(dst), e.Columns())
	clear(dst[cols:])
	if e.Order == 2 {
		s, v := r/e.N, r%e.N
		for c := range cols {
			dst[c] = e.Basis[e.Factors[2*c]][s] * e.Basis[e.Factors[2*c+1]][v]
		}
		return dst
	}
	for c := range cols {
		x, stride := 1.0, e.Rows()/e.N // of position 0
		for j := range e.Order {
			x *= e.Basis[e.Factors[c*e.Order+j]][r/stride%e.N]
			stride /= e.N
		}
		dst[c] = x
	}
	return dst
}

// Dense returns the Rows()×Columns() matrix of the encoding in float64, for inspection and tests.
func (e *Encoding) Dense() *mat.Dense {
	rows, cols := e.Rows(), e.Columns()
	if rows == 0 || cols == 0 {
		return &mat.Dense{}
	}
	m := mat.NewDense(rows, cols, nil)
	e.each(cols, m.Set)
	return m
}

// each calls f(row, column, value) for every entry of the first cols columns.
func (e *Encoding) each(cols int, f func(r, c int, x float64)) {
	idx := make([]int, e.Order)
	for r := range e.Rows() {
		for j, rem := e.Order-1, r; j >= 0; j-- {
			idx[j] = rem % e.N
			rem /= e.N
		}
		for c := range cols {
			x := 1.0
			for j, f := range e.Factors[c*e.Order : (c+1)*e.Order] {
				x *= e.Basis[f][idx[j]]
			}
			f(r, c, x)
		}
	}
}

// Product returns the product-graph PE (Sec. 4.2, Prop. 4.1): the k eigenpairs of L_{G□G} with
// the smallest eigenvalues, as v_i ⊗ v_j with eigenvalue λ_i + λ_j, ordered as the package
// describes. It is Tuple with order 2. k must not exceed n².
func Product(s *Spectrum, k int) (*Encoding, error) { return Tuple(s, 2, k) }

// Tuple returns the K-tuple PE (Appendix B, "k-tuple product graph PE"): the k eigenpairs of the
// Laplacian of G^□order with the smallest eigenvalues, as v_{i_0} ⊗ … ⊗ v_{i_{K−1}} with
// eigenvalue λ_{i_0} + … + λ_{i_{K−1}}. It enumerates only O(k·order) candidate tuples, best
// first, so its cost does not depend on n^order. k must not exceed n^order.
func Tuple(s *Spectrum, order, k int) (*Encoding, error) {
	n := len(s.Values)
	if order < 1 {
		return nil, fmt.Errorf("pe: order %d must be at least 1", order)
	}
	if k < 0 {
		return nil, fmt.Errorf("pe: negative number of eigenpairs k = %d", k)
	}
	if total := math.Pow(float64(n), float64(order)); float64(k) > total {
		return nil, fmt.Errorf("pe: k = %d eigenpairs asked of a product graph with %v nodes (n = %d, order %d)", k, total, n, order)
	}
	if err := checkTuples(k, order); err != nil {
		return nil, err
	}
	tuples, values := smallestSums(s.Values, order, k)
	return newEncoding(s, order, tuples, values), nil
}

// Reference reproduces the product PE of the authors' code, not the exact k smallest eigenpairs
// (utils/preprocess.py, get_laplacian_pe_for_kron_graph): it drops the first (trivial) eigenvector of L, keeps the
// next m = ⌊√(k+1)⌋ (fewer when G has fewer), forms the m² products v_i ⊗ v_j, orders them by
// λ_i + λ_j (ties as the package describes, where the authors' order is arbitrary) and keeps
// k. Pairs with the trivial eigenvector never appear; a graph too small for k columns yields
// fewer, and Float32 zero-pads the rest, as the authors' code does.
func Reference(s *Spectrum, k int) (*Encoding, error) {
	if k < 0 {
		return nil, fmt.Errorf("pe: negative number of eigenpairs k = %d", k)
	}
	if len(s.Values) == 0 {
		return newEncoding(s, 2, nil, nil), nil
	}
	m := min(int(math.Floor(math.Sqrt(float64(k+1)))), len(s.Values)-1)
	if err := checkTuples(min(k, m*m), 2); err != nil {
		return nil, err
	}
	tuples, values := smallestSums(s.Values[1:1+m], 2, min(k, m*m))
	for _, t := range tuples {
		t[0]++
		t[1]++
	}
	return newEncoding(s, 2, tuples, values), nil
}

// TupleBytes is the memory Tuple needs to find k eigenpairs of the given order: per pair found,
// the heap entries of it and its successors (with their index slices, in slices that grow by
// doubling), and the result. Product and Reference need TupleBytes(k, 2).
func TupleBytes(k, order int) int64 {
	per := memory.Sum(memory.Bytes(80+16, order), 80+32)
	return memory.Bytes(int(per), k)
}

// checkTuples checks that TupleBytes(k, order) fits in the available memory.
func checkTuples(k, order int) error {
	return memory.Check(TupleBytes(k, order), "pe: k = %d eigenpairs of order %d", k, order)
}

// newEncoding gathers the eigenvectors used by tuples into a self-contained Encoding.
func newEncoding(s *Spectrum, order int, tuples [][]int, values []float64) *Encoding {
	var used []int
	for _, t := range tuples {
		used = append(used, t...)
	}
	slices.Sort(used)
	used = slices.Compact(used)
	e := &Encoding{N: len(s.Values), Order: order, Values: values, BasisIndex: used}
	pos := make(map[int]int, len(used))
	for p, i := range used {
		pos[i] = p
		e.Basis = append(e.Basis, s.Vectors[i])
	}
	for _, t := range tuples {
		for _, i := range t {
			e.Factors = append(e.Factors, pos[i])
		}
	}
	return e
}

// Concatenation returns the concatenation PE of Sec. 4.2 on K-tuples: the first k
// eigenvectors of L at each entry of the tuple, p_s ‖ p_v for K = 2, where p_v =
// [U_{v,0}, …, U_{v,k−1}]. Column order·c + j holds eigenvector c at position j of the tuple,
// that is v_c ⊗ 1 ⊗ … in the factored form of Encoding with the (unnormalised) constant vector
// 1 elsewhere (BasisIndex −1): an eigenvector of L_{G^□K} with eigenvalue λ_c, since L·1 = 0.
// A graph with fewer than k nodes has order·n columns (Float32 zero-pads the rest).
func Concatenation(s *Spectrum, order, k int) (*Encoding, error) {
	switch {
	case k < 0:
		return nil, fmt.Errorf("pe: negative number of eigenvectors k = %d", k)
	case order < 1:
		return nil, fmt.Errorf("pe: order %d must be at least 1", order)
	}
	n := len(s.Values)
	cols := min(k, n)
	e := &Encoding{N: n, Order: order}
	if cols == 0 {
		return e, nil
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	e.Basis, e.BasisIndex = append(e.Basis, ones), append(e.BasisIndex, -1)
	for c := range cols {
		e.Basis, e.BasisIndex = append(e.Basis, s.Vectors[c]), append(e.BasisIndex, c)
		for j := range order {
			e.Values = append(e.Values, s.Values[c])
			for i := range order {
				f := 0 // the ones vector
				if i == j {
					f = c + 1
				}
				e.Factors = append(e.Factors, f)
			}
		}
	}
	return e, nil
}

// FlipSigns multiplies each column of the row-major table x (of width cols) by an independent
// random sign, the sign-ambiguity augmentation applied to PEs during training.
func FlipSigns(x []float32, cols int, rng *rand.Rand) {
	if cols == 0 {
		return
	}
	signs := make([]float32, cols)
	for c := range signs {
		signs[c] = float32(1 - 2*rng.IntN(2))
	}
	for i := range x {
		x[i] *= signs[i%cols]
	}
}

// smallestSums returns the k index tuples (i_0, …, i_{order−1}) with the smallest sums
// Σ values[i_j], for values sorted ascending, in ascending order of sum with the package's tie
// rule, and their sums; a run of sums equal up to the tolerance is reported as its mean.
//
// It pops candidates from a heap, best first. Every tuple is pushed once, by its parent: the
// tuple with its last non-zero index decreased by one. So a popped tuple pushes the successors
// that add one at a position at or after its own last non-zero index, and since values are
// sorted, no successor has a smaller sum than its parent.
func smallestSums(values []float64, order, k int) ([][]int, []float64) {
	n := len(values)
	if k == 0 || n == 0 {
		return nil, nil
	}
	tol := 1e-8 * max(1, float64(order)*math.Abs(values[n-1]))
	h := &tupleHeap{{sum: float64(order) * values[0], idx: make([]int, order)}}
	var popped []tupleSum
	for h.Len() > 0 {
		top := (*h)[0]
		if len(popped) >= k && top.sum > popped[k-1].sum+tol {
			break
		}
		heap.Pop(h)
		popped = append(popped, top)
		last := 0
		for j, i := range top.idx {
			if i > 0 {
				last = j
			}
		}
		for j := last; j < order; j++ {
			if top.idx[j]+1 < n {
				next := slices.Clone(top.idx)
				next[j]++
				heap.Push(h, tupleSum{sum: top.sum - values[top.idx[j]] + values[next[j]], idx: next})
			}
		}
	}
	// Within runs of equal sums (up to tol), order tuples lexicographically.
	for lo := 0; lo < len(popped); {
		hi := lo + 1
		mean := popped[lo].sum
		for hi < len(popped) && popped[hi].sum <= popped[lo].sum+tol {
			mean += popped[hi].sum
			hi++
		}
		mean /= float64(hi - lo)
		slices.SortFunc(popped[lo:hi], func(a, b tupleSum) int { return slices.Compare(a.idx, b.idx) })
		for i := lo; i < hi; i++ {
			popped[i].sum = mean
		}
		lo = hi
	}
	tuples, sums := make([][]int, k), make([]float64, k)
	for c := range k {
		tuples[c], sums[c] = popped[c].idx, popped[c].sum
	}
	return tuples, sums
}

type tupleSum struct {
	sum float64
	idx []int
}

type tupleHeap []tupleSum

func (h tupleHeap) Len() int           { return len(h) }
func (h tupleHeap) Less(a, b int) bool { return h[a].sum < h[b].sum }
func (h tupleHeap) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *tupleHeap) Push(x any)        { *h = append(*h, x.(tupleSum)) }
func (h *tupleHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
