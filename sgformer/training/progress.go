package training

import (
	"cmp"
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/sgformer/sgformer/sgformer/metrics"
)

// progress tells a person how training goes (Options.Progress and Options.Log): a progress bar
// over the whole run for a terminal; one line per epoch, with the run's ETA; and without the
// bar, a line at most every interval within an epoch, with the epoch's.
type progress struct {
	bar      *progressbar.ProgressBar // nil without Options.Progress
	out, log io.Writer
	interval time.Duration // between step lines
	data     *epochData
	metric   metrics.Metric
	epochs   int
	// The run's first epoch in this process and when this process began it, for the run's ETA.
	first int
	began time.Time
	// The last step line, when this process began the epoch under way, and how many of its
	// graphs were done before.
	logged, logged0 time.Time
	startPos        int
}

// newProgress returns the progress of a run of epochs over data, of which done are done.
func newProgress(opt Options, name string, data *epochData, metric metrics.Metric, done, epochs int) *progress {
	p := &progress{out: opt.Progress, log: opt.Log, interval: cmp.Or(opt.StepLogInterval, time.Minute), data: data, metric: metric,
		epochs: epochs, first: done + 1, began: time.Now()}
	if opt.Progress != nil && done < epochs {
		p.bar = progressbar.NewOptions((epochs-done)*data.steps(),
			progressbar.OptionSetWriter(opt.Progress), progressbar.OptionSetDescription("train "+name),
			progressbar.OptionSetItsString("steps"), progressbar.OptionShowIts(), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(500*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(opt.Progress) }))
		// The clock starts now, not at the first render (after the first step), whose rate
		// would otherwise be one step over a few microseconds.
		p.bar.StartWithoutRender()
	}
	return p
}

// attach advances the bar, or writes the step lines, after each training step of steps.
func (p *progress) attach(steps *epochSteps) {
	switch {
	case p.bar != nil:
		steps.onStep(func() error { return p.bar.Add(1) })
	case p.out == nil && p.log != nil:
		steps.onStep(func() error {
			p.step()
			return nil
		})
	}
}

// step writes a step line if the last is interval old, and the epoch is not done.
func (p *progress) step() {
	d := p.data
	if now := time.Now(); now.Sub(p.logged) >= p.interval && d.pos < len(d.order) {
		p.logged = now
		rate := float64(d.pos-p.startPos) / now.Sub(p.logged0).Seconds()
		eta := time.Duration(float64(len(d.order)-d.pos) / rate * float64(time.Second)).Round(time.Second)
		fmt.Fprintf(p.log, "epoch %d: %d/%d graphs  %.3g graphs/s  epoch eta %v\n", d.epoch, d.pos, len(d.order), rate, eta)
	}
}

// logf writes a line to the log, if any.
func (p *progress) logf(format string, args ...any) {
	if p.log != nil {
		fmt.Fprintf(p.log, format, args...)
	}
}

// epochStarted starts the step lines' clock: the epoch's steps begin.
func (p *progress) epochStarted() {
	p.startPos, p.logged0, p.logged = p.data.pos, time.Now(), time.Now()
}

// epochDone writes the line of the epoch that rec records, st the run after it.
func (p *progress) epochDone(rec Record, st *state) {
	done := rec.Epoch - p.first + 1
	eta := time.Duration(float64(time.Since(p.began)) / float64(done) * float64(p.epochs-rec.Epoch)).Round(time.Second)
	p.logf("epoch %d/%d  train_loss %.4f  val %s %.4f  test %.4f  lr %.2g  %.1fs, %d new programs %.1fs  (best val %.4f at epoch %d, test %.4f)  eta %v\n",
		rec.Epoch, p.epochs, rec.TrainLoss, p.metric.Name, rec.Valid, rec.Test, rec.LR, rec.Seconds, rec.Programs, rec.CompileSeconds, st.BestValid, st.BestEpoch, st.TestAtBest, eta)
}

// endBar ends the bar's line early: the run stops before its last step.
func (p *progress) endBar() {
	if p.bar != nil {
		fmt.Fprintln(p.out)
	}
}
