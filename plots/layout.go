package plots

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/product"
)

// layoutIterations bounds the stress-majorization sweeps of layout.
const layoutIterations = 500

// layout returns deterministic 2-D positions for the nodes of g, in the spirit of
// Kamada–Kawai: stress majorization (Gansner, Koren and North, 2004) on the shortest-path
// distances, started from their classical multidimensional scaling, then centred and
// rotated so that the longer extent is horizontal. Nodes in different components are
// treated as one hop further apart than the farthest connected pair. It fails only when the
// n² distances do not fit in memory.
func layout(g *graph.Graph) ([][2]float64, error) {
	n := g.N()
	pos := make([][2]float64, n)
	if n < 2 {
		return pos, nil
	}
	dist, err := product.NodeMarking(g) // d(s, v) at s·n + v, −1 when unreachable
	if err != nil {
		return nil, err
	}
	far := int32(1)
	for _, d := range dist {
		far = max(far, d+1)
	}
	d := make([]float64, n*n)
	for i, x := range dist {
		if x < 0 {
			x = far
		}
		d[i] = float64(x)
	}

	// Classical MDS: the top two eigenvectors of B = −½ J D⁽²⁾ J, scaled by √λ.
	b := mat.NewSymDense(n, nil)
	rowMean := make([]float64, n)
	var mean float64
	for i := range n {
		for j := range n {
			rowMean[i] += d[i*n+j] * d[i*n+j] / float64(n)
		}
		mean += rowMean[i] / float64(n)
	}
	for i := range n {
		for j := i; j < n; j++ {
			b.SetSym(i, j, -0.5*(d[i*n+j]*d[i*n+j]-rowMean[i]-rowMean[j]+mean))
		}
	}
	var eig mat.EigenSym
	if eig.Factorize(b, true) {
		var vecs mat.Dense
		eig.VectorsTo(&vecs)
		vals := eig.Values(nil)
		for k := range 2 {
			c := n - 1 - k // eigenvalues ascend
			scale := math.Sqrt(max(vals[c], 0))
			for i := range n {
				pos[i][k] = scale * vecs.At(i, c)
			}
		}
	}
	// Break exact coincidences (e.g. a degenerate MDS solution) deterministically.
	for i := range pos {
		pos[i][0] += 1e-3 * math.Cos(float64(i))
		pos[i][1] += 1e-3 * math.Sin(float64(i))
	}

	// Stress majorization, localized form: each node moves to the weighted average of where
	// each other node would put it, with weights d⁻².
	for range layoutIterations {
		moved := 0.0
		for i := range n {
			var x, y, wsum float64
			for j := range n {
				if j == i {
					continue
				}
				dij := d[i*n+j]
				w := 1 / (dij * dij)
				dx, dy := pos[i][0]-pos[j][0], pos[i][1]-pos[j][1]
				l := math.Hypot(dx, dy)
				if l < 1e-12 {
					l = 1e-12
				}
				x += w * (pos[j][0] + dij*dx/l)
				y += w * (pos[j][1] + dij*dy/l)
				wsum += w
			}
			x, y = x/wsum, y/wsum
			moved = max(moved, math.Hypot(x-pos[i][0], y-pos[i][1]))
			pos[i] = [2]float64{x, y}
		}
		if moved < 1e-6 {
			break
		}
	}

	// Centre, and rotate the principal axis onto X.
	var cx, cy float64
	for _, p := range pos {
		cx, cy = cx+p[0]/float64(n), cy+p[1]/float64(n)
	}
	var sxx, syy, sxy float64
	for i := range pos {
		pos[i][0] -= cx
		pos[i][1] -= cy
		sxx += pos[i][0] * pos[i][0]
		syy += pos[i][1] * pos[i][1]
		sxy += pos[i][0] * pos[i][1]
	}
	theta := 0.5 * math.Atan2(2*sxy, sxx-syy)
	cos, sin := math.Cos(theta), math.Sin(theta)
	for i, p := range pos {
		pos[i] = [2]float64{cos*p[0] + sin*p[1], -sin*p[0] + cos*p[1]}
	}
	return pos, nil
}

// productLayout places product node (s, v) at index s·n + v at pos[s] + r·pos[v]: the
// subgraph rooted at s is a small copy of G's layout drawn around s's position, small enough
// (r) that copies do not overlap.
func productLayout(pos [][2]float64) [][2]float64 {
	n := len(pos)
	var radius float64
	gap := math.Inf(1)
	for i, p := range pos {
		radius = max(radius, math.Hypot(p[0], p[1]))
		for _, q := range pos[:i] {
			gap = min(gap, math.Hypot(p[0]-q[0], p[1]-q[1]))
		}
	}
	r := 0.0
	if radius > 0 {
		r = 0.42 * gap / radius
	}
	out := make([][2]float64, n*n)
	for s := range n {
		for v := range n {
			out[s*n+v] = [2]float64{pos[s][0] + r*pos[v][0], pos[s][1] + r*pos[v][1]}
		}
	}
	return out
}
