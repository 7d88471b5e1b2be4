package pe_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/internal/testgraphs"
	"github.com/sgformer/sgformer/sgformer/pe"
)

// The eigendecomposition of a graph too large for the memory is refused before anything is
// allocated.
func TestNewSpectrumTooLarge(t *testing.T) {
	defer memory.SetLimit(1 << 30)()
	g, err := graph.New(100000, []graph.Edge{{0, 1}}, graph.Features{}, graph.Features{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = pe.NewSpectrum(g)
	var me *memory.Error
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "100000-node") {
		t.Fatalf("NewSpectrum of 100000 nodes with 1 GiB: %v", err)
	}
	if me.Need != pe.SpectrumBytes(100000) {
		t.Errorf("need %d, want SpectrumBytes = %d", me.Need, pe.SpectrumBytes(100000))
	}
}

// k is an input size too: k eigenpairs cost memory even on a small graph. The concatenation PE
// is kept factored (k eigenvectors of G), so it fits where its n² × 2k table would not.
func TestTupleTooLarge(t *testing.T) {
	s, err := pe.NewSpectrum(testgraphs.Path(300))
	if err != nil {
		t.Fatal(err)
	}
	defer memory.SetLimit(8 << 20)()
	var me *memory.Error
	if _, err := pe.Product(s, 90000); !errors.As(err, &me) || !strings.Contains(err.Error(), "k = 90000") {
		t.Errorf("Product with k = 90000: %v", err)
	}
	if e, err := pe.Concatenation(s, 2, 200); err != nil || e.Columns() != 400 {
		t.Errorf("Concatenation of 300 nodes, k = 200 (factored): %v", err)
	}
	if _, err := pe.Product(s, 8); err != nil {
		t.Errorf("a small k: %v", err)
	}
}
