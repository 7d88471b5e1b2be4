// Package wl holds the exact oracles of expressive power that the models are measured against:
// colour refinement (1-WL), which bounds message-passing GNNs; the strongest subgraph
// Weisfeiler-Leman test (SSWL), which bounds node-based Subgraph GNNs and so Subgraphormer with
// K = 2; and the 2-dimensional folklore Weisfeiler-Leman test (2-FWL), as strong as 3-WL, which
// bounds SSWL (Sec. 3 and App. B of the paper; Frasca et al. 2022; Zhang et al. 2023).
//
// All three refine colours on two graphs at once, with one palette, until the partition is stable;
// the graphs are distinguished when their colour histograms differ at some round. Colours are
// compared exactly (a colour's signature is its whole multiset, not a hash of it).
package wl

import (
	"encoding/binary"
	"slices"

	"github.com/sgformer/sgformer/sgformer/graph"
)

// Result is the outcome of a test on a pair of graphs.
type Result struct {
	Distinguished bool
	Rounds        int // refinement rounds run: until the histograms differed, or the partition was stable
	Colours       int // distinct colours at the last round, over both graphs
	// Colourings are the two graphs' colours at the last round, from one palette: a node's,
	// Colourings[g][v], for 1-WL; an ordered pair's, Colourings[g][u·n+v], for SSWL and 2-FWL.
	Colourings [2][]uint32
}

// palette gives each signature seen in a round its colour, the same for both graphs.
type palette map[string]uint32

func (p palette) colour(sig []byte) uint32 {
	if c, ok := p[string(sig)]; ok {
		return c
	}
	c := uint32(len(p))
	p[string(sig)] = c
	return c
}

// refine runs rounds of step on the colourings of the two graphs, from start, until their
// histograms differ or the number of colours over both stops growing (refinement only splits
// classes, so the partition is stable then).
func refine(start [2][]uint32, step func(g int, colours []uint32, p palette) []uint32) Result {
	colours := start
	classes := countDistinct(colours)
	for round := 0; ; round++ {
		if !sameHistogram(colours[0], colours[1]) {
			return Result{Distinguished: true, Rounds: round, Colours: classes, Colourings: colours}
		}
		p := palette{}
		next := [2][]uint32{step(0, colours[0], p), step(1, colours[1], p)}
		if len(p) == classes {
			return Result{Rounds: round, Colours: classes, Colourings: colours}
		}
		colours, classes = next, len(p)
	}
}

func countDistinct(c [2][]uint32) int {
	seen := map[uint32]bool{}
	for _, cs := range c {
		for _, x := range cs {
			seen[x] = true
		}
	}
	return len(seen)
}

