package batch_test

import (
	"slices"
	"testing"

	"github.com/sgformer/sgformer/sgformer/batch"
)

// checkPadded checks that p is b padded to s: b's real nodes, edges, slots and targets where
// they were, and everything added padding as Build pads.
func checkPadded(t *testing.T, b, p *batch.Batch, s batch.Shape) {
	t.Helper()
	if got := batch.ShapeOf(p); !slices.Equal(got.Edges, s.Edges) || got.Slots != s.Slots || got.Nodes != s.Nodes || got.BondTypes != s.BondTypes {
		t.Fatalf("shape %+v, want %+v", got, s)
	}
	real := 0
	for i, m := range b.NodeMask {
		if m == 1 {
			real++
			if p.NodeGraph[i] != b.NodeGraph[i] || p.NodeSubgraph[i] != b.NodeSubgraph[i] || p.NodeMask[i] != 1 {
				t.Fatalf("real node %d changed", i)
			}
		}
	}
	for i := range p.Nodes {
		if i >= real && (p.NodeMask[i] != 0 || p.NodeGraph[i] != int32(s.Slots)) {
			t.Fatalf("node %d: mask %v, slot %d; want padding, slot %d", i, p.NodeMask[i], p.NodeGraph[i], s.Slots)
		}
		if i > 0 && p.NodeSubgraph[i] < p.NodeSubgraph[i-1] {
			t.Fatalf("subgraph numbers not sorted at node %d", i)
		}
	}
	for j, c := range p.Connectivities {
		old := b.Connectivities[j]
		if c.Real != old.Real || !slices.Equal(c.Src[:c.Real], old.Src[:old.Real]) || !slices.Equal(c.Dst[:c.Real], old.Dst[:old.Real]) || !slices.Equal(c.Bond[:c.Real], old.Bond[:old.Real]) {
			t.Fatalf("%s: real edges changed", c.Name)
		}
		for i := c.Real; i < c.Len(); i++ {
			if c.Src[i] != int32(p.Nodes-1) || c.Dst[i] != int32(p.Nodes-1) || c.Bond[i] != 0 {
				t.Fatalf("%s: padding edge %d is %d ← %d (bond %d), want the last node to itself", c.Name, i, c.Dst[i], c.Src[i], c.Bond[i])
			}
		}
	}
	for g := range p.Graphs + 1 {
		for k := range p.Tasks {
			if g < len(b.GraphN)-1 {
				if p.TargetMask[g*p.Tasks+k] != b.TargetMask[g*b.Tasks+k] || p.Targets[g*p.Tasks+k] != b.Targets[g*b.Tasks+k] {
					t.Fatalf("graph %d: target %d changed", g, k)
				}
			} else if p.TargetMask[g*p.Tasks+k] != 0 {
				t.Fatalf("slot %d: an empty slot with a target", g)
			}
		}
		if g >= len(b.GraphN)-1 && (p.GraphN[g] != 1 || p.GraphNodes[g] != 1) {
			t.Fatalf("slot %d: n %v, nodes %v; want 1 and 1", g, p.GraphN[g], p.GraphNodes[g])
		}
	}
	if len(p.NodeFeatures) != p.Nodes*p.NodeWidth || len(p.Bonds) != p.BondTypes*p.BondWidth || len(p.Targets) != (p.Graphs+1)*p.Tasks {
		t.Fatalf("array lengths do not match the shape")
	}
	for r := b.BondTypes; r < p.BondTypes; r++ {
		if !slices.Equal(p.Bonds[r*p.BondWidth:(r+1)*p.BondWidth], p.Bonds[:p.BondWidth]) {
			t.Fatalf("bond row %d is not a copy of row 0", r)
		}
	}
}

func TestPad(t *testing.T) {
	exs := examples(t)
	opt := batch.Options{PEK: 4, MaxDistance: 2, Bucket: 1.25}
	full, err := batch.Build(exs, nil, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	big := batch.ShapeOf(full)
	big.Slots, big.Nodes, big.BondTypes = big.Slots+2, big.Nodes+7, big.BondTypes*2
	for j := range big.Edges {
		big.Edges[j] += 3
	}
	for _, tc := range []struct {
		name     string
		examples []batch.Example
	}{{"one graph", exs[:1]}, {"all graphs", exs}, {"no graph", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			build := func() *batch.Batch {
				b, err := batch.Empty(full)
				if tc.examples != nil {
					b, err = batch.Build(tc.examples, nil, opt, nil)
				}
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			b, p := build(), build()
			s := batch.Union(batch.ShapeOf(b), big)
			if err := batch.Pad(p, s); err != nil {
				t.Fatal(err)
			}
			checkPadded(t, b, p, s)
		})
	}
	small := batch.ShapeOf(full)
	small.Nodes--
	if err := batch.Pad(full, small); err == nil {
		t.Error("padding to a smaller shape: no error")
	}
	dense, err := batch.Build(exs, nil, batch.Options{PEK: 4, MaxDistance: 2, Dense: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := batch.Pad(dense, batch.ShapeOf(dense)); err == nil {
		t.Error("padding a dense batch: no error")
	}
}
