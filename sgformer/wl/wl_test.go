package wl_test

import (
	"math/rand/v2"
	"testing"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/internal/testgraphs"
	"github.com/sgformer/sgformer/sgformer/wl"
)

// permuted returns g with its nodes renumbered at random.
func permuted(t *testing.T, g *graph.Graph, rng *rand.Rand) *graph.Graph {
	perm := rng.Perm(g.N())
	var edges []graph.Edge
	for _, e := range g.Edges() {
		edges = append(edges, graph.Edge{perm[e[0]], perm[e[1]]})
	}
	h, err := graph.New(g.N(), edges, graph.Features{}, graph.Features{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Pairs with a known answer: what each test tells apart, and what it cannot.
func TestKnownPairs(t *testing.T) {
	for _, tc := range []struct {
		name                string
		a, b                *graph.Graph
		oneWL, sswl, twoFWL bool
	}{
		{"6-cycle vs two triangles (both 2-regular)", testgraphs.Cycle(6), testgraphs.TwoTriangles(), false, true, true},
		{"path vs star (other degrees)", testgraphs.Path(5), testgraphs.Star(5), true, true, true},
		{"rook 4×4 vs Shrikhande (strongly regular, same parameters)", testgraphs.Rook4(), testgraphs.Shrikhande(), false, false, false},
		{"Petersen vs itself", testgraphs.Petersen(), testgraphs.Petersen(), false, false, false},
		{"empty graphs", testgraphs.Path(0), testgraphs.Path(0), false, false, false},
	} {
		if got := wl.OneWL(tc.a, tc.b); got.Distinguished != tc.oneWL {
			t.Errorf("%s: 1-WL %+v, want distinguished %v", tc.name, got, tc.oneWL)
		}
		if got := wl.SSWL(tc.a, tc.b); got.Distinguished != tc.sswl {
			t.Errorf("%s: SSWL %+v, want distinguished %v", tc.name, got, tc.sswl)
		}
		if got := wl.TwoFWL(tc.a, tc.b); got.Distinguished != tc.twoFWL {
			t.Errorf("%s: 2-FWL %+v, want distinguished %v", tc.name, got, tc.twoFWL)
		}
	}
}

// Neither test tells a graph from itself renumbered (they are invariant), and a graph's
// colouring does not depend on the graph it is compared with: 2-FWL's stable colour count of a
// graph with itself is that of a renumbering.
func TestInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	for _, g := range append(testgraphs.Classic(), testgraphs.Random(3, 20, 2, 12)...) {
		h := permuted(t, g.G, rng)
		if r := wl.OneWL(g.G, h); r.Distinguished {
			t.Errorf("%s: 1-WL tells it from a renumbering: %+v", g.Name, r)
		}
		if r := wl.SSWL(g.G, h); r.Distinguished {
			t.Errorf("%s: SSWL tells it from a renumbering: %+v", g.Name, r)
		}
		if r := wl.TwoFWL(g.G, h); r.Distinguished {
			t.Errorf("%s: 2-FWL tells it from a renumbering: %+v", g.Name, r)
		}
	}
}

// 1-WL is complete on trees: it tells apart every two non-isomorphic trees (of 7 nodes here,
// isomorphism decided by brute force over all 5,040 renumberings), and SSWL and 2-FWL,
// stronger, too.
func TestTreesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2))
	trees := make([]*graph.Graph, 12)
	for i := range trees {
		var edges []graph.Edge
		for v := 1; v < 7; v++ {
			edges = append(edges, graph.Edge{rng.IntN(v), v})
		}
		trees[i] = testgraphsMust(t, 7, edges)
	}
	for i := range trees {
		for j := i + 1; j < len(trees); j++ {
			iso := isomorphic(trees[i], trees[j])
			if r := wl.OneWL(trees[i], trees[j]); r.Distinguished == iso {
				t.Errorf("trees %d and %d: isomorphic %v, 1-WL %+v", i, j, iso, r)
			}
			if r := wl.SSWL(trees[i], trees[j]); r.Distinguished == iso {
				t.Errorf("trees %d and %d: isomorphic %v, SSWL %+v", i, j, iso, r)
			}
			if r := wl.TwoFWL(trees[i], trees[j]); r.Distinguished == iso {
				t.Errorf("trees %d and %d: isomorphic %v, 2-FWL %+v", i, j, iso, r)
			}
		}
	}
}

