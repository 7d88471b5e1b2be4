package graph_test

import (
	"strings"
	"testing"

	"github.com/sgformer/sgformer/sgformer/graph"
)

// Errors of the JSON reader speak of the graph format — file, line:column, the field and
// element, what was expected — not of Go types, and an empty or cut-off file says so.
func TestReadJSONErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"num_nodes": 3, "edges": [[0,1],[1,2],[1.5,2]]}`, "g.json:1:41: edges[2][0]: want an integer node id, got 1.5"},
		{`{"num_nodes": 3, "edges": [[0,1],[1,"2"]]}`, `g.json:1:37: edges[1][1]: want an integer node id, got "2"`},
		{`{"num_nodes": 3, "edges": [[0,1],{"u":1}]}`, "g.json:1:34: edges[1]: want a pair [u,v]"},
		{`{"num_nodes": 3, "edges": 5}`, "g.json:1:27: edges: want a list of pairs [[u,v], ...], got 5"},
		{`{"num_nodes": 2.5}`, "g.json:1:15: num_nodes: want a non-negative integer, got 2.5"},
		{`{"num_nodes": "three"}`, `g.json:1:15: num_nodes: want a non-negative integer, got "three"`},
		{`{"num_nodes": -1}`, "g.json:1:15: num_nodes: want a non-negative integer, got -1"},
		{`{"num_nodes": 1e99}`, "g.json:1:15: num_nodes: want a non-negative integer, got 1e99"},
		{`{"num_nodes": 3, "edge": []}`, `g.json:1:18: unknown field "edge" (want num_nodes, edges, node_features, edge_features)`},
		{`{"num_nodes": 3, "num_nodes": 4}`, `g.json:1:18: "num_nodes" given twice`},
		{`{"` + strings.Repeat("é", 5000) + `": 3}`, `g.json:1:2: unknown field "` + strings.Repeat("é", 40) + `"… (10000 bytes) (want num_nodes`},
		{`{"num_nodes": 1` + strings.Repeat("0", 5000) + `}`, "num_nodes: want a non-negative integer, got 1" + strings.Repeat("0", 39) + "… (5001 bytes)"},
		{`[1, 2]`, "g.json:1:1: want a graph object {\"num_nodes\": n, \"edges\": [[u,v], ...]}, got ["},
		{`{"num_nodes": 2, "node_features": [1, 2.5]}`, "g.json:1:39: node_features[1]: want an integer or a non-empty list of integers, got 2.5"},
		{`{"num_nodes": 2, "node_features": [[1], [99999999999]]}`, "g.json:1:42: node_features[1][0]: 99999999999 does not fit in 32 bits"},
		{`{"num_nodes": 2, "edges": [[0,0]]}`, "g.json:1:28: graph: edge 0 (0,0): self loop on node 0"},
		{`{"num_nodes": 2} {"num_nodes": 3}`, "g.json:1:18: unexpected data after the graph"},
		{"", "g.json: empty file: want a graph in JSON"},
		{" \n\t", "g.json: empty file: want a graph in JSON"},
		{"{\"num_nodes\": 3,\n \"edges\": [[0,1],", "g.json:2:17: truncated: the file ends inside the graph"},
		{`{"num_nodes": 3, "edges": [[0,1]`, "g.json:1:32: truncated: the file ends inside the graph"},
	} {
		_, err := graph.ReadJSON(strings.NewReader(tc.in), "g.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadJSON(%q): error %v, want it to contain %q", tc.in, err, tc.want)
		}
		if err != nil && (strings.Contains(err.Error(), "Go struct") || strings.Contains(err.Error(), "jsonGraph") || err.Error() == "EOF") {
			t.Errorf("ReadJSON(%q): error %q speaks of Go internals", tc.in, err)
		}
	}
}

// endlessEdges is a graph file whose edge list never ends.
type endlessEdges struct{ head string }

func (e *endlessEdges) Read(p []byte) (int, error) {
	if e.head != "" {
		n := copy(p, e.head)
		e.head = e.head[n:]
		return n, nil
	}
	for i := range p {
		p[i] = "[0,1],"[i%6]
	}
	return len(p), nil
}

// An input larger than MaxJSONBytes is refused once that much is read: an endless one too.
func TestReadJSONBounded(t *testing.T) {
	_, err := graph.ReadJSON(&endlessEdges{head: `{"num_nodes": 2, "edges": [`}, "endless.json")
	if err == nil || !strings.Contains(err.Error(), "endless.json: larger than 64 MiB") {
		t.Errorf("an endless graph file: %v", err)
	}
}