func sameHistogram(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// OneWL is colour refinement (1-WL) on a and b, their nodes starting with one colour: a node's
// next colour is its colour and the multiset of its neighbours'.
func OneWL(a, b *graph.Graph) Result {
	gs := [2]*graph.Graph{a, b}
	adj := [2][][]int{neighbours(a), neighbours(b)}
	start := [2][]uint32{make([]uint32, a.N()), make([]uint32, b.N())}
	return refine(start, func(g int, colours []uint32, p palette) []uint32 {
		next := make([]uint32, gs[g].N())
		var sig []byte
		var ns []uint32
		for v := range next {
			ns = ns[:0]
			for _, u := range adj[g][v] {
				ns = append(ns, colours[u])
			}
			slices.Sort(ns)
			sig = binary.LittleEndian.AppendUint32(sig[:0], colours[v])
			for _, c := range ns {
				sig = binary.LittleEndian.AppendUint32(sig, c)
			}
			next[v] = p.colour(sig)
		}
		return next
	})
}

// TwoFWL is the 2-dimensional folklore Weisfeiler-Leman test on a and b, as strong as 3-WL:
// ordered pairs (u, v) start coloured by their atomic type (u = v, an edge, a non-edge), and a
// pair's next colour is its colour and the multiset over all nodes w of the colours of (u, w)
// and (w, v) together. O(n³ log n) a round.
func TwoFWL(a, b *graph.Graph) Result {
	gs := [2]*graph.Graph{a, b}
	var start [2][]uint32
	for g, gr := range gs {
		n := gr.N()
		c := make([]uint32, n*n)
		for i := range c {
			c[i] = 2 // a non-edge
		}
		for v := range n {
			c[v*n+v] = 0
		}
		for _, e := range gr.Edges() {
			c[e[0]*n+e[1]], c[e[1]*n+e[0]] = 1, 1
		}
		start[g] = c
	}
	return refine(start, func(g int, colours []uint32, p palette) []uint32 {
		n := gs[g].N()
		next := make([]uint32, n*n)
		sig := make([]byte, 0, 4+8*n)
		ws := make([]uint64, n)
		for u := range n {
			for v := range n {
				for w := range n {
					ws[w] = uint64(colours[u*n+w])<<32 | uint64(colours[w*n+v])
				}
				slices.Sort(ws)
				sig = binary.LittleEndian.AppendUint32(sig[:0], colours[u*n+v])
				for _, x := range ws {
					sig = binary.LittleEndian.AppendUint64(sig, x)
				}
				next[u*n+v] = p.colour(sig)
			}
		}
		return next
	})
}

// SSWL is the strongest subgraph Weisfeiler-Leman test of Zhang et al. (2023) on a and b,
// the bound of the node-based Subgraph GNNs, Subgraphormer (K = 2) among them: ordered pairs
// (s, v), node v of the subgraph rooted at s, start marked (s = v or not), and a pair's next
// colour is its colour, the multisets of the colours of (s, w) over the neighbours w of v and of
// (w, v) over the neighbours w of s (the two local aggregations of SSWL: Subgraphormer's internal
// and external connectivities), the multisets over all w of (s, w) and of (w, v) (its global
// ones) and the colours of (s, s) and (v, v) (its point ones). SSWL's two local aggregations are
// as strong as all of them together (Zhang et al., the hierarchy's top class); the global ones
// make the histogram of pair colours as fine as pooling subgraph by subgraph. O(n² (log n +
// degree)) a round; bounded by 2-FWL.
func SSWL(a, b *graph.Graph) Result {
	gs := [2]*graph.Graph{a, b}
	adj := [2][][]int{neighbours(a), neighbours(b)}
	var start [2][]uint32
	for g, gr := range gs {
		n := gr.N()
		start[g] = make([]uint32, n*n)
		for v := range n {
			start[g][v*n+v] = 1 // the root marked
		}
	}
	var whole palette // the round's colours of whole rows and columns, the same for both graphs
	return refine(start, func(g int, colours []uint32, p palette) []uint32 {
		if g == 0 {
			whole = palette{}
		}
		n := gs[g].N()
		var sig []byte
		var ms []uint32
		// multiset appends to sig the sorted colours at(w) over the nodes w of over, or over all
		// nodes.
		multiset := func(at func(w int) uint32, over []int, all bool) {
			ms = ms[:0]
			if all {
				for w := range n {
					ms = append(ms, at(w))
				}
			}
			for _, w := range over {
				ms = append(ms, at(w))
			}
			slices.Sort(ms)
			sig = binary.LittleEndian.AppendUint32(sig, uint32(len(ms)))
			for _, c := range ms {
				sig = binary.LittleEndian.AppendUint32(sig, c)
			}
		}
		// The global aggregations, once per subgraph s (its row) and root v (its column).
		rows, cols := make([]uint32, n), make([]uint32, n)
		for x := range n {
			sig = append(sig[:0], 'r')
			multiset(func(w int) uint32 { return colours[x*n+w] }, nil, true)
			rows[x] = whole.colour(sig)
			sig = append(sig[:0], 'c')
			multiset(func(w int) uint32 { return colours[w*n+x] }, nil, true)
			cols[x] = whole.colour(sig)
		}
		next := make([]uint32, n*n)
		for s := range n {
			for v := range n {
				sig = binary.LittleEndian.AppendUint32(sig[:0], colours[s*n+v])
				for _, c := range []uint32{colours[s*n+s], colours[v*n+v], rows[s], cols[v]} {
					sig = binary.LittleEndian.AppendUint32(sig, c)
				}
				multiset(func(w int) uint32 { return colours[s*n+w] }, adj[g][v], false) // (s, w), w ~ v: internal
				multiset(func(w int) uint32 { return colours[w*n+v] }, adj[g][s], false) // (w, v), w ~ s: external
				next[s*n+v] = p.colour(sig)
			}
		}
		return next
	})
}

// neighbours lists each node's neighbours.
func neighbours(g *graph.Graph) [][]int {
	adj := make([][]int, g.N())
	for _, e := range g.Edges() {
		adj[e[0]] = append(adj[e[0]], e[1])
		adj[e[1]] = append(adj[e[1]], e[0])
	}
	return adj
}
