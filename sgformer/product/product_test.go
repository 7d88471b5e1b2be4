package product_test

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
	"github.com/sgformer/sgformer/sgformer/product"
)

func testGraphs() []testgraphs.Named {
	return append(testgraphs.Classic(), testgraphs.Random(7, 30, 1, 12)...)
}

// adjacency returns the dense n×n adjacency matrix of g.
func adjacency(g *graph.Graph) *mat.Dense {
	n := max(g.N(), 1)
	a := mat.NewDense(n, n, nil)
	for _, e := range g.Edges() {
		a.Set(e[0], e[1], 1)
		a.Set(e[1], e[0], 1)
	}
	return a
}

func identity(n int) *mat.Dense {
	m := mat.NewDense(max(n, 1), max(n, 1), nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}

func kron(a, b mat.Matrix) *mat.Dense {
	var k mat.Dense
	k.Kronecker(a, b)
	return &k
}

// dense returns the size×size matrix with M[dst][src] = number of edges dst ← src.
func dense(e product.Edges, size int) *mat.Dense {
	m := mat.NewDense(max(size, 1), max(size, 1), nil)
	for i := range e.Dst {
		m.Set(int(e.Dst[i]), int(e.Src[i]), m.At(int(e.Dst[i]), int(e.Src[i]))+1)
	}
	return m
}

func checkSorted(t *testing.T, name string, e product.Edges) {
	t.Helper()
	if len(e.Src) != len(e.Dst) || len(e.Bond) != len(e.Dst) {
		t.Fatalf("%s: lengths Dst %d, Src %d, Bond %d", name, len(e.Dst), len(e.Src), len(e.Bond))
	}
	for i := 1; i < e.Len(); i++ {
		if e.Dst[i-1] > e.Dst[i] || (e.Dst[i-1] == e.Dst[i] && e.Src[i-1] >= e.Src[i]) {
			t.Fatalf("%s: edges %d, %d not strictly sorted by (Dst, Src)", name, i-1, i)
		}
	}
}

// Internal = I ⊗ A, External = A ⊗ I, and their sum is the adjacency of G□G built from the
// definition of the Cartesian product (Prop. 3.2); edge counts are those of Appendix "Complexity".
func TestConnectivitiesAgainstKronecker(t *testing.T) {
	for _, tg := range testGraphs() {
		t.Run(tg.Name, func(t *testing.T) {
			g, n := tg.G, tg.G.N()
			p, err := product.New(g, 2)
			if err != nil {
				t.Fatal(err)
			}
			a, id := adjacency(g), identity(n)
			checkSorted(t, "internal", conn(p, "internal"))
			checkSorted(t, "external", conn(p, "external"))
			checkSorted(t, "point", conn(p, "point"))
			if got, want := dense(conn(p, "internal"), n*n), kron(id, a); n > 0 && !mat.Equal(got, want) {
				t.Fatalf("internal ≠ I ⊗ A")
			}
			if got, want := dense(conn(p, "external"), n*n), kron(a, id); n > 0 && !mat.Equal(got, want) {
				t.Fatalf("external ≠ A ⊗ I")
			}
			// The Cartesian product by definition: (u1,u2) ~ (v1,v2) iff u1 = v1 and u2 ~ v2,
			// or u2 = v2 and u1 ~ v1.
			sum := mat.NewDense(max(n*n, 1), max(n*n, 1), nil)
			sum.Add(dense(conn(p, "internal"), n*n), dense(conn(p, "external"), n*n))
			for x := range n * n {
				for y := range n * n {
					u1, u2, v1, v2 := x/n, x%n, y/n, y%n
					adj := (u1 == v1 && a.At(u2, v2) == 1) || (u2 == v2 && a.At(u1, v1) == 1)
					if (sum.At(x, y) == 1) != adj || sum.At(x, y) > 1 {
						t.Fatalf("A_G + A_G^S at (%d,%d) = %v, G□G adjacency %v", x, y, sum.At(x, y), adj)
					}
				}
			}
			// Point: (s,v) ← (s',v') iff s' = v' = v (Eq. A_point).
			point := dense(conn(p, "point"), n*n)
			for x := range n * n {
				for y := range n * n {
					want := y/n == y%n && y%n == x%n
					if (point.At(x, y) == 1) != want {
						t.Fatalf("A_point at (%d,%d) = %v, want %v", x, y, point.At(x, y), want)
					}
				}
			}
			m := g.NumEdges()
			if conn(p, "internal").Len() != 2*n*m || conn(p, "external").Len() != 2*n*m || conn(p, "point").Len() != n*n {
				t.Fatalf("edge counts %d, %d, %d; want 2n|E| = %d, %d and n² = %d", conn(p, "internal").Len(), conn(p, "external").Len(), conn(p, "point").Len(), 2*n*m, 2*n*m, n*n)
			}
		})
	}
}

// Internal edges carry the bond (v, w) and external edges the bond (s, t).
func TestBondsCarried(t *testing.T) {
	for _, tg := range testGraphs() {
		g, n := tg.G, tg.G.N()
		p, err := product.New(g, 2)
		if err != nil {
			t.Fatal(err)
		}
		same := func(e graph.Edge, a, b int) bool { return e == graph.Edge{a, b} || e == graph.Edge{b, a} }
		for i := range conn(p, "internal").Dst {
			d, s := int(conn(p, "internal").Dst[i]), int(conn(p, "internal").Src[i])
			if !same(g.Edges()[conn(p, "internal").Bond[i]], d%n, s%n) {
				t.Fatalf("%s: internal edge %d←%d carries bond %v", tg.Name, d, s, g.Edges()[conn(p, "internal").Bond[i]])
			}
		}
		for i := range conn(p, "external").Dst {
			d, s := int(conn(p, "external").Dst[i]), int(conn(p, "external").Src[i])
			if !same(g.Edges()[conn(p, "external").Bond[i]], d/n, s/n) {
				t.Fatalf("%s: external edge %d←%d carries bond %v", tg.Name, d, s, g.Edges()[conn(p, "external").Bond[i]])
			}
		}
	}
	g, err := graph.New(3, []graph.Edge{{0, 1}, {1, 2}}, graph.Features{}, graph.Features{Width: 2, Ints: []int32{10, 11, 20, 21}})
	if err != nil {
		t.Fatal(err)
	}
	internal, err := product.Connect(g, 2, product.Internal)
	if err != nil {
		t.Fatal(err)
	}
	f, err := internal.Features(g.EdgeFeatures)
	if err != nil {
		t.Fatal(err)
	}
	// Subgraph 0: (0,0)←(0,1) bond 0, (0,1)←(0,0) bond 0, (0,1)←(0,2) bond 1, (0,2)←(0,1) bond 1.
	if f.Width != 2 || !slices.Equal(f.Ints[:8], []int32{10, 11, 10, 11, 20, 21, 20, 21}) || f.Rows() != internal.Len() {
		t.Fatalf("internal edge features %+v", f)
	}
	point, err := product.PointUpdate(3, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := point.Features(g.EdgeFeatures); err == nil || !strings.Contains(err.Error(), "carries bond -1") {
		t.Fatalf("features of point edges: error %v", err)
	}
}

// The global connectivities are the clique products of Appendix A.
func TestGlobal(t *testing.T) {
	for n := range 6 {
		ones := mat.NewDense(max(n, 1), max(n, 1), nil)
		for i := range n {
			for j := range n {
				if i != j {
					ones.Set(i, j, 1)
				}
			}
		}
		gi, err := product.GlobalAdjacency(n, 1)
		if err != nil {
			t.Fatal(err)
		}
		ge, err := product.GlobalAdjacency(n, 0)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 && (!mat.Equal(dense(gi, n*n), kron(identity(n), ones)) || !mat.Equal(dense(ge, n*n), kron(ones, identity(n)))) {
			t.Fatalf("n=%d: global connectivities differ from I ⊗ (11ᵀ−I) and (11ᵀ−I) ⊗ I", n)
		}
		for _, b := range append(gi.Bond, ge.Bond...) {
			if b != -1 {
				t.Fatalf("n=%d: global edge carries bond %d", n, b)
			}
		}
	}
}

// Σ_i A^i_K equals the recursive Cartesian operator C^K(A) = C^{K−1}(A) ⊗ I + I ⊗ A (Def.
// "Cartesian product operator"); each A^i_K is I ⊗ … ⊗ A ⊗ … ⊗ I; K = 2 gives External and
// Internal; and the point updates follow their definition in Appendix B.
func TestTuples(t *testing.T) {
	for _, tg := range append(testgraphs.Classic()[1:9], testgraphs.Random(11, 6, 2, 5)...) {
		g, n := tg.G, tg.G.N()
		a, id := adjacency(g), identity(n)
		c := mat.DenseCopyOf(a)
		for order := 2; order <= 4; order++ {
			size := int(math.Pow(float64(n), float64(order)))
			prev := int(math.Pow(float64(n), float64(order-1)))
			c = func() *mat.Dense { var s mat.Dense; s.Add(kron(c, id), kron(identity(prev), a)); return &s }()
			sum := mat.NewDense(size, size, nil)
			for slot := range order {
				e, err := product.Adjacency(g, order, slot)
				if err != nil {
					t.Fatal(err)
				}
				checkSorted(t, fmt.Sprintf("%s A^%d_%d", tg.Name, slot, order), e)
				want := mat.DenseCopyOf(identity(1))
				for j := range order {
					if j == slot {
						want = kron(want, a)
					} else {
						want = kron(want, id)
					}
				}
				if !mat.Equal(dense(e, size), want) {
					t.Fatalf("%s: A^%d_%d ≠ I ⊗ … ⊗ A ⊗ … ⊗ I", tg.Name, slot, order)
				}
				sum.Add(sum, dense(e, size))

				pt, err := product.PointUpdate(n, order, slot)
				if err != nil {
					t.Fatal(err)
				}
				checkSorted(t, "point", pt)
				got := dense(pt, size)
				for x := range size {
					for y := range size {
						tx, ty := digits(x, n, order), digits(y, n, order)
						root := slices.Min(ty) == slices.Max(ty)
						match := true
						for j := range order {
							if j != slot && tx[j] != ty[0] {
								match = false
							}
						}
						if want := root && match; (got.At(x, y) == 1) != want || got.At(x, y) > 1 {
							t.Fatalf("%s: A^%d_point (order %d) at %v ← %v = %v, want %v", tg.Name, slot, order, tx, ty, got.At(x, y), want)
						}
					}
				}
			}
			if !mat.Equal(sum, c) {
				t.Fatalf("%s: Σ_i A^i_%d ≠ C^%d(A)", tg.Name, order, order)
			}
		}
		ext, _ := product.Connect(g, 2, product.External)
		in, _ := product.Connect(g, 2, product.Internal)
		a0, _ := product.Adjacency(g, 2, 0)
		a1, _ := product.Adjacency(g, 2, 1)
		if !sameEdges(ext, a0) || !sameEdges(in, a1) {
			t.Fatalf("%s: K = 2 adjacencies differ from External/Internal", tg.Name)
		}
	}
}

func sameEdges(a, b product.Edges) bool {
	return slices.Equal(a.Dst, b.Dst) && slices.Equal(a.Src, b.Src) && slices.Equal(a.Bond, b.Bond)
}

func sameGraph(a, b *product.Graph) bool {
	if a.N != b.N || a.K != b.K || !slices.Equal(a.Nodes, b.Nodes) || len(a.Connectivities) != len(b.Connectivities) {
		return false
	}
	for i, c := range a.Connectivities {
		if c.Name != b.Connectivities[i].Name || !sameEdges(c.Edges, b.Connectivities[i].Edges) {
			return false
		}
	}
	return true
}

// conn returns the connectivity called name of p, which must have it.
func conn(p *product.Graph, name product.Name) product.Edges {
	e, ok := p.Connectivity(name)
	if !ok {
		panic("no connectivity " + name.String())
	}
	return e
}

func digits(x, n, order int) []int {
	d := make([]int, order)
	for j := order - 1; j >= 0; j-- {
		d[j] = x % n
		x /= n
	}
	return d
}

func TestBadArguments(t *testing.T) {
	g := testgraphs.Path(3)
	for _, tc := range []struct {
		err  error
		want string
	}{
		{second(product.Adjacency(g, 0, 0)), "order 0 must be at least 1"},
		{second(product.Adjacency(g, 2, 2)), "slot 2 out of range [0,2)"},
		{second(product.PointUpdate(3, 1, 0)), "point updates need order ≥ 2"},
		{second(product.PointUpdate(3, 3, -1)), "slot -1 out of range [0,3)"},
		{second(product.Adjacency(testgraphs.Path(50000), 2, 0)), "50000^2 product nodes overflow int32"},
		{second(product.New(g, 1)), "tuples of order 1; want at least 2"},
		{second(product.New(g, 2, "internal", "internal")), `connectivity "internal" asked for twice`},
		{second(product.New(g, 3, "internal")), `no connectivity "internal" on 3-tuples (there are adjacency_0, adjacency_1, adjacency_2, point_0, point_1, point_2)`},
		{second(product.New(g, 2, "point_2")), `no connectivity "point_2" on 2-tuples`},
		{second(product.New(g, 2, "adjacency_01")), `no connectivity "adjacency_01"`},
		{second(product.TupleMarking(g, 1)), "tuples of order 1"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want %q", tc.err, tc.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// The named connectivities are the functions that define them: K = 2's names are adjacency_1,
// adjacency_0 and point_0; global ones carry no bonds; the default set is the paper's.
func TestNamedConnectivities(t *testing.T) {
	g := testgraphs.Classic()[3].G
	p, err := product.New(g, 2, product.Names(2)...)
	if err != nil {
		t.Fatal(err)
	}
	a1, _ := product.Adjacency(g, 2, 1)
	a0, _ := product.Adjacency(g, 2, 0)
	pt, _ := product.PointUpdate(g.N(), 2, 0)
	gi, _ := product.GlobalAdjacency(g.N(), 1)
	for _, tc := range []struct {
		name product.Name
		want product.Edges
		kind product.Kind
	}{
		{"internal", a1, product.Neighbours}, {"adjacency_1", a1, product.Neighbours}, {"external", a0, product.Neighbours},
		{"adjacency_0", a0, product.Neighbours}, {"point", pt, product.PointWise}, {"point_0", pt, product.PointWise},
		{"global_internal", gi, product.Global},
	} {
		if kind, _ := tc.name.Kind(2); !sameEdges(conn(p, tc.name), tc.want) || kind != tc.kind {
			t.Errorf("%s: differs from its definition (kind %v)", tc.name, kind)
		}
	}
	d, _ := product.New(g, 3)
	var names []string
	for _, c := range d.Connectivities {
		names = append(names, c.Name.String())
	}
	if got := strings.Join(names, ","); got != "adjacency_0,adjacency_1,adjacency_2,point_0,point_1,point_2" {
		t.Errorf("default 3-tuple connectivities %s", got)
	}
	if d, _ := product.New(g, 2); len(d.Connectivities) != 3 || d.Connectivities[0].Name != "internal" {
		t.Errorf("default connectivities %+v", d.Connectivities)
	}
}

// The marks of a K-tuple are the distances from each of its first K − 1 entries to the last;
// for K = 2 they are the node marks d(s, v). A 3-tuple sampled by its first entry keeps the
// n² tuples of each kept root.
func TestTupleMarkingAndSampling(t *testing.T) {
	for _, tg := range testGraphs() {
		g, n := tg.G, tg.G.N()
		d, _ := product.NodeMarking(g)
		if m, _ := product.TupleMarking(g, 2); !slices.Equal(m, d) {
			t.Fatalf("%s: K = 2 marks differ from the node marks", tg.Name)
		}
		for k := 3; k <= 4 && n > 0; k++ {
			m, err := product.TupleMarking(g, k)
			if err != nil {
				t.Fatal(err)
			}
			size := int(math.Pow(float64(n), float64(k)))
			for x := range size {
				v := digits(x, n, k)
				for i := range k - 1 {
					if got, want := m[x*(k-1)+i], d[v[i]*n+v[k-1]]; got != want {
						t.Fatalf("%s: tuple %v mark %d = %d, want d(v_%d, v_%d) = %d", tg.Name, v, i, got, i, k-1, want)
					}
				}
			}
		}
		if n < 2 {
			continue
		}
		full, _ := product.New(g, 3)
		sub, err := full.Sample([]int{1})
		if err != nil {
			t.Fatal(err)
		}
		if sub.NumNodes() != n*n || sub.Nodes[0] != int32(n*n) {
			t.Fatalf("%s: a sampled 3-tuple graph keeps %d nodes from %d", tg.Name, sub.NumNodes(), sub.Nodes[0])
		}
		for _, c := range sub.Connectivities {
			for i := range c.Dst {
				if f, s := sub.Nodes[c.Dst[i]], sub.Nodes[c.Src[i]]; int(f)/(n*n) != 1 || int(s)/(n*n) != 1 {
					t.Fatalf("%s: %s keeps an edge %d ← %d outside root 1", tg.Name, c.Name, f, s)
				}
			}
		}
	}
}

// Node marks are BFS distances: they agree with Floyd–Warshall, with −1 for unreachable pairs.
func TestNodeMarking(t *testing.T) {
	for _, tg := range testGraphs() {
		g, n := tg.G, tg.G.N()
		inf := math.MaxInt32
		d := make([][]int, n)
		for i := range d {
			d[i] = make([]int, n)
			for j := range d[i] {
				if i != j {
					d[i][j] = inf
				}
			}
		}
		for _, e := range g.Edges() {
			d[e[0]][e[1]], d[e[1]][e[0]] = 1, 1
		}
		for k := range n {
			for i := range n {
				for j := range n {
					if d[i][k] < inf && d[k][j] < inf && d[i][k]+d[k][j] < d[i][j] {
						d[i][j] = d[i][k] + d[k][j]
					}
				}
			}
		}
		marks, err := product.NodeMarking(g)
		if err != nil {
			t.Fatal(err)
		}
		for s := range n {
			for v := range n {
				want := d[s][v]
				if want == inf {
					want = -1
				}
				if int(marks[s*n+v]) != want {
					t.Fatalf("%s: d(%d,%d) = %d, want %d", tg.Name, s, v, marks[s*n+v], want)
				}
			}
		}
	}
}

// Relabelling G by π relabels the product graph by (s, v) ↦ (π(s), π(v)): every connectivity
// maps onto the relabelled one edge for edge, bonds included, and so do the node marks.
func TestRelabelling(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tg := range testGraphs() {
		g, n := tg.G, tg.G.N()
		perm := rng.Perm(n)
		h, err := g.Permute(perm)
		if err != nil {
			t.Fatal(err)
		}
		pg, _ := product.New(g, 2)
		ph, _ := product.New(h, 2)
		mapNode := func(x int32) int32 { return int32(perm[int(x)/n]*n + perm[int(x)%n]) }
		for _, pair := range [][2]product.Edges{{conn(pg, "internal"), conn(ph, "internal")}, {conn(pg, "external"), conn(ph, "external")}, {conn(pg, "point"), conn(ph, "point")}} {
			want := map[[3]int32]bool{}
			for i := range pair[1].Dst {
				want[[3]int32{pair[1].Dst[i], pair[1].Src[i], pair[1].Bond[i]}] = true
			}
			for i := range pair[0].Dst {
				key := [3]int32{mapNode(pair[0].Dst[i]), mapNode(pair[0].Src[i]), pair[0].Bond[i]}
				if !want[key] {
					t.Fatalf("%s: relabelled edge %v missing", tg.Name, key)
				}
				delete(want, key)
			}
			if len(want) != 0 {
				t.Fatalf("%s: %d extra edges after relabelling", tg.Name, len(want))
			}
		}
		mg, err := product.NodeMarking(g)
		if err != nil {
			t.Fatal(err)
		}
		mh, err := product.NodeMarking(h)
		if err != nil {
			t.Fatal(err)
		}
		for x := range n * n {
			if mg[x] != mh[mapNode(int32(x))] {
				t.Fatalf("%s: mark of %d not carried by relabelling", tg.Name, x)
			}
		}
	}
}

func TestSampleRoots(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, tc := range []struct {
		n     int
		ratio float64
		want  int
	}{{10, 1, 10}, {10, 0.5, 5}, {23, 0.3, 7}, {23, 0.05, 1}, {5, 0.01, 1}, {7, 0.5, 4}, {0, 0.5, 0}} {
		roots, err := product.SampleRoots(tc.n, tc.ratio, rng)
		if err != nil {
			t.Fatal(err)
		}
		if len(roots) != tc.want || !slices.IsSorted(roots) || len(slices.Compact(slices.Clone(roots))) != len(roots) {
			t.Errorf("SampleRoots(%d, %v) = %v, want %d sorted distinct roots", tc.n, tc.ratio, roots, tc.want)
		}
	}
	a, _ := product.SampleRoots(20, 0.3, rand.New(rand.NewPCG(1, 1)))
	b, _ := product.SampleRoots(20, 0.3, rand.New(rand.NewPCG(1, 1)))
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different roots: %v, %v", a, b)
	}
	// Uniformity: each of 10 nodes is kept with probability 3/10; over 20,000 draws each count
	// is 6000 ± 65 (one standard deviation).
	counts := make([]int, 10)
	for range 20000 {
		r, _ := product.SampleRoots(10, 0.3, rng)
		for _, s := range r {
			counts[s]++
		}
	}
	for s, c := range counts {
		if c < 5700 || c > 6300 {
			t.Errorf("root %d drawn %d times in 20000, want about 6000", s, c)
		}
	}
	for _, bad := range []float64{0, -0.5, 1.5, math.NaN()} {
		if _, err := product.SampleRoots(5, bad, rng); err == nil || !strings.Contains(err.Error(), "outside (0, 1]") {
			t.Errorf("SampleRoots ratio %v: error %v", bad, err)
		}
	}
}

// Sampling keeps exactly the nodes of the kept subgraphs and exactly the edges whose two ends
// are kept (Sec. 4.3), re-indexed with Nodes mapping back; ratio 1 gives the full bag.
func TestSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for _, tg := range testGraphs() {
		g, n := tg.G, tg.G.N()
		full, _ := product.New(g, 2)
		for _, ratio := range []float64{1, 0.5, 0.2} {
			roots, err := product.SampleRoots(n, ratio, rng)
			if err != nil {
				t.Fatal(err)
			}
			sub, err := full.Sample(roots)
			if err != nil {
				t.Fatal(err)
			}
			if ratio == 1 {
				if !sameGraph(sub, full) {
					t.Fatalf("%s: ratio 1 differs from the full bag", tg.Name)
				}
				continue
			}
			kept := map[int]bool{}
			for _, r := range roots {
				kept[r] = true
			}
			if sub.NumNodes() != len(roots)*n {
				t.Fatalf("%s: %d nodes kept, want %d", tg.Name, sub.NumNodes(), len(roots)*n)
			}
			for i := range sub.NumNodes() {
				if s, _ := sub.Subgraph(i); !kept[s] || (i > 0 && sub.Nodes[i-1] >= sub.Nodes[i]) {
					t.Fatalf("%s: node %d maps to %d", tg.Name, i, sub.Nodes[i])
				}
			}
			for _, pair := range [][2]product.Edges{{conn(full, "internal"), conn(sub, "internal")}, {conn(full, "external"), conn(sub, "external")}, {conn(full, "point"), conn(sub, "point")}} {
				var want [][3]int32
				for i := range pair[0].Dst {
					if kept[int(pair[0].Dst[i])/n] && kept[int(pair[0].Src[i])/n] {
						want = append(want, [3]int32{pair[0].Dst[i], pair[0].Src[i], pair[0].Bond[i]})
					}
				}
				var got [][3]int32
				for i := range pair[1].Dst {
					got = append(got, [3]int32{sub.Nodes[pair[1].Dst[i]], sub.Nodes[pair[1].Src[i]], pair[1].Bond[i]})
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s ratio %v: kept edges %v, want %v", tg.Name, ratio, got, want)
				}
				checkSorted(t, "sampled", pair[1])
			}
		}
	}
	full, _ := product.New(testgraphs.Path(4), 2)
	if _, err := full.Sample([]int{1, 1}); err == nil || !strings.Contains(err.Error(), "root 1 listed twice") {
		t.Errorf("duplicate root: %v", err)
	}
	if _, err := full.Sample([]int{4}); err == nil || !strings.Contains(err.Error(), "root 4 out of range") {
		t.Errorf("root out of range: %v", err)
	}
	sub, _ := full.Sample([]int{0})
	if _, err := sub.Sample([]int{0}); err == nil || !strings.Contains(err.Error(), "needs the full bag") {
		t.Errorf("sampling a sample: %v", err)
	}
}

// The product graph of the path 0 – 1 – 2: node (s, v) is s·3 + v.
func ExampleNew() {
	g, _ := graph.New(3, []graph.Edge{{0, 1}, {1, 2}}, graph.Features{}, graph.Features{})
	p, _ := product.New(g, 2)
	fmt.Println("nodes:", p.NumNodes())
	fmt.Println("internal (s,v) ← (s,w), first subgraph:", conn(p, "internal").Dst[:4], conn(p, "internal").Src[:4])
	fmt.Println("external (s,v) ← (t,v), into (0,·):", conn(p, "external").Dst[:3], conn(p, "external").Src[:3])
	fmt.Println("point (s,v) ← (v,v), into (0,·):", conn(p, "point").Dst[:3], conn(p, "point").Src[:3])
	marks, _ := product.NodeMarking(g)
	fmt.Println("marks:", marks)
	// Output:
	// nodes: 9
	// internal (s,v) ← (s,w), first subgraph: [0 1 1 2] [1 0 2 1]
	// external (s,v) ← (t,v), into (0,·): [0 1 2] [3 4 5]
	// point (s,v) ← (v,v), into (0,·): [0 1 2] [0 4 8]
	// marks: [0 1 2 1 0 1 2 1 0]
}