func testgraphsMust(t *testing.T, n int, edges []graph.Edge) *graph.Graph {
	g, err := graph.New(n, edges, graph.Features{}, graph.Features{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// isomorphic decides isomorphism by trying every renumbering.
func isomorphic(a, b *graph.Graph) bool {
	n := a.N()
	if n != b.N() || a.NumEdges() != b.NumEdges() {
		return false
	}
	adj := make(map[[2]int]bool)
	for _, e := range b.Edges() {
		adj[[2]int{e[0], e[1]}], adj[[2]int{e[1], e[0]}] = true, true
	}
	perm := make([]int, n)
	used := make([]bool, n)
	var try func(k int) bool
	try = func(k int) bool {
		if k == n {
			for _, e := range a.Edges() {
				if !adj[[2]int{perm[e[0]], perm[e[1]]}] {
					return false
				}
			}
			return true
		}
		for v := range n {
			if !used[v] {
				used[v], perm[k] = true, v
				if try(k + 1) {
					return true
				}
				used[v] = false
			}
		}
		return false
	}
	return try(0)
}

// On BREC's 400 pairs (../shared/data/brec): 1-WL distinguishes none (BREC chose them so);
// 2-FWL distinguishes as many per category as the 3-WL row of BREC's paper (Wang and Zhang,
// ICML 2024, Table 2): Basic 60, Regular 50, Extension 100, CFI 60, 4-Vertex_Condition 0,
// Distance_Regular 0; 270 in all; and SSWL, bounded by 2-FWL, distinguishes only pairs 2-FWL
// does.
func TestBREC(t *testing.T) {
	pairs, err := data.ReadPairsFile(shareddata.Dir(t, "brec") + "/pairs.tsv")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"Basic": 60, "Regular": 50, "Extension": 100, "CFI": 60, "4-Vertex_Condition": 0, "Distance_Regular": 0}
	got, sswl := map[string]int{}, map[string]int{}
	for _, p := range pairs {
		if r := wl.OneWL(p.A, p.B); r.Distinguished {
			t.Errorf("pair %d (%s): 1-WL distinguishes it: %+v", p.Index, p.Category, r)
		}
		fwl := wl.TwoFWL(p.A, p.B).Distinguished
		if fwl {
			got[p.Category]++
		}
		if r := wl.SSWL(p.A, p.B); r.Distinguished {
			sswl[p.Category]++
			if !fwl {
				t.Errorf("pair %d (%s): SSWL distinguishes it, 2-FWL does not: %+v", p.Index, p.Category, r)
			}
		}
	}
	for category, n := range got {
		if _, ok := want[category]; !ok {
			t.Errorf("%d pairs of category %q, which BREC has not", n, category)
		}
	}
	for category, n := range want {
		if got[category] != n {
			t.Errorf("%s: 2-FWL distinguishes %d pairs, BREC's 3-WL row %d", category, got[category], n)
		}
	}
	t.Logf("SSWL distinguishes %v", sswl)
}

// The colourings returned are the last round's, from one palette for both graphs: 1-WL on a
// path and a star stops at round 1, nodes coloured by their degree. 2-FWL on the 6-cycle and two
// triangles stops at round 1 too, an ordered pair (u, v) coloured by its atomic type and the
// multiset over w of the types of (u, w) and (w, v): in the cycle by the distance of u and v
// (0 to 3); in the triangles, the diagonal as the cycle's, an edge apart from the cycle's (its
// ends have a common neighbour), and two nodes of different triangles as the cycle's opposite
// nodes (neither has a common neighbour nor an edge to the other).
func TestColourings(t *testing.T) {
	sameClasses := func(name string, r wl.Result, class [2][]int) {
		t.Helper()
		colourOf := map[int]uint32{}
		classOf := map[uint32]int{}
		for g := range 2 {
			if len(r.Colourings[g]) != len(class[g]) {
				t.Fatalf("%s: graph %d has %d colours, want %d", name, g, len(r.Colourings[g]), len(class[g]))
			}
			for i, c := range r.Colourings[g] {
				k := class[g][i]
				if want, ok := colourOf[k]; ok && want != c {
					t.Errorf("%s: graph %d, element %d (class %d) has colour %d, another of its class %d", name, g, i, k, c, want)
				}
				if want, ok := classOf[c]; ok && want != k {
					t.Errorf("%s: colour %d on class %d and %d", name, c, k, want)
				}
				colourOf[k], classOf[c] = c, k
			}
		}
	}
	path, star := testgraphs.Path(5), testgraphs.Star(5)
	r := wl.OneWL(path, star)
	if !r.Distinguished || r.Rounds != 1 {
		t.Fatalf("1-WL, path vs star: %+v", r)
	}
	degrees := func(g *graph.Graph) []int {
		d := make([]int, g.N())
		for _, e := range g.Edges() {
			d[e[0]]++
			d[e[1]]++
		}
		return d
	}
	sameClasses("1-WL, path vs star", r, [2][]int{degrees(path), degrees(star)})

	cycle, triangles := testgraphs.Cycle(6), testgraphs.TwoTriangles()
	r = wl.TwoFWL(cycle, triangles)
	if !r.Distinguished || r.Rounds != 1 {
		t.Fatalf("2-FWL, 6-cycle vs two triangles: %+v", r)
	}
	classes := distances(triangles)
	for i, d := range classes {
		switch d {
		case 1:
			classes[i] = -1 // an edge of a triangle
		case triangles.N():
			classes[i] = 3 // unreachable: as the cycle's opposite nodes
		}
	}
	sameClasses("2-FWL, 6-cycle vs two triangles", r, [2][]int{distances(cycle), classes})
}

// distances returns the distance between u and v at u·n+v (n for unreachable), by breadth-first
// search from every node.
func distances(g *graph.Graph) []int {
	n := g.N()
	adj := make([][]int, n)
	for _, e := range g.Edges() {
		adj[e[0]] = append(adj[e[0]], e[1])
		adj[e[1]] = append(adj[e[1]], e[0])
	}
	d := make([]int, n*n)
	for u := range n {
		for v := range n {
			d[u*n+v] = n
		}
		d[u*n+u] = 0
		queue := []int{u}
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			for _, y := range adj[x] {
				if d[u*n+y] == n {
					d[u*n+y] = d[u*n+x] + 1
					queue = append(queue, y)
				}
			}
		}
	}
	return d
}
