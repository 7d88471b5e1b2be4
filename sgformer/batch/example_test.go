package batch_test

import (
	"fmt"

	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/preprocess"
)

// Two paths, of 3 and 4 nodes, as one batch: their 9 + 16 product nodes concatenated and padded
// to a bucket size, each connectivity's edges padded with self-loops of the last (padding) node.
func ExampleBuild() {
	var examples []batch.Example
	for _, n := range []int{3, 4} {
		var edges []graph.Edge
		for v := 1; v < n; v++ {
			edges = append(edges, graph.Edge{v - 1, v})
		}
		g, _ := graph.New(n, edges, graph.Features{}, graph.Features{})
		item, _ := preprocess.Graph(g, preprocess.Options{PEK: 2})
		examples = append(examples, batch.Example{Graph: g, Item: item, Target: []float64{float64(n)}})
	}
	b, err := batch.Build(examples, nil, batch.Options{PEK: 2, MaxDistance: 5, Bucket: 1.25}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("graphs:", b.Graphs, "nodes:", b.Nodes)
	for _, c := range b.Connectivities {
		fmt.Printf("%s: %d edges, padded to %d\n", c.Name, c.Real, c.Len())
	}
	// Output:
	// graphs: 2 nodes: 32
	// internal: 36 edges, padded to 40
	// external: 36 edges, padded to 40
	// point: 25 edges, padded to 25
}
