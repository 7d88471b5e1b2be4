package pe_test

import (
	"testing"

	"github.com/sgformer/sgformer/sgformer/internal/testgraphs"
	"github.com/sgformer/sgformer/sgformer/pe"
)

// Row gives the rows of Dense, bit for bit, zero-padded beyond the columns.
func TestRow(t *testing.T) {
	s, err := pe.NewSpectrum(testgraphs.Petersen())
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range []int{1, 2, 3} {
		enc, err := pe.Tuple(s, order, 7)
		if err != nil {
			t.Fatal(err)
		}
		d := enc.Dense()
		row := make([]float64, 9)
		for r := range enc.Rows() {
			enc.Row(r, row)
			for c, x := range row {
				want := 0.0
				if c < enc.Columns() {
					want = d.At(r, c)
				}
				if x != want {
					t.Fatalf("order %d: row %d column %d = %v, want %v", order, r, c, x, want)
				}
			}
		}
	}
}
