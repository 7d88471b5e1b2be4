package training

import (
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
	// The run's first epoch in this process, when this process began it, and the seconds its
	// epochs spent building programs since, for the run's ETA.
	first    int
	began    time.Time
	compiled float64
	// The last step line, when this process began the epoch under way, and how many of its
	// graphs were done before.
	logged, logged0 time.Time
	startPos        int
	barred          int // the epoch's graphs the bar counts
}

// stepLogInterval is the least time between two step lines; a test shortens it.
var stepLogInterval = time.Minute

// newProgress returns the progress of a run of epochs over data, of which done are done.
func newProgress(opt Options, name string, data *epochData, metric metrics.Metric, done, epochs int) *progress {
	p := &progress{out: opt.Progress, log: opt.Log, interval: stepLogInterval, data: data, metric: metric,
		epochs: epochs, first: done + 1, began: time.Now()}
	if opt.Progress != nil && done < epochs {
		p.bar = progressbar.NewOptions((epochs-done)*len(data.task.Train),
			progressbar.OptionSetWriter(opt.Progress), progressbar.OptionSetDescription("train "+name),
			progressbar.OptionSetItsString("graphs"), progressbar.OptionShowIts(), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(500*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(opt.Progress) }))
		// The clock starts now, not at the first render (after the first step), whose rate
		// would otherwise be one step over a few microseconds.
		p.bar.StartWithoutRender()
	}
	return p
}

// attach advances the bar by the step's graphs, or writes the step lines, after each training
// step of steps.
func (p *progress) attach(steps *epochSteps) {
	switch {
	case p.bar != nil: // in graphs, the unit of the step lines and the benchmarks
		steps.onStep(func() error {
			n := p.data.pos - p.startPos - p.barred
			p.barred += n
			return p.bar.Add(n)
		})
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
	p.startPos, p.logged0, p.logged, p.barred = p.data.pos, time.Now(), time.Now(), 0
}

// epochDone writes the line of the epoch that rec records, st the run after it. The ETA is the
// epochs' mean time so far times the epochs left, without the time spent building programs:
// the first epoch builds most of a run's (one per batch shape), and the epochs after it reuse
// them.
func (p *progress) epochDone(rec Record, st *state) {
	done := rec.Epoch - p.first + 1
	p.compiled += rec.CompileSeconds
	perEpoch := max(time.Since(p.began).Seconds()-p.compiled, 0) / float64(done)
	eta := time.Duration(perEpoch * float64(p.epochs-rec.Epoch) * float64(time.Second)).Round(time.Second)
	p.logf("epoch %d/%d  train_loss %.4f  val %s %.4f  test %.4f  lr %.2g  %.1fs, %d new programs %.1fs  (best val %.4f at epoch %d, test %.4f)  eta %v\n",
		rec.Epoch, p.epochs, rec.TrainLoss, p.metric.Name, rec.Valid, rec.Test, rec.LR, rec.Seconds, rec.Programs, rec.CompileSeconds, st.BestValid, st.BestEpoch, st.TestAtBest, eta)
}

// endBar ends the bar's line early: the run stops before its last step.
func (p *progress) endBar() {
	if p.bar != nil {
		fmt.Fprintln(p.out)
	}
}
