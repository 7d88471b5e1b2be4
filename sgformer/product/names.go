package product

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/sgformer/graph"
)

// A Kind tells how a connectivity's messages relate to G, and so how a model aggregates them.
type Kind int

const (
	// Neighbours connectivities join tuples that differ in one position, where the two entries
	// are neighbours in G; each message carries that edge's bond (A^i_K, internal, external).
	Neighbours Kind = iota
	// PointWise connectivities send from a root tuple (r, …, r); a tuple receives at most one
	// message (A^i_point, Appendix B).
	PointWise
	// Global connectivities join tuples that differ in one position, whatever the entries
	// (the clique products of Appendix A); their messages carry no bond.
	Global
)

// A Name names a connectivity of a product graph: product.New builds connectivities by name,
// batches and a model's inputs are keyed by it, a model's configuration lists its aggregations
// by it (the hyperparameter aggregations), and the model scopes each aggregation's variables
// by it, so a name is part of every checkpoint trained with it and never changes. Every
// connectivity is one entry of the table connectivities, with its kind and builder.
type Name string

// The connectivities of pairs (s, v), K = 2: Sec. 3.1 of the paper and its Appendix A.
const (
	Internal       Name = "internal"        // A_G = I ⊗ A, Eq. (A_G): (s, v) ← (s, w) for every neighbour w of v
	External       Name = "external"        // A_{G^S} = A ⊗ I, Eq. (A_G^S): (s, v) ← (t, v) for every neighbour t of s
	Point          Name = "point"           // A_point, Eq. (A_point): (s, v) ← (v, v), the root of v's column
	GlobalInternal Name = "global_internal" // A^Global_G = I ⊗ (11ᵀ − I), Appendix A: (s, v) ← (s, w) for every w ≠ v
	GlobalExternal Name = "global_external" // A^Global_{G^S} = (11ᵀ − I) ⊗ I, Appendix A: (s, v) ← (t, v) for every t ≠ s
)

// The families of connectivities of K-tuples, one member per position i < K (Appendix B):
// their names are the prefix, an underscore and i.
const (
	adjacencies Name = "adjacency" // A^i_K, Eq. (A^k_K): I ⊗ … ⊗ A ⊗ … ⊗ I with A at position i
	points      Name = "point"     // A^i_point, Appendix B: from the root (r, …, r) to the tuples equal to r but at i
)

// AdjacencyAt names A^i_K, Eq. (A^k_K) of Appendix B: "adjacency_i". For K = 2,
// adjacency_1 is the connectivity of Internal and adjacency_0 that of External.
func AdjacencyAt(i int) Name { return member(adjacencies, i) }

// PointAt names A^i_point of Appendix B: "point_i". For K = 2, point_0 is the connectivity of
// Point.
func PointAt(i int) Name { return member(points, i) }

func member(family Name, i int) Name { return family + "_" + Name(strconv.Itoa(i)) }

// A connectivity is an entry of the table of connectivities.
type connectivity struct {
	// name is the connectivity's name, or, for a family, the prefix of its members' names.
	name Name
	// family marks a family of connectivities of K-tuples, one per position i < K, for any K;
	// the others are connectivities of pairs.
	family bool
	kind   Kind
	// notation is the paper's symbol, with %d for a family's position i.
	notation string
	// authors is the name of the aggregation in the authors' code (their aggs,
	// utils/preprocess.py), or "" where it has none.
	authors string
	// build returns the connectivity (at position i of a family) of the K-fold product of g.
	build func(g *graph.Graph, k, i int) (Edges, error)
}

// connectivities is every connectivity, in the order Names lists them. Adding a connectivity
// is adding its entry here, with a builder, and the model can aggregate over it.
var connectivities = []connectivity{
	{Internal, false, Neighbours, "A_G = I ⊗ A", "uL", func(g *graph.Graph, _, _ int) (Edges, error) { return Adjacency(g, 2, 1) }},
	{External, false, Neighbours, "A_{G^S} = A ⊗ I", "vL", func(g *graph.Graph, _, _ int) (Edges, error) { return Adjacency(g, 2, 0) }},
	{Point, false, PointWise, "A_point", "vv", func(g *graph.Graph, _, _ int) (Edges, error) { return PointUpdate(g.N(), 2, 0) }},
	{GlobalInternal, false, Global, "I ⊗ (11ᵀ − I)", "uG", func(g *graph.Graph, _, _ int) (Edges, error) { return GlobalAdjacency(g.N(), 1) }},
	{GlobalExternal, false, Global, "(11ᵀ − I) ⊗ I", "vG", func(g *graph.Graph, _, _ int) (Edges, error) { return GlobalAdjacency(g.N(), 0) }},
	{adjacencies, true, Neighbours, "A^%d_K", "", Adjacency},
	{points, true, PointWise, "A^%d_point", "", func(g *graph.Graph, k, i int) (Edges, error) { return PointUpdate(g.N(), k, i) }},
}

