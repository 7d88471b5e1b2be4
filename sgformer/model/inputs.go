package model

import (
	"fmt"
	"slices"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/product"
)

// Inputs are the graph nodes of one batch (batch.Batch), as the model reads them.
type Inputs struct {
	// Per product node: integer features [N, F], clamped marks ([N] for pairs, [N, K−1] for
	// K-tuples), PE [N, max(columns, 1)], graph [N, 1] and subgraph [N, 1] indices, and the
	// real-node mask [N].
	NodeFeatures, Marks, PE, NodeGraph, NodeSubgraph, NodeMask *Node
	// Connectivities holds each connectivity's messages, by name.
	Connectivities map[product.Name]Messages
	// BondTable holds the distinct bond-feature tuples of the batch [K, F].
	BondTable *Node
	// Per graph slot (the last one is padding): n and the number of product nodes, [B+1].
	GraphN, GraphNodes *Node
	// Dense layout only: the adjacency of each graph [B, m, m] and the BondTable row of each of
	// its bonds [B, m, m].
	Adjacency, BondGrid *Node
}

// Messages are one connectivity's messages Dst ← Src ([E, 1] node indices) with the bond each
// carries ([E, 1] rows of the bond table; nil for connectivities without bonds). A point-wise
// connectivity, where a node receives at most one message, has instead the sender of every
// node Src [N, 1] and Mask [N], 1 where it has one.
type Messages struct {
	Src, Dst, Bond, Mask *Node
}

// pointSources returns, for a connectivity where each node receives at most one message, the
// sender of every node (itself where none) and a mask that is 1 where it has one.
func pointSources(b *batch.Batch, e batch.Edges) (src []int32, mask []float32) {
	src, mask = make([]int32, b.Nodes), make([]float32, b.Nodes)
	for i := range src {
		src[i] = int32(i)
	}
	for i := range e.Real {
		src[e.Dst[i]], mask[e.Dst[i]] = e.Src[i], 1
	}
	return src, mask
}

// input is one tensor of a batch the model reads: how Tensors makes it from a batch, where it
// goes in Inputs, and what its values index, if anything.
type input struct {
	name   string
	tensor func(b *batch.Batch) *tensors.Tensor
	node   func(in *Inputs, x *Node)
	index  indexSpace
}

// indexSpace is what the values of an input index: nothing (features, masks, counts), the
// batch's product nodes, its graph slots or its bond-table rows. Shards offsets them.
type indexSpace int

const (
	values indexSpace = iota
	nodeIndex
	slotIndex
	bondIndex
)

