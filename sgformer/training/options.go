package training

import (
	"io"
	"time"

	"github.com/gomlx/gomlx/backends"
)

// Options are the settings of a run that are not hyperparameters.
type Options struct {
	// Out is the run directory.
	Out     string
	Backend backends.Backend
	// Resume continues the run in Out from its last checkpoint; the hyperparameters are the
	// checkpoint's, except ParamEpochs and ParamDevices where the context sets them: to extend a
	// run, or to resume it on another number of devices (a checkpoint does not depend on it).
	Resume bool
	// Progress receives a progress bar (rate and ETA over the whole run), for a terminal; Log
	// one line per epoch, with the ETA of the run, and without Progress a line at most every
	// minute within an epoch (graphs done, rate, the epoch's ETA). Either may be nil.
	Progress, Log io.Writer
	// OnEpoch, if not nil, is called with each epoch's record once it is written (e.g. to
	// redraw a live training curve).
	OnEpoch func(Record)
	// Deadline, if not zero, ends training early, at a checkpoint: after an epoch, when another
	// as long would end after it (a job's time limit). Resume continues the run.
	Deadline time.Time
	// Stop, when closed (e.g. on Ctrl-C), ends training at the next training step, where the
	// latest checkpoint is saved (within the epoch), and Train returns ErrInterrupted with the
	// summary of the epochs done. Resume continues the run from that step.
	Stop <-chan struct{}
	// CheckpointInterval, when positive, also saves the latest checkpoint within an epoch, at
	// the first step after each such interval, so that a run killed in a long epoch (hours on a
	// CPU) loses at most that much. Resume continues from it exactly.
	CheckpointInterval time.Duration
}
