package brec_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sgformer/sgformer/sgformer/brec"
)

// T2 against its definition: in one dimension d̄²/s² (s² the sample variance); with a full-rank
// covariance d̄ᵀ S⁻¹ d̄ by an inverse computed apart; 0 when every difference is the same (S = 0,
// whose pseudo-inverse is 0); and a clear error for outputs of other shapes.
func TestT2(t *testing.T) {
	x := [][]float64{{1}, {2}, {4}, {7}}
	y := [][]float64{{0}, {0}, {1}, {2}}
	// d = 1, 2, 3, 5: mean 2.75, sample variance (3.0625 + 0.5625 + 0.0625 + 5.0625) / 3.
	if got, err := brec.T2(x, y); err != nil || math.Abs(got-2.75*2.75/(8.75/3)) > 1e-12 {
		t.Errorf("one dimension: %v, %v; want %v", got, err, 2.75*2.75/(8.75/3))
	}

	rng := rand.New(rand.NewPCG(1, 2))
	const n, p = 32, 4
	x, y = make([][]float64, n), make([][]float64, n)
	for i := range n {
		x[i], y[i] = make([]float64, p), make([]float64, p)
		for j := range p {
			x[i][j], y[i][j] = rng.NormFloat64()+0.3*float64(j), rng.NormFloat64()
		}
	}
	mean := mat.NewVecDense(p, nil)
	for i := range n {
		for j := range p {
			mean.SetVec(j, mean.AtVec(j)+(x[i][j]-y[i][j])/n)
		}
	}
	cov := mat.NewDense(p, p, nil)
	for i := range n {
		for j := range p {
			for k := range p {
				cov.Set(j, k, cov.At(j, k)+(x[i][j]-y[i][j]-mean.AtVec(j))*(x[i][k]-y[i][k]-mean.AtVec(k))/(n-1))
			}
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(cov); err != nil {
		t.Fatal(err)
	}
	var sv mat.VecDense
	sv.MulVec(&inv, mean)
	want := mat.Dot(mean, &sv)
	if got, err := brec.T2(x, y); err != nil || math.Abs(got-want) > 1e-9*want {
		t.Errorf("four dimensions: %v, %v; want %v", got, err, want)
	}

	same := [][]float64{{1, 2}, {3, 4}, {5, 6}}
	shifted := [][]float64{{0, 1}, {2, 3}, {4, 5}}
	if got, err := brec.T2(same, shifted); err != nil || got != 0 {
		t.Errorf("constant differences: %v, %v; want 0", got, err)
	}
	if _, err := brec.T2([][]float64{{1, 2}, {3}}, [][]float64{{1, 2}, {3, 4}}); err == nil {
		t.Error("outputs of other lengths: no error")
	}
	if _, err := brec.T2([][]float64{{1}}, [][]float64{{1}}); err == nil {
		t.Error("one output: no error")
	}
}
