package product_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/sgformer/internal/testgraphs"
	"github.com/sgformer/sgformer/sgformer/product"
)

// The names are the strings that configurations, batches and checkpoints hold: they must not
// change. Each one parses, has the kind and notation of the paper, and builds.
func TestNames(t *testing.T) {
	for _, tc := range []struct {
		name     product.Name
		k        int
		spelled  string
		kind     product.Kind
		notation string
		authors  string
	}{
		{product.Internal, 2, "internal", product.Neighbours, "A_G = I ⊗ A", "uL"},
		{product.External, 2, "external", product.Neighbours, "A_{G^S} = A ⊗ I", "vL"},
		{product.Point, 2, "point", product.PointWise, "A_point", "vv"},
		{product.GlobalInternal, 2, "global_internal", product.Global, "I ⊗ (11ᵀ − I)", "uG"},
		{product.GlobalExternal, 2, "global_external", product.Global, "(11ᵀ − I) ⊗ I", "vG"},
		{product.AdjacencyAt(1), 2, "adjacency_1", product.Neighbours, "A^1_K", ""},
		{product.AdjacencyAt(2), 3, "adjacency_2", product.Neighbours, "A^2_K", ""},
		{product.PointAt(0), 2, "point_0", product.PointWise, "A^0_point", ""},
		{product.PointAt(2), 3, "point_2", product.PointWise, "A^2_point", ""},
	} {
		got, err := product.ParseName(tc.spelled, tc.k)
		if err != nil || got != tc.name || got.String() != tc.spelled {
			t.Errorf("ParseName(%q, %d) = %q, %v; want %q", tc.spelled, tc.k, got, err, tc.name)
		}
		if kind, err := tc.name.Kind(tc.k); err != nil || kind != tc.kind {
			t.Errorf("%s: kind %v, %v; want %v", tc.name, kind, err, tc.kind)
		}
		if got := tc.name.Notation(tc.k); got != tc.notation {
			t.Errorf("%s: notation %q, want %q", tc.name, got, tc.notation)
		}
		if got := tc.name.Authors(); got != tc.authors {
			t.Errorf("%s: the authors' name %q, want %q", tc.name, got, tc.authors)
		}
		if !slices.Contains(product.Names(tc.k), tc.name) {
			t.Errorf("%s is not among Names(%d) = %v", tc.name, tc.k, product.Names(tc.k))
		}
	}
	join := func(names []product.Name) string {
		var s []string
		for _, n := range names {
			s = append(s, n.String())
		}
		return strings.Join(s, ",")
	}
	for k, want := range map[int]string{
		2: "internal,external,point,global_internal,global_external,adjacency_0,adjacency_1,point_0,point_1",
		3: "adjacency_0,adjacency_1,adjacency_2,point_0,point_1,point_2",
	} {
		if got := join(product.Names(k)); got != want {
			t.Errorf("Names(%d) = %s, want %s", k, got, want)
		}
	}
	if got := join(product.DefaultNames(2)); got != "internal,external,point" {
		t.Errorf("DefaultNames(2) = %s", got)
	}
	// Every name of every K builds, with edges of its kind: bonds exactly for Neighbours, at
	// most one message per receiver for PointWise.
	g := testgraphs.Classic()[3].G
	for _, k := range []int{2, 3} {
		for _, name := range product.Names(k) {
			e, err := product.Connect(g, k, name)
			kind, _ := name.Kind(k)
			if err != nil || e.Len() == 0 {
				t.Fatalf("Connect(%s, K = %d): %d edges, %v", name, k, e.Len(), err)
			}
			if bonds := !slices.Contains(e.Bond, -1); bonds != (kind == product.Neighbours) {
				t.Errorf("%s (K = %d, kind %v): carries bonds %v", name, k, kind, bonds)
			}
			if kind == product.PointWise && len(slices.Compact(slices.Clone(e.Dst))) != e.Len() {
				t.Errorf("%s (K = %d): a receiver with several messages", name, k)
			}
		}
	}
}

func TestBadNames(t *testing.T) {
	g := testgraphs.Path(3)
	for _, tc := range []struct {
		err  error
		want string
	}{
		{second(product.ParseName("inner", 2)), `product: no connectivity "inner" on 2-tuples (there are internal, external, point, global_internal, global_external, adjacency_0, adjacency_1, point_0, point_1)`},
		{second(product.ParseName("", 2)), `no connectivity "" on 2-tuples`},
		{second(product.ParseName("point", 3)), `no connectivity "point" on 3-tuples (there are adjacency_0, adjacency_1, adjacency_2, point_0, point_1, point_2)`},
		{second(product.ParseName("point_-1", 3)), `no connectivity "point_-1"`},
		{second(product.ParseName("adjacency_+1", 3)), `no connectivity "adjacency_+1"`},
		{second(product.Name("external_0").Kind(2)), `no connectivity "external_0"`},
		{second(product.Connect(g, 2, "adjacency_2")), `no connectivity "adjacency_2" on 2-tuples`},
		{second(product.FromAuthors("uu")), `product: the authors' code has no aggregation "uu" (it has uL, vL, vv, uG, vG)`},
		{second(product.GlobalAdjacency(3, 2)), "slot 2 out of range [0,2)"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want %q", tc.err, tc.want)
		}
	}
	if got := product.Name("inner").Notation(2); got != "" {
		t.Errorf("notation of an unknown name: %q", got)
	}
}

// The authors' names map to the connectivities and back.
func TestAuthorsNames(t *testing.T) {
	if got := strings.Join(product.AuthorsNames(), ","); got != "uL,vL,vv,uG,vG" {
		t.Errorf("AuthorsNames() = %s", got)
	}
	for _, agg := range product.AuthorsNames() {
		name, err := product.FromAuthors(agg)
		if err != nil || name.Authors() != agg {
			t.Errorf("FromAuthors(%s) = %s, %v, whose authors' name is %q", agg, name, err, name.Authors())
		}
	}
}
