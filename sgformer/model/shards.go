package model

import (
	"fmt"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/sgformer/sgformer/sgformer/batch"
)

// Shards returns the inputs and labels of a batch split into blocks, one per device, for one
// program over all the devices: inputs[d] and labels[d] are block d's (Tensors), its index
// values offset to address the concatenation of the blocks along their first axis — node
// d·Nodes + i, graph slot d·(Graphs+1) + g, bond-table row d·BondTypes + r. That concatenation is
// a batch in its own right (each block's padding slot an empty slot of it), on which the model
// computes what it computes on the blocks' graphs batched together: the same predictions, loss
// and BatchNorm statistics, padding excluded. The blocks must share one shape (batch.Pad), so
// that each input's concatenation splits along its first axis into equal parts, one per
// device.
func Shards(blocks []*batch.Batch, spec Spec, c Config) (inputs, labels [][]*tensors.Tensor, err error) {
	if len(blocks) == 0 {
		return nil, nil, fmt.Errorf("model: Shards of no block")
	}
	shape := batch.ShapeOf(blocks[0])
	for d, b := range blocks {
		s := batch.ShapeOf(b)
		if s.Slots != shape.Slots || s.Nodes != shape.Nodes || s.BondTypes != shape.BondTypes || !slices.Equal(s.Edges, shape.Edges) {
			return nil, nil, fmt.Errorf("model: block %d has shape %+v, block 0 %+v: pad them to one (batch.Pad)", d, s, shape)
		}
	}
	in := schema(c, spec)
	for d, b := range blocks {
		x, y, err := Tensors(b, spec, c)
		if err != nil {
			return nil, nil, err
		}
		offsets := map[indexSpace]int32{
			nodeIndex: int32(d * shape.Nodes), slotIndex: int32(d * (shape.Slots + 1)), bondIndex: int32(d * shape.BondTypes)}
		for i, t := range x {
			if off := offsets[in[i].index]; off != 0 {
				err := tensors.MutableFlatData(t, func(flat []int32) {
					for j := range flat {
						flat[j] += off
					}
				})
				if err != nil {
					return nil, nil, err
				}
			}
		}
		inputs, labels = append(inputs, x), append(labels, y)
	}
	return inputs, labels, nil
}
