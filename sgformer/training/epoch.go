package training

import (
	"time"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/train"
)

// epochSteps runs an epoch's training steps on GoMLX's train.Loop, whose OnStep hooks the other
// parts attach to (stopper, progress, partialSaves), and sums the steps' losses. GoMLX's loop
// runs one epoch at a time here: its RunEpochs would chain epochs through Dataset.Reset, with
// no hook between two to evaluate, schedule and checkpoint, and cannot start an epoch part-way
// (a run resumed within an epoch) or from its own random stream (epochData.start).
type epochSteps struct {
	loop *train.Loop
	data *epochData
	// The epoch under way: when it began and when its training steps began (earlier by the
	// time a run it resumes had spent), and the sum of its steps' losses.
	began, trainBegan time.Time
	lossSum           float64
	lossCount         int
}

// newEpochSteps returns the steps of trainer on data.
func newEpochSteps(trainer *train.Trainer, data *epochData) *epochSteps {
	s := &epochSteps{loop: train.NewLoop(trainer), data: data}
	s.loop.OnStep("epoch loss", 0, func(_ *train.Loop, m []*tensors.Tensor) error {
		s.lossSum += float64(tensors.ToScalar[float32](m[0]))
		s.lossCount++
		if !data.newShapeAt.IsZero() { // the step built, compiled and ran a new program
			data.compiled.seconds += time.Since(data.newShapeAt).Seconds()
			data.newShapeAt = time.Time{}
		}
		return nil
	})
	return s
}

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

// run runs the epoch's steps left.
func (s *epochSteps) run() error {
	if s.data.pos >= len(s.data.order) {
		return nil
	}
	var err error
	if s.data.devices > 1 { // GoMLX's RunEpochs runs single-device datasets only
		_, err = s.loop.RunSteps(shardedData{s.data}, s.data.stepsLeft())
	} else {
		_, err = s.loop.RunEpochs(s.data, 1)
	}
	return err
}

// partial returns how far the epoch under way got, for a checkpoint within it.
func (s *epochSteps) partial() *partialEpoch {
	d := s.data
	return &partialEpoch{Epoch: d.epoch, Graphs: d.pos, Random: d.random, LossSum: s.lossSum, LossCount: s.lossCount,
		Seconds: time.Since(s.began).Seconds(), TrainSeconds: time.Since(s.trainBegan).Seconds(), BatchSeconds: d.waited.Seconds()}
}

// trainLoss is the mean loss of the epoch's steps.
func (s *epochSteps) trainLoss() float64 { return s.lossSum / float64(max(s.lossCount, 1)) }

// seconds converts a number of seconds to a Duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
