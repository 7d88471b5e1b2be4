package ablation_test

import (
	"fmt"

	"github.com/sgformer/sgformer/sgformer/ablation"
)

// Test metrics of three seeds, as a cell of the paper's tables.
func ExampleNewStat() {
	s := ablation.NewStat([]float64{0.061, 0.063, 0.065})
	fmt.Println(s.Format(3), s.N)
	// Output: 0.063 ± 0.002 3
}
