package data_test

import (
	"math/rand/v2"
	"testing"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// bruteCycles counts triangles and 4-cycles by enumerating node tuples.
func bruteCycles(g *graph.Graph) (triangles, squares int) {
	n := g.N()
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
	}
	for _, e := range g.Edges() {
		adj[e[0]][e[1]], adj[e[1]][e[0]] = true, true
	}
	for a := range n {
		for b := a + 1; b < n; b++ {
			for c := b + 1; c < n; c++ {
				if adj[a][b] && adj[b][c] && adj[a][c] {
					triangles++
				}
			}
		}
	}
	// Ordered 4-cycles a-b-c-d-a with distinct nodes, each counted 8 times.
	for a := range n {
		for b := range n {
			for c := range n {
				for d := range n {
					if a != c && b != d && adj[a][b] && adj[b][c] && adj[c][d] && adj[d][a] {
						squares++
					}
				}
			}
		}
	}
	return triangles, squares / 8
}

func TestCounting(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		g, _ := graph.ErdosRenyi(3+rng.IntN(9), 0.5, rng)
		tri, sq := bruteCycles(g)
		if data.CountTriangles(g) != tri || data.CountFourCycles(g) != sq {
			t.Fatalf("counts %d, %d; brute force %d, %d", data.CountTriangles(g), data.CountFourCycles(g), tri, sq)
		}
	}
	k4, err := graph.Clique(4)
	if err != nil {
		t.Fatal(err)
	}
	if c := data.CountFourCycles(k4); c != 3 {
		t.Fatalf("K4 has 3 four-cycles, got %d", c)
	}
}

func TestSynthetic(t *testing.T) {
	ds, err := data.Synthetic(data.Triangles, 200, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Graphs) != 200 || len(ds.Split.Train) != 160 || len(ds.Split.Valid) != 20 || len(ds.Split.Test) != 20 {
		t.Fatalf("%d graphs, split %d/%d/%d", len(ds.Graphs), len(ds.Split.Train), len(ds.Split.Valid), len(ds.Split.Test))
	}
	distinct := map[float64]bool{}
	degrees := 0
	for i, g := range ds.Graphs {
		degrees += 2 * g.NumEdges()
		if g.N() < 8 || g.N() > 16 || g.N()%2 != 0 || g.NodeFeatures.Ints[0] != 0 || (g.NumEdges() > 0 && g.EdgeFeatures.Ints[0] != 1) {
			t.Fatalf("graph %d: %d nodes, features %v %v", i, g.N(), g.NodeFeatures, g.EdgeFeatures)
		}
		if tri, _ := bruteCycles(g); float64(tri) != ds.Labels[i] {
			t.Fatalf("graph %d: label %v, %d triangles", i, ds.Labels[i], tri)
		}
		distinct[ds.Labels[i]] = true
	}
	if len(distinct) < 3 {
		t.Fatalf("only %d distinct triangle counts", len(distinct))
	}
	nodes := 0
	for _, g := range ds.Graphs {
		nodes += g.N()
	}
	if mean := float64(degrees) / float64(nodes); mean < 2.6 || mean > 3.4 {
		t.Fatalf("mean degree %.2f, want about 3", mean)
	}
	again, _ := data.Synthetic(data.Triangles, 200, 7)
	if again.Graphs[17].NumEdges() != ds.Graphs[17].NumEdges() || again.Labels[17] != ds.Labels[17] {
		t.Fatal("same seed, different dataset")
	}
	if _, err := data.Synthetic("pentagons", 100, 1); err == nil {
		t.Fatal("unknown task accepted")
	}
}
