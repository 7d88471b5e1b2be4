package model

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/sgformer/sgformer/sgformer/batch"
)

// Inputs are the graph nodes of one batch (batch.Batch), in the order Tensors yields them.
type Inputs struct {
	// Per product node: integer features [N, F], clamped marks [N], PE [N, max(k,1)], graph
	// [N, 1], subgraph [N, 1] and point-source [N, 1] indices, and real-node and point masks
	// [N].
	NodeFeatures, Marks, PE, NodeGraph, NodeSubgraph, PointSrc, NodeMask, PointMask *Node
	// Internal and external edges: sources, destinations and bonds (rows of BondTable), each
	// [E, 1].
	IntSrc, IntDst, IntBond, ExtSrc, ExtDst, ExtBond *Node
	// BondTable holds the distinct bond-feature tuples of the batch [K, F].
	BondTable *Node
	// Per graph slot (the last one is padding): n and the number of product nodes, [B+1].
	GraphN, GraphNodes *Node
	// Dense layout only: the adjacency of each graph [B, m, m] and the BondTable row of each of
	// its bonds [B, m, m] (one-element placeholders in the sparse layout).
	Adjacency, BondGrid *Node
}

func inputsFrom(nodes []*Node) (Inputs, error) {
	if len(nodes) != 19 {
		return Inputs{}, fmt.Errorf("model: %d inputs, want 19 (see model.Tensors)", len(nodes))
	}
	return Inputs{
		NodeFeatures: nodes[0], Marks: nodes[1], PE: nodes[2], NodeGraph: nodes[3], NodeSubgraph: nodes[4],
		PointSrc: nodes[5], NodeMask: nodes[6], PointMask: nodes[7],
		IntSrc: nodes[8], IntDst: nodes[9], IntBond: nodes[10], ExtSrc: nodes[11], ExtDst: nodes[12], ExtBond: nodes[13],
		GraphN: nodes[14], GraphNodes: nodes[15], BondTable: nodes[16], Adjacency: nodes[17], BondGrid: nodes[18],
	}, nil
}

// Tensors returns a batch's model inputs (see Inputs) and labels (targets [B+1, T] and their
// mask), after checking every integer feature against the vocabularies of spec, so that a
// category the embeddings do not have is an error rather than a silent out-of-range lookup.
func Tensors(b *batch.Batch, spec Spec) (inputs, labels []*tensors.Tensor, err error) {
	if b.NodeWidth != len(spec.NodeVocab) || (b.BondWidth != len(spec.EdgeVocab) && len(spec.EdgeVocab) > 0) {
		return nil, nil, fmt.Errorf("model: batch has %d node and %d edge feature columns, the model %d and %d", b.NodeWidth, b.BondWidth, len(spec.NodeVocab), len(spec.EdgeVocab))
	}
	if b.Tasks != spec.Tasks {
		return nil, nil, fmt.Errorf("model: batch has %d targets per graph, the model %d", b.Tasks, spec.Tasks)
	}
	if err := checkVocab("node feature", b.NodeFeatures, spec.NodeVocab); err != nil {
		return nil, nil, err
	}
	if err := checkVocab("bond feature", b.Bonds, spec.EdgeVocab); err != nil {
		return nil, nil, err
	}
	n := b.Nodes
	pe, k := b.PE, len(b.PE)/n
	if k == 0 {
		pe, k = make([]float32, n), 1
	}
	edges := func(e batch.Edges) []*tensors.Tensor {
		return []*tensors.Tensor{
			tensors.FromFlatDataAndDimensions(e.Src, e.Len(), 1),
			tensors.FromFlatDataAndDimensions(e.Dst, e.Len(), 1),
			tensors.FromFlatDataAndDimensions(e.Bond, e.Len(), 1),
		}
	}
	inputs = []*tensors.Tensor{
		tensors.FromFlatDataAndDimensions(b.NodeFeatures, n, b.NodeWidth),
		tensors.FromFlatDataAndDimensions(b.Marks, n),
		tensors.FromFlatDataAndDimensions(pe, n, k),
		tensors.FromFlatDataAndDimensions(b.NodeGraph, n, 1),
		tensors.FromFlatDataAndDimensions(b.NodeSubgraph, n, 1),
		tensors.FromFlatDataAndDimensions(b.PointSrc, n, 1),
		tensors.FromFlatDataAndDimensions(b.NodeMask, n),
		tensors.FromFlatDataAndDimensions(b.PointMask, n),
	}
	inputs = append(inputs, edges(b.Internal)...)
	inputs = append(inputs, edges(b.External)...)
	table, w := b.Bonds, b.BondWidth
	if w == 0 {
		table, w = make([]int32, b.BondTypes), 1
	}
	inputs = append(inputs,
		tensors.FromFlatDataAndDimensions(b.GraphN, b.Graphs+1),
		tensors.FromFlatDataAndDimensions(b.GraphNodes, b.Graphs+1),
		tensors.FromFlatDataAndDimensions(table, b.BondTypes, w))
	if b.GridSize > 0 {
		m := b.GridSize
		inputs = append(inputs,
			tensors.FromFlatDataAndDimensions(b.Adjacency, b.Graphs, m, m),
			tensors.FromFlatDataAndDimensions(b.BondGrid, b.Graphs, m, m))
	} else {
		inputs = append(inputs,
			tensors.FromFlatDataAndDimensions([]float32{0}, 1, 1, 1),
			tensors.FromFlatDataAndDimensions([]int32{0}, 1, 1, 1))
	}
	labels = []*tensors.Tensor{
		tensors.FromFlatDataAndDimensions(b.Targets, b.Graphs+1, b.Tasks),
		tensors.FromFlatDataAndDimensions(b.TargetMask, b.Graphs+1, b.Tasks),
	}
	return inputs, labels, nil
}

func checkVocab(what string, values []int32, vocab []int) error {
	if len(vocab) == 0 {
		return nil
	}
	for i, x := range values {
		if j := i % len(vocab); x < 0 || int(x) >= vocab[j] {
			return fmt.Errorf("model: %s column %d has category %d, outside the vocabulary [0, %d)", what, j, x, vocab[j])
		}
	}
	return nil
}
