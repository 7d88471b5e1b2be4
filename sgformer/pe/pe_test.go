package pe_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/internal/testgraphs"
	"github.com/sgformer/sgformer/sgformer/pe"
	"github.com/sgformer/sgformer/sgformer/product"
)

const tol = 1e-9

// bruteLaplacian returns the Laplacian of G^□order built from the product graph's own edges
// (Σ_i A^i_K, so that the test also ties the PE to the connectivities it encodes), and checks
// it against Σ_i I ⊗ … ⊗ L ⊗ … ⊗ I.
func bruteLaplacian(t *testing.T, g *graph.Graph, order int) *mat.SymDense {
	t.Helper()
	n := g.N()
	size := int(math.Pow(float64(n), float64(order)))
	l := mat.NewSymDense(size, nil)
	for slot := range order {
		e, err := product.Adjacency(g, order, slot)
		if err != nil {
			t.Fatal(err)
		}
		for i := range e.Dst {
			d, s := int(e.Dst[i]), int(e.Src[i])
			if d < s { // each undirected edge appears as the two messages d ← s and s ← d
				l.SetSym(d, s, l.At(d, s)-1)
			}
			l.SetSym(d, d, l.At(d, d)+1)
		}
	}
	lg, err := g.Laplacian()
	if err != nil {
		t.Fatal(err)
	}
	kron := mat.NewDense(size, size, nil)
	for slot := range order {
		term := mat.NewDense(1, 1, []float64{1})
		for j := range order {
			var f mat.Matrix = lg
			if j != slot {
				id := mat.NewDiagDense(n, nil)
				for i := range n {
					id.SetDiag(i, 1)
				}
				f = id
			}
			var next mat.Dense
			next.Kronecker(term, f)
			term = &next
		}
		kron.Add(kron, term)
	}
	if !mat.EqualApprox(l, kron, 1e-12) {
		t.Fatalf("Laplacian of the product's edges ≠ Σ I ⊗ … ⊗ L ⊗ … ⊗ I")
	}
	return l
}

// checkEigenpairs asserts that the columns of enc are orthonormal eigenvectors of l with the
// stated eigenvalues, and, if smallest, that those are exactly the k smallest eigenvalues of l.
func checkEigenpairs(t *testing.T, enc *pe.Encoding, l *mat.SymDense, k int, smallest bool) {
	t.Helper()
	if enc.Columns() != k {
		t.Fatalf("%d columns, want %d", enc.Columns(), k)
	}
	if k == 0 {
		return
	}
	var es mat.EigenSym
	if !es.Factorize(l, false) {
		t.Fatal("brute-force eigendecomposition failed")
	}
	brute := es.Values(nil)
	x := enc.Dense()
	var lx mat.Dense
	lx.Mul(l, x)
	for c := range k {
		if !sortedUpTo(enc.Values, c) {
			t.Fatalf("eigenvalues not ascending at column %d: %v", c, enc.Values)
		}
		if smallest && math.Abs(enc.Values[c]-brute[c]) > tol {
			t.Fatalf("eigenvalue %d = %v, brute force %v (spectrum %v)", c, enc.Values[c], brute[c], brute)
		}
		for r := range x.RawMatrix().Rows {
			if math.Abs(lx.At(r, c)-enc.Values[c]*x.At(r, c)) > tol {
				t.Fatalf("column %d (tuple %v) is not an eigenvector of eigenvalue %v: residual %v at row %d", c, enc.Tuple(c), enc.Values[c], lx.At(r, c)-enc.Values[c]*x.At(r, c), r)
			}
		}
	}
	var gram mat.Dense
	gram.Mul(x.T(), x)
	for i := range k {
		for j := range k {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(gram.At(i, j)-want) > tol {
				t.Fatalf("columns %d and %d: inner product %v, want %v", i, j, gram.At(i, j), want)
			}
		}
	}
}

func sortedUpTo(v []float64, c int) bool { return c == 0 || v[c-1] <= v[c] }