// schema lists, in order, the inputs a model configured by c reads from data of spec: the one
// description of them that Tensors (batch → tensors) and New (graph nodes → Inputs) both
// follow.
func schema(c Config, spec Spec) []input {
	in := []input{
		{"node_features", func(b *batch.Batch) *tensors.Tensor {
			return tensors.FromFlatDataAndDimensions(b.NodeFeatures, b.Nodes, b.NodeWidth)
		}, func(in *Inputs, x *Node) { in.NodeFeatures = x }, values},
		{"marks", func(b *batch.Batch) *tensors.Tensor {
			if w := len(b.Marks) / b.Nodes; w > 1 {
				return tensors.FromFlatDataAndDimensions(b.Marks, b.Nodes, w)
			}
			return tensors.FromFlatDataAndDimensions(b.Marks, b.Nodes)
		}, func(in *Inputs, x *Node) { in.Marks = x }, values},
		{"pe", func(b *batch.Batch) *tensors.Tensor {
			pe, k := b.PE, len(b.PE)/b.Nodes
			if k == 0 {
				pe, k = make([]float32, b.Nodes), 1
			}
			return tensors.FromFlatDataAndDimensions(pe, b.Nodes, k)
		}, func(in *Inputs, x *Node) { in.PE = x }, values},
		{"node_graph", func(b *batch.Batch) *tensors.Tensor {
			return tensors.FromFlatDataAndDimensions(b.NodeGraph, b.Nodes, 1)
		}, func(in *Inputs, x *Node) { in.NodeGraph = x }, slotIndex},
		{"node_subgraph", func(b *batch.Batch) *tensors.Tensor {
			return tensors.FromFlatDataAndDimensions(b.NodeSubgraph, b.Nodes, 1)
		}, func(in *Inputs, x *Node) { in.NodeSubgraph = x }, nodeIndex}, // subgraph numbers are below Nodes
		{"node_mask", func(b *batch.Batch) *tensors.Tensor {
			return tensors.FromFlatDataAndDimensions(b.NodeMask, b.Nodes)
		}, func(in *Inputs, x *Node) { in.NodeMask = x }, values},
		{"graph_n", func(b *batch.Batch) *tensors.Tensor {
			return tensors.FromFlatDataAndDimensions(b.GraphN, b.Graphs+1)
		}, func(in *Inputs, x *Node) { in.GraphN = x }, values},
		{"graph_nodes", func(b *batch.Batch) *tensors.Tensor {
			return tensors.FromFlatDataAndDimensions(b.GraphNodes, b.Graphs+1)
		}, func(in *Inputs, x *Node) { in.GraphNodes = x }, values},
		{"bond_table", func(b *batch.Batch) *tensors.Tensor {
			table, w := b.Bonds, b.BondWidth
			if w == 0 { // no bond in the batch: a table of category 0, which no real message reads
				w = max(len(spec.EdgeVocab), 1)
				table = make([]int32, b.BondTypes*w)
			}
			return tensors.FromFlatDataAndDimensions(table, b.BondTypes, w)
		}, func(in *Inputs, x *Node) { in.BondTable = x }, values},
	}
	if c.Execution == Dense {
		in = append(in,
			input{"adjacency", func(b *batch.Batch) *tensors.Tensor {
				return tensors.FromFlatDataAndDimensions(b.Adjacency, b.Graphs, b.GridSize, b.GridSize)
			}, func(in *Inputs, x *Node) { in.Adjacency = x }, values},
			input{"bond_grid", func(b *batch.Batch) *tensors.Tensor {
				return tensors.FromFlatDataAndDimensions(b.BondGrid, b.Graphs, b.GridSize, b.GridSize)
			}, func(in *Inputs, x *Node) { in.BondGrid = x }, values})
	}
	for _, name := range c.connectivities() {
		kind, _ := name.Kind(c.TupleK)
		edges := func(b *batch.Batch) batch.Edges { c, _ := b.Connectivity(name); return c.Edges }
		set := func(in *Inputs, f func(*Messages)) {
			m := in.Connectivities[name]
			f(&m)
			in.Connectivities[name] = m
		}
		if kind == product.PointWise {
			// At most one message per node: the sender of each node (itself where none) and
			// whether it has one, so that a node sums its message by a gather.
			in = append(in,
				input{name.String() + "/src", func(b *batch.Batch) *tensors.Tensor {
					src, _ := pointSources(b, edges(b))
					return tensors.FromFlatDataAndDimensions(src, b.Nodes, 1)
				}, func(in *Inputs, x *Node) { set(in, func(m *Messages) { m.Src = x }) }, nodeIndex},
				input{name.String() + "/mask", func(b *batch.Batch) *tensors.Tensor {
					_, mask := pointSources(b, edges(b))
					return tensors.FromFlatDataAndDimensions(mask, b.Nodes)
				}, func(in *Inputs, x *Node) { set(in, func(m *Messages) { m.Mask = x }) }, values})
			continue
		}
		in = append(in,
			input{name.String() + "/src", func(b *batch.Batch) *tensors.Tensor {
				e := edges(b)
				return tensors.FromFlatDataAndDimensions(e.Src, e.Len(), 1)
			}, func(in *Inputs, x *Node) { set(in, func(m *Messages) { m.Src = x }) }, nodeIndex},
			input{name.String() + "/dst", func(b *batch.Batch) *tensors.Tensor {
				e := edges(b)
				return tensors.FromFlatDataAndDimensions(e.Dst, e.Len(), 1)
			}, func(in *Inputs, x *Node) { set(in, func(m *Messages) { m.Dst = x }) }, nodeIndex})
		if kind == product.Neighbours {
			in = append(in, input{name.String() + "/bond", func(b *batch.Batch) *tensors.Tensor {
				e := edges(b)
				return tensors.FromFlatDataAndDimensions(e.Bond, e.Len(), 1)
			}, func(in *Inputs, x *Node) { set(in, func(m *Messages) { m.Bond = x }) }, bondIndex})
		}
	}
	return in
}

