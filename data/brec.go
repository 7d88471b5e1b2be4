package data

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/sgformer/graph"
)

// Pair is one pair of graphs of an expressiveness benchmark: BREC's (Wang and Zhang, "An
// Empirical Study of Realized GNN Expressiveness", ICML 2024) 400 pairs of non-isomorphic,
// 1-WL-indistinguishable graphs, or any file in its text format (ReadPairs).
type Pair struct {
	Index    int    // the pair's number in its file (BREC's pair index)
	Category string // BREC's: Basic, Regular, Extension, CFI, 4-Vertex_Condition, Distance_Regular
	A, B     *graph.Graph
}

// MaxGraph6Nodes bounds the nodes of a graph6 string that ParseGraph6 reads: BREC's largest has
// 198, and a model's product graph has n² nodes.
const MaxGraph6Nodes = 4096

// ReadPairsFile reads a pair file (ReadPairs) by its path.
func ReadPairsFile(path string) ([]Pair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadPairs(f, path)
}

// ReadPairs reads pairs of graphs in BREC's text format (../shared/data/brec/pairs.tsv): a
// header line "pair category graph6_a graph6_b", then one pair a line, tab-separated: its
// number, its category and its two graphs as graph6 strings, both of the same number of
// nodes. Errors name the file (name), the line and the field.
func ReadPairs(r io.Reader, name string) ([]Pair, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20) // a graph6 line of MaxGraph6Nodes nodes is 1.4 MB
	var pairs []Pair
	seen := map[int]int{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		fields := strings.Split(text, "\t")
		if line == 1 {
			if strings.Join(fields, " ") != "pair category graph6_a graph6_b" {
				return nil, fmt.Errorf("%s:1: want the header \"pair\\tcategory\\tgraph6_a\\tgraph6_b\", got %.60q", name, text)
			}
			continue
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		if len(fields) != 4 {
			return nil, fmt.Errorf("%s:%d: %d tab-separated fields, want 4 (pair, category, graph6_a, graph6_b)", name, line, len(fields))
		}
		index, err := strconv.Atoi(fields[0])
		if err != nil || index < 0 {
			return nil, fmt.Errorf("%s:%d: pair: want a non-negative integer, got %.40q", name, line, fields[0])
		}
		if prev, dup := seen[index]; dup {
			return nil, fmt.Errorf("%s:%d: pair %d given twice (first on line %d)", name, line, index, prev)
		}
		seen[index] = line
		if fields[1] == "" {
			return nil, fmt.Errorf("%s:%d: category: empty", name, line)
		}
		p := Pair{Index: index, Category: fields[1]}
		for i, g := range []**graph.Graph{&p.A, &p.B} {
			if *g, err = ParseGraph6(fields[2+i]); err != nil {
				return nil, fmt.Errorf("%s:%d: graph6_%c: %w", name, line, 'a'+i, err)
			}
		}
		if p.A.N() != p.B.N() {
			return nil, fmt.Errorf("%s:%d: the graphs have %d and %d nodes: a pair's must have as many", name, line, p.A.N(), p.B.N())
		}
		pairs = append(pairs, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: empty file: want a header and one pair a line", name)
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("%s: no pairs after the header", name)
	}
	return pairs, nil
}

// ParseGraph6 decodes a simple undirected graph in graph6, the format of nauty and networkx
// (https://users.cecs.anu.edu.au/~bdm/data/formats.txt): the node count, then the upper
// triangle of the adjacency matrix column by column, six bits a byte, each byte 63 more than
// its bits. An optional ">>graph6<<" header is allowed. Errors say what is wrong and where.
func ParseGraph6(s string) (*graph.Graph, error) {
	s = strings.TrimPrefix(s, ">>graph6<<")
	if s == "" {
		return nil, fmt.Errorf("graph6: empty")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 63 || s[i] > 126 {
			return nil, fmt.Errorf("graph6: byte %d is %q, outside the format's range '?' to '~'", i, s[i])
		}
	}
	// N(n): one byte up to 62, else 126 and three bytes, else 126, 126 and six bytes.
	n, rest := 0, ""
	switch {
	case s[0] != 126:
		n, rest = int(s[0]-63), s[1:]
	case len(s) >= 2 && s[1] != 126:
		if len(s) < 4 {
			return nil, fmt.Errorf("graph6: the node count is cut short")
		}
		n, rest = bits6(s[1:4]), s[4:]
	default:
		if len(s) < 8 {
			return nil, fmt.Errorf("graph6: the node count is cut short")
		}
		n, rest = bits6(s[2:8]), s[8:]
	}
	if n > MaxGraph6Nodes {
		return nil, fmt.Errorf("graph6: %d nodes, more than the %d read (MaxGraph6Nodes)", n, MaxGraph6Nodes)
	}
	pairs := n * (n - 1) / 2
	if want := (pairs + 5) / 6; len(rest) != want {
		return nil, fmt.Errorf("graph6: %d bytes of adjacency after the node count %d, want %d", len(rest), n, want)
	}
	var edges []graph.Edge
	k := 0
	for v := 1; v < n; v++ {
		for u := 0; u < v; u++ {
			if (rest[k/6]-63)>>(5-k%6)&1 == 1 {
				edges = append(edges, graph.Edge{u, v})
			}
			k++
		}
	}
	if k%6 != 0 && (rest[k/6]-63)&(1<<(6-k%6)-1) != 0 {
		return nil, fmt.Errorf("graph6: padding bits after the adjacency are not zero")
	}
	return graph.New(n, edges, graph.Features{}, graph.Features{})
}

// bits6 reads big-endian 6-bit groups, each byte 63 more than its bits.
func bits6(s string) int {
	x := 0
	for i := 0; i < len(s); i++ {
		x = x<<6 | int(s[i]-63)
	}
	return x
}
