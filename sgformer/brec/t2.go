package brec

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// BREC's reliable paired comparison (test_BREC.py of GraphPKU/BREC, the same in every model's
// folder): a pair is distinguished when T2 of the model's outputs on its two graphs, each under
// Relabelings random renumberings, exceeds Threshold, while T2 of one graph against itself
// renumbered (the reliability check) does not.
const (
	Relabelings = 32    // NUM_RELABEL
	Threshold   = 72.34 // THRESHOLD, for 32 relabelings
)

// float32Eps is the machine epsilon of the float32 outputs BREC's code computes T2 from, which
// sets torch.linalg.pinv's cut-off.
const float32Eps = 0x1p-23

// T2 is BREC's statistic (test_BREC.py's T2_calculation) of the paired outputs x[i] and y[i] of a
// model on the two graphs of a pair under renumbering i: with the differences d_i = x_i − y_i,
// their mean d̄ and their sample covariance S (divided by N − 1, as torch.cov),
// T2 = d̄ᵀ S⁺ d̄, S⁺ the Moore–Penrose pseudo-inverse with torch.linalg.pinv's default cut-off
// (singular values below max(rows, columns)·ε·σ_max dropped, ε float32's). BREC compares it to
// Threshold as it is, without the factor N of Hotelling's T².
func T2(x, y [][]float64) (float64, error) {
	n := len(x)
	if n < 2 || len(y) != n {
		return 0, fmt.Errorf("brec: T2 of %d and %d outputs: want as many, at least 2", len(x), len(y))
	}
	p := len(x[0])
	d := mat.NewDense(n, p, nil)
	mean := make([]float64, p)
	for i := range n {
		if len(x[i]) != p || len(y[i]) != p {
			return 0, fmt.Errorf("brec: T2: output %d has %d and %d values, the first %d", i, len(x[i]), len(y[i]), p)
		}
		for j := range p {
			v := x[i][j] - y[i][j]
			d.Set(i, j, v)
			mean[j] += v / float64(n)
		}
	}
	s := mat.NewSymDense(p, nil)
	for j := range p {
		for k := j; k < p; k++ {
			var c float64
			for i := range n {
				c += (d.At(i, j) - mean[j]) * (d.At(i, k) - mean[k])
			}
			s.SetSym(j, k, c/float64(n-1))
		}
	}
	var svd mat.SVD
	if !svd.Factorize(s, mat.SVDThin) {
		return 0, fmt.Errorf("brec: T2: the SVD of the covariance did not converge")
	}
	values := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	cutoff := float64(p) * float32Eps * values[0]
	// d̄ᵀ S⁺ d̄ = Σ_k (d̄·v_k)(u_k·d̄) / σ_k over the singular values kept.
	t2 := 0.0
	for k, sigma := range values {
		if sigma <= cutoff || sigma == 0 {
			continue
		}
		var dv, ud float64
		for j := range p {
			dv += mean[j] * v.At(j, k)
			ud += u.At(j, k) * mean[j]
		}
		t2 += dv * ud / sigma
	}
	if math.IsNaN(t2) {
		return 0, fmt.Errorf("brec: T2 is NaN (outputs not finite?)")
	}
	return t2, nil
}
