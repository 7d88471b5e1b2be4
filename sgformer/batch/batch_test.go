package batch_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/product"
)

func molecule(t *testing.T, n int, edges []graph.Edge) *graph.Graph {
	atoms := make([]int32, n)
	for i := range atoms {
		atoms[i] = int32(10 + i)
	}
	bonds := make([]int32, len(edges))
	for i := range bonds {
		bonds[i] = int32(1 + i%3)
	}
	g, err := graph.New(n, edges, graph.Features{Width: 1, Ints: atoms}, graph.Features{Width: 1, Ints: bonds})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func examples(t *testing.T) []batch.Example {
	gs := []*graph.Graph{
		molecule(t, 4, []graph.Edge{{0, 1}, {1, 2}, {2, 3}}),
		molecule(t, 5, []graph.Edge{{0, 1}, {1, 2}, {2, 0}, {3, 4}}), // disconnected
		molecule(t, 3, []graph.Edge{{0, 1}, {1, 2}, {0, 2}}),
	}
	var out []batch.Example
	for i, g := range gs {
		it, err := preprocess.Graph(g, preprocess.Options{PEK: 4})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, batch.Example{Graph: g, Item: it, Target: []float64{float64(i), math.NaN()}})
	}
	return out
}

// conn returns the edges of the connectivity called name of b, which must have it.
func conn(t *testing.T, b *batch.Batch, name product.Name) batch.Edges {
	t.Helper()
	c, ok := b.Connectivity(name)
	if !ok {
		t.Fatalf("no connectivity %q", name)
	}
	return c.Edges
}

// pointSources returns the node each node receives its point message from, −1 where none,
// checking that no node receives two.
func pointSources(t *testing.T, b *batch.Batch) []int32 {
	t.Helper()
	src := slices.Repeat([]int32{-1}, b.Nodes)
	e := conn(t, b, "point")
	for i := range e.Dst {
		if e.Dst[i] == int32(b.Nodes-1) && e.Src[i] == e.Dst[i] {
			continue // padding
		}
		if src[e.Dst[i]] >= 0 || e.Bond[i] != 0 {
			t.Fatalf("point edge %d: %d ← %d (bond %d), a second message or a bond", i, e.Dst[i], e.Src[i], e.Bond[i])
		}
		src[e.Dst[i]] = e.Src[i]
	}
	return src
}

