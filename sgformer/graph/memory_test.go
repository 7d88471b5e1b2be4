package graph_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// A graph too large for the memory is refused with an error that says what it needs, not a
// runtime crash (the Laplacian of 100,000 nodes is 80 GB).
func TestLaplacianTooLarge(t *testing.T) {
	defer memory.SetLimit(1 << 30)()
	g, err := graph.New(100000, []graph.Edge{{0, 1}}, graph.Features{}, graph.Features{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := g.Laplacian()
	var me *memory.Error
	if !errors.As(err, &me) || l != nil {
		t.Fatalf("Laplacian of 100000 nodes: %v", err)
	}
	if want := "graph: the Laplacian of a 100000-node graph (n×n float64) needs 74.5 GiB of memory, more than the 1.0 GiB available"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to start with %q", err, want)
	}
	if _, err := graph.New(1<<28, nil, graph.Features{}, graph.Features{}); !errors.As(err, &me) || !strings.Contains(err.Error(), "n = 268435456") {
		t.Errorf("New with 2^28 nodes and 1 GiB: %v", err)
	}
}
