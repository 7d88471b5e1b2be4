package graph_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// FuzzReadJSON: no input panics, hangs or allocates more than its size justifies (a declared
// num_nodes is bounded by the memory limit, here 16 MiB); errors name the file; a graph read
// back from its own JSON is the same graph.
func FuzzReadJSON(f *testing.F) {
	for _, seed := range []string{
		`{"num_nodes": 3, "edges": [[0,1],[1,2]]}`,
		`{"num_nodes": 4, "edges": [[0,1],[1,2],[2,3]], "node_features": [6,6,8,6], "edge_features": [1,2,1]}`,
		`{"num_nodes": 3, "edges": [[0,1],[2,1]], "node_features": [[6,0],[6,1],[8,0]], "edge_features": [[1,0],[2,1]]}`,
		`{"num_nodes": 0}`,
		"{\"num_nodes\": 2,\n \"edges\": [[0,1]]}\n",
		`{"num_nodes": 3, "edges": [[0,1],[1,2],[1.5,2]]}`,
		`{"num_nodes": 100000000, "edges": []}`,
		`{"num_nodes": 3, "edges": [[0,1],`,
		``,
	} {
		f.Add([]byte(seed))
	}
	defer memory.SetLimit(16 << 20)()
	f.Fuzz(func(t *testing.T, data []byte) {
		before := memory.Allocated()
		g, err := graph.ReadJSON(bytes.NewReader(data), "fuzz.json")
		if used, budget := memory.Allocated()-before, uint64(16<<20+400*len(data)); used > budget {
			t.Fatalf("%d bytes of input allocated %d bytes (budget %d)", len(data), used, budget)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		back, err := graph.ReadJSON(strings.NewReader(toJSON(g)), "back.json")
		if err != nil || back.N() != g.N() || fmt.Sprint(back.Edges()) != fmt.Sprint(g.Edges()) ||
			fmt.Sprint(back.NodeFeatures) != fmt.Sprint(g.NodeFeatures) || fmt.Sprint(back.EdgeFeatures) != fmt.Sprint(g.EdgeFeatures) {
			t.Fatalf("read back differently: %v", err)
		}
	})
}

// toJSON writes g in the format ReadJSON reads.
func toJSON(g *graph.Graph) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"num_nodes": %d, "edges": [`, g.N())
	for i, e := range g.Edges() {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%d,%d]", e[0], e[1])
	}
	b.WriteByte(']')
	for _, f := range []struct {
		name string
		f    graph.Features
	}{{"node_features", g.NodeFeatures}, {"edge_features", g.EdgeFeatures}} {
		if f.f.Empty() {
			continue
		}
		fmt.Fprintf(&b, `, %q: [`, f.name)
		for r := range f.f.Rows() {
			if r > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('[')
			for c, x := range f.f.Ints[r*f.f.Width : (r+1)*f.f.Width] {
				if c > 0 {
					b.WriteByte(',')
				}
				fmt.Fprint(&b, x)
			}
			b.WriteByte(']')
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.String()
}
