package model

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/product"
)

// Pooling of a sampled bag against hand-computed values: graph 0 has n = 3 and kept
// subgraphs 0 and 2 (6 product nodes), graph 1 has n = 2 and its full bag (4 nodes), the
// last slot is padding. SubgraphMean is the mean over kept subgraphs of their sums, Mean the
// mean over kept product nodes — never over rows that sampling dropped (the second defect of
// the reference code). AuthorsMean is that defect: graph 0 keeps k = 2 subgraphs, so its
// first k² = 4 rows over its 6; graph 1 keeps its full bag, all 4 rows, as Mean.
func TestPoolSampled(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 7}
	nodeGraph := []int32{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2}
	graphN := []float32{3, 2, 1}
	graphNodes := []float32{6, 4, 1}
	want := map[string][]float64{
		SubgraphMean: {21.0 / 2, 100.0 / 2, 7},
		Mean:         {21.0 / 6, 100.0 / 4, 7},
		Sum:          {21, 100, 7},
		AuthorsMean:  {10.0 / 6, 100.0 / 4, 7},
	}
	for pooling, w := range want {
		got := MustExecOnce(be, func(x, ng, n, nodes *Node) *Node {
			return pool(x, Inputs{NodeGraph: ng, GraphN: n, GraphNodes: nodes}, Config{Pooling: pooling})
		}, tensors.FromFlatDataAndDimensions(x, len(x), 1), tensors.FromFlatDataAndDimensions(nodeGraph, len(x), 1),
			tensors.FromValue(graphN), tensors.FromValue(graphNodes))
		flat := tensors.MustCopyFlatData[float64](got)
		for i := range w {
			if math.Abs(flat[i]-w[i]) > 1e-12 {
				t.Errorf("%s: %v, want %v", pooling, flat, w)
				break
			}
		}
	}
}

// AuthorsMean on a real batch (sampled, padded to a bucket): a graph's rows are consecutive in
// the sparse layout, so its first k² rows are found from GraphNodes alone; against a sum over
// each graph's rows in order, k = kept nodes / n.
func TestPoolAuthorsMeanOnABatch(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var exs []batch.Example
	var products []*product.Graph
	for _, n := range []int{7, 4, 9} {
		g, err := graph.ErdosRenyi(n, 0.4, rng)
		if err != nil {
			t.Fatal(err)
		}
		g, err = graph.New(n, g.Edges(), graph.Features{Width: 1, Ints: make([]int32, n)}, graph.Features{})
		if err != nil {
			t.Fatal(err)
		}
		it, err := preprocess.Graph(g, preprocess.Options{TupleK: 2})
		if err != nil {
			t.Fatal(err)
		}
		roots, err := product.SampleRoots(n, 0.4, rng)
		if err != nil {
			t.Fatal(err)
		}
		p, err := it.Product.Sample(roots)
		if err != nil {
			t.Fatal(err)
		}
		exs, products = append(exs, batch.Example{Graph: g, Item: it, Target: []float64{0}}), append(products, p)
	}
	b, err := batch.Build(exs, products, batch.Options{Bucket: 1.5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, b.Nodes)
	for i := range x {
		x[i] = float64(1 + i*i%17)
	}
	want := make([]float64, b.Graphs+1)
	seen := make([]int, b.Graphs+1)
	for i, g := range b.NodeGraph {
		if int(g) >= len(exs) {
			continue
		}
		if i > 0 && g < b.NodeGraph[i-1] {
			t.Fatalf("row %d of graph %d after a row of graph %d", i, g, b.NodeGraph[i-1])
		}
		k := int(b.GraphNodes[g] / b.GraphN[g])
		if seen[g] < k*k {
			want[g] += x[i]
		}
		seen[g]++
	}
	got := MustExecOnce(be, func(x, ng, n, nodes *Node) *Node {
		return pool(x, Inputs{NodeGraph: ng, GraphN: n, GraphNodes: nodes}, Config{Pooling: AuthorsMean})
	}, tensors.FromFlatDataAndDimensions(x, len(x), 1), tensors.FromFlatDataAndDimensions(b.NodeGraph, len(x), 1),
		tensors.FromValue(b.GraphN), tensors.FromValue(b.GraphNodes))
	flat := tensors.MustCopyFlatData[float64](got)
	for g := range exs {
		k := seen[g] / int(b.GraphN[g])
		if k*k >= seen[g] {
			t.Fatalf("graph %d keeps %d subgraphs of %v: its first k² rows are all of them", g, k, b.GraphN[g])
		}
		if w := want[g] / float64(b.GraphNodes[g]); math.Abs(flat[g]-w) > 1e-12 {
			t.Errorf("graph %d (%d kept rows, n = %v): %v, want %v", g, seen[g], b.GraphN[g], flat[g], w)
		}
	}
}
