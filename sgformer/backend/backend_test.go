package backend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

func goBackend(t *testing.T) backends.Backend {
	t.Helper()
	b, err := New("go")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func randomTensor(rng *rand.Rand, dims ...int) *tensors.Tensor {
	size := 1
	for _, d := range dims {
		size *= d
	}
	x := make([]float64, size)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return tensors.FromFlatDataAndDimensions(x, dims...)
}

type dotCase struct {
	name             string
	lhsDims, rhsDims []int
	lc, lb, rc, rb   []int
}

var dotCases = []dotCase{
	{"matmul", []int{5, 3}, []int{3, 4}, []int{1}, nil, []int{0}, nil},
	{"transposed operands", []int{3, 5}, []int{4, 3}, []int{0}, nil, []int{1}, nil},
	{"two contracting, non-ascending", []int{2, 3, 4}, []int{4, 5, 2}, []int{2, 0}, nil, []int{0, 2}, nil},
	{"leading batch", []int{2, 3, 4}, []int{2, 4, 5}, []int{2}, []int{0}, []int{1}, []int{0}},
	{"batch not leading", []int{3, 2, 4}, []int{4, 5, 2}, []int{2}, []int{1}, []int{0}, []int{2}},
	{"two batch axes", []int{2, 3, 4, 5}, []int{5, 3, 2, 6}, []int{3}, []int{0, 1}, []int{0}, []int{2, 1}},
	{"attention-like", []int{6, 2, 3}, []int{6, 2, 3}, []int{2}, []int{1}, []int{2}, []int{1}},
}

// gradients returns d/dlhs and d/drhs of Σ w ⊙ DotGeneral(lhs, rhs) for a fixed random w.
func gradients(t *testing.T, b backends.Backend, c dotCase, lhs, rhs *tensors.Tensor) (dl, dr []float64, value float64) {
	exec := MustNewExec(b, func(l, r *Node) (*Node, *Node, *Node) {
		out := DotGeneral(l, c.lc, c.lb, r, c.rc, c.rb)
		w := Sin(Add(IotaFull(out.Graph(), out.Shape()), Const(out.Graph(), 0.5))) // a fixed weighting
		loss := ReduceAllSum(Mul(out, w))
		g := Gradient(loss, l, r)
		return g[0], g[1], loss
	})
	outs, err := exec.Exec(lhs, rhs)
	if err != nil {
		t.Fatal(err)
	}
	return tensors.MustCopyFlatData[float64](outs[0]), tensors.MustCopyFlatData[float64](outs[1]), tensors.ToScalar[float64](outs[2])
}

// The DotGeneral gradients agree with GoMLX's own and with finite differences, for contracting
// axes in any order and batch axes leading or not, one or two.
func TestFastDotGeneralGradients(t *testing.T) {
	b := goBackend(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range dotCases {
		t.Run(c.name, func(t *testing.T) {
			lhs, rhs := randomTensor(rng, c.lhsDims...), randomTensor(rng, c.rhsDims...)
			fl, fr, _ := gradients(t, b, c, lhs, rhs)

			VJPRegistration[NodeTypeDotGeneral] = defaultDotGeneralVJP
			dl, dr, _ := gradients(t, b, c, lhs, rhs)
			VJPRegistration[NodeTypeDotGeneral] = fastDotGeneralVJP
			for i := range fl {
				if math.Abs(fl[i]-dl[i]) > 1e-10 {
					t.Fatalf("d lhs[%d] = %v, GoMLX's gradient %v", i, fl[i], dl[i])
				}
			}
			for i := range fr {
				if math.Abs(fr[i]-dr[i]) > 1e-10 {
					t.Fatalf("d rhs[%d] = %v, GoMLX's gradient %v", i, fr[i], dr[i])
				}
			}
			// Central finite differences on a few entries of each operand.
			for _, side := range []struct {
				x    *tensors.Tensor
				grad []float64
			}{{lhs, fl}, {rhs, fr}} {
				flat := tensors.MustCopyFlatData[float64](side.x)
				for _, i := range []int{0, len(flat) / 2, len(flat) - 1} {
					const h = 1e-6
					value := func(delta float64) float64 {
						p := append([]float64(nil), flat...)
						p[i] += delta
						pt := tensors.FromFlatDataAndDimensions(p, side.x.Shape().Dimensions...)
						if side.x == lhs {
							_, _, v := gradients(t, b, c, pt, rhs)
							return v
						}
						_, _, v := gradients(t, b, c, lhs, pt)
						return v
					}
					fd := (value(h) - value(-h)) / (2 * h)
					if math.Abs(fd-side.grad[i]) > 1e-6*max(1, math.Abs(fd)) {
						t.Fatalf("entry %d: gradient %v, finite difference %v", i, side.grad[i], fd)
					}
				}
			}
		})
	}
}

func TestFastDotGradient(t *testing.T) {
	b := goBackend(t)
	rng := rand.New(rand.NewPCG(3, 4))
	a, w := randomTensor(rng, 7, 3), randomTensor(rng, 3, 5)
	run := func() []float64 {
		outs := MustNewExec(b, func(a, w *Node) (*Node, *Node) {
			loss := ReduceAllSum(Mul(Dot(a, w), Sin(IotaFull(a.Graph(), shapes.Make(dtypes.Float64, 7, 5)))))
			g := Gradient(loss, a, w)
			return g[0], g[1]
		}).MustExec(a, w)
		return append(tensors.MustCopyFlatData[float64](outs[0]), tensors.MustCopyFlatData[float64](outs[1])...)
	}
	fast := run()
	VJPRegistration[NodeTypeDot] = defaultDotVJP
	slow := run()
	VJPRegistration[NodeTypeDot] = fastDotVJP
	for i := range fast {
		if math.Abs(fast[i]-slow[i]) > 1e-10 {
			t.Fatalf("gradient entry %d: %v, GoMLX's %v", i, fast[i], slow[i])
		}
	}
}

// The reflection that reads DotGeneral's axes must see GoMLX's fields; if GoMLX renames them
// this fails loudly rather than computing wrong gradients.
func TestDotGeneralAxesLayout(t *testing.T) {
	g := NewGraph(goBackend(t), "axes")
	l := Parameter(g, "l", randomTensor(rand.New(rand.NewPCG(1, 1)), 2, 3, 4).Shape())
	r := Parameter(g, "r", randomTensor(rand.New(rand.NewPCG(1, 1)), 4, 2, 5).Shape())
	out := DotGeneral(l, []int{2}, []int{0}, r, []int{0}, []int{1})
	lc, lb, rc, rb := dotGeneralAxes(out)
	if lc[0] != 2 || lb[0] != 0 || rc[0] != 0 || rb[0] != 1 || len(lc)+len(lb)+len(rc)+len(rb) != 4 {
		t.Fatalf("axes read as %v %v %v %v", lc, lb, rc, rb)
	}
	// A node without those fields (as a DotGeneral would be after a change of layout) is
	// refused with a message that says what to update.
	defer func() {
		if msg := fmt.Sprint(recover()); !strings.Contains(msg, "update dotGeneralAxes for this GoMLX") {
			t.Errorf("reading the axes of a parameter: %q, want the layout message", msg)
		}
	}()
	dotGeneralAxes(l)
}

func TestNewErrors(t *testing.T) {
	if _, err := New("bogus"); err == nil || !strings.Contains(err.Error(), `unknown backend "bogus"`) {
		t.Errorf("unknown backend: %v", err)
	}
	if _, err := New("go:wings"); err == nil || !strings.Contains(err.Error(), "wings") {
		t.Errorf("bad go option: %v", err)
	}
	t.Setenv("GOMLX_NO_AUTO_INSTALL", "1")
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", t.TempDir())
	for _, config := range []string{"xla:cpu", "xla:cuda"} { // (cuda goes through its own options)
		if b, err := New(config); err == nil || b != nil || !strings.Contains(err.Error(), "PJRT_PLUGIN_LIBRARY_PATH") {
			t.Errorf("%s without a plugin: %v, %v", config, b, err)
		}
	}
}
