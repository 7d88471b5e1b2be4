package product_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/sgformer/internal/testgraphs"
	"github.com/sgformer/sgformer/sgformer/product"
)

// Product graphs too large for the memory are refused, with the sizes that cause it.
func TestTooLarge(t *testing.T) {
	defer memory.SetLimit(16 << 20)()
	g := testgraphs.Path(3000) // n² = 9M product nodes; the marks alone are 36 MB
	var me *memory.Error
	if _, err := product.New(g, 2); !errors.As(err, &me) || !strings.Contains(err.Error(), "n = 3000, |E| = 2999") {
		t.Errorf("New: %v", err)
	}
	if want := product.GraphBytes(3000, 2999, 2, product.DefaultNames(2)); me != nil && me.Need != want {
		t.Errorf("New needs %d, GraphBytes says %d", me.Need, want)
	}
	// The default connectivities of pairs: n² indices, 2·n·m edges twice, n² point edges.
	if got, want := product.GraphBytes(1000, 1000, 2, product.DefaultNames(2)), int64(16*1000*1000+48*1000*1000); got != want {
		t.Errorf("GraphBytes(1000, 1000) = %d, want %d", got, want)
	}
	// 3-tuples of a 300-node path: n³ indices alone are 108 MB.
	if _, err := product.New(testgraphs.Path(300), 3); !errors.As(err, &me) || !strings.Contains(err.Error(), "3-tuple") {
		t.Errorf("New of 3-tuples: %v", err)
	}
	if _, err := product.TupleMarking(testgraphs.Path(300), 3); !errors.As(err, &me) {
		t.Errorf("TupleMarking of 3-tuples: %v", err)
	}
	if _, err := product.NodeMarking(g); !errors.As(err, &me) || !strings.Contains(err.Error(), "3000-node") {
		t.Errorf("NodeMarking: %v", err)
	}
	if _, err := product.Connect(g, 2, product.Internal); !errors.As(err, &me) {
		t.Errorf("Internal: %v", err)
	}
	if _, err := product.PointUpdate(3000, 2, 0); !errors.As(err, &me) {
		t.Errorf("PointUpdate: %v", err)
	}
	// The clique products have n³ edges; the clique itself must not be built first.
	if _, err := product.GlobalAdjacency(40000, 1); !errors.As(err, &me) || !strings.Contains(err.Error(), "40000") {
		t.Errorf("GlobalAdjacency(40000, 1): %v", err)
	}
	if _, err := product.GlobalAdjacency(500, 0); !errors.As(err, &me) {
		t.Errorf("GlobalAdjacency(500, 0): %v", err)
	}
	// Small graphs are unaffected.
	if _, err := product.New(testgraphs.Path(30), 2); err != nil {
		t.Error(err)
	}
	if _, err := product.NodeMarking(testgraphs.Clique(30)); err != nil {
		t.Error(err)
	}
}