func TestBuild(t *testing.T) {
	exs := examples(t)
	b, err := batch.Build(exs, nil, batch.Options{PEK: 4, MaxDistance: 2, Bucket: 1.25}, nil)
	if err != nil {
		t.Fatal(err)
	}
	real := 16 + 25 + 9
	if b.Nodes <= real || b.Graphs != 3 || len(b.NodeGraph) != b.Nodes || b.K != 2 {
		t.Fatalf("nodes %d for %d real, graphs %d, K %d", b.Nodes, real, b.Graphs, b.K)
	}
	points := pointSources(t, b)
	off, subgraphBase := 0, 0
	for g, ex := range exs {
		n := ex.Graph.N()
		pe := ex.Item.PE.Float32(4)
		for sv := range n * n {
			at := off + sv
			s, v := sv/n, sv%n
			if b.NodeGraph[at] != int32(g) || b.NodeMask[at] != 1 || b.NodeFeatures[at] != int32(10+v) {
				t.Fatalf("graph %d node (%d,%d): graph %d mask %v atom %d", g, s, v, b.NodeGraph[at], b.NodeMask[at], b.NodeFeatures[at])
			}
			d := ex.Item.Marks[sv]
			want := min(d, 2)
			if d < 0 {
				want = 3
			}
			if b.Marks[at] != want {
				t.Fatalf("graph %d node (%d,%d): mark %d, want %d", g, s, v, b.Marks[at], want)
			}
			if b.NodeSubgraph[at] != int32(subgraphBase+s) {
				t.Fatalf("graph %d node (%d,%d): subgraph %d", g, s, v, b.NodeSubgraph[at])
			}
			if points[at] != int32(off+v*n+v) {
				t.Fatalf("graph %d node (%d,%d): point source %d", g, s, v, points[at])
			}
			if !slices.Equal(b.PE[at*4:at*4+4], pe[sv*4:sv*4+4]) {
				t.Fatalf("graph %d node (%d,%d): PE row differs", g, s, v)
			}
		}
		if b.GraphN[g] != float32(n) || b.GraphNodes[g] != float32(n*n) || b.Targets[2*g] != float32(g) || b.TargetMask[2*g] != 1 || b.TargetMask[2*g+1] != 0 {
			t.Fatalf("graph %d: sizes %v %v targets %v mask %v", g, b.GraphN[g], b.GraphNodes[g], b.Targets, b.TargetMask)
		}
		off += n * n
		subgraphBase += n
	}
	if len(b.Targets) != 8 || b.TargetMask[6] != 0 {
		t.Fatalf("targets %v: want a masked row for the padding slot", b.Targets)
	}
	for at := off; at < b.Nodes; at++ {
		if b.NodeSubgraph[at] != 12 || b.NodeGraph[at] != 3 || b.NodeMask[at] != 0 || points[at] >= 0 {
			t.Fatalf("padding node %d: graph %d mask %v point %d", at, b.NodeGraph[at], b.NodeMask[at], points[at])
		}
	}
	// Every edge stays within one graph, or within the padding; bonds are carried.
	for _, e := range []batch.Edges{conn(t, b, "internal"), conn(t, b, "external")} {
		for i := range e.Src {
			if b.NodeGraph[e.Src[i]] != b.NodeGraph[e.Dst[i]] {
				t.Fatalf("edge %d joins graphs %d and %d", i, b.NodeGraph[e.Src[i]], b.NodeGraph[e.Dst[i]])
			}
			if pad := b.NodeGraph[e.Dst[i]] == 3; pad && (e.Bond[i] != 0 || e.Src[i] != int32(b.Nodes-1) || e.Dst[i] != e.Src[i]) {
				t.Fatalf("padding edge %d: %d ← %d bond %d", i, e.Dst[i], e.Src[i], e.Bond[i])
			}
		}
	}
	p0, _ := exs[0].Item.Product.Connectivity("internal")
	internal := conn(t, b, "internal")
	if !slices.Equal(internal.Src[:p0.Len()], p0.Src) {
		t.Fatal("internal edges of graph 0 not copied in order")
	}
	// Bonds are rows of the table of distinct bond types: graph 0's bonds are 1, 2, 3.
	if b.BondTypes != 8 || b.BondWidth != 1 || len(b.Bonds) != 8 {
		t.Fatalf("bond table %v (%d rows)", b.Bonds, b.BondTypes)
	}
	for j := range p0.Len() {
		if got, want := b.Bonds[internal.Bond[j]], exs[0].Graph.EdgeFeatures.Ints[p0.Bond[j]]; got != want {
			t.Fatalf("internal edge %d of graph 0 carries bond %d, want %d", j, got, want)
		}
	}
}