func TestProductAgainstBruteForce(t *testing.T) {
	graphs := append(testgraphs.Classic()[1:], testgraphs.Random(3, 40, 1, 12)...)
	for _, tg := range graphs {
		t.Run(tg.Name, func(t *testing.T) {
			n := tg.G.N()
			spec, err := pe.NewSpectrum(tg.G)
			if err != nil {
				t.Fatal(err)
			}
			l := bruteLaplacian(t, tg.G, 2)
			for _, k := range slices.Compact([]int{0, 1, min(3, n*n), min(8, n*n), min(16, n*n), n * n}) {
				enc, err := pe.Product(spec, k)
				if err != nil {
					t.Fatal(err)
				}
				checkEigenpairs(t, enc, l, k, true)
			}
		})
	}
}

func TestTripleTuplesAgainstBruteForce(t *testing.T) {
	graphs := append(testgraphs.Classic()[1:10], testgraphs.Random(5, 12, 2, 6)...)
	for _, tg := range graphs {
		if tg.G.N() > 6 {
			continue
		}
		t.Run(tg.Name, func(t *testing.T) {
			n := tg.G.N()
			spec, err := pe.NewSpectrum(tg.G)
			if err != nil {
				t.Fatal(err)
			}
			l := bruteLaplacian(t, tg.G, 3)
			for _, k := range slices.Compact([]int{min(1, n), min(10, n*n*n), n * n * n}) {
				enc, err := pe.Tuple(spec, 3, k)
				if err != nil {
					t.Fatal(err)
				}
				checkEigenpairs(t, enc, l, k, true)
			}
		})
	}
}

// Ties: equal eigenvalues are ordered by index tuple, and a smaller k is a prefix of a larger.
func TestTieBreak(t *testing.T) {
	for _, g := range []*graph.Graph{testgraphs.Cycle(4), testgraphs.Petersen(), testgraphs.Hypercube(3), testgraphs.Clique(5)} {
		spec, err := pe.NewSpectrum(g)
		if err != nil {
			t.Fatal(err)
		}
		n := g.N()
		all, err := pe.Product(spec, n*n)
		if err != nil {
			t.Fatal(err)
		}
		for c := 1; c < n*n; c++ {
			if all.Values[c] == all.Values[c-1] && slices.Compare(all.Tuple(c-1), all.Tuple(c)) >= 0 {
				t.Fatalf("equal eigenvalues %v: tuples %v then %v", all.Values[c], all.Tuple(c-1), all.Tuple(c))
			}
			if all.Values[c] < all.Values[c-1] {
				t.Fatalf("eigenvalues decrease at %d", c)
			}
		}
		for k := range n * n {
			enc, _ := pe.Product(spec, k)
			for c := range k {
				if !slices.Equal(enc.Tuple(c), all.Tuple(c)) || enc.Values[c] != all.Values[c] {
					t.Fatalf("k=%d column %d: %v (%v), but %v (%v) with k=n²", k, c, enc.Tuple(c), enc.Values[c], all.Tuple(c), all.Values[c])
				}
			}
		}
	}
	// C4 has λ = 0, 2, 2, 4: the five smallest of G□G are 0, then (0,1), (0,2), (1,0), (2,0) at 2.
	spec, _ := pe.NewSpectrum(testgraphs.Cycle(4))
	enc, _ := pe.Product(spec, 5)
	var got [][]int
	for c := range 5 {
		got = append(got, enc.Tuple(c))
	}
	if fmt.Sprint(got) != "[[0 0] [0 1] [0 2] [1 0] [2 0]]" || math.Abs(enc.Values[4]-2) > tol {
		t.Fatalf("C4 tuples %v values %v", got, enc.Values)
	}
}