// lookup returns the entry of the connectivity called name on K-tuples and its position i in
// its family, or an error naming name and the connectivities that exist for K.
func lookup(name Name, k int) (connectivity, int, error) {
	for _, c := range connectivities {
		if !c.family {
			if k == 2 && name == c.name {
				return c, 0, nil
			}
			continue
		}
		s, ok := strings.CutPrefix(string(name), string(c.name)+"_")
		if !ok {
			continue
		}
		if i, err := strconv.Atoi(s); err == nil && i >= 0 && i < k && strconv.Itoa(i) == s {
			return c, i, nil
		}
	}
	var names []string
	for _, n := range Names(k) {
		names = append(names, string(n))
	}
	return connectivity{}, 0, fmt.Errorf("product: no connectivity %q on %d-tuples (there are %s)", name, k, strings.Join(names, ", "))
}

// String returns the name as configurations, batches and checkpoints spell it.
func (n Name) String() string { return string(n) }

// ParseName returns the connectivity of K-tuples that s names, or an error naming s and the
// connectivities that exist for K.
func ParseName(s string, k int) (Name, error) {
	_, _, err := lookup(Name(s), k)
	if err != nil {
		return "", err
	}
	return Name(s), nil
}

// Kind returns the kind of the connectivity on K-tuples, or ParseName's error when K-tuples
// have none of that name.
func (n Name) Kind(k int) (Kind, error) {
	c, _, err := lookup(n, k)
	return c.kind, err
}

// Notation returns the paper's symbol of the connectivity on K-tuples, such as "A_G = I ⊗ A"
// for Internal or "A^1_K" for AdjacencyAt(1), or "" when K-tuples have none of that name.
func (n Name) Notation(k int) string {
	c, i, err := lookup(n, k)
	switch {
	case err != nil:
		return ""
	case c.family:
		return fmt.Sprintf(c.notation, i)
	}
	return c.notation
}

// Names lists the connectivities of K-tuples: for K = 2 Internal, External, Point,
// GlobalInternal and GlobalExternal, and for every K the members of the families,
// AdjacencyAt(i) and PointAt(i) for i < K.
func Names(k int) []Name {
	var names []Name
	for _, c := range connectivities {
		switch {
		case c.family:
			for i := range k {
				names = append(names, member(c.name, i))
			}
		case k == 2:
			names = append(names, c.name)
		}
	}
	return names
}

// DefaultNames are the connectivities of the paper's Subgraph Attention Block: Internal,
// External and Point for K = 2 (the authors' aggs uL, vL, vv), and for K ≥ 3 the K adjacencies
// and the K point updates of Appendix B.
func DefaultNames(k int) []Name {
	if k == 2 {
		return []Name{Internal, External, Point}
	}
	var names []Name
	for _, family := range []Name{adjacencies, points} {
		for i := range k {
			names = append(names, member(family, i))
		}
	}
	return names
}

// Connect returns the connectivity called name (see Names) of the K-fold product of g.
func Connect(g *graph.Graph, k int, name Name) (Edges, error) {
	c, i, err := lookup(name, k)
	if err != nil {
		return Edges{}, err
	}
	return c.build(g, k, i)
}

// Authors returns the name of the connectivity's aggregation in the authors' code (uL, vL, vv,
// uG, vG: their aggs), or "" where their code has none.
func (n Name) Authors() string {
	c, _, _ := lookup(n, 2)
	return c.authors
}

// AuthorsNames lists the aggregations of the authors' code (their aggs), in the order of Names.
func AuthorsNames() []string {
	var names []string
	for _, c := range connectivities {
		if c.authors != "" {
			names = append(names, c.authors)
		}
	}
	return names
}

// FromAuthors returns the connectivity of pairs that the authors' code calls agg (one of
// AuthorsNames), or an error naming agg and the names their code has.
func FromAuthors(agg string) (Name, error) {
	for _, c := range connectivities {
		if c.authors != "" && c.authors == agg {
			return c.name, nil
		}
	}
	return "", fmt.Errorf("product: the authors' code has no aggregation %q (it has %s)", agg, strings.Join(AuthorsNames(), ", "))
}