func TestBuildSampledAndFlipped(t *testing.T) {
	exs := examples(t)
	var products []*product.Graph
	for _, ex := range exs {
		p, err := ex.Item.Product.Sample([]int{1})
		if err != nil {
			t.Fatal(err)
		}
		products = append(products, p)
	}
	b, err := batch.Build(exs, products, batch.Options{PEK: 4, MaxDistance: 5}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if b.Nodes != 4+5+3+1 {
		t.Fatalf("%d nodes, want 13 (12 kept + 1 padding)", b.Nodes)
	}
	// Only (1,1) of each graph is a root in the batch.
	points := pointSources(t, b)
	for at := range 12 {
		if (at == 1 || at == 4+1 || at == 9+1) != (points[at] >= 0) {
			t.Fatalf("node %d: point source %v", at, points[at])
		}
	}
	// Sign flips act on whole columns of each graph: |PE| is unchanged.
	plain, _ := batch.Build(exs, products, batch.Options{PEK: 4, MaxDistance: 5}, nil)
	for i := range b.PE {
		if math.Abs(float64(b.PE[i])) != math.Abs(float64(plain.PE[i])) {
			t.Fatalf("PE entry %d: %v vs %v", i, b.PE[i], plain.PE[i])
		}
	}
	if slices.Equal(b.PE, plain.PE) {
		t.Fatal("no sign flipped")
	}
	// The PE is the full graph's (computed before sampling): each kept node (s, v) carries the
	// row of (s, v) in the full bag.
	full, _ := batch.Build(exs, nil, batch.Options{PEK: 4, MaxDistance: 5}, nil)
	at, fullOff := 0, 0
	for g, ex := range exs {
		for _, sv := range products[g].Nodes {
			row, fullRow := plain.PE[at*4:(at+1)*4], full.PE[(fullOff+int(sv))*4:(fullOff+int(sv)+1)*4]
			if !slices.Equal(row, fullRow) {
				t.Fatalf("graph %d, product node %d: sampled PE %v, full PE %v", g, sv, row, fullRow)
			}
			at++
		}
		fullOff += ex.Graph.N() * ex.Graph.N()
	}
}

func TestBuildOriginal(t *testing.T) {
	exs := examples(t)
	b, err := batch.Build(exs, nil, batch.Options{PEK: 4, MaxDistance: 5, Original: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	internal := conn(t, b, "internal")
	if b.Nodes != 4+5+3+1 || internal.Len() != 2*(3+4+3) || len(b.Connectivities) != 1 {
		t.Fatalf("original batch: %d nodes, %d internal edges, %d connectivities", b.Nodes, internal.Len(), len(b.Connectivities))
	}
	for at := range 12 {
		if b.Marks[at] != 0 || b.NodeFeatures[at] != int32(10+at-[]int{0, 4, 9}[b.NodeGraph[at]]) {
			t.Fatalf("node %d: mark %d atom %d", at, b.Marks[at], b.NodeFeatures[at])
		}
	}
	// Graph 1 (offset 4) has the edge (0,1) with bond 1, listed from both ends.
	if internal.Dst[6] != 4 || internal.Src[6] != 5 || b.Bonds[internal.Bond[6]] != 1 {
		t.Fatalf("edge 6: %d ← %d bond %d", internal.Dst[6], internal.Src[6], internal.Bond[6])
	}
}

func TestBuildErrors(t *testing.T) {
	exs := examples(t)
	if _, err := batch.Build(nil, nil, batch.Options{}, nil); err == nil {
		t.Error("empty batch built")
	}
	bad := append([]batch.Example(nil), exs...)
	bad[1].Target = []float64{1}
	if _, err := batch.Build(bad, nil, batch.Options{PEK: 4}, nil); err == nil || !strings.Contains(err.Error(), "example 1: 1 targets, want 2") {
		t.Errorf("targets: %v", err)
	}
	if _, err := batch.Build(exs, []*product.Graph{exs[0].Item.Product}, batch.Options{PEK: 4}, nil); err == nil || !strings.Contains(err.Error(), "1 product graphs for 3 examples") {
		t.Errorf("products: %v", err)
	}
}

// The dense layout puts node (s, v) of graph g at g·m² + s·m + v and describes the graph by its
// adjacency and bond rows on the grid.
func TestBuildDense(t *testing.T) {
	exs := examples(t)
	b, err := batch.Build(exs, nil, batch.Options{PEK: 4, MaxDistance: 5, Dense: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := 5 // the largest graph
	points := pointSources(t, b)
	if b.GridSize != m || b.Nodes != 3*m*m || len(b.Adjacency) != 3*m*m || len(b.BondGrid) != 3*m*m {
		t.Fatalf("grid %d, %d nodes, adjacency %d, bonds %d", b.GridSize, b.Nodes, len(b.Adjacency), len(b.BondGrid))
	}
	for g, ex := range exs {
		n := ex.Graph.N()
		for s := range m {
			for v := range m {
				at := g*m*m + s*m + v
				real := s < n && v < n
				if (b.NodeMask[at] == 1) != real {
					t.Fatalf("graph %d cell (%d,%d): mask %v", g, s, v, b.NodeMask[at])
				}
				mark := int32(6) // unreachable: MaxDistance + 1
				if real && ex.Item.Marks[s*n+v] >= 0 {
					mark = min(ex.Item.Marks[s*n+v], 5)
				}
				if real && (b.NodeGraph[at] != int32(g) || points[at] != int32(g*m*m+v*m+v) || b.Marks[at] != mark) {
					t.Fatalf("graph %d node (%d,%d): graph %d, point source %d, mark %d", g, s, v, b.NodeGraph[at], points[at], b.Marks[at])
				}
				if !real && b.NodeGraph[at] != 3 {
					t.Fatalf("graph %d padding cell (%d,%d) in graph slot %d", g, s, v, b.NodeGraph[at])
				}
			}
		}
		adjacent := map[[2]int]int32{}
		for i, e := range ex.Graph.Edges() {
			adjacent[e], adjacent[[2]int{e[1], e[0]}] = ex.Graph.EdgeFeatures.Ints[i], ex.Graph.EdgeFeatures.Ints[i]
		}
		for u := range m {
			for v := range m {
				at := g*m*m + u*m + v
				bond, ok := adjacent[[2]int{u, v}]
				if (b.Adjacency[at] == 1) != ok || ok && b.Bonds[b.BondGrid[at]] != bond {
					t.Fatalf("graph %d pair (%d,%d): adjacency %v bond %d, want %v %d", g, u, v, b.Adjacency[at], b.Bonds[b.BondGrid[at]], ok, bond)
				}
			}
		}
	}
	if _, err := batch.Build(exs, nil, batch.Options{Dense: true, Original: true}, nil); err == nil {
		t.Fatal("dense layout of original graphs accepted")
	}
	for _, name := range []product.Name{product.Internal, product.External} {
		if e := conn(t, b, name); e.Len() != 1 || e.Src[0] != int32(b.Nodes-1) {
			t.Fatalf("dense %s: %d edges, want one padding edge", name, e.Len())
		}
	}
}

// 3-tuples batch with K − 1 = 2 marks per node, the product graphs' connectivities by name,
// and the features of each tuple's last entry.
func TestBuildTuples(t *testing.T) {
	g := molecule(t, 4, []graph.Edge{{0, 1}, {1, 2}, {2, 3}})
	it, err := preprocess.Graph(g, preprocess.Options{PEK: 3, TupleK: 3})
	if err != nil {
		t.Fatal(err)
	}
	exs := []batch.Example{{Graph: g, Item: it, Target: []float64{1}}, {Graph: g, Item: it, Target: []float64{2}}}
	b, err := batch.Build(exs, nil, batch.Options{PEK: 3, MaxDistance: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.K != 3 || len(b.Marks) != 2*b.Nodes || len(b.Connectivities) != 6 || b.Connectivities[5].Name != "point_2" {
		t.Fatalf("K %d, %d marks for %d nodes, connectivities %d", b.K, len(b.Marks), b.Nodes, len(b.Connectivities))
	}
	for at := range 64 {
		v := at % 4
		if b.NodeFeatures[at] != int32(10+v) || b.Marks[2*at] != it.Marks[2*at] || b.Marks[2*at+1] != it.Marks[2*at+1] || b.NodeSubgraph[at] != int32(at/4) {
			t.Fatalf("node %d: atom %d, marks %v, subgraph %d", at, b.NodeFeatures[at], b.Marks[2*at:2*at+2], b.NodeSubgraph[at])
		}
	}
	a2, _ := it.Product.Connectivity("adjacency_2")
	if got := conn(t, b, "adjacency_2"); !slices.Equal(got.Src[:a2.Len()], a2.Src) || got.Src[a2.Len()] != a2.Src[0]+64 {
		t.Fatal("adjacency_2 not copied graph by graph")
	}
	if _, err := batch.Build(exs, nil, batch.Options{PEK: 3, Dense: true}, nil); err == nil || !strings.Contains(err.Error(), "not 3-tuples") {
		t.Fatalf("dense 3-tuples: %v", err)
	}
	pairs := examples(t)[:1]
	pairs[0].Target = []float64{0}
	if _, err := batch.Build(append(pairs, exs[0]), nil, batch.Options{PEK: 3}, nil); err == nil || !strings.Contains(err.Error(), "example 1: 3-tuples") {
		t.Fatalf("mixed tuple orders: %v", err)
	}
}

// With a profile, batches differ from those without in padding only, every size comes from one
// level (so a level is a shape), and random batches of random molecules take far fewer shapes.
func TestBuildProfile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var pool []batch.Example
	for range 60 {
		n := 3 + rng.IntN(12)
		var edges []graph.Edge
		for v := 1; v < n; v++ { // a random tree, and a few rings
			edges = append(edges, graph.Edge{rng.IntN(v), v})
		}
		for range rng.IntN(3) {
			u, v := rng.IntN(n), rng.IntN(n)
			if u != v && !slices.ContainsFunc(edges, func(e graph.Edge) bool { return e == graph.Edge{u, v} || e == graph.Edge{v, u} }) {
				edges = append(edges, graph.Edge{u, v})
			}
		}
		g := molecule(t, n, edges)
		it, err := preprocess.Graph(g, preprocess.Options{PEK: 2})
		if err != nil {
			t.Fatal(err)
		}
		pool = append(pool, batch.Example{Graph: g, Item: it, Target: []float64{0, 0}})
	}
	plain := batch.Options{PEK: 2, MaxDistance: 5, Bucket: 1.15}
	profiled := plain
	profiled.Profile = batch.ProfileOf(pool, nil, plain)
	if len(profiled.Profile) != len(pool[0].Item.Product.Connectivities) {
		t.Fatalf("profile %v for %d connectivities", profiled.Profile, len(pool[0].Item.Product.Connectivities))
	}
	shapes := map[bool]map[string]bool{false: {}, true: {}}
	for range 200 {
		exs := make([]batch.Example, 8)
		for i := range exs {
			exs[i] = pool[rng.IntN(len(pool))]
		}
		a, err := batch.Build(exs, nil, plain, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := batch.Build(exs, nil, profiled, nil)
		if err != nil {
			t.Fatal(err)
		}
		real := 0
		for _, x := range a.NodeMask {
			real += int(x)
		}
		if b.Nodes <= real || !slices.Equal(b.NodeMask[:real], a.NodeMask[:real]) || !slices.Equal(b.PE[:real*2], a.PE[:real*2]) {
			t.Fatalf("profiled batch of %d nodes for %d real ones, or different real nodes", b.Nodes, real)
		}
		for j, c := range b.Connectivities {
			ca := a.Connectivities[j]
			if c.Real != ca.Real || !slices.Equal(c.Src[:c.Real], ca.Src[:ca.Real]) || !slices.Equal(c.Dst[:c.Real], ca.Dst[:ca.Real]) || !slices.Equal(c.Bond[:c.Real], ca.Bond[:ca.Real]) {
				t.Fatalf("%s: the profiled batch's real edges differ", c.Name)
			}
			if want := max(int(math.Ceil(profiled.Profile[j]*float64(b.Nodes))), 1); profiled.Profile[j] > 0 && c.Len() != want {
				t.Fatalf("%s: %d edges padded at level %d, want ⌈%v·%d⌉ = %d", c.Name, c.Len(), b.Nodes, profiled.Profile[j], b.Nodes, want)
			}
			for _, e := range c.Src[c.Real:] {
				if int(e) != b.Nodes-1 {
					t.Fatalf("%s: a padding edge from %d, not the padding node %d", c.Name, e, b.Nodes-1)
				}
			}
		}
		shapes[false][shapeOf(a)] = true
		shapes[true][shapeOf(b)] = true
	}
	t.Logf("shapes of 200 random batches: %d bucketed apart, %d with the profile", len(shapes[false]), len(shapes[true]))
	if len(shapes[true])*2 > len(shapes[false]) {
		t.Errorf("%d shapes with the profile, %d without: want fewer than half", len(shapes[true]), len(shapes[false]))
	}
}

// shapeOf is what a compiled program depends on: the sizes of the batch's arrays.
func shapeOf(b *batch.Batch) string {
	s := []int{b.Nodes, b.Graphs, len(b.Bonds)}
	for _, c := range b.Connectivities {
		s = append(s, c.Len())
	}
	return strings.Trim(strings.Join(strings.Fields(fmt.Sprint(s)), ","), "[]")
}
