package graph_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sgformer/sgformer/sgformer/graph"
)

func TestNewRejectsMalformedGraphs(t *testing.T) {
	none := graph.Features{}
	tests := []struct {
		name       string
		n          int
		edges      []graph.Edge
		node, edge graph.Features
		want       string
	}{
		{"negative count", -1, nil, none, none, "negative node count -1"},
		{"node out of range", 3, []graph.Edge{{0, 1}, {1, 3}}, none, none, "edge 1 (1,3): node id out of range [0,3)"},
		{"negative node id", 3, []graph.Edge{{-1, 2}}, none, none, "edge 0 (-1,2): node id out of range [0,3)"},
		{"self loop", 3, []graph.Edge{{0, 1}, {2, 2}}, none, none, "edge 1 (2,2): self loop on node 2"},
		{"duplicate", 3, []graph.Edge{{0, 1}, {1, 2}, {0, 1}}, none, none, "edge 2 (0,1): duplicates edge 0 (0,1)"},
		{"duplicate reversed", 3, []graph.Edge{{0, 1}, {1, 2}, {2, 1}}, none, none, "edge 2 (2,1): duplicates edge 1 (1,2)"},
		{"short node features", 3, nil, graph.Features{Width: 2, Ints: []int32{1, 2, 3, 4}}, none, "node features: 4 values, want 6 (3 nodes × width 2)"},
		{"long edge features", 3, []graph.Edge{{0, 1}}, none, graph.Features{Width: 1, Floats: []float32{1, 2}}, "edge features: 2 values, want 1 (1 edges × width 1)"},
		{"zero width", 2, nil, graph.Features{Ints: []int32{1, 2}}, none, "node features: width 0 must be positive"},
		{"ints and floats", 1, nil, graph.Features{Width: 1, Ints: []int32{1}, Floats: []float32{1}}, none, "node features: both integer and float values given"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := graph.New(tc.n, tc.edges, tc.node, tc.edge)
			if err == nil {
				t.Fatalf("New succeeded with %v", g.Edges())
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func TestNeighborsAreSortedWithEdgeIDs(t *testing.T) {
	edges := []graph.Edge{{3, 1}, {0, 3}, {2, 3}, {1, 0}}
	g, err := graph.New(4, edges, graph.Features{}, graph.Features{Width: 1, Ints: []int32{10, 11, 12, 13}})
	if err != nil {
		t.Fatal(err)
	}
	nb, ids := g.Neighbors(3)
	if !slices.Equal(nb, []int32{0, 1, 2}) || !slices.Equal(ids, []int32{1, 0, 2}) {
		t.Fatalf("Neighbors(3) = %v, %v; want [0 1 2], [1 0 2]", nb, ids)
	}
	for v := range g.N() {
		nb, ids := g.Neighbors(v)
		if len(nb) != g.Degree(v) {
			t.Errorf("node %d: %d neighbours, degree %d", v, len(nb), g.Degree(v))
		}
		for i, w := range nb {
			e := g.Edges()[ids[i]]
			if !(e == graph.Edge{v, int(w)} || e == graph.Edge{int(w), v}) {
				t.Errorf("node %d neighbour %d: edge id %d is %v", v, w, ids[i], e)
			}
		}
	}
}

func TestLaplacian(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		g, err := graph.ErdosRenyi(1+rng.IntN(12), 0.4, rng)
		if err != nil {
			t.Fatal(err)
		}
		n := g.N()
		a := mat.NewDense(n, n, nil)
		for _, e := range g.Edges() {
			a.Set(e[0], e[1], 1)
			a.Set(e[1], e[0], 1)
		}
		want := mat.NewDense(n, n, nil)
		for v := range n {
			want.Set(v, v, mat.Sum(a.RowView(v)))
		}
		want.Sub(want, a)
		l, err := g.Laplacian()
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(l, want) {
			t.Fatalf("trial %d: Laplacian\n%v\nwant D - A\n%v", trial, mat.Formatted(l), mat.Formatted(want))
		}
	}
}

func TestPermute(t *testing.T) {
	g, err := graph.New(3, []graph.Edge{{0, 1}, {1, 2}}, graph.Features{Width: 1, Ints: []int32{7, 8, 9}}, graph.Features{Width: 1, Ints: []int32{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.Permute([]int{2, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Edges(), []graph.Edge{{2, 0}, {0, 1}}) || !slices.Equal(p.NodeFeatures.Ints, []int32{8, 9, 7}) || !slices.Equal(p.EdgeFeatures.Ints, []int32{1, 2}) {
		t.Fatalf("Permute: edges %v, node features %v, edge features %v", p.Edges(), p.NodeFeatures.Ints, p.EdgeFeatures.Ints)
	}
	for _, bad := range [][]int{{0, 1}, {0, 0, 1}, {0, 1, 3}} {
		if _, err := g.Permute(bad); err == nil {
			t.Errorf("Permute(%v) succeeded", bad)
		}
	}
}

func TestErdosRenyi(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g, err := graph.ErdosRenyi(200, 0.1, rng)
	if err != nil {
		t.Fatal(err)
	}
	// 19,900 pairs at p = 0.1: mean 1990, standard deviation 42.
	if m := g.NumEdges(); m < 1800 || m > 2180 {
		t.Errorf("G(200, 0.1) has %d edges, want about 1990", m)
	}
	if _, err := graph.ErdosRenyi(3, 1.5, rng); err == nil {
		t.Error("ErdosRenyi with p = 1.5 succeeded")
	}
}

func TestReadJSON(t *testing.T) {
	g, err := graph.ReadJSON(strings.NewReader(`{"num_nodes": 3, "edges": [[0,1],[2,1]], "node_features": [6, 6, 8], "edge_features": [[1,0],[2,1]]}`), "mol.json")
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 3 || !slices.Equal(g.Edges(), []graph.Edge{{0, 1}, {2, 1}}) || !slices.Equal(g.NodeFeatures.Ints, []int32{6, 6, 8}) || g.EdgeFeatures.Width != 2 {
		t.Fatalf("ReadJSON: got n=%d edges=%v node=%v edge=%+v", g.N(), g.Edges(), g.NodeFeatures, g.EdgeFeatures)
	}
	bad := []struct{ in, want string }{
		{"{\"num_nodes\": 3,\n \"edges\": [[0,1],\n [1,2}", "g.json:3:6: invalid character '}'"},
		{`{"num_nodes": "three"}`, `g.json:1:15: num_nodes: want a non-negative integer, got "three"`},
		{`{"num_nodes": 3, "edge": []}`, `unknown field "edge"`},
		{`{"edges": []}`, `missing field "num_nodes"`},
		{`{"num_nodes": 3, "edges": [[0,1,2]]}`, "edges[0]: want a pair [u,v], got 3 numbers"},
		{`{"num_nodes": 3, "edges": [[0,3]]}`, "g.json:1:28: graph: edge 0 (0,3): node id out of range [0,3)"},
		{`{"num_nodes": 2, "edges": [[0,1]], "node_features": [1]}`, "node features: 1 values, want 2"},
		{`{"num_nodes": 2, "node_features": [1, [2, 3]]}`, "node_features[1]: 2 values where rows have 1"},
		{`{"num_nodes": 2, "node_features": [1, "x"]}`, `node_features[1]: want an integer or a non-empty list of integers, got "x"`},
	}
	for _, tc := range bad {
		_, err := graph.ReadJSON(strings.NewReader(tc.in), "g.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadJSON(%q): error %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
}

// A graph is built from its edges; Neighbors lists each node's neighbours in ascending order.
func ExampleNew() {
	g, err := graph.New(4, []graph.Edge{{0, 1}, {1, 2}, {2, 0}, {2, 3}}, graph.Features{}, graph.Features{})
	if err != nil {
		panic(err)
	}
	nb, _ := g.Neighbors(2)
	fmt.Println(g.N(), g.NumEdges(), nb)
	_, err = graph.New(4, []graph.Edge{{0, 1}, {1, 0}}, graph.Features{}, graph.Features{})
	fmt.Println(err)
	// Output:
	// 4 4 [0 1 3]
	// graph: edge 1 (1,0): duplicates edge 0 (0,1)
}
