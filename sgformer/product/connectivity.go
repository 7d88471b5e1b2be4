// Package product builds the product graph of Sec. 3 of the paper: the bag of node-marked
// subgraphs of G seen as one graph on the n² nodes (s, v) — node v of the subgraph rooted at s —
// and, for the higher-order model of Sec. 4.4 / Appendix B, on the n^K nodes (v_0, …, v_{K−1}).
//
// Index convention: tuple (v_0, …, v_{K−1}) is product node Σ v_i·n^(K−1−i), so for K = 2 the
// node (s, v) has index s·n + v, the convention of the authors' code and of Kronecker products:
// A ⊗ I acts on s and I ⊗ A acts on v.
//
// Every connectivity is an Edges value: directed pairs Dst ← Src (Src sends a message to Dst),
// sorted by (Dst, Src), with the edge of G each product edge copies, so that edge features can
// be carried over. A product graph (Graph) holds connectivities by Name; the connectivities
// that exist, with their kinds, builders and the authors' names for them, are one table, and
// ParseName reads a name from a configuration.
package product

import (
	"fmt"
	"slices"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// Edges is one connectivity of a product graph: messages Dst[e] ← Src[e] between product nodes,
// sorted by (Dst, Src). Bond[e] is the index in G's Edges() of the edge whose features the
// product edge carries, or −1 where it copies none (point and global connectivities).
type Edges struct {
	Dst, Src, Bond []int32
}

// Len returns the number of directed product edges.
func (e Edges) Len() int { return len(e.Dst) }

// Features returns the features of every product edge: row e is the row Bond[e] of the edge
// features of G (internal edges carry the bond (v,w), external edges the bond (s,t)).
func (e Edges) Features(edgeFeatures graph.Features) (graph.Features, error) {
	w := edgeFeatures.Width
	out := graph.Features{Width: w}
	if edgeFeatures.Ints != nil {
		out.Ints = make([]int32, 0, e.Len()*w)
	} else {
		out.Floats = make([]float32, 0, e.Len()*w)
	}
	rows := edgeFeatures.Rows()
	for i, b := range e.Bond {
		if b < 0 || int(b) >= rows {
			return graph.Features{}, fmt.Errorf("product: edge %d (%d <- %d) carries bond %d, not a row of the %d edge features", i, e.Dst[i], e.Src[i], b, rows)
		}
		if out.Ints != nil {
			out.Ints = append(out.Ints, edgeFeatures.Ints[int(b)*w:int(b+1)*w]...)
		} else {
			out.Floats = append(out.Floats, edgeFeatures.Floats[int(b)*w:int(b+1)*w]...)
		}
	}
	return out, nil
}

// NumNodes returns n^order, the number of nodes of the order-fold product of an n-node graph,
// or an error when it does not fit the int32 node indices of Edges.
func NumNodes(n, order int) (int, error) {
	if order < 1 {
		return 0, fmt.Errorf("product: order %d must be at least 1", order)
	}
	total := 1
	for range order {
		if n > 0 && total > (1<<31-1)/n {
			return 0, fmt.Errorf("product: %d^%d product nodes overflow int32 indices", n, order)
		}
		total *= n
	}
	return total, nil
}

// Adjacency returns A^slot_order = I ⊗ … ⊗ A ⊗ … ⊗ I, with A in position slot (counted from 0)
// of order factors (Eq. A^k_K of Appendix B): tuple v receives from every tuple that differs
// from it only in position slot, where the two entries are neighbours in G. The edge carries
// the bond between those two entries. Summed over slots these give the adjacency of G^□order
// (Eq. C^K closed form). For order 2, slot 0 is External and slot 1 is Internal.
func Adjacency(g *graph.Graph, order, slot int) (Edges, error) {
	n := g.N()
	size, err := NumNodes(n, order)
	if err != nil {
		return Edges{}, err
	}
	if slot < 0 || slot >= order {
		return Edges{}, fmt.Errorf("product: slot %d out of range [0,%d)", slot, order)
	}
	if n == 0 {
		return Edges{}, nil
	}
	if err := memory.Check(memory.Bytes(12, size/n, 2, g.NumEdges()), "product: the adjacency of order %d of a graph with n = %d, |E| = %d (2·n^%d·|E| edges)", order, n, g.NumEdges(), order-1); err != nil {
		return Edges{}, err
	}
	stride := size / n // of position slot
	for range slot {
		stride /= n
	}
	m := (size / n) * 2 * g.NumEdges()
	e := Edges{Dst: make([]int32, 0, m), Src: make([]int32, 0, m), Bond: make([]int32, 0, m)}
	for dst := range size {
		c := (dst / stride) % n
		nbrs, bonds := g.Neighbors(c)
		for i, w := range nbrs {
			e.Dst = append(e.Dst, int32(dst))
			e.Src = append(e.Src, int32(dst+(int(w)-c)*stride))
			e.Bond = append(e.Bond, bonds[i])
		}
	}
	return e, nil
}

// PointUpdate returns the point-wise update A^slot_point of Appendix B on n^order tuples: a
// tuple whose entries other than position slot all equal some r receives from the root tuple
// (r, …, r). Each of the order point updates has n² edges. For order 2, slot 0 gives A_point
// of Eq. (A_point), the connectivity Point: (s, v) ← (v, v), the root's own self loop
// (v, v) ← (v, v) included.
func PointUpdate(n, order, slot int) (Edges, error) {
	size, err := NumNodes(n, order)
	if err != nil {
		return Edges{}, err
	}
	if order < 2 {
		return Edges{}, fmt.Errorf("product: point updates need order ≥ 2, got %d", order)
	}
	if slot < 0 || slot >= order {
		return Edges{}, fmt.Errorf("product: slot %d out of range [0,%d)", slot, order)
	}
	if n == 0 {
		return Edges{}, nil
	}
	if err := memory.Check(memory.Bytes(12, n, n), "product: the point update of a %d-node graph (n² edges)", n); err != nil {
		return Edges{}, err
	}
	stride, all := size/n, 0 // stride of position slot; all = Σ_i n^i, the index of (1, …, 1)
	for range slot {
		stride /= n
	}
	for i, p := 0, 1; i < order; i, p = i+1, p*n {
		all += p
	}
	// Each tuple receives from at most one root, so sorting the receivers sorts the edges; the
	// root of a receiver is its entry at any position other than slot.
	e := Edges{Dst: make([]int32, 0, n*n), Src: make([]int32, n*n), Bond: make([]int32, n*n)}
	for r := range n {
		for x := range n {
			e.Dst = append(e.Dst, int32(r*all+(x-r)*stride))
		}
	}
	slices.Sort(e.Dst)
	other := size / n // stride of position 0, or of position 1 when slot is 0
	if slot == 0 {
		other /= n
	}
	for i, d := range e.Dst {
		e.Src[i] = int32((int(d) / other % n) * all)
		e.Bond[i] = -1
	}
	return e, nil
}

// GlobalAdjacency returns the adjacency of position slot of the product of the clique K_n with
// itself, without bonds (Appendix A): for slot 1 the global internal subgraph connectivity
// A^Global_G = I ⊗ (11ᵀ − I), (s, v) ← (s, w) for every w ≠ v, and for slot 0 the global
// external one A^Global_{G^S} = (11ᵀ − I) ⊗ I, (s, v) ← (t, v) for every t ≠ s. It has
// n²(n−1) edges; n whose edges, with those of the clique (its n(n−1)/2 edges, as graph.New
// holds them), do not fit in the available memory is an error (*memory.Error), before
// anything is allocated.
func GlobalAdjacency(n, slot int) (Edges, error) {
	if _, err := NumNodes(n, 2); err != nil {
		return Edges{}, err
	}
	switch {
	case n < 0:
		return Edges{}, fmt.Errorf("product: negative node count %d", n)
	case slot < 0 || slot >= 2:
		return Edges{}, fmt.Errorf("product: slot %d out of range [0,2)", slot)
	}
	need := memory.Sum(memory.Bytes(136, n, max(n-1, 0))/2, memory.Bytes(12, n, n, max(n-1, 0)))
	if err := memory.Check(need, "product: the global connectivity of %d nodes (n²(n−1) edges)", n); err != nil {
		return Edges{}, err
	}
	k, err := graph.Clique(n)
	if err != nil {
		return Edges{}, err
	}
	e, err := Adjacency(k, 2, slot)
	for i := range e.Bond {
		e.Bond[i] = -1
	}
	return e, err
}
