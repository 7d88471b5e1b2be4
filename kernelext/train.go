package kernelext

import (
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/widgets"

	"github.com/sgformer/sgformer/sgformer/task"
	"github.com/sgformer/sgformer/sgformer/training"
)

// stopper is a training.Options.Stop channel closed once, by the first of its causes: the
// Stop button, an interrupt of the kernel, or the caller's own Stop channel.
type stopper struct {
	c      chan struct{}
	once   sync.Once
	reason string
}

func newStopper() *stopper { return &stopper{c: make(chan struct{})} }

// stop closes the channel, recording why, unless it is closed already.
func (s *stopper) stop(reason string) {
	s.once.Do(func() {
		s.reason = reason
		close(s.c)
	})
}

// Train runs training.Train(ctx, task, opt) in a notebook cell with a live view of the run:
// the progress line and the curves of LiveTraining, redrawn after every epoch, and, where a
// notebook front end listens, a Stop button. Stop (or interrupting the kernel) ends the run at
// the next training step with its checkpoint saved, as opt.Stop does: Train then returns
// training.ErrInterrupted with the summary of the epochs done, and the cell shows where the
// checkpoint is and how to resume. opt's own OnEpoch, Progress and Stop still receive theirs.
// Without a front end (nbconvert, CI) there is no button and the run goes to its end.
func Train(ctx *context.Context, tk *task.Task, opt training.Options) (*training.Summary, error) {
	cfg, err := training.ReadConfig(ctx)
	if err != nil {
		return nil, err
	}
	live := LiveTraining(cfg.Metric.Name, cfg.Epochs)
	if onEpoch := opt.OnEpoch; onEpoch != nil {
		opt.OnEpoch = func(r training.Record) { onEpoch(r); live.OnEpoch(r) }
	} else {
		opt.OnEpoch = live.OnEpoch
	}
	if opt.Progress != nil {
		opt.Progress = io.MultiWriter(opt.Progress, live)
	} else {
		opt.Progress = live
	}

	stop := newStopper()
	quit := make(chan struct{})
	var wg sync.WaitGroup
	if caller := opt.Stop; caller != nil {
		wg.Go(func() {
			select {
			case <-caller:
				stop.stop("Options.Stop")
			case <-quit:
			}
		})
	}
	opt.Stop = stop.c
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	wg.Go(func() {
		select {
		case <-interrupt:
			stop.stop("the kernel was interrupted")
		case <-quit:
		}
	})

	panel := "sgformer-train-" + gonbui.UniqueId()
	if frontEnd() {
		stopButton(panel, stop, quit, &wg)
	}
	summary, err := training.Train(ctx, tk, opt)
	signal.Stop(interrupt)
	close(quit)
	wg.Wait() // every goroutine of this call has ended, the button's included
	if gonbui.IsNotebook {
		if errors.Is(err, training.ErrInterrupted) {
			live.ended("stopped (" + stop.reason + ")")
		}
		live.Finish()
		_ = updateHTML(panel, TrainOutcome(opt.Out, summary, err, stop.reason))
	}
	return summary, err
}

// stopButton shows a Stop button in the display panel; a click stops the run. The goroutine
// that waits for it ends with quit.
func stopButton(panel string, stop *stopper, quit chan struct{}, wg *sync.WaitGroup) {
	box := panel + "-box"
	if updateHTML(panel, fmt.Sprintf(`<div id="%s" class="sgformer-train-controls">Stop ends the run at the next training step and saves its checkpoint: </div>`, box)) != nil {
		return
	}
	var button *widgets.ButtonBuilder
	if !within(widgetTimeout, func() { button = widgets.Button("Stop").AppendTo(box).Done() }) {
		_ = updateHTML(panel, `<div style="color:#666">(no Stop button: the notebook front end stopped answering; interrupt the kernel to stop)</div>`)
		return
	}
	clicks := button.Listen()
	wg.Go(func() {
		defer clicks.Close()
		select {
		case <-clicks.C:
			stop.stop("Stop")
			_ = updateHTML(panel, `<div class="sgformer-train-stopping">Stopping at the next training step; the checkpoint is being saved…</div>`)
		case <-quit:
		}
	})
}

// TrainOutcome says in HTML how a run of Train ended, from the run directory out, the
// summary and error training.Train returned and what stopped it: finished (with the best
// epoch), stopped (with the checkpoint, whether it exists, and how to resume), or failed. The
// <div> carries data-outcome (finished, stopped or failed), data-run and data-checkpoint.
func TrainOutcome(out string, summary *training.Summary, err error, reason string) string {
	checkpoint := filepath.Join(out, training.CheckpointDir)
	_, statErr := os.Stat(checkpoint)
	exists := statErr == nil
	attrs := func(outcome string) string {
		return fmt.Sprintf(`class="sgformer-train-outcome" data-outcome="%s" data-run="%s" data-checkpoint="%s" data-checkpoint-exists="%s"`,
			outcome, html.EscapeString(out), html.EscapeString(checkpoint), strconv.FormatBool(exists))
	}
	switch {
	case err == nil && summary != nil:
		return fmt.Sprintf(`<div %s>Finished: %d epochs in %s; best validation %s %.4g at epoch %d (test %.4g). Run directory %s.</div>`,
			attrs("finished"), summary.Epochs, seconds(summary.Seconds), html.EscapeString(summary.Metric), summary.BestValid, summary.BestEpoch, summary.TestAtBest, html.EscapeString(Path(out)))
	case errors.Is(err, training.ErrInterrupted):
		state := "saved in " + Path(checkpoint)
		if !exists {
			state = "missing: " + Path(checkpoint) + " does not exist"
		}
		if reason == "" {
			reason = "Stop"
		}
		return fmt.Sprintf(`<div %s><b>Stopped</b> (%s): %s. The checkpoint is %s.<br>To resume, run <code>kernelext.Train(ctx, task, training.Options{Out: %s, Resume: true, Backend: be})</code>: the run continues from that step exactly as if it had not stopped.</div>`,
			attrs("stopped"), html.EscapeString(reason), html.EscapeString(err.Error()), html.EscapeString(state), html.EscapeString(strconv.Quote(out)))
	}
	msg := "no summary"
	if err != nil {
		msg = err.Error()
	}
	return fmt.Sprintf(`<div %s style="color:#b00">Training failed: %s</div>`, attrs("failed"), html.EscapeString(msg))
}
