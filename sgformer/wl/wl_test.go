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
		name          string
		a, b          *graph.Graph
		oneWL, twoFWL bool
	}{
		{"6-cycle vs two triangles (both 2-regular)", testgraphs.Cycle(6), testgraphs.TwoTriangles(), false, true},
		{"path vs star (other degrees)", testgraphs.Path(5), testgraphs.Star(5), true, true},
		{"rook 4×4 vs Shrikhande (strongly regular, same parameters)", testgraphs.Rook4(), testgraphs.Shrikhande(), false, false},
		{"Petersen vs itself", testgraphs.Petersen(), testgraphs.Petersen(), false, false},
		{"empty graphs", testgraphs.Path(0), testgraphs.Path(0), false, false},
	} {
		if got := wl.OneWL(tc.a, tc.b); got.Distinguished != tc.oneWL {
			t.Errorf("%s: 1-WL %+v, want distinguished %v", tc.name, got, tc.oneWL)
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
		if r := wl.TwoFWL(g.G, h); r.Distinguished {
			t.Errorf("%s: 2-FWL tells it from a renumbering: %+v", g.Name, r)
		}
	}
}

// 1-WL is complete on trees: it tells apart every two non-isomorphic trees (of 7 nodes here,
// isomorphism decided by brute force over all 5,040 renumberings), and 2-FWL, stronger, too.
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

// On BREC's 400 pairs (../shared/data/brec): 1-WL distinguishes none (BREC chose them so), and
// 2-FWL distinguishes as many per category as the 3-WL row of BREC's paper (Wang and Zhang,
// ICML 2024, Table 2): Basic 60, Regular 50, Extension 100, CFI 60, 4-Vertex_Condition 0,
// Distance_Regular 0; 270 in all.
func TestBREC(t *testing.T) {
	pairs, err := data.ReadPairsFile(shareddata.Dir(t, "brec") + "/pairs.tsv")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"Basic": 60, "Regular": 50, "Extension": 100, "CFI": 60, "4-Vertex_Condition": 0, "Distance_Regular": 0}
	got := map[string]int{}
	for _, p := range pairs {
		if r := wl.OneWL(p.A, p.B); r.Distinguished {
			t.Errorf("pair %d (%s): 1-WL distinguishes it: %+v", p.Index, p.Category, r)
		}
		if wl.TwoFWL(p.A, p.B).Distinguished {
			got[p.Category]++
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
}