// inputsFrom maps the graph nodes of a batch's tensors, in the order of the schema, to Inputs.
func inputsFrom(c Config, spec Spec, nodes []*Node) (Inputs, error) {
	s := schema(c, spec)
	if len(nodes) != len(s) {
		return Inputs{}, fmt.Errorf("model: %d inputs, want %d (see model.Tensors)", len(nodes), len(s))
	}
	in := Inputs{Connectivities: map[product.Name]Messages{}}
	for i, x := range s {
		x.node(&in, nodes[i])
	}
	return in, nil
}

// Tensors returns a batch's model inputs for a model configured by c (in the order of its
// schema) and its labels (targets [B+1, T] and their mask), after checking every integer
// feature against the vocabularies of spec, so that a category the embeddings do not have is
// an error rather than a silent out-of-range lookup, and the batch's layout and connectivities
// against c.
func Tensors(b *batch.Batch, spec Spec, c Config) (inputs, labels []*tensors.Tensor, err error) {
	if b.NodeWidth != len(spec.NodeVocab) || (b.BondWidth != len(spec.EdgeVocab) && len(spec.EdgeVocab) > 0 && len(b.Bonds) > 0) {
		return nil, nil, fmt.Errorf("model: batch has %d node and %d edge feature columns, the model %d and %d", b.NodeWidth, b.BondWidth, len(spec.NodeVocab), len(spec.EdgeVocab))
	}
	if b.Tasks != spec.Tasks {
		return nil, nil, fmt.Errorf("model: batch has %d targets per graph, the model %d", b.Tasks, spec.Tasks)
	}
	if err := checkVocab("node feature", b.NodeFeatures, spec.NodeVocab, nil); err != nil {
		return nil, nil, err
	}
	if err := checkVocab("bond feature", b.Bonds, spec.EdgeVocab, spec.EdgeMin); err != nil {
		return nil, nil, err
	}
	var names []product.Name
	for _, conn := range b.Connectivities {
		names = append(names, conn.Name)
	}
	switch want := c.connectivities(); {
	case !slices.Equal(names, want):
		return nil, nil, fmt.Errorf("model: batch has connectivities %v, the model reads %v", names, want)
	case (b.GridSize > 0) != (c.Execution == Dense):
		return nil, nil, fmt.Errorf("model: a batch of the %s layout for the %s execution", map[bool]string{true: Dense, false: Sparse}[b.GridSize > 0], c.Execution)
	}
	for _, x := range schema(c, spec) {
		inputs = append(inputs, x.tensor(b))
	}
	labels = []*tensors.Tensor{
		tensors.FromFlatDataAndDimensions(b.Targets, b.Graphs+1, b.Tasks),
		tensors.FromFlatDataAndDimensions(b.TargetMask, b.Graphs+1, b.Tasks),
	}
	return inputs, labels, nil
}

// checkVocab checks integer features, row-major with one column per entry of vocab, against
// the categories [min, vocab) of each column (min 0 where mins is empty).
func checkVocab(what string, values []int32, vocab, mins []int) error {
	if len(vocab) == 0 {
		return nil
	}
	for i, x := range values {
		j, lo := i%len(vocab), 0
		if len(mins) == len(vocab) {
			lo = mins[j]
		}
		if int(x) < lo || int(x) >= vocab[j] {
			return fmt.Errorf("model: %s column %d has category %d, outside the vocabulary [%d, %d)", what, j, x, lo, vocab[j])
		}
	}
	return nil
}
