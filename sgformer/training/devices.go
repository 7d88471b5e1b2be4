package training

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/distributed"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/product"
)

// Training on several devices (data parallelism; docs/devices.md). Each global batch of the
// recipe is split into one block per device, the blocks padded to one shape (batch.Pad) and
// offset into one batch (model.Shards); one program, the single-device training step
// partitioned by XLA's sharding propagation (GoMLX's distributed.AutoSharding) along axis 0 of
// every input, runs on all the devices. Its loss, BatchNorm statistics and gradients are those
// of the global batch: XLA inserts the collectives (all-reduces) that the single-device
// program's sums over the batch need. The recipe (batch size, learning rate, schedule) is
// unchanged.

// ResolveDevices returns the number of devices cfg's ParamDevices names on the backend be,
// after checking that training and evaluation can be split that way: the sparse layout
// (batch.Pad's; the dense one is refused whatever the backend), no more devices than be has,
// no fewer graphs per batch than devices. Train and NewPredictor call it first; a command
// line can call it before loading the data.
func ResolveDevices(cfg Config, be backends.Backend) (int, error) {
	n, err := parseDevices(cfg.Devices)
	if err != nil {
		return 0, err
	}
	have := be.NumDevices()
	if n == 0 {
		n = have
	}
	switch {
	case n == 1:
		return 1, nil
	case cfg.Model.Execution == model.Dense:
		return 0, fmt.Errorf("training: %s = %s needs %s = %s: batches of the dense layout are not split among devices (docs/devices.md says why)", ParamDevices, cfg.Devices, model.ParamExecution, model.Sparse)
	case n > have:
		how := ""
		if be.Name() == "xla" {
			how = "; on a CPU, XLA_FLAGS=--xla_force_host_platform_device_count=N makes N devices"
		}
		return 0, fmt.Errorf("training: %s = %s, but backend %s has %d device(s)%s", ParamDevices, cfg.Devices, backend.Kind(be), have, how)
	case cfg.BatchSize < n:
		return 0, fmt.Errorf("training: %s = %d graphs cannot be split among %s = %d devices: want a batch of at least as many graphs as devices", ParamBatchSize, cfg.BatchSize, ParamDevices, n)
	}
	return n, nil
}

// partition splits sizes, in order, into n contiguous parts whose largest sum is the smallest
// possible, each of at least one item (with fewer items than parts, one item each, then empty
// parts); it returns where each part ends. Contiguous parts keep the order in which a batch's
// random draws are made, so a batch split among devices draws what it draws on one.
func partition(sizes []int, n int) []int {
	m := len(sizes)
	ends := make([]int, n)
	if m <= n {
		for k := range ends {
			ends[k] = min(k+1, m)
		}
		return ends
	}
	prefix := make([]int, m+1)
	for i, s := range sizes {
		prefix[i+1] = prefix[i] + s
	}
	const inf = int(^uint(0) >> 1)
	// cost[k][i]: the least largest sum of the first i items in k non-empty parts; cut[k][i]
	// where the last of those parts begins.
	cost := make([][]int, n+1)
	cut := make([][]int, n+1)
	for k := range cost {
		cost[k], cut[k] = make([]int, m+1), make([]int, m+1)
		for i := range cost[k] {
			cost[k][i] = inf
		}
	}
	cost[0][0] = 0
	for k := 1; k <= n; k++ {
		for i := k; i <= m; i++ {
			for j := k - 1; j < i; j++ {
				if cost[k-1][j] == inf {
					continue
				}
				if c := max(cost[k-1][j], prefix[i]-prefix[j]); c < cost[k][i] {
					cost[k][i], cut[k][i] = c, j
				}
			}
		}
	}
	for k, i := n, m; k > 0; k-- {
		ends[k-1] = i
		i = cut[k][i]
	}
	return ends
}

// buildShards is build for n devices: the batch of examples split into n contiguous blocks of
// balanced product-graph sizes, padded to one shape, as per-device shards of one global batch
// (model.Shards); block d holds examples[ends[d-1]:ends[d]] (from 0 for d = 0), graph slot g
// of its shard being example ends[d-1] + g. The random draws (sampling, sign flips) are those
// build makes, in the same order.
func (b batching) buildShards(examples []batch.Example, n int, roots func(i int) *rand.Rand, flips *rand.Rand) (inputs, labels [][]*tensors.Tensor, ends []int, err error) {
	products, err := b.products(examples, roots)
	if err != nil {
		return nil, nil, nil, err
	}
	sizes := make([]int, len(examples))
	for i, ex := range examples {
		switch {
		case b.options.Original:
			sizes[i] = ex.Graph.N()
		case products != nil:
			sizes[i] = products[i].NumNodes()
		default:
			sizes[i] = ex.Item.Product.NumNodes()
		}
	}
	blocks := make([]*batch.Batch, n)
	var shapes []batch.Shape
	begin := 0
	ends = partition(sizes, n)
	for d, end := range ends {
		if end > begin {
			var part []*product.Graph
			if products != nil {
				part = products[begin:end]
			}
			if blocks[d], err = batch.Build(examples[begin:end], part, b.options, flips); err != nil {
				return nil, nil, nil, err
			}
			shapes = append(shapes, batch.ShapeOf(blocks[d]))
		}
		begin = end
	}
	shape := batch.Union(shapes...)
	// Graph slots are cheap (a row per graph) but, left to the largest block's graph count, add
	// a dimension to the programs' shapes that the size levels do not bound: each block gets
	// the batch size's.
	shape.Slots = max(shape.Slots, b.size)
	for d := range blocks {
		if blocks[d] == nil { // the first block holds a graph (partition)
			if blocks[d], err = batch.Empty(blocks[0]); err != nil {
				return nil, nil, nil, err
			}
		}
		if err := batch.Pad(blocks[d], shape); err != nil {
			return nil, nil, nil, err
		}
	}
	inputs, labels, err = model.Shards(blocks, b.spec, b.model)
	return inputs, labels, ends, err
}

// sharding lays per-device shards out as GoMLX's distributed tensors: axis 0 split among the
// devices of a one-axis mesh, in order.
type sharding struct {
	spec *distributed.ShardingSpec
}

// meshes holds the one-axis device mesh of each number of devices, made once per process: GoMLX
// matches the mesh of a variable's sharding (fixed when the variable is first distributed, by
// the training step) to a program's meshes by identity, so the training step and evaluation of
// one context must share the mesh.
var meshes = struct {
	sync.Mutex
	of map[int]*distributed.DeviceMesh
}{of: map[int]*distributed.DeviceMesh{}}

func newSharding(devices int) (sharding, error) {
	meshes.Lock()
	defer meshes.Unlock()
	mesh := meshes.of[devices]
	if mesh == nil {
		var err error
		if mesh, err = distributed.NewDeviceMesh([]int{devices}, []string{"devices"}); err != nil {
			return sharding{}, err
		}
		meshes.of[devices] = mesh
	}
	spec, err := distributed.BuildSpec(mesh).S("devices").Done()
	return sharding{spec}, err
}

// tensors turns shards[d][i], input i of device d, into one distributed tensor per input.
func (s sharding) tensors(shards [][]*tensors.Tensor) ([]*distributed.Tensor, error) {
	out := make([]*distributed.Tensor, len(shards[0]))
	for i := range out {
		parts := make([]*tensors.Tensor, len(shards))
		for d := range shards {
			parts[d] = shards[d][i]
		}
		var err error
		if out[i], err = distributed.NewTensor(s.spec, parts); err != nil {
			return nil, err
		}
	}
	return out, nil
}