// The reference mode: no trivial eigenvector, ⌊√(k+1)⌋ non-trivial ones, zero padding.
func TestReference(t *testing.T) {
	for _, tg := range append(testgraphs.Classic()[1:], testgraphs.Random(8, 10, 2, 12)...) {
		n := tg.G.N()
		spec, err := pe.NewSpectrum(tg.G)
		if err != nil {
			t.Fatal(err)
		}
		l := bruteLaplacian(t, tg.G, 2)
		for _, k := range []int{0, 1, 2, 8, 16} {
			enc, err := pe.Reference(spec, k)
			if err != nil {
				t.Fatal(err)
			}
			m := min(int(math.Sqrt(float64(k+1))), max(n-1, 0))
			want := min(k, m*m)
			checkEigenpairs(t, enc, l, want, false)
			for c := range want {
				if tp := enc.Tuple(c); tp[0] < 1 || tp[1] < 1 || tp[0] > m || tp[1] > m {
					t.Fatalf("%s k=%d: column %d uses eigenvectors %v, want 1..%d", tg.Name, k, c, tp, m)
				}
			}
			x := enc.Float32(k)
			for r := range n * n {
				for c := want; c < k; c++ {
					if x[r*k+c] != 0 {
						t.Fatalf("%s k=%d: padding column %d not zero", tg.Name, k, c)
					}
				}
			}
		}
	}
}

// Float32 (with its order-2 fast path) agrees with Dense, and pads and truncates columns.
func TestFloat32(t *testing.T) {
	for _, tg := range testgraphs.Random(4, 10, 3, 7) {
		spec, _ := pe.NewSpectrum(tg.G)
		for order := 2; order <= 3; order++ {
			enc, err := pe.Tuple(spec, order, 5)
			if err != nil {
				t.Fatal(err)
			}
			d := enc.Dense()
			for _, width := range []int{3, 5, 8} {
				x := enc.Float32(width)
				for r := range enc.Rows() {
					for c := range width {
						want := float32(0)
						if c < 5 {
							want = float32(d.At(r, c))
						}
						if x[r*width+c] != want {
							t.Fatalf("%s order %d width %d: (%d,%d) = %v, want %v", tg.Name, order, width, r, c, x[r*width+c], want)
						}
					}
				}
			}
		}
	}
}

// The concatenation PE holds eigenvector c of L at tuple position j in column K·c + j: for
// K = 2 the row of (s, v) is p_s and p_v interleaved. Small graphs get zero columns at the end.
func TestConcatenation(t *testing.T) {
	g := testgraphs.Path(4)
	spec, _ := pe.NewSpectrum(g)
	k := 6 // more than n: the last 2·2 columns are zero
	e, err := pe.Concatenation(spec, 2, k)
	if err != nil {
		t.Fatal(err)
	}
	x := e.Float32(2 * k)
	for s := range 4 {
		for v := range 4 {
			row := x[(s*4+v)*2*k : (s*4+v+1)*2*k]
			for c := range k {
				ws, wv := 0.0, 0.0
				if c < 4 {
					ws, wv = spec.Vectors[c][s], spec.Vectors[c][v]
				}
				if float64(row[2*c]) != float64(float32(ws)) || float64(row[2*c+1]) != float64(float32(wv)) {
					t.Fatalf("row (%d,%d) = %v", s, v, row)
				}
			}
		}
	}
	// Each column is an eigenvector of L_{G^□3} with its eigenvalue.
	e3, _ := pe.Concatenation(spec, 3, 2)
	l := bruteLaplacian(t, g, 3)
	m := e3.Dense()
	for c := range e3.Columns() {
		var lv mat.VecDense
		lv.MulVec(l, m.ColView(c))
		var diff mat.VecDense
		diff.AddScaledVec(&lv, -e3.Values[c], m.ColView(c))
		if mat.Norm(&diff, 2) > 1e-9 {
			t.Errorf("column %d (tuple %v) is not an eigenvector of eigenvalue %v", c, e3.Tuple(c), e3.Values[c])
		}
	}
}

func TestFlipSigns(t *testing.T) {
	const rows, cols = 5, 16
	x := make([]float32, rows*cols)
	for i := range x {
		x[i] = float32(i + 1)
	}
	y := slices.Clone(x)
	pe.FlipSigns(y, cols, rand.New(rand.NewPCG(1, 2)))
	z := slices.Clone(x)
	pe.FlipSigns(z, cols, rand.New(rand.NewPCG(1, 2)))
	if !slices.Equal(y, z) {
		t.Fatal("same seed, different flips")
	}
	flipped := 0
	for c := range cols {
		sign := y[c] / x[c]
		if sign != 1 && sign != -1 {
			t.Fatalf("column %d scaled by %v", c, sign)
		}
		for r := range rows {
			if y[r*cols+c] != sign*x[r*cols+c] {
				t.Fatalf("column %d not flipped as a whole", c)
			}
		}
		if sign < 0 {
			flipped++
		}
	}
	if flipped == 0 || flipped == cols {
		t.Fatalf("%d of %d columns flipped", flipped, cols)
	}
}

