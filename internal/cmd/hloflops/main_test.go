package main

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/sgformer/sgformer/internal/xlatest"
)

func TestCount(t *testing.T) {
	for _, c := range []struct {
		name, hlo string
		dots      int
		flops     float64
		err       string
	}{
		{"dense layer", `
ENTRY %main {
  %p0 = f32[100,8]{1,0} parameter(0)
  %p1 = f32[24,8]{1,0} parameter(1)
  ROOT %dot.9 = f32[100,24]{1,0} dot(%p0, %p1), lhs_contracting_dims={1}, rhs_contracting_dims={1}, metadata={x="(y)"}
}`, 1, 2 * 100 * 24 * 8, ""},
		{"batched, two contracting axes, in a fusion", `
%fused (param_0: f32[4,5,6,7]) -> f32[4,3] {
  %param_0 = f32[4,5,6,7]{3,2,1,0} parameter(0)
  %param_1 = f32[4,3,6,7]{3,2,1,0} parameter(1)
  ROOT %dot.1 = f32[4,3]{1,0} dot(f32[4,5,6,7]{3,2,1,0} %param_0, %param_1), lhs_batch_dims={0}, lhs_contracting_dims={2,3}, rhs_batch_dims={0}, rhs_contracting_dims={2,3}
}
ENTRY %main {
  %a = f32[2,2]{1,0} parameter(0)
  %d = f32[2]{0} dot(%a, %a), lhs_contracting_dims={0,1}, rhs_contracting_dims={0,1}
}`, 2, 2*4*3*6*7 + 2*2*4, ""},
		{"no dots", "ENTRY %main {\n  ROOT %p = f32[3]{0} parameter(0)\n}", 0, 0, ""},
		{"a loop", "  %w = f32[3]{0} while(%x), condition=%c, body=%b", 0, 0, "while loop"},
		{"unknown operand", "  %d = f32[3]{0} dot(%nowhere, %x), lhs_contracting_dims={0}", 0, 0, "not declared"},
		{"bad axis", "  %x = f32[3]{0} parameter(0)\n  %d = f32[]{} dot(%x, %x), lhs_contracting_dims={1}", 0, 0, "axis 1 of a rank-1"},
	} {
		m, err := Count("m", strings.NewReader(c.hlo))
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one with %q", c.name, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case m.Dots != c.dots || m.DotFLOPs != c.flops:
			t.Errorf("%s: %d dots, %g FLOPs; want %d, %g", c.name, m.Dots, m.DotFLOPs, c.dots, c.flops)
		}
	}
}

// The census counts instructions by opcode, fused ones too, and fusions by kind.
func TestCountOps(t *testing.T) {
	hlo := `
%fused_computation (param_0: f32[10,4], param_1: s32[6,1], param_2: f32[6,4]) -> f32[10,4] {
  %param_0 = f32[10,4]{1,0} parameter(0)
  %param_1 = s32[6,1]{1,0} parameter(1)
  %param_2 = f32[6,4]{1,0} parameter(2)
  ROOT %scatter.1 = f32[10,4]{1,0} scatter(%param_0, %param_1, %param_2), update_window_dims={1}, to_apply=%add
}
ENTRY %main {
  %p0 = f32[10,4]{1,0} parameter(0)
  %p1 = s32[6,1]{1,0} parameter(1)
  %c = f32[] constant(0)
  %g = f32[6,4]{1,0} gather(%p0, %p1), offset_dims={1}, slice_sizes={1,4}
  %s = f32[10,4]{1,0} fusion(%p0, %p1, %g), kind=kLoop, calls=%fused_computation
  %y = f32[10,4]{1,0} fusion(%s, %p0), kind=kCustom, calls=%ynn, backend_config={"fusion_config":{"kind":"__ynn_fusion"}}
  %b = f32[40]{0} bitcast(%y)
  ROOT %d = f32[4,4]{1,0} dot(%y, %s), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}`
	m, err := Count("m", strings.NewReader(hlo))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"scatter": 1, "gather": 1, "fusion": 2, "fusion:loop": 1, "fusion:library": 1, "dot": 1}
	if !maps.Equal(m.Ops, want) || m.Instructions != 5 {
		t.Errorf("ops %v, %d instructions; want %v, 5", m.Ops, m.Instructions, want)
	}
}

// TestCountXLA counts what XLA compiled from a program of known arithmetic: a dense layer and
// a batched product, 2·64·32·16 + 2·4·8·16·2 FLOPs, whatever XLA's optimisations made of them.
func TestCountXLA(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XLA_FLAGS", "--xla_dump_to="+dir+" --xla_dump_hlo_as_text")
	be := xlatest.CPU(t)
	exec := MustNewExec(be, func(x, w, a, b *Node) (*Node, *Node) {
		return Tanh(Dot(x, w)), Einsum("bij,bjk->bik", a, b)
	})
	zeros := func(dims ...int) *tensors.Tensor { return tensors.FromShape(shapes.Make(dtypes.Float32, dims...)) }
	exec.MustExec(zeros(64, 32), zeros(32, 16), zeros(4, 8, 16), zeros(4, 16, 2))
	files, _ := filepath.Glob(filepath.Join(dir, "*"+suffix))
	if len(files) != 1 {
		t.Fatalf("%d dumps in %s, want 1", len(files), dir)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := Count("test", f)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(2*64*32*16 + 2*4*8*16*2); m.DotFLOPs != want {
		t.Errorf("%g FLOPs in %d dots, want %g", m.DotFLOPs, m.Dots, want)
	}
}
