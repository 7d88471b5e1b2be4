package training

import (
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/distributed"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/task"
)

// epochData is the training split: one epoch of shuffled batches (next), then io.EOF until
// the next call of start.
type epochData struct {
	task    *task.Task
	batches batching
	seed    int
	// devices, when more than 1, is how many devices each batch is split among (prefetched's
	// dinputs and dlabels), laid out by sharding.
	devices  int
	sharding sharding
	// backend, if not nil, receives a batch's tensors on its device 0 while the batch is built
	// ahead (one device): go-xla's Execute returns when the step is done on the device, so a
	// transfer on the stepping goroutine would leave the device idle while it runs.
	backend backends.Backend
	epoch   int
	order   []int
	pos     int // training graphs yielded so far in the epoch
	source  *rand.PCG
	rng     *rand.Rand // draws from source
	// random is source's state after the batches yielded so far, what a checkpoint saves: the
	// batch built ahead has drawn from source already.
	random []byte
	// built yields the epoch's batches from pos on, built ahead on another goroutine (nil
	// until the epoch's first Yield).
	built *ahead[prefetched]
	// waited is the time the epoch's training steps have waited for their batches.
	waited time.Duration
	// compiled counts the training step's programs; newShapeAt is when the batch of a new
	// shape was yielded (zero when the last one was not new).
	compiled   compilations
	newShapeAt time.Time
}

// partialEpoch is how far an epoch got: the training graphs done, the state of its random
// stream after them (rand.PCG's binary form), and its loss and time so far.
type partialEpoch struct {
	Epoch        int     `json:"epoch"`
	Graphs       int     `json:"graphs"`
	Random       []byte  `json:"random"`
	LossSum      float64 `json:"loss_sum"`
	LossCount    int     `json:"loss_count"`
	Seconds      float64 `json:"seconds"`
	TrainSeconds float64 `json:"train_seconds"`
	BatchSeconds float64 `json:"batch_seconds"`
}

// prefetched is a batch built ahead: the inputs and labels of the training graphs up to end
// (on several devices, dinputs and dlabels instead), and source's state after it.
type prefetched struct {
	end              int
	inputs, labels   []*tensors.Tensor
	dinputs, dlabels []*distributed.Tensor
	random           []byte
	err              error
}

// shapes returns the shapes of the inputs, on one device (those a program is compiled for).
func (b prefetched) shapes() []shapes.Shape {
	out := shapesOf(b.inputs)
	for _, x := range b.dinputs {
		out = append(out, x.ShardShape())
	}
	return out
}

// spec is the batch's spec for the trainer. GoMLX compiles one graph per input shape and
// caches at most 32 per spec; batches of molecules with sampling reach more shapes than that
// (node, edge and graph counts are bucketed independently), so the spec is the bucketed node
// count: one cache per size.
func (b prefetched) spec() any { return b.shapes()[0].Dimensions[0] }

// free frees the batch's tensors: built and never taken.
func (b prefetched) free() {
	finalize(b.inputs)
	finalize(b.labels)
	for _, x := range append(b.dinputs, b.dlabels...) {
		_ = x.Finalize()
	}
}

// start prepares epoch (counted from 1): the training examples in a fresh random order.
func (d *epochData) start(epoch int) {
	d.stop()
	d.epoch = epoch
	d.source = rand.NewPCG(uint64(d.seed), streamTrain+uint64(epoch))
	d.rng = rand.New(d.source)
	d.order = append(d.order[:0], d.task.Train...)
	d.rng.Shuffle(len(d.order), func(i, j int) { d.order[i], d.order[j] = d.order[j], d.order[i] })
	d.pos = 0
	d.random, _ = d.source.MarshalBinary() // a PCG always marshals
	d.waited = 0
}

// stop ends the building of batches ahead, if any, and frees those built: the epoch was left
// before them.
func (d *epochData) stop() {
	d.built.stop()
	d.built = nil
}

// resume prepares epoch p.Epoch where p left it: after its first p.Graphs graphs, with its
// random stream where it was.
func (d *epochData) resume(p *partialEpoch) error {
	d.start(p.Epoch)
	if p.Graphs < 0 || p.Graphs > len(d.order) {
		return fmt.Errorf("%d graphs done of an epoch of %d", p.Graphs, len(d.order))
	}
	d.pos = p.Graphs
	d.random = p.Random
	return d.source.UnmarshalBinary(p.Random)
}

func (d *epochData) steps() int { return (len(d.task.Train) + d.batches.size - 1) / d.batches.size }

// name names the split in errors.
func (d *epochData) name() string { return d.task.Name + "/train" }

// next returns the next batch of the epoch; the one after it is built while the trainer runs
// this one.
func (d *epochData) next() (prefetched, error) {
	if d.pos >= len(d.order) {
		return prefetched{}, io.EOF
	}
	if d.built == nil {
		d.built = runAhead(d.batchesFrom(d.pos), prefetched.free)
	}
	began := time.Now()
	b, ok := d.built.next()
	d.waited += time.Since(began)
	if !ok { // pos < len(order): only a failed batch ends the sequence early
		return b, fmt.Errorf("training: %s: no batch after a failed one", d.name())
	}
	if b.err != nil {
		return b, fmt.Errorf("training: batch of %s: %w", d.name(), b.err)
	}
	d.pos, d.random = b.end, b.random
	if d.compiled.add(b.shapes()) {
		d.newShapeAt = time.Now()
	}
	return b, nil
}

// batchesFrom yields the epoch's batches from the training graph at from on, in order, up to
// the first that fails.
func (d *epochData) batchesFrom(from int) iter.Seq[prefetched] {
	return func(yield func(prefetched) bool) {
		for from < len(d.order) {
			b := d.build(from)
			if !yield(b) || b.err != nil {
				return
			}
			from = b.end
		}
	}
}

// build builds the batch of the training graphs from the position from, drawing from d.rng (so
// batches are built one at a time, in the order of the epoch), and records source's state
// after it.
func (d *epochData) build(from int) prefetched {
	end := min(from+d.batches.size, len(d.order))
	examples := make([]batch.Example, 0, end-from)
	for _, i := range d.order[from:end] {
		examples = append(examples, d.task.Examples[i])
	}
	var flips *rand.Rand
	if d.batches.signFlips {
		flips = d.rng
	}
	roots := func(int) *rand.Rand { return d.rng }
	var b prefetched
	if d.devices > 1 {
		var inputs, labels [][]*tensors.Tensor
		inputs, labels, _, b.err = d.batches.buildShards(examples, d.devices, roots, flips)
		if b.err == nil {
			b.dinputs, b.err = d.sharding.tensors(inputs)
		}
		if b.err == nil {
			b.dlabels, b.err = d.sharding.tensors(labels)
		}
	} else {
		b.inputs, b.labels, b.err = d.batches.build(examples, roots, flips)
		if b.err == nil && d.backend != nil {
			b.err = toDevice(d.backend, b.inputs, b.labels)
		}
	}
	b.end = end
	if b.err == nil {
		b.random, b.err = d.source.MarshalBinary()
	}
	return b
}

// toDevice copies the tensors of groups to the backend's device 0, where a training step reads
// them, as the step would (into buffers shared with the host where the backend has them: XLA's
// CPU plugin).
func toDevice(backend backends.Backend, groups ...[]*tensors.Tensor) error {
	for _, ts := range groups {
		for _, t := range ts {
			if err := t.MaterializeOnDevice(backend, true, 0); err != nil {
				return err
			}
		}
	}
	return nil
}