// Relabelling G by π leaves the spectrum unchanged and, for simple eigenvalues, maps each PE
// column to the relabelled column up to its sign: row (s, v) ↦ (π(s), π(v)).
func TestRelabelling(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	checked := 0
	for _, tg := range testgraphs.Random(21, 40, 4, 12) {
		g, n := tg.G, tg.G.N()
		perm := rng.Perm(n)
		h, _ := g.Permute(perm)
		sg, _ := pe.NewSpectrum(g)
		sh, _ := pe.NewSpectrum(h)
		for i := range n {
			if math.Abs(sg.Values[i]-sh.Values[i]) > tol {
				t.Fatalf("%s: spectrum changed by relabelling", tg.Name)
			}
		}
		eg, _ := pe.Product(sg, n*n)
		eh, _ := pe.Product(sh, n*n)
		for c := range n * n {
			// Only columns whose eigenvalue is simple in G□G are defined up to sign alone.
			if (c > 0 && eg.Values[c]-eg.Values[c-1] < 1e-6) || (c+1 < n*n && eg.Values[c+1]-eg.Values[c] < 1e-6) {
				continue
			}
			xg, xh := eg.Dense().ColView(c), eh.Dense().ColView(c)
			sign := 0.0
			for sv := range n * n {
				a, b := xg.AtVec(sv), xh.AtVec(perm[sv/n]*n+perm[sv%n])
				if sign == 0 && math.Abs(a) > 1e-6 {
					sign = math.Copysign(1, a*b)
				}
				if math.Abs(a-sign*b) > 1e-9 {
					t.Fatalf("%s column %d: row %d is %v, relabelled %v", tg.Name, c, sv, a, b)
				}
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d simple columns checked", checked)
	}
}

func TestEmptyGraph(t *testing.T) {
	g, _ := graph.New(0, nil, graph.Features{}, graph.Features{})
	spec, err := pe.NewSpectrum(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(*pe.Spectrum, int) (*pe.Encoding, error){pe.Product, pe.Reference} {
		enc, err := f(spec, 0)
		if err != nil || enc.Columns() != 0 || len(enc.Float32(4)) != 0 {
			t.Fatalf("empty graph: %v, %v", enc, err)
		}
	}
}

func TestBadK(t *testing.T) {
	spec, _ := pe.NewSpectrum(testgraphs.Path(3))
	for _, tc := range []struct {
		err  error
		want string
	}{
		{second(pe.Product(spec, 10)), "k = 10 eigenpairs asked of a product graph with 9 nodes"},
		{second(pe.Product(spec, -1)), "negative number of eigenpairs"},
		{second(pe.Tuple(spec, 0, 1)), "order 0 must be at least 1"},
		{second(pe.Reference(spec, -2)), "negative number of eigenpairs"},
		{second(pe.Concatenation(spec, 2, -1)), "negative number of eigenvectors"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want %q", tc.err, tc.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// The product PE of the path 0 – 1 – 2: eigenvalues of L are 0, 1, 3, so those of G□G start
// 0, 1, 1, 2, 3, 3.
func ExampleProduct() {
	g, _ := graph.New(3, []graph.Edge{{0, 1}, {1, 2}}, graph.Features{}, graph.Features{})
	spec, _ := pe.NewSpectrum(g)
	enc, _ := pe.Product(spec, 6)
	for c := range enc.Columns() {
		fmt.Printf("λ = %.3f from (i, j) = %v\n", enc.Values[c], enc.Tuple(c))
	}
	// Output:
	// λ = 0.000 from (i, j) = [0 0]
	// λ = 1.000 from (i, j) = [0 1]
	// λ = 1.000 from (i, j) = [1 0]
	// λ = 2.000 from (i, j) = [1 1]
	// λ = 3.000 from (i, j) = [0 2]
	// λ = 3.000 from (i, j) = [2 0]
}
