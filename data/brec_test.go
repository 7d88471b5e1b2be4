package data

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// sortedEdges prints a graph's edges, each (low, high), in order.
func sortedEdges(g *graph.Graph) string {
	var es [][2]int
	for _, e := range g.Edges() {
		es = append(es, [2]int{min(e[0], e[1]), max(e[0], e[1])})
	}
	slices.SortFunc(es, func(a, b [2]int) int { return a[0]*1000 + a[1] - b[0]*1000 - b[1] })
	return fmt.Sprint(es)
}

// graph6 strings as networkx 3.6.1's to_graph6_bytes writes them, decoded to their graphs: the
// one-byte node count, the four-byte one (63 nodes), padding, and the optional header. DQc is
// the example of nauty's format description (edges 0-2, 0-4, 1-3, 3-4).
func TestParseGraph6(t *testing.T) {
	path63 := "~??~hCGGC@?G?_@?@??_?G?@??C??G??G??C??@???G???_??@???@????_???G???@????C????G????G????C????@?????G?????_????@?????@??????_?????G?????@??????C??????G??????G??????C??????@???????G???????_??????@???????@????????_???????G???????@????????C????????G????????G????????C????????@?????????G?????????_????????@?????????@??????????_?????????G"
	var path []string
	for v := 1; v < 63; v++ {
		path = append(path, fmt.Sprintf("[%d %d]", v-1, v))
	}
	for _, tc := range []struct {
		in    string
		n     int
		edges string
	}{
		{"?", 0, "[]"},
		{"@", 1, "[]"},
		{"A_", 2, "[[0 1]]"},
		{"Bw", 3, "[[0 1] [0 2] [1 2]]"},
		{"Cs", 4, "[[0 1] [0 2] [0 3]]"},
		{"DQc", 5, "[[0 2] [0 4] [1 3] [3 4]]"},
		{">>graph6<<DQc", 5, "[[0 2] [0 4] [1 3] [3 4]]"},
		{"IheA@GUAo", 10, "[[0 1] [0 4] [0 5] [1 2] [1 6] [2 3] [2 7] [3 4] [3 8] [4 9] [5 7] [5 8] [6 8] [6 9] [7 9]]"}, // Petersen
		{path63, 63, "[" + strings.Join(path, " ") + "]"},
	} {
		g, err := ParseGraph6(tc.in)
		if err != nil {
			t.Errorf("%.20q: %v", tc.in, err)
			continue
		}
		if got := sortedEdges(g); g.N() != tc.n || got != tc.edges {
			t.Errorf("%.20q: %d nodes, edges %s; want %d, %s", tc.in, g.N(), got, tc.n, tc.edges)
		}
	}
}

// A malformed graph6 string says what is wrong; a malformed pair file names the line and field.
func TestPairErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "graph6: empty"},
		{"B w", "byte 1 is ' ', outside the format's range"},
		{"Bww", "graph6: 2 bytes of adjacency after the node count 3, want 1"},
		{"B", "graph6: 0 bytes of adjacency after the node count 3, want 1"},
		{"Bx", "padding bits after the adjacency are not zero"},
		{"~?", "the node count is cut short"},
		{"~~??", "the node count is cut short"},
		{"~A??", "8192 nodes, more than the 4096 read"},
	} {
		if _, err := ParseGraph6(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseGraph6(%q): %v, want %q", tc.in, err, tc.want)
		}
	}
	header := "pair\tcategory\tgraph6_a\tgraph6_b\n"
	for _, tc := range []struct{ in, want string }{
		{"", "p.tsv: empty file"},
		{"pair,category,a,b\n", "p.tsv:1: want the header"},
		{header, "p.tsv: no pairs after the header"},
		{header + "0\tBasic\tBw\n", "p.tsv:2: 3 tab-separated fields, want 4"},
		{header + "x\tBasic\tBw\tBw\n", "p.tsv:2: pair: want a non-negative integer"},
		{header + "0\t\tBw\tBw\n", "p.tsv:2: category: empty"},
		{header + "0\tBasic\tBw\tB!\n", "p.tsv:2: graph6_b: graph6: byte 1 is '!'"},
		{header + "0\tBasic\tBw\tCs\n", "p.tsv:2: the graphs have 3 and 4 nodes"},
		{header + "0\tBasic\tBw\tBw\n0\tBasic\tBw\tBw\n", "p.tsv:3: pair 0 given twice (first on line 2)"},
	} {
		if _, err := ReadPairs(strings.NewReader(tc.in), "p.tsv"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadPairs(%q): %v, want %q", tc.in, err, tc.want)
		}
	}
}

// BREC's file: 400 pairs in its six categories, of 7 to 198 nodes, the two graphs of each pair
// with as many nodes and edges (BREC's pairs are 1-WL-indistinguishable).
func TestReadBREC(t *testing.T) {
	pairs, err := ReadPairsFile(shareddata.Dir(t, "brec") + "/pairs.tsv")
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	lo, hi := 1<<30, 0
	for i, p := range pairs {
		count[p.Category]++
		lo, hi = min(lo, p.A.N()), max(hi, p.A.N())
		if p.Index != i || p.A.NumEdges() != p.B.NumEdges() {
			t.Errorf("pair %d (line %d): %d and %d edges", p.Index, i+2, p.A.NumEdges(), p.B.NumEdges())
		}
	}
	want := map[string]int{"Basic": 60, "Regular": 100, "Extension": 100, "CFI": 100, "4-Vertex_Condition": 20, "Distance_Regular": 20}
	if fmt.Sprint(count) != fmt.Sprint(want) || lo != 7 || hi != 198 {
		t.Errorf("categories %v, nodes %d to %d; want %v, 7 to 198", count, lo, hi, want)
	}
}
