package backend

import (
	"fmt"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// BenchmarkMatMul is the backend's practical float32 peak ($GOMLX_BACKEND, else the default):
// the product of two n × n matrices, 2n³ floating-point operations, reported in GFLOP/s, the
// yardstick for the FLOP rate of a model's step (scripts/bench-backends.sh).
func BenchmarkMatMul(b *testing.B) {
	be, err := New("")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{512, 2048} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			exec := MustNewExec(be, func(x, y *Node) *Node { return Dot(x, y) })
			x := tensors.FromShape(shapes.Make(dtypes.Float32, n, n))
			y := tensors.FromShape(shapes.Make(dtypes.Float32, n, n))
			benchProduct(b, exec, 2*float64(n)*float64(n)*float64(n), x, y)
		})
	}
}

// benchProduct times exec, a matrix product of flops floating-point operations, on args after a
// first call that compiles it, and reports its rate in GFLOP/s.
func benchProduct(b *testing.B, exec *Exec, flops float64, args ...any) {
	exec.MustExec(args...)[0].MustFinalizeAll() // compiles
	b.ResetTimer()
	for range b.N {
		exec.MustExec(args...)[0].MustFinalizeAll()
	}
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkProducts are the matrix products of a ZINC-12k training step on 128 molecules
// (80,666 product nodes, 96 features in, 32 or 96 out: sgformer/training's BenchmarkZINCTrainStep),
// in GFLOP/s on the backend ($GOMLX_BACKEND, else the default), each as the step has it: the
// forward's x·W, the backward's adjoint V·Wᵀ for x, and xᵀ·V for W, which contracts the long node
// axis into a small matrix (scripts/profile-xla-cpu.sh).
func BenchmarkProducts(b *testing.B) {
	be, err := New("")
	if err != nil {
		b.Fatal(err)
	}
	const n, in = 80666, 96
	for _, out := range []int{32, 96} {
		x := tensors.FromShape(shapes.Make(dtypes.Float32, n, in))
		w := tensors.FromShape(shapes.Make(dtypes.Float32, in, out))
		v := tensors.FromShape(shapes.Make(dtypes.Float32, n, out))
		for _, c := range []struct {
			name string
			fn   func(x, w, v *Node) *Node
		}{
			{"x·W", func(x, w, v *Node) *Node { return DotGeneral(x, []int{1}, nil, w, []int{0}, nil) }},
			{"V·Wᵀ", func(x, w, v *Node) *Node { return DotGeneral(v, []int{1}, nil, w, []int{1}, nil) }},
			{"xᵀ·V", func(x, w, v *Node) *Node { return DotGeneral(x, []int{0}, nil, v, []int{0}, nil) }},
		} {
			b.Run(fmt.Sprintf("%dx%d/%s", in, out, c.name), func(b *testing.B) {
				benchProduct(b, MustNewExec(be, c.fn), 2*n*in*float64(out), x, w, v)
			})
		}
	}
}

// BenchmarkDotGradient is why fastgrad.go exists: the gradient of a dense layer's product
// (x [N, 96] · W [96, 96], N = 8,192 nodes, a sum as the loss) built with GoMLX's own
// DotGeneral gradient, which materialises an [N, 96, 96] product, and with fastDotGeneralVJP,
// two DotGenerals; on the pure-Go backend, where the difference is largest.
func BenchmarkDotGradient(b *testing.B) {
	be, err := New("go")
	if err != nil {
		b.Fatal(err)
	}
	x := tensors.FromShape(shapes.Make(dtypes.Float32, 8192, 96))
	w := tensors.FromShape(shapes.Make(dtypes.Float32, 96, 96))
	for _, c := range []struct {
		name string
		vjp  VJP
	}{{"gomlx", defaultDotGeneralVJP}, {"fast", fastDotGeneralVJP}} {
		b.Run(c.name, func(b *testing.B) {
			VJPRegistration[NodeTypeDotGeneral] = c.vjp
			defer func() { VJPRegistration[NodeTypeDotGeneral] = fastDotGeneralVJP }()
			exec := MustNewExec(be, func(x, w *Node) *Node {
				return Gradient(ReduceAllSum(DotGeneral(x, []int{1}, nil, w, []int{0}, nil)), w)[0]
			})
			exec.MustExec(x, w)[0].MustFinalizeAll() // builds the graph with c's gradient
			b.ResetTimer()
			for range b.N {
				exec.MustExec(x, w)[0].MustFinalizeAll()
			}
		})
	}
}
