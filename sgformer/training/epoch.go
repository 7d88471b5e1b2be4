package training

import (
	"fmt"
	"math"
	"time"

	"github.com/gomlx/gomlx/pkg/core/distributed"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/train"
)

// epochSteps runs an epoch's training steps: each batch through GoMLX's Trainer.TrainStep,
// then the hooks the other parts add (stopper, progress, partialSaves), and sums the steps'
// losses. A step's loss is read after the next step is launched, so that a backend whose
// launch returns before the step ends keeps its queue full (go-xla v0.1.4's Execute waits for
// the device, so on XLA the batches' transfers are what moves off the stepping goroutine:
// epochData.backend). GoMLX's train.Loop reads every step's metrics before the next (its
// postStep), and it runs datasets from their start, so the epochs here run their own steps: an
// epoch can start part-way (a run resumed within an epoch) and from its own random stream
// (epochData.start).
type epochSteps struct {
	trainer *train.Trainer
	data    *epochData
	hooks   []func() error // after each step, in the order added
	// The epoch under way: when it began and when its training steps began (earlier by the
	// time a run it resumes had spent), and the sum of its steps' losses.
	began, trainBegan time.Time
	lossSum           float64
	lossCount         int
	// pending are the metrics of the last step launched, not read yet (addPending).
	pending []*tensors.Tensor
}

// newEpochSteps returns the steps of trainer on data.
func newEpochSteps(trainer *train.Trainer, data *epochData) *epochSteps {
	return &epochSteps{trainer: trainer, data: data}
}

// onStep adds fn to the hooks called after each step.
func (s *epochSteps) onStep(fn func() error) { s.hooks = append(s.hooks, fn) }

// start prepares epoch: from its beginning, or, if p is not nil, where a checkpoint saved
// within it left it.
func (s *epochSteps) start(epoch int, p *partialEpoch) error {
	s.began = time.Now()
	s.lossSum, s.lossCount = 0, 0
	trainSoFar := time.Duration(0)
	if p == nil {
		s.data.start(epoch)
	} else {
		if err := s.data.resume(p); err != nil {
			return err
		}
		s.lossSum, s.lossCount = p.LossSum, p.LossCount
		s.began = s.began.Add(-seconds(p.Seconds))
		trainSoFar, s.data.waited = seconds(p.TrainSeconds), seconds(p.BatchSeconds)
	}
	s.trainBegan = time.Now().Add(-trainSoFar)
	return nil
}

// run runs the epoch's steps left, and waits for the last.
func (s *epochSteps) run() (err error) {
	defer func() {
		if perr := s.addPending(); err == nil {
			err = perr
		}
	}()
	for s.data.pos < len(s.data.order) {
		if err := s.step(); err != nil {
			return err
		}
		for _, hook := range s.hooks {
			if err := hook(); err != nil {
				return err
			}
		}
	}
	return nil
}

// step launches the training step of the epoch's next batch, and reads the step before's loss.
func (s *epochSteps) step() error {
	b, err := s.data.next()
	if err != nil {
		return err
	}
	var m []*tensors.Tensor
	if s.data.devices > 1 {
		m, err = s.trainer.DistributedTrainStep(distributed.AutoSharding, nil, b.spec(), b.dinputs, b.dlabels)
	} else {
		m, err = s.trainer.TrainStep(b.spec(), b.inputs, b.labels)
	}
	b.free()
	if err != nil {
		return err
	}
	if !s.data.newShapeAt.IsZero() { // the step built and compiled a new program
		s.data.compiled.seconds += time.Since(s.data.newShapeAt).Seconds()
		s.data.newShapeAt = time.Time{}
	}
	err = s.addPending()
	s.pending = m
	return err
}

// addPending adds the loss of the step last launched, if not yet added, to the epoch's; it
// waits for that step to end.
func (s *epochSteps) addPending() error {
	if s.pending == nil {
		return nil
	}
	loss := float64(tensors.ToScalar[float32](s.pending[0]))
	for _, t := range s.pending {
		t.MustFinalizeAll()
	}
	s.pending = nil
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return fmt.Errorf("training loss %v at step %d of the epoch: the run diverged (lower the learning rate?)", loss, s.lossCount+1)
	}
	s.lossSum += loss
	s.lossCount++
	return nil
}

// partial returns how far the epoch under way got, for a checkpoint within it.
func (s *epochSteps) partial() (*partialEpoch, error) {
	if err := s.addPending(); err != nil { // the losses summed up to the step saved
		return nil, err
	}
	d := s.data
	return &partialEpoch{Epoch: d.epoch, Graphs: d.pos, Random: d.random, LossSum: s.lossSum, LossCount: s.lossCount,
		Seconds: time.Since(s.began).Seconds(), TrainSeconds: time.Since(s.trainBegan).Seconds(), BatchSeconds: d.waited.Seconds()}, nil
}

// trainLoss is the mean loss of the epoch's steps.
func (s *epochSteps) trainLoss() float64 { return s.lossSum / float64(max(s.lossCount, 1)) }

// seconds converts a number of seconds to a Duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
