package batch

import (
	"fmt"
	"slices"
)

// Shape is the padded size of a sparse batch: what a compiled program's input shapes depend on.
// Batches that run side by side on several devices, one program for all, must share one.
type Shape struct {
	// Slots is the number of graph slots before the padding slot (Batch.Graphs).
	Slots int
	// Nodes is the number of product nodes, padding included.
	Nodes int
	// Edges is the length of each connectivity's edge list, padding included, in order.
	Edges []int
	// BondTypes is the number of rows of the bond table.
	BondTypes int
}

// ShapeOf returns the shape of b.
func ShapeOf(b *Batch) Shape {
	s := Shape{Slots: b.Graphs, Nodes: b.Nodes, BondTypes: b.BondTypes}
	for _, c := range b.Connectivities {
		s.Edges = append(s.Edges, c.Len())
	}
	return s
}

// Union returns the smallest shape that holds every shape of shapes (the connectivities must
// be the same: a shape with none, of a batch of no graphs (Empty), holds any).
func Union(shapes ...Shape) Shape {
	var u Shape
	for _, s := range shapes {
		u.Slots, u.Nodes, u.BondTypes = max(u.Slots, s.Slots), max(u.Nodes, s.Nodes), max(u.BondTypes, s.BondTypes)
		if len(s.Edges) > len(u.Edges) {
			u.Edges = append(u.Edges, make([]int, len(s.Edges)-len(u.Edges))...)
		}
		for j, n := range s.Edges {
			u.Edges[j] = max(u.Edges[j], n)
		}
	}
	return u
}

// Empty returns a batch of no graphs laid out as like (sparse): its graph-level fields and
// connectivities, one padding node, one padding edge per connectivity, a bond table of 8
// copies of row 0. Padded to a shape (Pad), it stands in for a device's share of a batch that
// has fewer graphs than devices.
func Empty(like *Batch) (*Batch, error) {
	if like.GridSize > 0 {
		return nil, fmt.Errorf("batch: Empty: the dense layout is not supported")
	}
	marks := max(like.K-1, 1)
	b := &Batch{
		Nodes: 1, K: like.K, NodeWidth: like.NodeWidth, BondWidth: like.BondWidth, Tasks: like.Tasks,
		NodeGraph: []int32{0}, NodeMask: []float32{0}, NodeSubgraph: []int32{0},
		NodeFeatures: make([]int32, like.NodeWidth), Marks: make([]int32, marks), PE: make([]float32, len(like.PE)/like.Nodes),
		GraphNodes: []float32{1}, GraphN: []float32{1}, Targets: make([]float32, like.Tasks), TargetMask: make([]float32, like.Tasks),
		Bonds: make([]int32, 8*like.BondWidth), BondTypes: 8,
	}
	for _, c := range like.Connectivities {
		b.Connectivities = append(b.Connectivities, Connectivity{Name: c.Name, Kind: c.Kind, Edges: newEdges(1)})
	}
	return b, nil
}

// Pad enlarges the sparse batch b to shape s in place: product nodes, edges and bond-table
// rows are added as Build pads (padding nodes in the padding slot, masked out, edges joining
// the last node to itself, copies of bond row 0), and graph slots as empty graphs (no node,
// no target, n and product nodes 1 as the padding slot has, so that pooling divides by 1).
// The empty slots count in b.Graphs. No real node, edge or target changes: the model's
// predictions for b's graphs are unchanged, and its loss and BatchNorm statistics too.
func Pad(b *Batch, s Shape) error {
	switch {
	case b.GridSize > 0:
		return fmt.Errorf("batch: Pad: the dense layout is not supported")
	case len(s.Edges) != len(b.Connectivities):
		return fmt.Errorf("batch: Pad: a shape of %d connectivities for a batch of %d", len(s.Edges), len(b.Connectivities))
	case s.Slots < b.Graphs || s.Nodes < b.Nodes || s.BondTypes < b.BondTypes:
		return fmt.Errorf("batch: Pad: shape %+v is smaller than the batch's %+v", s, ShapeOf(b))
	}
	for j, c := range b.Connectivities {
		if s.Edges[j] < c.Len() {
			return fmt.Errorf("batch: Pad: shape %+v is smaller than the batch's %+v", s, ShapeOf(b))
		}
	}
	// Graph slots: the padding slot moves from b.Graphs to s.Slots.
	for i, g := range b.NodeGraph {
		if g == int32(b.Graphs) {
			b.NodeGraph[i] = int32(s.Slots)
		}
	}
	ones := func(x []float32) []float32 {
		for len(x) < s.Slots+1 {
			x = append(x, 1)
		}
		return x
	}
	b.GraphNodes, b.GraphN = ones(b.GraphNodes), ones(b.GraphN)
	b.Targets = append(b.Targets, make([]float32, (s.Slots-b.Graphs)*b.Tasks)...)
	b.TargetMask = append(b.TargetMask, make([]float32, (s.Slots-b.Graphs)*b.Tasks)...)
	b.Graphs = s.Slots

	// Nodes: padding, in the padding slot and the padding nodes' subgraph.
	add := s.Nodes - b.Nodes
	subgraph := b.NodeSubgraph[b.Nodes-1]
	width := func(x int) int { return x / b.Nodes }
	b.NodeFeatures = append(b.NodeFeatures, make([]int32, add*width(len(b.NodeFeatures)))...)
	b.Marks = append(b.Marks, make([]int32, add*width(len(b.Marks)))...)
	b.PE = append(b.PE, make([]float32, add*width(len(b.PE)))...)
	b.NodeMask = append(b.NodeMask, make([]float32, add)...)
	b.NodeGraph = append(b.NodeGraph, slices.Repeat([]int32{int32(s.Slots)}, add)...)
	b.NodeSubgraph = append(b.NodeSubgraph, slices.Repeat([]int32{subgraph}, add)...)
	b.Nodes = s.Nodes

	// Edges: every padding edge, old and new, from the last node to itself (as Build pads; the
	// lists stay sorted by destination).
	for j := range b.Connectivities {
		e := &b.Connectivities[j].Edges
		more := s.Edges[j] - e.Len()
		e.Src = append(e.Src, make([]int32, more)...)
		e.Dst = append(e.Dst, make([]int32, more)...)
		e.Bond = append(e.Bond, make([]int32, more)...)
		e.pad(e.Real, int32(b.Nodes-1))
	}

	// Bond rows: copies of row 0.
	for r := b.BondTypes; r < s.BondTypes; r++ {
		b.Bonds = append(b.Bonds, b.Bonds[:b.BondWidth]...)
	}
	b.BondTypes = s.BondTypes
	return nil
}
